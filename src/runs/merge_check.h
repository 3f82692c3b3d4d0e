/* merge_check.h: many run files of one selection (one per GPU of a node, or one per rank of a
 * launch) as one fleet: each case's verdict on every device, whether the devices agree bit
 * for bit, which device is the outlier, and which GPU is slower than its node's median
 * (merge_check.c). `gpuval merge` and `gpuval check --device LIST` both use it. */
#ifndef GV_FLEET_MERGE_H
#define GV_FLEET_MERGE_H

#include <jansson.h>
#include <stdio.h>

#include "core/gv.h" /* gv_status, gv_error */
#include "io/schemas.h"

/* A GPU whose summed case time exceeds its node's median by more than this is flagged slow. */
#define GV_FLEET_SLOW_FRACTION 0.10

/* Two GPUs (or an even split) that differ: the nearer class is the reference only where the
   other's largest error in ulps is at least this many times its own (merge_check.c). */
#define GV_FLEET_DECISIVE 2.0

/* Merge n gpuval-run/1 documents (names: their files, for messages). Prints the device table,
 * the case table (quiet: only the cases that did not agree or did not pass) and the outliers
 * to out; *fleet (if not NULL) receives the gpuval-fleet/1 document and *md (if not NULL) a
 * Markdown rendering (malloc'ed); the summary's exit_code is the command's to add. Returns the
 * status: FAIL a case failed on some device, RUNTIME an ERROR, NODEV nothing judged on any
 * device and none present, OUTLIER a device's output differs from the others' on a
 * deterministic op, else OK; BAD_INPUT (e says why) for more runs than it merges. */
gv_status gv_fleet_merge(json_t *const *docs, const char *const *names, int n, int quiet,
                         FILE *out, json_t **fleet, char **md, gv_error *e);

#endif
