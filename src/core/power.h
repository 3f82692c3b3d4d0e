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

#endif
