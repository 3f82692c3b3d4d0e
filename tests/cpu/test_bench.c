/* test_bench.c: timed runs without a GPU, through a fake device (a gv_bench_device whose
 * "GPU" adds vectors on the host and reports set times): one timed case end to end —
 * sampling, the sanity verdict on the timed path's outputs (a wrong output is marked, never
 * hidden), device failures as SKIP/ERROR, the repeat check, the ceilings — and what a run
 * times: the presets, sweeps, and sizes that do not fit. Renderings and the command line are
 * in test_bench_report.c. */
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
#include "render/bench_text.h"
#include "bench/bench_result.h"
#include "bench/bench_targets.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

/* ---- the fake device ---- */

struct gk_bench {
    int kind; /* 0: the op (vadd only), 1: copy ceiling, 2: gemm ceiling */
    gk_launch L;
    const void *in[GK_MAX_TENSORS];
    void *e2e_out;
    size_t out_bytes;
    int samples;
};

static struct {
    int count;   /* devices */
    int open_rc; /* what open returns */
    int fail_at; /* sample number that fails with GV_ECUDA; 0: none */
    int64_t mem; /* device memory, free and total */
    bool wrong_e2e, wrong_kernel;
    int opened, closed;
} fake;

static void fake_reset(void)
{
    memset(&fake, 0, sizeof fake);
    fake.count = 1;
    fake.mem = 80000000000LL;
}

/* c = a + b, with element 7 off by 1e-3 when wrong */
static void fake_vadd(const gk_launch *L, const void *const *in, void *out, bool wrong)
{
    int64_t n = L->dims[0];
    if (L->dtype == GV_F64) {
        const double *a = in[0], *b = in[1];
        double *c = out;
        for (int64_t i = 0; i < n; i++)
            c[i] = a[i] + b[i];
        if (wrong && n > 7) c[7] += 1e-3;
    } else {
        const float *a = in[0], *b = in[1];
        float *c = out;
        for (int64_t i = 0; i < n; i++)
            c[i] = a[i] + b[i];
        if (wrong && n > 7) c[7] += 1e-3f;
    }
}

static int fake_count(void)
{
    return fake.count;
}
static int fake_mem(int64_t *f, int64_t *t)
{
    *f = *t = fake.mem;
    return GV_OK;
}

static int fake_open(const gk_op *op, const gk_launch *L, const gk_host_io *io, gk_bench **out)
{
    (void)op;
    *out = NULL;
    if (fake.open_rc) return fake.open_rc;
    gk_bench *b = calloc(1, sizeof *b);
    b->L = *L;
    for (int i = 0; i < L->n_in; i++)
        b->in[i] = io->in[i];
    b->out_bytes = (size_t)L->out_count[0] * gv_dtype_size((gv_dtype)L->dtype);
    b->e2e_out = malloc(b->out_bytes);
    fake.opened++;
    *out = b;
    return GV_OK;
}

static int fake_sample(gk_bench *b, int scope, int reps, double *ms)
{
    (void)reps;
    b->samples++;
    if (fake.fail_at && b->samples == fake.fail_at) return GV_ECUDA;
    /* copy: 1 GiB at 2000 GB/s (read + write); gemm 8192^3 at 50 TFLOP/s */
    static const double base[3][3] = {
        {0.010, 0.012, 0.050}, {1.073741824, 0, 0}, {21.990232555520, 0, 0}};
    *ms = base[b->kind][scope] * (1.0 + 0.001 * ((b->samples * 7) % 5 - 2));
    if (b->kind == 0 && scope == GK_SCOPE_E2E) fake_vadd(&b->L, b->in, b->e2e_out, fake.wrong_e2e);
    return GV_OK;
}

static int fake_result(gk_bench *b, int scope, const gk_host_io *io)
{
    if (scope == GK_SCOPE_E2E)
        memcpy(io->out[0], b->e2e_out, b->out_bytes);
    else
        fake_vadd(&b->L, b->in, io->out[0], fake.wrong_kernel);
    return GV_OK;
}

static int fake_info(const gk_bench *b, gk_bench_info *info)
{
    (void)b;
    memset(info, 0, sizeof *info);
    snprintf(info->math_mode, sizeof info->math_mode, "fake");
    info->queued = 1;
    return GV_OK;
}

static void fake_close(gk_bench *b)
{
    if (!b) return;
    free(b->e2e_out);
    free(b);
    fake.closed++;
}

static int fake_ceiling(int kind, gk_bench **out)
{
    gk_bench *b = calloc(1, sizeof *b);
    b->kind = kind;
    fake.opened++;
    *out = b;
    return GV_OK;
}
static int fake_copy_open(int64_t bytes, gk_bench **out)
{
    cr_expect_eq(bytes, (int64_t)1 << 30, "1 GiB copy when memory allows");
    return fake_ceiling(1, out);
}
static int fake_gemm_open(int dtype, int64_t n, gk_bench **out)
{
    (void)dtype;
    cr_expect_eq(n, 8192);
    return fake_ceiling(2, out);
}
static int64_t fake_flush(void)
{
    return 100000000;
}

static const gv_bench_device fake_device = {
    fake_count, fake_mem,   fake_open,      fake_sample,    fake_result,
    fake_info,  fake_close, fake_copy_open, fake_gemm_open, fake_flush,
};

static gv_bench_opts fast_opts(void)
{
    gv_bench_opts o;
    gv_bench_opts_default(&o);
    o.device = &fake_device;
    o.gpu.cap_s = o.cpu.cap_s = 0.05;
    return o;
}

static gv_case vadd_case(gv_dtype t, int64_t n)
{
    return gv_test_case("vadd", t, GV_MODE_NATIVE, GV_DIST_UNIFORM01, (gv_shape){1, {n}}, 3);
}

/* bc's JSON, through the struct the run's decisions read; the samples stay bc's. */
static json_t *case_json(const gv_bench_case *bc, const gv_ceiling_values *ce)
{
    gv_bench_case copy = *bc;
    gv_bench_case_result r;
    gv_bench_result_make(&r, &copy, ce, 0.95);
    return gv_bench_case_json(&r);
}

static char *render_row(const json_t *j)
{
    static char buf[4096];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    gv_bench_render_row(f, j);
    fclose(f);
    return buf;
}

Test(bench_case, times_every_scope_and_judges_the_timed_outputs)
{
    fake_reset();
    gv_bench_opts o = fast_opts();
    gv_case c = vadd_case(GV_F32, 1000);
    gv_bench_case bc;
    cr_assert_eq(gv_bench_run_case(&c, &o, true, &bc), GV_OK);
    cr_expect(bc.timed);
    cr_expect_eq(bc.sanity.verdict, GV_PASS, "%s", bc.sanity.reason);
    cr_expect_eq(bc.kernel_verdict, GV_PASS, "%s", bc.kernel_reason);
    for (int i = 0; i < GV_NTIMINGS; i++)
        cr_expect_geq(bc.t[i].n, 10, "%s: %d samples", gv_timing_key(i), bc.t[i].n);
    cr_expect(bc.t[GV_T_HOT].reps >= 5 && bc.t[GV_T_HOT].reps <= 6,
              "0.05 ms per hot sample / 0.010 ms per launch: %d", bc.t[GV_T_HOT].reps);
    cr_expect_eq(bc.t[GV_T_HOT].stop, GV_STOP_SPREAD, "0.2%% jitter reaches 1%% at once");
    cr_expect_geq(bc.repeat.n, 10, "the repeat was timed");
    cr_expect_eq(fake.opened, fake.closed, "everything opened is closed");

    json_t *j = case_json(&bc, NULL);
    cr_expect_str_eq(gv_jstr(j, "verdict"), "PASS");
    cr_expect_eq(json_array_size(json_object_get(
                     json_object_get(json_object_get(j, "timings"), "e2e"), "samples_ms")),
                 (size_t)bc.t[GV_T_E2E].n, "raw samples kept");
    double want = gv_median(bc.t[GV_T_CPU].ms, bc.t[GV_T_CPU].n) /
                  gv_median(bc.t[GV_T_E2E].ms, bc.t[GV_T_E2E].n);
    cr_expect_float_eq(gv_jnum(j, "speedup.e2e.ratio"), want, 1e-12 * want);
    cr_expect(json_is_true(json_object_get(json_object_get(j, "repeat_check"), "agree")));
    cr_expect(strstr(render_row(j), " ok") != NULL, "row: %s", render_row(j));
    json_decref(j);
    gv_bench_case_free(&bc);
}

Test(bench_case, a_wrong_timed_output_is_marked_not_hidden)
{
    fake_reset();
    fake.wrong_e2e = true;
    gv_bench_opts o = fast_opts();
    gv_case c = vadd_case(GV_F64, 1000);
    gv_bench_case bc;
    cr_assert_eq(gv_bench_run_case(&c, &o, false, &bc), GV_OK);
    cr_expect_eq(bc.sanity.verdict, GV_FAIL);
    cr_expect(bc.timed, "the timings stay");
    cr_expect_geq(bc.t[GV_T_E2E].n, 10);
    json_t *j = case_json(&bc, NULL);
    cr_expect_str_eq(gv_jstr(j, "verdict"), "FAIL");
    cr_expect(!isnan(gv_jnum(j, "timings.e2e.median_ms")));
    cr_expect(strstr(render_row(j), "SANITY FAILED") != NULL, "row: %s", render_row(j));
    json_decref(j);
    gv_bench_case_free(&bc);
}

Test(bench_case, a_wrong_kernel_only_path_fails_the_case_too)
{
    fake_reset();
    fake.wrong_kernel = true;
    gv_bench_opts o = fast_opts();
    gv_case c = vadd_case(GV_F32, 1000);
    gv_bench_case bc;
    cr_assert_eq(gv_bench_run_case(&c, &o, false, &bc), GV_OK);
    cr_expect_eq(bc.kernel_verdict, GV_FAIL);
    cr_expect_eq(bc.sanity.verdict, GV_FAIL);
    cr_expect(strncmp(bc.sanity.reason, "kernel-only path", 16) == 0, "%s", bc.sanity.reason);
    gv_bench_case_free(&bc);
}

Test(bench_case, device_failures_become_skip_or_error)
{
    gv_bench_opts o = fast_opts();
    gv_case c = vadd_case(GV_F32, 1000);
    gv_bench_case bc;

    fake_reset();
    fake.open_rc = GV_EUNSUPPORTED;
    gv_bench_run_case(&c, &o, false, &bc);
    cr_expect_eq(bc.sanity.verdict, GV_SKIP);
    cr_expect(strstr(bc.sanity.reason, "not supported") != NULL, "%s", bc.sanity.reason);
    cr_expect_eq(bc.t[GV_T_CPU].n, 0, "no CPU time spent on a case the device refuses");
    gv_bench_case_free(&bc);

    fake_reset();
    fake.open_rc = GV_EDEVMEM;
    gv_bench_run_case(&c, &o, false, &bc);
    cr_expect_eq(bc.sanity.verdict, GV_SKIP);
    cr_expect(strstr(bc.sanity.reason, "device memory") != NULL, "%s", bc.sanity.reason);
    gv_bench_case_free(&bc);

    fake_reset();
    fake.fail_at = 5;
    gv_bench_run_case(&c, &o, false, &bc);
    cr_expect_eq(bc.sanity.verdict, GV_ERROR);
    cr_expect_not(bc.timed);
    cr_expect_eq(fake.opened, fake.closed);
    gv_bench_case_free(&bc);

    fake_reset();
    fake.count = 0;
    gv_bench_run_case(&c, &o, false, &bc);
    cr_expect_eq(bc.sanity.verdict, GV_SKIP);
    cr_expect_str_eq(bc.sanity.reason, "no CUDA device");
    cr_expect_eq(fake.opened, 0);
    gv_bench_case_free(&bc);
}

Test(bench_case, ceilings_and_fractions_of_them)
{
    fake_reset();
    gv_bench_opts o = fast_opts();
    gv_ceilings ce;
    gv_bench_ceilings(&o, 1u << GV_F32, &ce);
    cr_expect(ce.copy.ok, "%s", ce.copy.why);
    cr_expect(ce.gemm[GV_F32].ok, "%s", ce.gemm[GV_F32].why);
    cr_expect_not(ce.gemm[GV_F64].ok, "no f64 case asked");
    json_t *cj = gv_bench_ceilings_json(&ce, 0.95);
    gv_ceiling_values cv;
    gv_ceiling_values_of(&ce, 0.95, &cv);
    gv_ceilings_free(&ce);
    cr_expect_float_eq(gv_jnum(cj, "copy.gbps"), 2000.0, 2.0);
    cr_expect_float_eq(gv_jnum(cj, "gemm.f32.gflops"), 50000.0, 50.0);
    cr_expect(strstr(gv_jstr(cj, "gemm.f64.why"), "no f64") != NULL);

    gv_case c = vadd_case(GV_F32, 1000);
    gv_bench_case bc;
    gv_bench_run_case(&c, &o, false, &bc);
    json_t *j = case_json(&bc, &cv);
    double gbps = gv_jnum(j, "achieved.kernel_hot.gbps");
    cr_expect_float_eq(gbps, 12000.0 / (gv_jnum(j, "timings.kernel_hot.median_ms") * 1e-3) / 1e9,
                       1e-9 * gbps, "3 n 4 bytes over the hot median");
    cr_expect_float_eq(gv_jnum(j, "achieved.kernel_hot.frac_copy_ceiling"),
                       gbps / gv_jnum(cj, "copy.gbps"), 1e-12);
    json_decref(j);
    json_decref(cj);
    gv_bench_case_free(&bc);

    fake.count = 0;
    gv_bench_ceilings(&o, 1u << GV_F32, &ce);
    cr_expect_not(ce.copy.ok);
    cr_expect_str_eq(ce.copy.why, "no CUDA device");
    gv_ceilings_free(&ce);
}

/* ---- what a run times: presets, sweeps, fit ---- */

static int count_op(const gv_case_list *l, const char *op, gv_dtype t)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        n += strcmp(l->v[i].op->name, op) == 0 && l->v[i].dtype == t;
    return n;
}

Test(bench_plan, presets_name_the_seed_cases)
{
    gv_bench_opts o;
    gv_bench_opts_default(&o);
    gv_case_list l = {0};
    gv_sweep sw;
    bool have_sweep;
    gv_notes notes = {0};

    cr_assert_eq(gv_bench_preset("seed002", &l, &sw, &have_sweep, &o, &notes), GV_OK);
    cr_expect_eq(l.n, 4);
    cr_expect_eq(count_op(&l, "matmul_colsum", GV_F32) + count_op(&l, "matmul_colsum", GV_F64), 2);
    cr_expect_eq(count_op(&l, "einsum.colsum", GV_F32) + count_op(&l, "einsum.colsum", GV_F64), 2);
    for (int i = 0; i < l.n; i++) {
        cr_expect_eq(l.v[i].shape.d[0], 10000);
        cr_expect_eq(l.v[i].shape.d[1], 5000);
        cr_expect_eq(l.v[i].shape.d[2], 7000);
        cr_expect_eq(l.v[i].mode, GV_MODE_NATIVE);
    }
    cr_expect_not(have_sweep);
    cr_expect(o.time_cpu);
    l.n = 0;

    cr_assert_eq(gv_bench_preset("seed000", &l, &sw, &have_sweep, &o, &notes), GV_OK);
    cr_expect_eq(count_op(&l, "vadd", GV_F32), 2);
    cr_expect_eq(l.v[0].shape.d[0], 100000);
    cr_expect_eq(l.v[1].shape.d[0], 11500000);
    if (gv_op_find("sin_iter")) {
        cr_expect_eq(l.n, 6, "vadd x 2, sin_iter at k = 1, 10, 100, 1000");
        cr_expect_eq(l.v[5].shape.d[1], 1000);
        cr_expect(have_sweep);
        cr_expect_str_eq(sw.op->name, "sin_iter");
        cr_expect_eq(sw.dim, 1, "the sweep runs over k");
        cr_expect_eq(sw.lo, 1);
        cr_expect_eq(sw.hi, 1000);
    } else {
        cr_expect_eq(notes.n, 1);
        cr_expect(strstr(notes.text[0], "sin_iter") != NULL);
    }
    l.n = 0;

    cr_assert_eq(gv_bench_preset("targets", &l, &sw, &have_sweep, &o, &notes), GV_OK);
    cr_expect_eq(count_op(&l, "vadd", GV_F32), 1);
    cr_expect_eq(count_op(&l, "vadd", GV_F64), 0);
    cr_expect_eq(l.v[0].shape.d[0], (int64_t)1 << 28);
    cr_expect_eq(count_op(&l, "gemm.tiled", GV_F32), 1);
    cr_expect_eq(count_op(&l, "gemm.cublas", GV_F64), 1);
    cr_expect_not(o.time_cpu, "the targets are the GPU's");
    l.n = 0;

    gv_bench_opts_default(&o);
    cr_assert_eq(gv_bench_preset("short", &l, &sw, &have_sweep, &o, &notes), GV_OK);
    cr_expect_geq(l.n, 3);
    cr_expect_leq(o.gpu.cap_s, 0.05, "small caps");
    cr_expect(have_sweep);
    cr_expect_eq(gv_bench_preset("seed001", &l, &sw, &have_sweep, &o, &notes), GV_EINVAL);
    free(l.v);
}

Test(bench_plan, sweeps_parse_size_and_fit)
{
    gv_bench_opts o;
    gv_bench_opts_default(&o);
    gv_sweep sw = {
        gv_op_find("gemm.cublas"), GV_F32, GV_MODE_NATIVE, {3, {64, 64, 64}}, 0, 0, 0, 2.0, 0};
    char why[512];
    cr_assert_eq(gv_sweep_parse(&sw, "k=2^4..1e3", why, sizeof why), GV_OK, "%s", why);
    cr_expect_eq(sw.dim, 1);
    cr_expect_eq(sw.lo, 16);
    cr_expect_eq(sw.hi, 1000);
    cr_expect_eq(gv_sweep_parse(&sw, "x=1..2", why, sizeof why), GV_EINVAL);
    cr_expect(strstr(why, "m,k,n") != NULL, "names the dims: %s", why);
    cr_expect_eq(gv_sweep_parse(&sw, "k=9..3", why, sizeof why), GV_EINVAL);
    cr_expect_eq(gv_sweep_parse(&sw, "k:1..3", why, sizeof why), GV_EINVAL);

    int64_t sizes[GV_MAX_SWEEP];
    int n = gv_sweep_sizes(&sw, &o, sizes, why, sizeof why);
    cr_assert_eq(n, 7, "16 32 64 128 256 512 1000: %d (%s)", n, why);
    cr_expect_eq(sizes[0], 16);
    cr_expect_eq(sizes[n - 1], 1000);
    sw.hi = (int64_t)1 << 31; /* gemm takes dims below 2^30 */
    cr_expect_eq(gv_sweep_sizes(&sw, &o, sizes, why, sizeof why), GV_EINVAL);
    cr_expect(strstr(why, "--crossover gemm.cublas: gemm") != NULL, "the op's reason: %s", why);

    gv_case c = vadd_case(GV_F32, 1000);
    cr_expect_eq(gv_bench_fits(&c, &o, why, sizeof why), GV_OK);
    c.shape.d[0] = (int64_t)1e13;
    cr_expect_eq(gv_bench_fits(&c, &o, why, sizeof why), GV_EINVAL);
    cr_expect(strstr(why, "host memory") != NULL, "%s", why);
    /* a device too small for the case: 12 MB of tensors and a 100 MB flush buffer in 64 MB */
    fake_reset();
    fake.mem = 64000000;
    o.device = &fake_device;
    c.shape.d[0] = 1000000;
    cr_expect_eq(gv_bench_fits(&c, &o, why, sizeof why), GV_EINVAL);
    cr_expect(strstr(why, "device memory") != NULL, "%s", why);
}

/* ---- the tables that name ops and shapes ---- */

Test(bench_plan, every_preset_and_target_entry_resolves)
{
    char why[512];
    for (int i = 0; i < gv_n_presets; i++) {
        const gv_preset *p = &gv_presets[i];
        for (int k = 0; k < p->n_cases; k++) {
            gv_case c;
            cr_expect_eq(gv_preset_case_resolve(p->name, &p->cases[k], &c, why, sizeof why), GV_OK,
                         "%s", why);
        }
        if (p->sweep) {
            gv_sweep sw;
            cr_expect_eq(gv_preset_sweep_resolve(p->name, p->sweep, &sw, why, sizeof why), GV_OK,
                         "%s", why);
        }
    }
    cr_expect_eq(gv_bench_presets_check(why, sizeof why), GV_OK, "%s", why);
    for (int i = 0; i < gv_n_target_specs; i++)
        cr_expect_eq(gv_target_spec_check(&gv_target_specs[i], why, sizeof why), GV_OK, "%s", why);
    cr_expect_eq(gv_bench_targets_check(why, sizeof why), GV_OK, "%s", why);
    for (int i = 0; i < 2; i++) {
        cr_expect_not_null(gv_op_find(gv_seed002_ops[i]), "%s", gv_seed002_ops[i]);
        cr_expect_not_null(gv_op_find(gv_seed000_ops[i]), "%s", gv_seed000_ops[i]);
    }
}

Test(bench_plan, an_entry_that_does_not_resolve_is_named)
{
    char why[512];
    const gv_target_spec bad_op = {"vadd.renamed",          GV_F32, "2^28", "2^28",
                                   GV_TARGET_COPY_FRACTION, 0.85,   NULL};
    cr_expect_eq(gv_target_spec_check(&bad_op, why, sizeof why), GV_EINTERNAL);
    cr_expect(strstr(why, "vadd.renamed") != NULL, "%s", why);
    const gv_target_spec bad_shape = {"vadd", GV_F32, "3x4", "3x4", GV_TARGET_COPY_FRACTION,
                                      0.85,   NULL};
    cr_expect_eq(gv_target_spec_check(&bad_shape, why, sizeof why), GV_EINTERNAL);
    cr_expect(strstr(why, "vadd") != NULL, "%s", why);
    const gv_target_spec bad_ref = {"gemm.tiled",         GV_F32, "64x64x64",   "64^3",
                                    GV_TARGET_TIME_RATIO, 0,      "gemm.nosuch"};
    cr_expect_eq(gv_target_spec_check(&bad_ref, why, sizeof why), GV_EINTERNAL);
    cr_expect(strstr(why, "gemm.nosuch") != NULL, "%s", why);
    const gv_preset_case pc = {"no.such.op", GV_F32, "1e3"};
    gv_case c;
    cr_expect_eq(gv_preset_case_resolve("x", &pc, &c, why, sizeof why), GV_EINTERNAL);
    cr_expect(strstr(why, "no.such.op") != NULL, "%s", why);
    const gv_preset_sweep ps = {"vadd", GV_F32, "2^20", "q=1..10", 2.0, 1};
    gv_sweep sw;
    cr_expect_eq(gv_preset_sweep_resolve("x", &ps, &sw, why, sizeof why), GV_EINTERNAL);
    cr_expect(strstr(why, "no dim 'q'") != NULL, "%s", why);
}
