/* bench_cells.h: the formatted numbers of a timed case (bench_cells.c), one formatter for every
 * printer of a gpuval-bench/1 document: the terminal table and the crossover and seed layouts
 * (bench_text.c, bench_seeds.c) and the Markdown tables (render_bench.c). A row's numbers are
 * read from the case's JSON, or from its struct while the run goes on; both give the same
 * text. */
#ifndef GV_BENCH_CELLS_H
#define GV_BENCH_CELLS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "bench/bench_result.h"

/* "%.*g" of x into buf, or "-" when x is not a number; returns buf. */
const char *gv_bench_fmt_g(char *buf, size_t len, double x, int digits);
/* A whole number read back as a double (gv_jnum: NaN when absent): "nan", "inf", "-inf" when
 * not finite, never cast to an integer type then (undefined behaviour); returns buf. */
const char *gv_bench_fmt_count(char *buf, size_t len, double x);
/* "12.3 [12.1, 12.5]" for the speed-up of the case's scope key, '*' when the interval holds at
 * less than 95%, or "-"; returns buf. */
const char *gv_bench_fmt_speedup(char *buf, size_t len, const json_t *c, const char *scope);
/* The median in ms of the case's scope key ("cpu", "kernel_hot", ...); NaN when absent. */
double gv_bench_scope_ms(const json_t *c, const char *scope);
/* A verdict as the tables say it: "ok", "SANITY FAILED: why", "SKIP: why", "ERROR: why". */
void gv_bench_verdict_text(char *buf, size_t len, const char *verdict, const char *why);
/* The same from a case's "verdict" and "reason". */
void gv_bench_fmt_verdict(char *buf, size_t len, const json_t *c);

/* The numbers of one case's row, read from a case's struct or from its JSON. */
typedef struct gv_bench_row {
    const char *op, *dtype, *mode, *verdict, *reason;
    char shape[64];
    /* a run file's strings, escaped for the terminal (render_kit.h) */
    char text[5][160];
    double ms[GV_NTIMINGS];
    bool has_sp;
    double sp, sp_lo, sp_hi, sp_cov, x_hot, gflops, frac_gemm, gbps, frac_copy;
    /* the noise of the row: the widest relative half-width of a median's 95% interval among
       its timings (rel_spread: (hi - lo) / (2 median)); NaN when none was timed */
    double noise;
    bool cpu_budget;
    double cpu_n, hold_timeouts;
    bool throttled; /* NVML reported a slowdown around the GPU scopes */
    double mhz_before, mhz_after, throttle;
} gv_bench_row;

void gv_bench_row_of_json(gv_bench_row *v, const json_t *c);
void gv_bench_row_of_result(gv_bench_row *v, const gv_bench_case_result *r);

/* The formatted cells of one row, shared by the terminal table and Markdown. */
typedef struct gv_bench_cells {
    char cpu[32], hot[32], cold[32], e2e[32], noise[32], speedup[64], x_hot[32];
    char gflops[32], pct_gemm[32], gbps[32], pct_copy[32], verdict[320];
} gv_bench_cells;

void gv_bench_cells_fill(gv_bench_cells *r, const gv_bench_row *v);

#endif
