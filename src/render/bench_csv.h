/* bench_csv.h: the CSV printer of a timed run (bench_csv.c): one header line, then one line
 * per case and per crossover point, every field of the gpuval-bench/1 document a spreadsheet
 * wants (RFC 4180 quoting). */
#ifndef GV_BENCH_CSV_H
#define GV_BENCH_CSV_H

#include <jansson.h>
#include <stdio.h>

void gv_bench_render_csv(FILE *f, const json_t *doc);

#endif
