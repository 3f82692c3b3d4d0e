/* merge_perf.h: bench or tradeoffs runs of several GPUs merged into one view
 * (merge_perf.c); `gpuval merge` and `bench`/`tradeoffs --device LIST` use it. */
#ifndef GV_FLEET_PERF_MERGE_H
#define GV_FLEET_PERF_MERGE_H

#include <jansson.h>
#include <stdio.h>

#include "core/gv.h" /* gv_status, gv_error */
#include "io/schemas.h"

/* Merge n gpuval-bench/1 or n gpuval-tradeoffs/1 documents (one schema; names: their files).
 * Prints the device table and the case table to out; *fleet (if not NULL) receives the
 * gpuval-fleet-perf/1 document (its summary's exit_code is the command's to add), *md (if not
 * NULL) the tables as Markdown (malloc'ed). Returns the status: FAIL a case failed (sanity, or
 * a tradeoffs verdict) on some device, RUNTIME an ERROR, NODEV nothing judged and no device in
 * any run, OUTLIER a deterministic tradeoffs row whose accurate bits or output digest differ
 * between devices of one model, else OK; BAD_INPUT (e says why) for a count out of range or
 * documents of mixed kinds. SLOW is a flag only. */
gv_status gv_fleet_perf_merge(json_t *const *docs, const char *const *names, int n, FILE *out,
                              json_t **fleet, char **md, gv_error *e);

#endif
