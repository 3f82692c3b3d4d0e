/* render_tradeoffs.h: an accuracy/speed trade-off run (schema "gpuval-tradeoffs/1") as HTML
 * and as Markdown (render_tradeoffs.c): per group (one op, shape, input distribution) a scatter
 * of accurate bits against median time with the Pareto front, the tiers and the table; and the
 * fp64 emulation's accurate bits against its mantissa bits where rows carry "mantissa_bits". */
#ifndef GV_RENDER_TRADEOFFS_H
#define GV_RENDER_TRADEOFFS_H

#include <jansson.h>
#include <stdio.h>

void gv_render_tradeoffs_html(FILE *f, const json_t *doc);
void gv_render_tradeoffs_md(FILE *f, const json_t *doc);

#endif
