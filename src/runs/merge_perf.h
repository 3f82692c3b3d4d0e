/* merge_perf.h: bench or tradeoffs runs of several GPUs merged into one view
 * (merge_perf.c); `gpuval merge` and `bench`/`tradeoffs --device LIST` use it. */
#ifndef GV_FLEET_PERF_MERGE_H
#define GV_FLEET_PERF_MERGE_H

#include <jansson.h>
#include <stdio.h>
#include "io/schemas.h"

/* Merge n gpuval-bench/1 or n gpuval-tradeoffs/1 documents (one schema; names: their files).
 * Prints the device table and the case table to out; *fleet (if not NULL) receives the
 * gpuval-fleet-perf/1 document, *md (if not NULL) the tables as Markdown (malloc'ed). Returns
 * the exit code: 1 a case failed (sanity, or a tradeoffs verdict) on some device, 3 an ERROR,
 * 77 nothing judged and no device in any run, 6 a deterministic tradeoffs row whose accurate
 * bits or output digest differ between devices of one model, else 0. SLOW is a flag only. */
int gv_fleet_perf_merge(json_t *const *docs, const char *const *names, int n, FILE *out,
                        json_t **fleet, char **md);

#endif
