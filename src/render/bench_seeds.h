/* bench_seeds.h: a timed run printed in the layouts of the seeds it answers (bench_seeds.c),
 * for `gpuval bench --preset seed002` and `--preset seed000`, from the gpuval-bench/1 document.
 * Terminal text, like bench_text.h. */
#ifndef GV_BENCH_SEEDS_H
#define GV_BENCH_SEEDS_H

#include <jansson.h>
#include <stdio.h>

/* Seed 002's layout per dtype: MATMUL -> SUM, EINSUM, BEST TIMES, with the 1e-8 / 1e-4
 * verdicts of the judged outputs. Seed 000's: vadd sizes and sin iterations, crossover. */
void gv_bench_render_seed002(FILE *f, const json_t *doc);
void gv_bench_render_seed000(FILE *f, const json_t *doc);

#endif
