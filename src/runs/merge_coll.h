/* merge_coll.h: `gpuval merge` of the per-rank files of `gpuval collectives` run as the ranks
 * of an MPI job (merge_coll.c). */
#ifndef GV_COLL_MERGE_H
#define GV_COLL_MERGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/gv.h" /* gv_status, gv_error */

/* Whether the file at path is a gpuval-collectives/1 document (false for anything else,
 * unreadable files included: gv_fleet_load then says why). */
bool gv_coll_merge_is_collectives(const char *path);

/* One collective of the merged job: rank 0's row (collective, dtype, bytes_per_rank) and the
 * job's figures recomputed from every rank's (verdict the worst, #wrong the sum, busbw from the
 * slowest rank's time; NAN where it has none). */
typedef struct gv_coll_merged_row {
    const json_t *row0;
    gv_verdict verdict;
    double wrong, busbw;
} gv_coll_merged_row;

/* A merged job: its n ranks' documents (rank r's at docs[r]), its rows, each rank's cell of
 * each row as its file holds it (row k, rank r at [k * n + r]: the verdict, NAN-or-not #wrong
 * and median time), each rank's summed time against the ranks' median (have_median false
 * where it could not be taken) and the rows' counts by the job's verdict. */
typedef struct gv_coll_merged {
    bool merged; /* the rows below are set: the table can be printed */
    int n;
    json_t **docs;
    size_t n_rows;
    gv_coll_merged_row *rows;
    gv_verdict *cell_verdict;
    double *cell_wrong, *cell_ms;
    double *rank_ms, median;
    bool have_median, *slow;
    int n_slow;
    int pass, fail, skip, error;
} gv_coll_merged;

/* Merge n gpuval-collectives/1 files of one job, one per rank, into *m: each collective's
 * verdict, #wrong and median time on every rank, the job's figures recomputed from them, and
 * each rank's summed time against the ranks' median (more than GV_FLEET_SLOW_FRACTION over:
 * SLOW, a flag only). render/coll_text.h prints it. Returns the status: BAD_INPUT (e says
 * why) for files that are not one job's ranks (a rank missing or twice, different runs,
 * unreadable), RUNTIME out of memory, else as gv_run_status. gv_coll_merged_free(m) after,
 * whatever the status. */
gv_status gv_coll_merge(const char *const *paths, int n, gv_coll_merged *m, gv_error *e);
void gv_coll_merged_free(gv_coll_merged *m);

#endif
