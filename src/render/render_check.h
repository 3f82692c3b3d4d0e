/* render_check.h: a correctness run (schema "gpuval-run/1", from gpuval check) as HTML and as
 * Markdown (render_check.c): device, summary, and per operation its cases' table and a chart of
 * accurate bits per case against the tolerance tiers. */
#ifndef GV_RENDER_CHECK_H
#define GV_RENDER_CHECK_H

#include <jansson.h>
#include <stdio.h>

void gv_render_check_html(FILE *f, const json_t *doc);
void gv_render_check_md(FILE *f, const json_t *doc);

#endif
