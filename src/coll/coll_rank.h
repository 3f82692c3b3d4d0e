/* coll_rank.h: `gpuval collectives` as the ranks of an MPI job, one GPU each (coll_rank.c). */
#ifndef GV_COLL_RANK_H
#define GV_COLL_RANK_H

#include "coll/coll_rows.h"
#include "io/run_info.h"

/* Run plan p as the rank that launch describes (launch->launcher set; its world size not 1):
 * MPI started here and finished before the return; every line is printed through table (rank 0
 * prints the table; each rank its own SKIP and errors). Returns the status, the same on every
 * rank (NODEV: nothing could run; e's message, where a rank has one, is that rank's to print). */
gv_status gv_coll_run_ranks(const gv_coll_plan *p, const gv_coll_table *table,
                            const gv_rank *launch, gv_error *e);

#endif
