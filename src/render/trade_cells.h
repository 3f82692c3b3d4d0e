/* trade_cells.h: the cells of a trade-off row and the notes under a group's table
 * (trade_cells.c), read from a group of the gpuval-tradeoffs/1 document, for both printers of
 * it: the terminal table (trade_text.h) and the Markdown (render_tradeoffs.h). */
#ifndef GV_TRADE_CELLS_H
#define GV_TRADE_CELLS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* The table's columns; from GV_TRADE_FIRST_NUM on they hold numbers (right-aligned). */
enum { GV_TRADE_NCOL = 18, GV_TRADE_CELL = 64, GV_TRADE_FIRST_NUM = 6 };
extern const char *const gv_trade_col_names[GV_TRADE_NCOL];

/* Row row of group as text: op, size, dtype, mode, math mode, verdict, bits (measured), the
 * width the mode claims, the share of outputs correctly rounded (against an exact reference; "-"
 * without one), R_max, R_rms,
 * "median [lo, hi]" (marked " !throttled" when NVML saw a slowdown), the two speed-ups, J/call
 * and the Pareto mark; "-" for what was not measured. */
void gv_trade_cells(const json_t *group, const json_t *row, char c[GV_TRADE_NCOL][GV_TRADE_CELL]);

/* The notes under a group's table: why each row did not pass or was not timed, then each model
 * flag as a warning. md: Markdown list items after a blank line; else lines indented by two. */
void gv_trade_notes(FILE *f, const json_t *group, bool md);

#endif
