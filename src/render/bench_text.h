/* bench_text.h: the terminal printer of a timed run (bench_text.c): the table (a header, one row
 * per case, units in headers, the sanity verdict last), the ceilings, the crossover sweeps, the
 * targets and the repeat check. Each is made from the gpuval-bench/1 document (bench_json.h);
 * the rows and the ceilings also from their structs, printed while the run goes on, with the
 * same text. The seeds' own layouts are in bench_seeds.h. */
#ifndef GV_BENCH_TEXT_H
#define GV_BENCH_TEXT_H

#include <jansson.h>
#include <stdio.h>

#include "bench/bench_result.h"

void gv_bench_render_header(FILE *f);
void gv_bench_render_row(FILE *f, const json_t *case_obj);
/* The same row from the case's struct, printed while the run goes on. */
void gv_bench_render_row_result(FILE *f, const gv_bench_case_result *r);
/* The ceilings' lines from their struct, printed before the cases. */
void gv_bench_render_ceilings_of(FILE *f, const gv_ceilings *c, double conf);
void gv_bench_render_ceilings(FILE *f, const json_t *doc);
/* One sweep of the document's "crossovers": its points and what they say. */
void gv_bench_render_crossover(FILE *f, const json_t *xo);
void gv_bench_render_targets(FILE *f, const json_t *doc);
void gv_bench_render_repeat(FILE *f, const json_t *doc);
/* What every op's GB/s and %copy count: one line per op that states a byte model of its own
 * (the cases' "bytes_model"), then one line that names the ops with the plain count
 * (GV_BYTES_PLAIN; "bytes_model" null). Ops whose cases count no bytes are left out. */
#define GV_BYTES_PLAIN                                                                             \
    "every input read once and every output written once, the least any kernel of the op must "    \
    "move"
void gv_bench_render_bytes_models(FILE *f, const json_t *doc);

#endif
