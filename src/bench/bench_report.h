/* bench_report.h: every rendering of a timed run's JSON document (bench_json.h), made from
 * the document alone in bench_report.c (the table's rows and the ceilings also from their
 * structs, printed while a run goes on): the terminal table, CSV, Markdown, the ceilings, the
 * crossover sweeps, the targets, the repeat check, and the seeds' own layouts. */
#ifndef GV_BENCH_REPORT_H
#define GV_BENCH_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "bench/bench_json.h"

/* ---- rendering (bench_report.c) ---- */

void gv_bench_render_header(FILE *f);
void gv_bench_render_row(FILE *f, const json_t *case_obj);
/* The same row from the case's struct, printed while the run goes on. */
void gv_bench_render_row_result(FILE *f, const gv_bench_case_result *r);
/* The ceilings' lines from their struct, printed before the cases. */
void gv_bench_render_ceilings_of(FILE *f, const gv_ceilings *c, double conf);
void gv_bench_render_ceilings(FILE *f, const json_t *doc);
void gv_bench_render_crossover(FILE *f, const json_t *xo);
void gv_bench_render_targets(FILE *f, const json_t *doc);
void gv_bench_render_repeat(FILE *f, const json_t *doc);
/* Seed 002's layout per dtype: MATMUL -> SUM, EINSUM, BEST TIMES, with the 1e-8 / 1e-4
 * verdicts of the judged outputs. Seed 000's: vadd sizes and sin iterations, crossover. */
void gv_bench_render_seed002(FILE *f, const json_t *doc);
void gv_bench_render_seed000(FILE *f, const json_t *doc);
void gv_bench_render_csv(FILE *f, const json_t *doc);
void gv_bench_render_md(FILE *f, const json_t *doc);

typedef enum gv_bench_format { GV_FMT_JSON, GV_FMT_CSV, GV_FMT_MD } gv_bench_format;
/* Write path through gv_write_file (outfile.h: a temporary beside it, then a rename); GV_OK or
 * GV_EIO (errno says why). */
int gv_bench_write(const char *path, gv_bench_format fmt, const json_t *doc);

#endif
