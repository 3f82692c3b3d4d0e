/* run_info.h: where a run ran, beyond the device fingerprint — the device's index on its
 * host, the launcher's rank and local rank, the host name, the PCIe link and clocks — and the
 * launcher's variables read into a rank (run_info.c). Every run file records it, so that
 * `gpuval merge` can tell the GPUs of a node and of a fleet apart. */
#ifndef GV_FLEET_INFO_H
#define GV_FLEET_INFO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../../kernels/gk.h"
#include "core/power.h"

/* A process's place in a launch: -1 where the launcher does not say. */
typedef struct gv_rank {
    int rank, local_rank, world_size;
    const char *launcher; /* "openmpi", "slurm", "pmi"; NULL: not launched as a rank */
} gv_rank;

/* The rank from a launcher's variables, read through get (getenv, or a table in the tests),
 * first match wins: Open MPI (OMPI_COMM_WORLD_RANK, _LOCAL_RANK, _SIZE), Slurm (SLURM_PROCID,
 * SLURM_LOCALID, SLURM_NTASKS), PMI (PMI_RANK, MPI_LOCALRANKID, PMI_SIZE). Returns 0 (none:
 * out->launcher NULL, all -1), 1 (found), or -1 when a variable is set but is not a
 * non-negative decimal integer (why in err). */
int gv_rank_parse(const char *(*get)(const char *name), gv_rank *out, char *err, size_t len);

/* The device a rank uses: its local rank when the node shows several devices (one GPU per
 * rank), device 0 when it shows one (the launcher bound the GPU, e.g. through
 * CUDA_VISIBLE_DEVICES), 0 when the local rank is unknown. -1 (why in err) when the local
 * rank names a device that is not there. n_devices > 0. */
int gv_rank_device(const gv_rank *r, int n_devices, char *err, size_t len);

/* A per-rank output path: "%r" in path becomes the rank (every occurrence); without one,
 * ".rankN" goes before a final ".json", or at the end. "-" (stdout) stays. Returns out, or
 * NULL when it does not fit in len. */
char *gv_rank_path(const char *path, int rank, char *out, size_t len);

typedef struct gv_fleet_info {
    bool recorded;
    int device_index, device_count; /* -1 / 0 without a device */
    gv_rank rank;
    char host[256];
    gv_link link;
} gv_fleet_info;

/* Fill f for the current device (dev: its fingerprint, NULL without one; device_count and
 * device_index as the device query found them, in whichever process made it) and the
 * launcher variables of the environment (a malformed one is recorded as absent). No CUDA
 * call: check's parent process must never initialise CUDA (its children are forked). */
void gv_fleet_info_fill(gv_fleet_info *f, const gk_device_info *dev, int device_count,
                        int device_index);
/* {"host", "device_index", "device_count", "rank", "local_rank", "world_size", "launcher",
 *  "pcie": {"gen", "width", "gen_max", "width_max"} | null, "sm_clock_mhz",
 *  "sm_clock_max_mhz"}; null when f was never filled. */
json_t *gv_fleet_info_json(const gv_fleet_info *f);

#endif
