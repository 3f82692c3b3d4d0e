/* merge_coll.h: `gpuval merge` of the per-rank files of `gpuval collectives` run as the ranks
 * of an MPI job (merge_coll.c). */
#ifndef GV_COLL_MERGE_H
#define GV_COLL_MERGE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/gv.h" /* gv_status, gv_error */

/* Whether the file at path is a gpuval-collectives/1 document (false for anything else,
 * unreadable files included: gv_fleet_load then says why). */
bool gv_coll_merge_is_collectives(const char *path);

/* Merge n gpuval-collectives/1 files of one job, one per rank: each collective's verdict,
 * #wrong and median time on every rank, the job's figures recomputed from them (verdict the
 * worst, #wrong the sum, time the slowest rank's, algbw and busbw from it), and each rank's
 * summed time against the ranks' median (more than GV_FLEET_SLOW_FRACTION over: SLOW, a flag
 * only). Printed to out. Returns the status: BAD_INPUT (e says why) for files that are not one
 * job's ranks (a rank missing or twice, different runs, unreadable), RUNTIME out of memory,
 * else as gv_run_status. */
gv_status gv_coll_merge(const char *const *paths, int n, bool quiet, FILE *out, gv_error *e);

#endif
