/* test_e2e_runs.c: every run file gpuval writes is one that every reader reads, end to end on
 * the CPU — the real gpuval binary (GPUVAL, set by tests/meson.build) makes the inputs of a case
 * at each distribution's extremes (huge: near the dtype's maximum; tiny: subnormals; special:
 * NaN, Inf, -0; wide; uniform01; uniform11's cancellation), the outputs are computed here on
 * the CPU in the dtype's own arithmetic (what another framework would hand over), exactly and
 * with one element perturbed, `gpuval judge` writes the gpuval-run/1 document through check's
 * own writer, and `compare` (the run against itself: SAME, exit 0; the perturbed one against
 * it), `report --html`, `report --md` and `merge` read it back. No number in the document is
 * NaN where the readers refuse one: a normwise error over finite pairs is a number (docs/
 * schemas.md, "Numbers that are not finite"). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/npy.h"
#include "testkit.h"

typedef enum { OP_VADD, OP_GEMM, OP_SUM, OP_COLSUM } op_kind;

static const struct {
    op_kind kind;
    const char *op, *size;
} ops[] = {
    {OP_VADD, "vadd", "1000"},
    {OP_GEMM, "gemm.cublas", "32x64x16"},
    {OP_SUM, "reduce.sum", "1000"},
    {OP_COLSUM, "reduce.colsum", "64x24"},
};

static const char *const dists[] = {"huge", "tiny", "special", "wide", "uniform01", "uniform11"};

/* Input k of the case in dir (its file as dir/case.json, gpuval-inputs/1, names it), read
   whole. */
static void read_input(const char *dir, size_t k, gv_npy *a)
{
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/case.json", dir);
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    cr_assert_not_null(doc, "%s: %s", path, e.text);
    const char *file = json_string_value(
        json_object_get(json_array_get(json_object_get(doc, "inputs"), k), "file"));
    cr_assert_not_null(file, "%s: no inputs[%zu].file", path, k);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    json_decref(doc);
    cr_assert_eq(gv_npy_read(path, a, err, sizeof err), 0, "%s", err);
}

/* The op's output from its inputs in the dtype's arithmetic (f32: float, FMA for products, as
   a GPU's FFMA; f64: double), in index order: a correct kernel's result, off the oracle's by
   rounding only. Returns the element count; out has room for it. */
static int64_t compute(op_kind k, bool f32, const gv_npy *a, const gv_npy *b, void *out)
{
    float *of = out;
    double *od = out;
    const float *af = a->data, *bf = b ? b->data : NULL;
    const double *ad = a->data, *bd = b ? b->data : NULL;
    switch (k) {
    case OP_VADD:
        for (int64_t i = 0; i < a->count; i++)
            if (f32)
                of[i] = af[i] + bf[i];
            else
                od[i] = ad[i] + bd[i];
        return a->count;
    case OP_GEMM: {
        int64_t m = a->shape[0], kk = a->shape[1], n = b->shape[1];
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                float sf = 0.0f;
                double sd = 0.0;
                for (int64_t p = 0; p < kk; p++)
                    if (f32)
                        sf = fmaf(af[i * kk + p], bf[p * n + j], sf);
                    else
                        sd = fma(ad[i * kk + p], bd[p * n + j], sd);
                if (f32)
                    of[i * n + j] = sf;
                else
                    od[i * n + j] = sd;
            }
        return m * n;
    }
    case OP_SUM: {
        float sf = 0.0f;
        double sd = 0.0;
        for (int64_t i = 0; i < a->count; i++)
            if (f32)
                sf += af[i];
            else
                sd += ad[i];
        if (f32)
            of[0] = sf;
        else
            od[0] = sd;
        return 1;
    }
    case OP_COLSUM: {
        int64_t m = a->shape[0], n = a->shape[1];
        for (int64_t j = 0; j < n; j++) {
            float sf = 0.0f;
            double sd = 0.0;
            for (int64_t i = 0; i < m; i++)
                if (f32)
                    sf += af[i * n + j];
                else
                    sd += ad[i * n + j];
            if (f32)
                of[j] = sf;
            else
                od[j] = sd;
        }
        return n;
    }
    }
    return 0;
}

/* The number at o.path as the document holds it: a JSON number, or one of the strings. */
static const char *num_text(const json_t *v, char *buf, size_t len)
{
    if (json_is_number(v))
        snprintf(buf, len, "%.17g", json_number_value(v));
    else if (json_is_string(v))
        snprintf(buf, len, "\"%s\"", json_string_value(v));
    else
        snprintf(buf, len, "%s", v ? "(other)" : "(absent)");
    return buf;
}

/* The case of run file path: its normwise error is a number over finite pairs (never "nan";
   "inf" only where the reference is zero), its accurate bits not NaN, whatever the verdict. */
static void check_doc(const char *path, const char *what)
{
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    cr_assert_not_null(doc, "%s: %s: %s", what, path, e.text);
    json_t *c = json_array_get(json_object_get(doc, "cases"), 0);
    cr_assert_not_null(c, "%s: no case", what);
    json_t *m = json_object_get(c, "metrics");
    cr_assert(json_is_object(m), "%s: no metrics", what);
    char buf[64];
    static const char *const never_nan[] = {"normwise_rel", "accurate_bits", "max_rel", "max_abs"};
    for (size_t k = 0; k < sizeof never_nan / sizeof never_nan[0]; k++) {
        json_t *v = json_object_get(m, never_nan[k]);
        bool ok =
            json_is_number(v) || (json_is_string(v) && (strcmp(json_string_value(v), "inf") == 0 ||
                                                        strcmp(json_string_value(v), "-inf") == 0));
        cr_expect(ok, "%s: metrics.%s is %s (verdict %s)", what, never_nan[k],
                  num_text(v, buf, sizeof buf), json_string_value(json_object_get(c, "verdict")));
    }
    json_decref(doc);
}

/* Exit codes as a set: 1 << code. */
#define EXIT(c) (1u << (c))

/* Run `gpuval ARGS`, expecting an exit code in the set ok (never 2, a document refused). */
static void cli(const char *what, const char *args, unsigned ok)
{
    static char out[65536];
    int rc = gv_test_run_cli(args, out, sizeof out);
    cr_expect(rc >= 0 && rc < 32 && (ok & EXIT(rc)), "%s: gpuval %s: exit %d (want one of %#x)\n%s",
              what, args, rc, ok, out);
}

/* One op, dtype and dist end to end: inputs, outputs (exact and one element off by 1e-3 of
   itself), judge, then every reader on the runs. */
static void one_case(const char *tmp, size_t oi, const char *dtype, const char *dist)
{
    bool f32 = strcmp(dtype, "f32") == 0;
    char dir[2048], what[256], args[8192];
    snprintf(what, sizeof what, "%s %s %s %s", ops[oi].op, dtype, dist, ops[oi].size);
    snprintf(dir, sizeof dir, "%s/%s-%s-%s", tmp, ops[oi].op, dtype, dist);
    snprintf(args, sizeof args, "inputs --op %s --dtype %s --size %s --dist %s --seed 1 --out '%s'",
             ops[oi].op, dtype, ops[oi].size, dist, dir);
    cli(what, args, EXIT(0));

    gv_npy a, b;
    bool two = ops[oi].kind == OP_VADD || ops[oi].kind == OP_GEMM;
    read_input(dir, 0, &a);
    if (two) read_input(dir, 1, &b);
    int64_t cap = a.count > 4096 ? a.count : 4096;
    void *out = calloc((size_t)cap, 8);
    cr_assert_not_null(out);
    int64_t n = compute(ops[oi].kind, f32, &a, two ? &b : NULL, out);
    gv_npy_type t = f32 ? GV_NPY_F32 : GV_NPY_F64;
    char exact[2200], off[2200], run[2200], runoff[2200];
    snprintf(exact, sizeof exact, "%s/C.npy", dir);
    snprintf(off, sizeof off, "%s/C_off.npy", dir);
    cr_assert_eq(gv_npy_write(exact, t, 1, &n, out), 0);
    /* the first finite nonzero element off by 1e-3 of itself: a FAIL at the f64 tier, whose
       error is as large as the data (near the overflow threshold for huge) */
    for (int64_t i = 0; i < n; i++) {
        double v = f32 ? ((float *)out)[i] : ((double *)out)[i];
        if (!isfinite(v) || v == 0) continue;
        if (f32)
            ((float *)out)[i] = (float)(v * (1 + 1e-3));
        else
            ((double *)out)[i] = v * (1 + 1e-3);
        break;
    }
    cr_assert_eq(gv_npy_write(off, t, 1, &n, out), 0);
    free(out);
    gv_npy_free(&a);
    if (two) gv_npy_free(&b);

    snprintf(run, sizeof run, "%s/run.json", dir);
    snprintf(runoff, sizeof runoff, "%s/run_off.json", dir);
    snprintf(args, sizeof args, "judge --case '%s/case.json' --outputs '%s' --json '%s' -q", dir,
             exact, run);
    cli(what, args, EXIT(0) | EXIT(1)); /* PASS or FAIL: not what this test judges */
    snprintf(args, sizeof args, "judge --case '%s/case.json' --outputs '%s' --json '%s' -q", dir,
             off, runoff);
    cli(what, args, EXIT(0) | EXIT(1));
    check_doc(run, what);
    check_doc(runoff, what);

    /* every reader: a run against itself is SAME (exit 0); against the perturbed one the
       readers decide something (not a refusal: exit 2 is a document a reader refused) */
    snprintf(args, sizeof args, "compare '%s' '%s'", run, run);
    cli(what, args, EXIT(0));
    snprintf(args, sizeof args, "compare '%s' '%s'", runoff, runoff);
    cli(what, args, EXIT(0));
    snprintf(args, sizeof args, "compare '%s' '%s'", run, runoff);
    cli(what, args, EXIT(0) | EXIT(4));
    snprintf(args, sizeof args, "report '%s' --html '%s/r.html' --md '%s/r.md'", run, dir, dir);
    cli(what, args, EXIT(0));
    snprintf(args, sizeof args, "report '%s' --html '%s/o.html' --md '%s/o.md'", runoff, dir, dir);
    cli(what, args, EXIT(0));
    /* as two devices' runs: their outputs differ by the perturbed element, so the fleet may
       name one the outlier (6), besides passing (0) or failing (1) */
    snprintf(args, sizeof args, "merge '%s' '%s' --json '%s/fleet.json' -q", run, runoff, dir);
    cli(what, args, EXIT(0) | EXIT(1) | EXIT(6));
}

static void all_cases(const char *dtype)
{
    char tmp[512];
    gv_test_scratch_dir(tmp, sizeof tmp, "e2e");
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
            one_case(tmp, o, dtype, dists[d]);
    gv_test_remove_dir(tmp);
}

Test(e2e_runs, f64_every_dist_every_reader, .timeout = 240)
{
    all_cases("f64");
}

Test(e2e_runs, f32_every_dist_every_reader, .timeout = 240)
{
    all_cases("f32");
}
