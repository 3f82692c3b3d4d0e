/* run_text.h: check's table on the terminal (run_text.c): its header, a case's row as
 * io/run_doc.h formats it, the count, and the device block of `gpuval info`. check, judge,
 * replay and screen print through it. */
#ifndef GV_RUN_TEXT_H
#define GV_RUN_TEXT_H

#include <stdio.h>

#include "io/run_doc.h"

void gv_table_header(FILE *f);
/* The row (gv_table_row_text) and its newline. */
void gv_table_row(FILE *f, const gv_result *r);

/* The width a row fits on a terminal by default (check, judge, replay: -w keeps each row one
 * line, as a file or a pipe always gets it). */
#define GV_ROW_COLS 160
/* Continuation lines of a wrapped row start with this many spaces: under the op column, so the
 * next case's name stands out. */
#define GV_ROW_INDENT 6
/* gv_table_row fitted to cols columns: the row as it is when it fits; otherwise its tail (the
 * reason and the notes) carried onto continuation lines at spaces, each at most cols columns
 * (a word longer than a line is cut). cols <= 0: one line, as gv_table_row. */
void gv_table_row_fit(FILE *f, const gv_result *r, int cols);
/* The same for one line of text (no newline in it): written with its newline(s). Columns are
 * counted in UTF-8 characters, and a character is never split. */
void gv_wrap_row(FILE *f, const char *line, int cols);

void gv_summary_print(FILE *f, const gv_summary *s);

/* The device fingerprint as a JSON-free text block, for `gpuval info`. */
void gv_device_print(FILE *f, const gk_device_info *d);

#endif
