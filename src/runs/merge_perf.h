/* merge_perf.h: bench or tradeoffs runs of several GPUs merged into one view
 * (merge_perf.c; render/merge_text.h prints it); `gpuval merge` and `bench`/`tradeoffs --device
 * LIST` use it. */
#ifndef GV_FLEET_PERF_MERGE_H
#define GV_FLEET_PERF_MERGE_H

#include <jansson.h>
#include <stdbool.h>

#include "core/gv.h" /* gv_status, gv_error */
#include "io/schemas.h"
#include "runs/run_files.h" /* GV_FLEET_MAX_DEVICES */

/* One bench case or tradeoffs row of one run. */
typedef struct gv_pf_item {
    const json_t *src;     /* the case, or the row */
    const json_t *timings; /* bench: the case's "timings"; tradeoffs: NULL */
    const json_t *median;  /* the recorded numbers, copied into the merged document as they are */
    json_t *ci;            /* [lo, hi] (a new array of the recorded values), or NULL */
    const json_t *clocks;  /* {sm_mhz_before, sm_mhz_after, throttle_reasons, throttled} */
    const char *verdict;
    const json_t *bits, *normwise, *hash;
    bool deterministic;
    double ms; /* NaN: not timed */
    double vs; /* ms / the node's median - 1; NaN: fewer than two devices timed it */
    bool slow;
    bool outlier;
} gv_pf_item;

typedef struct gv_pf_dev {
    const json_t *doc;
    char label[96], host[128], model[400];
    int timed, slow_cases;
    double log_ratio_sum;
    int n_ratios;
} gv_pf_dev;

/* One identity across the runs. */
typedef struct gv_pf_key {
    char key[320], label[200];
    const char *scope; /* bench: the timing scope compared */
    gv_pf_item dev[GV_FLEET_MAX_DEVICES];
    bool present[GV_FLEET_MAX_DEVICES];
    bool deterministic, compared, differ, undecided;
    char agreement[160];
} gv_pf_key;

/* The merge, for render/merge_text.h to print: the devices, every identity in the order first
   met, the counts and the notes. It points into the run documents, which outlive it. */
typedef struct gv_perf_merged {
    bool trade; /* tradeoffs, else bench */
    int n;
    gv_pf_dev devs[GV_FLEET_MAX_DEVICES];
    gv_pf_key *keys;
    int n_keys, cap;
    int differ, slow_flags; /* rows that differ between devices; slow flags */
    json_t *notes;          /* array of strings: slow devices, rows that differ */
} gv_perf_merged;

/* Merge n gpuval-bench/1 or n gpuval-tradeoffs/1 documents (one schema; names: their files) into
 * *merged (gv_perf_merged_free after; NULL when nothing was merged); *fleet (if not NULL)
 * receives the gpuval-fleet-perf/1 document (its summary's exit_code is the command's to add).
 * Returns the status: FAIL a case failed (sanity, or a tradeoffs verdict) on some device,
 * RUNTIME an ERROR, NODEV nothing judged and no device in any run, OUTLIER a deterministic
 * tradeoffs row whose accurate bits or output digest differ between devices of one model, else
 * OK; BAD_INPUT (e says why) for a count out of range or documents of mixed kinds. SLOW is a
 * flag only. */
gv_status gv_fleet_perf_merge(json_t *const *docs, const char *const *names, int n,
                              gv_perf_merged **merged, json_t **fleet, gv_error *e);
void gv_perf_merged_free(gv_perf_merged *m);

#endif
