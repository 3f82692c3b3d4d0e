/* bench_json.h: a timed run as one JSON document (schema "gpuval-bench/1", jansson), built
 * once, at the end of a run, in bench_json.c from the structs of bench_result.h, and written as
 * it is. Every rendering of it (terminal, CSV, Markdown, HTML) is made from the document alone
 * by the printers of src/render/, so a saved document can be rendered again on another
 * machine.
 *
 * Numbers that are not finite are written as the strings "inf", "-inf", "nan" (JSON has no
 * literal for them); gv_jnum reads them back. Times are in ms unless a key says _s. */
#ifndef GV_BENCH_JSON_H
#define GV_BENCH_JSON_H

#include <jansson.h>

#include "bench/bench_case.h"
#include "bench/bench_result.h"
#include "bench/bench_targets.h"
#include "io/schemas.h"

typedef struct gv_bench_run_info {
    const char *argv_joined;
    const char *preset; /* NULL: none */
    bool have_device;
    gk_device_info device;
    int device_count, device_index; /* as the device query saw them; -1 index: none */
    int oracle_threads;
    const gv_bench_opts *opts;
} gv_bench_run_info;

/* ---- building (bench_json.c), once, from the structs of bench_result.h ---- */

/* The document's header: schema, tool, command line, host, build, device fingerprint, where
 * the device sits (io/run_info.h: index, rank, PCIe link, clocks), the method (stop rules,
 * confidence, scopes), and empty "cases", "crossovers", "notes". */
json_t *gv_bench_doc_new(const gv_bench_run_info *info);
/* The CPU's model name from /proc/cpuinfo, or "unknown". */
void gv_bench_cpu_model(char *buf, size_t len);
json_t *gv_bench_ceilings_json(const gv_ceilings *c, double conf);
/* One case: identity, sanity verdict (tiers met, metrics), timings with raw samples, speed-ups
 * (CPU median / GPU median, with intervals) per GPU scope, achieved GFLOP/s and GB/s as
 * fractions of the ceilings, the repeat check when done, and "size" for a sweep point. */
json_t *gv_bench_case_json(const gv_bench_case_result *r);
/* A crossover sweep: the op, the swept dim and range, its points, status, first_win_size,
 * last_loss_size, interp_size and confident_first_win_size (null when none). */
json_t *gv_bench_crossover_json(const gv_bench_crossover *xo);
/* The targets measured (bench_targets.h), as an array. */
json_t *gv_bench_targets_json(const gv_bench_target *t, int n);
/* The run's counts: {"sane", "sanity_failed", "skipped", "errors"}. */
json_t *gv_bench_summary_json(const gv_bench_summary *s);

/* ---- writing ---- */

/* doc as indented JSON, every real to 17 digits (read back exactly), through gv_write_file
 * (outfile.h: a temporary beside path, then a rename). GV_OK or GV_EIO (errno says why). Also
 * the writer of the gpuval-tradeoffs/1 document (trade_report.h). */
int gv_bench_write_json(const char *path, const json_t *doc);

#endif
