/* render_tradeoffs.h: an accuracy/speed trade-off run (schema "gpuval-tradeoffs/1") for people
 * (render_tradeoffs.c). The HTML page: per group (one op, shape, input distribution) a scatter
 * of accurate bits against median time with the Pareto front, the tiers and the table; and the
 * fp64 emulation's accurate bits against its mantissa bits where rows carry "mantissa_bits".
 * The Markdown, the one printer of `gpuval tradeoffs --md` and `gpuval report TRADE.json --md`:
 * the device, per group the terminal table's columns with the normwise error and the tiers met,
 * the notes of the rows that did not pass or were not timed and the model flags, and the
 * counts. The terminal printer is trade_text.h. */
#ifndef GV_RENDER_TRADEOFFS_H
#define GV_RENDER_TRADEOFFS_H

#include <jansson.h>
#include <stdio.h>

void gv_render_tradeoffs_html(FILE *f, const json_t *doc);
void gv_render_tradeoffs_md(FILE *f, const json_t *doc);

#endif
