/* power.h: what the board reports about itself while gpuval times it, through NVML (loaded at
 * run time with dlopen, so neither the build nor a machine without the driver needs it):
 * the energy counter, the SM clock and the reasons the clocks are held down (power.c). */
#ifndef GV_POWER_H
#define GV_POWER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gv_power {
    bool ok;                     /* the read succeeded; otherwise why says what is missing */
    double energy_j;             /* total energy since the driver loaded, J */
    unsigned sm_clock_mhz;       /* current SM clock */
    unsigned long long throttle; /* NVML clocks-event reasons (bit mask) */
    char why[128];
} gv_power;

/* The NVML reasons that slow the clocks below what the work asks for: software power cap,
   hardware slowdown, thermal (software and hardware), power brake. Idle and application
   clock settings are not among them. */
#define GV_THROTTLE_SLOWDOWN_MASK 0xECull

/* Read the board of the device with this UUID (gk_device_info.uuid, without "GPU-"). */
void gv_power_read(const char *uuid, gv_power *out);

/* The board around one timed pass: SM clock before and after, the clocks-event reasons seen
   at either read, and whether one of them slows the clocks (GV_THROTTLE_SLOWDOWN_MASK): a
   time taken then is marked. ok false (with why) when either read failed. */
typedef struct gv_clocks {
    bool ok;
    unsigned sm_mhz_before, sm_mhz_after;
    unsigned long long throttle;
    bool throttled;
    char why[128];
} gv_clocks;
void gv_clocks_from(const gv_power *before, const gv_power *after, gv_clocks *c);

/* The names of the slowdown reasons in mask ("sw power cap, hw thermal"), "" if none. */
char *gv_throttle_names(unsigned long long mask, char *buf, size_t len);

/* The board's link and clocks, for telling a slow GPU's cause in a fleet: the PCIe link it
   trained to and the one it can reach (a x8 or Gen3 link where x16 Gen5 is possible halves
   host transfers), the SM clock now and its maximum. Fields NVML does not answer stay 0. */
typedef struct gv_link {
    bool ok; /* NVML knew the device; otherwise why says what is missing */
    unsigned pcie_gen, pcie_width, pcie_gen_max, pcie_width_max;
    unsigned sm_clock_mhz, sm_clock_max_mhz;
    char why[128];
} gv_link;

/* Read the link and clocks of the device with this UUID (without "GPU-"). */
void gv_link_read(const char *uuid, gv_link *out);

/* The board's health around a screen (gpuval screen): the counters that say a GPU's memory or
   engine is failing whatever its numbers show. Each group is read where the board answers it
   (have_*): a board without ECC, or an NVML without row remapping, leaves it false. */
typedef struct gv_health {
    bool ok; /* NVML knew the device; otherwise why says what is missing */
    bool have_ecc;
    unsigned long long ecc_vol_corrected, ecc_vol_uncorrected; /* since the driver loaded */
    unsigned long long ecc_agg_corrected, ecc_agg_uncorrected; /* over the board's life */
    bool have_remap; /* row remapping (A100 and later): rows remapped, one waiting, failed */
    unsigned remap_corrected, remap_uncorrected, remap_pending, remap_failure;
    bool have_retired; /* page retirement (before A100): a retirement waiting for a reset */
    unsigned retired_pending;
    unsigned sm_clock_mhz, sm_clock_max_mhz, temp_c;
    unsigned power_mw;
    unsigned long long throttle; /* clocks-event reasons now */
    char why[128];
} gv_health;

/* Read the health of the device with this UUID (without "GPU-"). */
void gv_health_read(const char *uuid, gv_health *out);

/* Critical XID events (nvmlEventTypeXidCriticalError) of one device while a screen runs:
   registered before its cases, collected after. At most GV_XID_MAX codes are kept. */
#define GV_XID_MAX 16
typedef struct gv_xid_watch gv_xid_watch;
/* NULL (with why) where NVML cannot watch the device: the screen then says so. */
gv_xid_watch *gv_xid_watch_start(const char *uuid, char *why, size_t len);
/* The events since start (codes into xid[], their number returned, counting past GV_XID_MAX);
   frees w. */
int gv_xid_watch_stop(gv_xid_watch *w, unsigned long long xid[GV_XID_MAX]);

/* The health rule, apart from the reads so that tests can plant any board: a GPU fails when
   either snapshot shows an uncorrected volatile ECC error, the uncorrected aggregate count grew
   during the screen, a remapped row is pending or remapping failed, a page retirement is
   pending, or a critical XID event came during the screen. fail[] receives the reasons ("" if
   none); warn[] what an operator should see without failing the GPU (corrected errors that
   grew, clocks held down by a hardware, thermal or power-brake reason). Returns whether it
   fails. */
bool gv_health_judge(const gv_health *before, const gv_health *after,
                     const unsigned long long *xid, int n_xid, char *fail, size_t flen,
                     char *warn, size_t wlen);

#endif
