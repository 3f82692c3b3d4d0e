/* coll_text.h: the terminal tables of `gpuval collectives` (coll_text.c): one line per row of
 * coll/coll_rows.h, printed as each row is judged, by the command and (through gv_coll_table)
 * by rank 0 of an MPI job; and the merge of such a job's rank files (runs/merge_coll.h). */
#ifndef GV_COLL_TEXT_H
#define GV_COLL_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "coll/coll_rows.h"
#include "runs/merge_coll.h"

/* The header line, then one line per row on stdout (flushed: a long row shows when done). */
void gv_coll_print_header(void);
void gv_coll_print_row(const gv_coll_row *row);

/* The two above as the MPI driver's table (coll_rank.h). */
extern const gv_coll_table gv_coll_text_table;

/* `gpuval merge` of an MPI job's rank files (m merged): the ranks' hosts and devices, one line
 * per collective (each rank's verdict, #wrong and time, then the job's; quiet: the rows not
 * PASS only), each rank's summed time against the ranks' median, and the counts. */
void gv_coll_merge_print(FILE *out, const gv_coll_merged *m, bool quiet);

#endif
