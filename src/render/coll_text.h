/* coll_text.h: the terminal table of `gpuval collectives` (coll_text.c): one line per row of
 * coll/coll_rows.h, printed as each row is judged, by the command and (through gv_coll_table)
 * by rank 0 of an MPI job. */
#ifndef GV_COLL_TEXT_H
#define GV_COLL_TEXT_H

#include "coll/coll_rows.h"

/* The header line, then one line per row on stdout (flushed: a long row shows when done). */
void gv_coll_print_header(void);
void gv_coll_print_row(const gv_coll_row *row);

/* The two above as the MPI driver's table (coll_rank.h). */
extern const gv_coll_table gv_coll_text_table;

#endif
