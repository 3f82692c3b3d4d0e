/* render_bench.h: a timed run (schema "gpuval-bench/1", from gpuval bench) for people
 * (render_bench.c). The HTML page: device, ceilings, the timed cases, and per crossover sweep a
 * chart of the GPU's speed-up against size with the crossover marked. The Markdown, the one
 * printer of `gpuval bench --md` and `gpuval report BENCH.json --md`: device, host, ceilings,
 * the cases' table, each sweep's table with what it found, and the targets. The terminal
 * printer is bench_text.h, the CSV printer bench_csv.h. */
#ifndef GV_RENDER_BENCH_H
#define GV_RENDER_BENCH_H

#include <jansson.h>
#include <stdio.h>

void gv_render_bench_html(FILE *f, const json_t *doc);
void gv_render_bench_md(FILE *f, const json_t *doc);

#endif
