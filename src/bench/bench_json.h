/* bench_json.h: a timed run as one JSON document (schema "gpuval-bench/1", jansson), built
 * in bench_json.c from the records of bench_case.h; every rendering of it is in
 * bench_report.h. A saved document can therefore be rendered again on another machine.
 *
 * Numbers that are not finite are written as the strings "inf", "-inf", "nan" (JSON has no
 * literal for them); gv_jnum reads them back. Times are in ms unless a key says _s. */
#ifndef GV_BENCH_JSON_H
#define GV_BENCH_JSON_H

#include <jansson.h>

#include "bench_case.h"

#define GV_BENCH_SCHEMA "gpuval-bench/1"

typedef struct gv_bench_run_info {
    const char *argv_joined;
    const char *preset; /* NULL: none */
    bool have_device;
    gk_device_info device;
    int oracle_threads;
    const gv_bench_opts *opts;
} gv_bench_run_info;

/* ---- building (bench_json.c) ---- */

/* The document's header: schema, tool, command line, host, build, device fingerprint, the
 * method (stop rules, confidence, scopes), and empty "cases", "crossovers", "notes". */
json_t *gv_bench_doc_new(const gv_bench_run_info *info);
json_t *gv_bench_ceilings_json(const gv_ceilings *c, double conf);
/* One case: identity, sanity verdict (tiers met, metrics), timings with raw samples, speed-ups
 * (CPU median / GPU median, with intervals) per GPU scope, achieved GFLOP/s and GB/s as
 * fractions of the ceilings (may be NULL), and the repeat check when done. */
json_t *gv_bench_case_json(const gv_bench_case *bc, const json_t *ceilings, double conf);
/* A crossover sweep: the op, the swept dim and range, and its points (case objects with a
 * "size"), to be filled by the caller and then summarised by gv_bench_crossover_finish. */
json_t *gv_bench_crossover_new(const gv_case *base, int dim, int64_t lo, int64_t hi, double factor);
/* Insert a point keeping sizes ascending (the object is stolen). */
void gv_bench_crossover_add(json_t *xo, int64_t size, json_t *case_obj);
/* Recompute status, first_win_size, last_loss_size, interp_size (median speed-ups), and
 * confident_first_win_size (the interval's lower bound above 1), from the points that were
 * timed. */
void gv_bench_crossover_finish(json_t *xo);
/* The project's performance targets found among the cases (vadd f32 at 2^28 elements,
 * einsum.colsum at the seed sizes, gemm.tiled against gemm.cublas at 4096^3). */
json_t *gv_bench_targets_json(const json_t *doc);
/* Sanity failures, errors, timed cases and skips; counted into doc "summary". */
void gv_bench_doc_summarise(json_t *doc);

/* Read a number at a dotted path ("timings.e2e.median_ms"); NaN when absent. */
double gv_jnum(const json_t *o, const char *path);
/* Element i of a JSON array as gv_jnum reads numbers; NaN when absent. */
double gv_jat(const json_t *arr, size_t i);
/* A string at a dotted path, or "" when absent. */
const char *gv_jstr(const json_t *o, const char *path);

#endif
