/* render_bench.h: a timed run (schema "gpuval-bench/1", from gpuval bench) as HTML and as
 * Markdown (render_bench.c): device, ceilings, the timed cases, and per crossover sweep a chart
 * of the GPU's speed-up against size with the crossover marked. */
#ifndef GV_RENDER_BENCH_H
#define GV_RENDER_BENCH_H

#include <jansson.h>
#include <stdio.h>

void gv_render_bench_html(FILE *f, const json_t *doc);
void gv_render_bench_md(FILE *f, const json_t *doc);
/* The Markdown of `gpuval bench --md` (bench_files.h): host, ceilings, the terminal table's
 * cells per case and per sweep point, each sweep's and the targets' terminal text. */
void gv_bench_render_md(FILE *f, const json_t *doc);

#endif
