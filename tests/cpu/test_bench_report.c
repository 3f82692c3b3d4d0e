/* test_bench_report.c: the timed run's JSON document and its renderings (src/render/), from
 * hand-made cases (seed 002's layout, targets, crossover, CSV, Markdown, file writing), and the
 * `gpuval bench` command line: bad input exits 2 with a message and runs nothing; without a
 * device it exits 77 and still writes its files. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench_json.h"
#include "io/json_util.h"
#include "bench/bench_plan.h"
#include "bench/bench_result.h"
#include "bench/bench_targets.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "render/bench_csv.h"
#include "render/bench_files.h"
#include "render/bench_seeds.h"
#include "render/bench_text.h"
#include "render/render.h"
#include "render/render_bench.h"
#include "testkit.h"

static gv_case vadd_case(gv_dtype t, int64_t n)
{
    return gv_test_case("vadd", t, GV_MODE_NATIVE, GV_DIST_UNIFORM01, (gv_shape){1, {n}}, 3);
}

/* ---- the document and its renderings, from hand-made cases ---- */

static void synth(gv_bench_case *bc, const char *op, gv_dtype t, gv_shape s, double cpu_ms,
                  double hot_ms, double e2e_ms, bool met8, bool met4)
{
    memset(bc, 0, sizeof *bc);
    gv_case c = {gv_op_find(op), t, GV_MODE_NATIVE, GV_DIST_UNIFORM01, s, 0};
    cr_assert_not_null(c.op, "%s is registered", op);
    bc->c = c;
    gv_result_init(&bc->sanity, &c);
    bc->timed = true;
    bc->kernel_verdict = GV_PASS;
    bc->sanity.verdict = GV_PASS;
    bc->sanity.m.mismatches[0] = met8 ? 0 : 5;
    bc->sanity.m.mismatches[1] = met4 ? 0 : 5;
    const double ms[GV_NTIMINGS] = {hot_ms, hot_ms * 1.2, e2e_ms, cpu_ms};
    for (int k = 0; k < GV_NTIMINGS; k++)
        for (int i = 0; i < 10 && ms[k] > 0; i++)
            gv_samples_push(&bc->t[k], ms[k] * (1.0 + 0.001 * (i % 3)));
}

/* A hand-made case summarised into the struct the run's decisions read. */
static void synth_result(gv_bench_case_result *r, const char *op, gv_dtype t, gv_shape s,
                         double cpu_ms, double hot_ms, double e2e_ms, bool met8, bool met4,
                         const gv_ceiling_values *ceilings)
{
    gv_bench_case bc;
    synth(&bc, op, t, s, cpu_ms, hot_ms, e2e_ms, met8, met4);
    gv_bench_result_make(r, &bc, ceilings, 0.95);
}

static json_t *synth_json(const char *op, gv_dtype t, gv_shape s, double cpu_ms, double hot_ms,
                          double e2e_ms, bool met8, bool met4, const gv_ceiling_values *ceilings)
{
    gv_bench_case_result r;
    synth_result(&r, op, t, s, cpu_ms, hot_ms, e2e_ms, met8, met4, ceilings);
    json_t *j = gv_bench_case_json(&r);
    gv_bench_result_free(&r);
    return j;
}

static json_t *new_doc(void)
{
    static gv_bench_opts o;
    gv_bench_opts_default(&o);
    gv_bench_run_info info = {
        .argv_joined = "gpuval bench --test", .opts = &o, .oracle_threads = 4};
    return gv_bench_doc_new(&info);
}

static void add(json_t *doc, json_t *c)
{
    json_array_append_new(json_object_get(doc, "cases"), c);
}

/* What fn writes, as a malloc'ed string. */
static char *render(void (*fn)(FILE *, const json_t *), const json_t *doc)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    fn(f, doc);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    buf[fread(buf, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return buf;
}

#define SEED_SHAPE ((gv_shape){3, {10000, 5000, 7000}})

Test(bench_report, seed002_layout_with_its_verdicts_and_best_times)
{
    json_t *doc = new_doc();
    add(doc, synth_json("matmul_colsum", GV_F32, SEED_SHAPE, 5000, 250, 300, false, true, NULL));
    add(doc, synth_json("einsum.colsum", GV_F32, SEED_SHAPE, 4000, 0.2, 20, false, true, NULL));
    add(doc, synth_json("matmul_colsum", GV_F64, SEED_SHAPE, 9000, 500, 600, true, true, NULL));
    add(doc, synth_json("einsum.colsum", GV_F64, SEED_SHAPE, 8000, 0.4, 40, true, true, NULL));
    char *out = render(gv_bench_render_seed002, doc);
    const char *f32 = strstr(out, "Data type: float32"), *f64 = strstr(out, "Data type: float64");
    cr_assert(f32 && f64 && f32 < f64, "%s", out);
    const char *mm = strstr(f32, "====TEST MATMUL -> SUM===="),
               *es = strstr(f32, "=======TEST EINSUM========");
    cr_assert(mm && es && mm < es && es < f64, "%s", out);
    const char *v8 = strstr(mm, "All elements within allowance of 1e-8: False");
    const char *v4 = strstr(mm, "All elements within allowance of 1e-4: True");
    cr_expect(v8 && v8 < es && v4 && v4 < es, "f32 matmul: 1e-8 missed, 1e-4 met: %s", out);
    cr_expect(strstr(f64, "All elements within allowance of 1e-8: True") != NULL);
    const char *best = strstr(f32, "=======BEST TIMES========");
    cr_assert(best && best < f64);
    /* best CPU 4.000 s (einsum), best GPU 0.020 s (einsum): 200 */
    cr_expect(strstr(best, "CPU time: 4.0") && strstr(best, "Speedup: 200.00"), "%s", best);
    /* medians of 10 samples at +0, +0.1%, +0.2%: 1.001 times the base */
    cr_expect(strstr(mm, "CPU time: 5.0050\n") != NULL, "seconds, 4 decimals: %s", out);
    cr_expect(strstr(mm, "Speedup: 16.67  (95%: ") != NULL, "the seed's 2 decimals: %s", out);
    free(out);
    json_decref(doc);
}

Test(bench_report, an_interval_short_of_95_percent_is_starred)
{
    gv_bench_case bc;
    gv_shape s = {1, {1000}};
    synth(&bc, "vadd", GV_F32, s, 2.0, 0.01, 0.05, 1, 1);
    bc.t[GV_T_CPU].n = 2; /* a CPU budget let two runs through */
    bc.t[GV_T_CPU].stop = GV_STOP_BUDGET;
    gv_bench_case_result r;
    gv_bench_result_make(&r, &bc, NULL, 0.95);
    json_t *j = gv_bench_case_json(&r);
    gv_bench_result_free(&r);
    cr_expect_lt(gv_jnum(j, "speedup.e2e.coverage"), 0.95);
    json_t *doc = new_doc();
    add(doc, j);
    char *out = render(gv_render_bench_md, doc);
    cr_expect(strstr(out, "]*") != NULL, "%s", out);
    free(out);
    gv_bench_case_free(&bc);
    json_decref(doc);
}

Test(bench_report, targets_as_fractions_of_the_ceilings)
{
    json_t *ce = json_pack("{s:{s:f}, s:{s:{s:f}}}", "copy", "gbps", 3000.0, "gemm", "f32",
                           "gflops", 50000.0);
    gv_ceiling_values cv = {3000.0, {NAN, NAN}};
    cv.gemm_gflops[GV_F32] = 50000.0;
    json_t *doc = new_doc();
    json_object_set(doc, "ceilings", ce);
    /* vadd f32 2^28: 3 * 2^28 * 4 bytes at 90% of 3000 GB/s; einsum at 50% */
    double vadd_ms = 3.0 * 268435456 * 4 / 2700e9 * 1e3;
    double es_ms = (5e7 + 3.5e7 + 7000) * 4 / 1500e9 * 1e3;
    gv_bench_case_result res[4];
    synth_result(&res[0], "vadd", GV_F32, (gv_shape){1, {268435456}}, 0, vadd_ms, 0, 1, 1, &cv);
    synth_result(&res[1], "einsum.colsum", GV_F32, SEED_SHAPE, 0, es_ms, 0, 1, 1, &cv);
    gv_shape g = {3, {4096, 4096, 4096}};
    synth_result(&res[2], "gemm.tiled", GV_F32, g, 0, 40.0, 0, 1, 1, &cv);
    synth_result(&res[3], "gemm.cublas", GV_F32, g, 0, 4.0, 0, 1, 1, &cv);
    for (int i = 0; i < 4; i++)
        add(doc, gv_bench_case_json(&res[i]));
    gv_bench_target tg[8];
    int nt = gv_bench_targets_eval(res, 4, &cv, tg, 8);
    json_t *t = gv_bench_targets_json(tg, nt);
    cr_assert_eq(json_array_size(t), 3);
    cr_expect_float_eq(gv_jnum(json_array_get(t, 0), "fraction"), 0.9 / 1.001, 1e-6);
    cr_expect(json_is_true(json_object_get(json_array_get(t, 0), "met")));
    cr_expect(json_is_false(json_object_get(json_array_get(t, 1), "met")));
    cr_expect_float_eq(gv_jnum(json_array_get(t, 2), "ratio"), 10.0, 1e-9);
    cr_expect_float_eq(tg[2].ratio, 10.0, 1e-9, "the decision is the struct's");
    json_object_set_new(doc, "targets", t);
    char *out = render(gv_bench_render_targets, doc);
    cr_expect(strstr(out, "met") && strstr(out, "MISSED") && strstr(out, "gemm.tiled"), "%s", out);
    free(out);
    for (int i = 0; i < 4; i++)
        gv_bench_result_free(&res[i]);
    json_decref(ce);
    json_decref(doc);
}

Test(bench_report, crossover_points_sorted_found_and_rendered)
{
    gv_case base = vadd_case(GV_F32, 16);
    gv_bench_crossover x;
    gv_bench_crossover_init(&x, &base, 0, 1, 16, 2.0);
    cr_expect_str_eq(x.dim_name, "n");
    const int64_t order[] = {8, 1, 16, 2, 4};
    for (int i = 0; i < 5; i++) {
        int64_t n = order[i];
        gv_shape s = {1, {n}};
        gv_bench_case_result r;
        synth_result(&r, "vadd", GV_F32, s, 1.0 * n, 0.1, 3.0, 1, 1, NULL);
        cr_assert_eq(gv_bench_crossover_add(&x, n, &r), GV_OK);
    }
    gv_bench_crossover_finish(&x);
    json_t *xo = gv_bench_crossover_json(&x);
    cr_expect_str_eq(gv_jstr(xo, "dim"), "n");
    const json_t *pts = json_object_get(xo, "points");
    for (size_t i = 1; i < json_array_size(pts); i++)
        cr_expect_gt(gv_jnum(json_array_get(pts, i), "size"),
                     gv_jnum(json_array_get(pts, i - 1), "size"));
    cr_expect_str_eq(gv_jstr(xo, "status"), "found");
    cr_expect_eq(x.status, GV_XO_FOUND, "the decision is the struct's");
    cr_expect_eq(gv_jnum(xo, "first_win_size"), 4.0);
    cr_expect_eq(gv_jnum(xo, "last_loss_size"), 2.0);
    double xi = gv_jnum(xo, "interp_size");
    cr_expect(xi > 2 && xi < 4, "interpolated %g", xi);
    cr_expect_eq(gv_jnum(xo, "confident_first_win_size"), 4.0);
    char *buf = render(gv_bench_render_crossover, xo);
    cr_expect(strstr(buf, "beats the CPU from n = 4") != NULL, "%s", buf);
    free(buf);
    json_decref(xo);
    gv_bench_crossover_free(&x);
}

/* Fields of one CSV line, quotes respected. */
static int csv_fields(const char *line)
{
    int n = 1;
    bool q = false;
    for (const char *p = line; *p && *p != '\n'; p++) {
        if (*p == '"') q = !q;
        if (*p == ',' && !q) n++;
    }
    return n;
}

Test(bench_report, csv_markdown_and_json_files)
{
    json_t *doc = new_doc();
    json_t *bad = synth_json("vadd", GV_F32, (gv_shape){1, {1000}}, 1, 0.01, 0.05, 0, 1, NULL);
    json_object_set_new(bad, "verdict", json_string("FAIL"));
    json_object_set_new(bad, "reason", json_string("a, b \"c\" | d"));
    add(doc, bad);
    add(doc, synth_json("vadd", GV_F64, (gv_shape){1, {1000}}, 1, 0.01, 0.05, 1, 1, NULL));
    gv_case base = vadd_case(GV_F32, 16);
    gv_bench_crossover x;
    gv_bench_crossover_init(&x, &base, 0, 1, 2, 2.0);
    gv_bench_case_result r;
    synth_result(&r, "vadd", GV_F32, (gv_shape){1, {1}}, 1, 1, 2, 1, 1, NULL);
    gv_bench_crossover_add(&x, 1, &r);
    synth_result(&r, "vadd", GV_F32, (gv_shape){1, {2}}, 3, 1, 2, 1, 1, NULL);
    gv_bench_crossover_add(&x, 2, &r);
    gv_bench_crossover_finish(&x);
    json_array_append_new(json_object_get(doc, "crossovers"), gv_bench_crossover_json(&x));
    gv_bench_crossover_free(&x);

    char *csv = render(gv_bench_render_csv, doc);
    int lines = 0, header = csv_fields(csv);
    for (char *p = csv; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        cr_expect_eq(csv_fields(p), header, "line %d: %.80s", lines, p);
        lines++;
    }
    cr_expect_eq(lines, 1 + 2 + 2, "header, 2 cases, 2 sweep points");
    cr_expect(strstr(csv, "\"a, b \"\"c\"\" | d\"") != NULL, "RFC 4180 quoting");
    free(csv);

    char *md = render(gv_render_bench_md, doc);
    cr_expect(strstr(md, "| op | dtype | mode |") != NULL);
    cr_expect(strstr(md, "SANITY FAILED: a, b \"c\" \\| d") != NULL, "| escaped in a cell");
    cr_expect(strstr(md, "\n### Crossover: vadd f32, n swept (") != NULL, "%s", md);

    char dir[] = "/tmp/gpuval-bench-XXXXXX", path[256], tmp[300];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.json", dir);
    cr_assert_eq(gv_bench_write(path, GV_FMT_JSON, doc), GV_OK);
    json_error_t err;
    json_t *back = json_load_file(path, 0, &err);
    cr_assert_not_null(back, "%s", err.text);
    cr_expect_str_eq(gv_jstr(back, "schema"), "gpuval-bench/1");
    const json_t *c0 = json_array_get(json_object_get(back, "cases"), 0);
    cr_expect_eq(json_array_size(json_object_get(
                     json_object_get(json_object_get(c0, "timings"), "kernel_hot"), "samples_ms")),
                 10u);
    cr_expect_eq(gv_jnum(back, "host.oracle_threads"), 4.0);
    json_decref(back);
    /* --md writes what `gpuval report --md` prints of the same document */
    snprintf(path, sizeof path, "%s/run.md", dir);
    cr_assert_eq(gv_bench_write(path, GV_FMT_MD, doc), GV_OK);
    FILE *mf = fopen(path, "r");
    cr_assert_not_null(mf);
    char *written = calloc(strlen(md) + 2, 1);
    cr_assert_not_null(written);
    written[fread(written, 1, strlen(md) + 1, mf)] = '\0';
    fclose(mf);
    char *report = render(gv_render_md, doc);
    cr_expect_str_eq(written, report);
    cr_expect_str_eq(written, md);
    free(report);
    free(written);
    free(md);
    unlink(path);
    snprintf(path, sizeof path, "%s/run.json", dir);
    /* a directory cannot be written: GV_EIO and no temporary left behind */
    cr_expect_eq(gv_bench_write(dir, GV_FMT_CSV, doc), GV_EIO);
    snprintf(tmp, sizeof tmp, "%s.tmp", dir);
    cr_expect_neq(access(tmp, F_OK), 0);
    unlink(path);
    rmdir(dir);
    json_decref(doc);
}

/* ---- the command line ---- */

typedef struct cli_run {
    int status;
    char out[65536], err[16384];
} cli_run;

static cli_run *gpuval(const char *args)
{
    static cli_run r;
    r.status = gv_test_run_cli_split(args, r.out, sizeof r.out, r.err, sizeof r.err);
    return &r;
}

static bool no_device(void)
{
    return gpuval("info")->status == 77;
}

Test(bench_cli, help_answers)
{
    cli_run *r = gpuval("bench --help");
    cr_expect_eq(r->status, 0);
    cr_expect(strstr(r->out, "usage: gpuval bench") && strstr(r->out, "--crossover"));
    r = gpuval("help bench");
    cr_expect_eq(r->status, 0);
    cr_expect(strstr(r->out, "--preset NAME") != NULL);
    r = gpuval("--help");
    cr_expect(strstr(r->out, "bench") != NULL, "the main help names bench");
}

Test(bench_cli, bad_input_exits_2_with_a_message)
{
    static const struct {
        const char *args, *says;
    } bad[] = {
        {"bench --preset nope", "unknown preset 'nope'"},
        {"bench --op nosuchop", "no op matches"},
        {"bench --cap 0", "--cap takes seconds > 0"},
        {"bench --cap -1", "--cap"},
        {"bench --cap abc", "--cap"},
        {"bench --target-spread 1", "--target-spread"},
        {"bench --min-samples 5", "--min-samples"},
        {"bench --cpu-budget -2", "--cpu-budget"},
        {"bench --op vadd --size 3x4", "takes 1 dim"},
        {"bench --op vadd --size 1e13", "host memory"},
        {"bench --op vadd --size 0", "size"},
        {"bench --crossover nosuchop", "no op 'nosuchop'"},
        {"bench --crossover vadd --sweep q=1..10", "has no dim 'q'"},
        {"bench --crossover vadd --sweep n=10..1", "LO <= HI"},
        {"bench --crossover vadd --sweep n", "DIM=LO..HI"},
        {"bench --crossover vadd --sweep-factor 1", "--sweep-factor"},
        {"bench --crossover vadd --sweep n=1..1e30", "size"},
        {"bench --preset seed002 --op vadd", "sets its own cases"},
        {"bench --crossover vadd --size 1e6", "--sweep-base"},
        {"bench --crossover vadd --sweep-base 3x4", "takes 1 dim"},
        {"bench --dtype f16", "unknown dtype"},
        {"bench extra", "no positional arguments"},
        {"bench --op vadd --size 10 --json /nonexistent-dir/x.json", "cannot write"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cli_run *r = gpuval(bad[i].args);
        cr_expect_eq(r->status, 2, "'%s' exits %d", bad[i].args, r->status);
        cr_expect(strstr(r->err, bad[i].says) != NULL, "'%s' says '%s'; stderr: %s", bad[i].args,
                  bad[i].says, r->err);
        cr_expect(strstr(r->out, "timed cases") == NULL, "'%s' ran nothing", bad[i].args);
    }
}

Test(bench_cli, without_a_device_exits_77_and_writes_its_files)
{
    if (!no_device()) cr_skip_test("a CUDA device is present: this test is for machines without");
    char dir[] = "/tmp/gpuval-bnodev-XXXXXX", args[1024], path[3][256];
    cr_assert_not_null(mkdtemp(dir));
    const char *ext[3] = {"json", "csv", "md"};
    for (int k = 0; k < 3; k++)
        snprintf(path[k], sizeof path[k], "%s/run.%s", dir, ext[k]);
    snprintf(args, sizeof args, "bench --op vadd --size 1000 --json %s --csv %s --md %s", path[0],
             path[1], path[2]);
    cli_run *r = gpuval(args);
    cr_expect_eq(r->status, 77, "stderr: %s", r->err);
    cr_expect(strstr(r->out, "SKIP") != NULL, "%s", r->out);
    json_error_t err;
    json_t *doc = json_load_file(path[0], 0, &err);
    cr_assert_not_null(doc, "%s", err.text);
    cr_expect_str_eq(gv_jstr(doc, "schema"), "gpuval-bench/1");
    cr_expect(json_is_null(json_object_get(doc, "device")));
    cr_expect_eq(json_array_size(json_object_get(doc, "cases")), 2u, "f32 and f64");
    cr_expect_str_eq(gv_jstr(json_array_get(json_object_get(doc, "cases"), 0), "verdict"), "SKIP");
    json_decref(doc);
    for (int k = 1; k < 3; k++) {
        struct stat st;
        cr_expect_eq(stat(path[k], &st), 0, "%s written", path[k]);
        unlink(path[k]);
    }
    unlink(path[0]);
    rmdir(dir);

    r = gpuval("bench --preset seed000");
    cr_expect_eq(r->status, 77);
    cr_expect(strstr(r->out, "seed 000") != NULL && strstr(r->out, "crossover:") != NULL);
    r = gpuval("bench --preset seed002");
    cr_expect_eq(r->status, 77);
    cr_expect(strstr(r->out, "====TEST MATMUL -> SUM====") != NULL, "%s", r->out);
    r = gpuval("bench --preset short");
    cr_expect_eq(r->status, 77, "meson test --benchmark counts this as skipped");
}

/* A count read back as NaN or Inf (a hand-edited or damaged file) prints as "nan"/"inf", not
   through a cast to an integer (undefined behaviour, garbage digits in practice). */
Test(bench_report, non_finite_counts_print_as_nan_and_inf)
{
    json_t *doc = new_doc();
    json_object_set_new(
        doc, "device",
        json_pack("{s:s, s:s, s:s}", "name", "X", "cc_major", "nan", "cc_minor", "inf"));
    json_object_set_new(doc, "ceilings",
                        json_pack("{s:{s:b, s:f, s:f, s:{s:s}}, s:{}}", "copy", "ok", 1, "gbps",
                                  1.0, "bytes", 1048576.0, "timing", "n", "nan", "gemm"));
    char *md = render(gv_render_bench_md, doc);
    cr_expect(strstr(md, "CC nan.inf") != NULL, "%s", md);
    free(md);
    char *ce = render(gv_bench_render_ceilings, doc);
    cr_expect(strstr(ce, "median of nan") != NULL, "%s", ce);
    free(ce);
    json_decref(doc);
}

/* The seed 002 preset without a device: its targets and kernel-only lines say "not measured"
   and "not timed", never "nan of nan GB/s" or "GPU time nan ms" */
Test(bench_cli, without_a_device_the_seed002_report_prints_no_nan)
{
    if (!no_device()) cr_skip_test("a CUDA device is present: the report then has figures");
    cli_run *r = gpuval("bench --preset seed002");
    cr_expect_eq(r->status, 77, "exit %d\n%s%s", r->status, r->out, r->err);
    cr_expect(strstr(r->out, "not measured") != NULL, "%s", r->out);
    cr_expect(strstr(r->out, "(kernel only: not timed)") != NULL, "%s", r->out);
    cr_expect(strstr(r->out, "nan") == NULL, "a NaN printed:\n%s", r->out);
}
