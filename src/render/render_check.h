/* render_check.h: a correctness run (schema "gpuval-run/1", from gpuval check) as HTML and as
 * Markdown (render_check.c): the failures first (each failing case, its reason and its worst
 * element; one line when none), then device and summary, and per operation its cases' table
 * and a chart of each case's verdict margin (its ratio over its bound; accurate bits against
 * the tiers for a document that carries no ratio). */
#ifndef GV_RENDER_CHECK_H
#define GV_RENDER_CHECK_H

#include <jansson.h>
#include <stdio.h>

void gv_render_check_html(FILE *f, const json_t *doc);
void gv_render_check_md(FILE *f, const json_t *doc);

#endif
