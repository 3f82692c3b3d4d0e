/* model_fft.c: the fft descriptors and error model (src/ops/fft.c): the gauge bounds every
 * output, a faithful f32 FFT stays far under the bound, f64 results that lost precision fail;
 * expected tiers and the test shapes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h"
#include "go.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

#define PI_L 3.141592653589793238462643383279502884L

/* ---- descriptors and the error model ----------------------------------------------------- */

static const char *const op_names[] = {"fft.c2c.fwd", "fft.c2c.inv", "fft.r2c.fwd", "fft.c2r.inv"};

static gv_case fft_case(const char *name, gv_dtype t, int64_t n, int64_t batch)
{
    const gv_op *op = gv_op_find(name);
    cr_assert_not_null(op, "%s is registered", name);
    return (gv_case){op, t, GV_MODE_NATIVE, op->default_dist, {2, {n, batch}}, 3};
}

/* Full-spectrum 2-norm of a row of the oracle's output (the half spectrum for r2c). */
static double row_full_norm(const char *name, const double *y, int64_t n)
{
    int64_t h = n / 2 + 1;
    double s = 0;
    if (strcmp(name, "fft.r2c.fwd") == 0) {
        for (int64_t k = 0; k < h; k++) {
            double w = (k == 0 || (n % 2 == 0 && k == n / 2)) ? 1.0 : 2.0;
            s += w * (y[2 * k] * y[2 * k] + y[2 * k + 1] * y[2 * k + 1]);
        }
    } else {
        int64_t count = strcmp(name, "fft.c2r.inv") == 0 ? n : 2 * n;
        for (int64_t i = 0; i < count; i++)
            s += y[i] * y[i];
    }
    return sqrt(s);
}

Test(oracle_fft, gauge_is_the_rows_output_norm_and_bounds_every_output)
{
    const int64_t ns[] = {61, 64};
    for (size_t o = 0; o < 4; o++)
        for (size_t t = 0; t < 2; t++) {
            int64_t n = ns[t], batch = 3;
            gv_case c = fft_case(op_names[o], GV_F64, n, batch);
            gv_problem p;
            cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
            cr_assert_eq(gv_reference(&p), GV_OK);
            int64_t row = p.out[0].count / batch;
            for (int64_t b = 0; b < batch; b++) {
                double want = row_full_norm(op_names[o], p.out[0].ref + b * row, n);
                for (int64_t i = b * row; i < (b + 1) * row; i++) {
                    cr_expect(p.out[0].gauge[i] >= fabs(p.out[0].ref[i]), "%s: g < |y|",
                              op_names[o]);
                    cr_expect(fabs(p.out[0].gauge[i] - want) <= 1e-13 * want,
                              "%s n=%ld: gauge %g, row norm %g", op_names[o], (long)n,
                              p.out[0].gauge[i], want);
                }
            }
            gv_problem_free(&p);
        }
}

Test(oracle_fft, c2r_inputs_are_a_real_signals_half_spectrum)
{
    const int64_t ns[] = {61, 64};
    for (size_t t = 0; t < 2; t++) {
        int64_t n = ns[t], h = n / 2 + 1;
        gv_case c = fft_case("fft.c2r.inv", GV_F32, n, 3);
        gv_problem p;
        cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
        const float *data = p.in[0].data;
        for (int64_t b = 0; b < 3; b++) {
            cr_expect_eq(p.in[0].ref[2 * b * h + 1], 0.0, "Im X_0");
            cr_expect_eq(data[2 * b * h + 1], 0.0f, "Im X_0 in the dtype copy");
            if (n % 2 == 0) cr_expect_eq(p.in[0].ref[2 * b * h + 2 * (h - 1) + 1], 0.0);
            cr_expect_neq(p.in[0].ref[2 * b * h + 3], 0.0, "other parts stay random");
        }
        gv_problem_free(&p);
    }
}

Test(oracle_fft, descriptor_facts)
{
    gv_layout l;
    gv_case c = fft_case("fft.c2c.fwd", GV_F32, 1000, 4);
    cr_assert_eq(c.op->layout(&c, &l), GV_OK);
    cr_expect_eq(l.in[0].count, 8000, "interleaved complex: 2 n batch reals");
    cr_expect_eq(l.out[0].count, 8000);
    cr_expect_eq(c.op->depth(&c), 10.0, "1000 = 2^3 5^3: Cooley-Tukey, ceil(log2 n)");
    c = fft_case("fft.r2c.fwd", GV_F32, 1000, 4);
    cr_assert_eq(c.op->layout(&c, &l), GV_OK);
    cr_expect_eq(l.in[0].count, 4000);
    cr_expect_eq(l.out[0].count, 2 * 501 * 4);
    cr_expect_eq(c.op->depth(&c), 11.0, "real transforms: one more pass");
    c = fft_case("fft.c2r.inv", GV_F32, 1000, 4);
    cr_assert_eq(c.op->layout(&c, &l), GV_OK);
    cr_expect_eq(l.in[0].count, 2 * 501 * 4);
    cr_expect_eq(l.out[0].count, 4000);
    cr_expect_eq(l.workspace_bytes, 2 * 501 * 4 * 4, "C2R transforms a copy of its input");
    c = fft_case("fft.c2c.inv", GV_F64, 7919, 2);
    cr_expect_eq(c.op->depth(&c), 31.0, "7919 is prime: Bluestein, 2 ceil(log2 n) + 5");
    c = fft_case("fft.c2c.inv", GV_F64, 4097, 2);
    cr_expect_eq(c.op->depth(&c), 31.0, "4097 = 17 x 241: Bluestein");
    c = fft_case("fft.c2c.inv", GV_F64, INT64_C(1) << 20, 1);
    cr_expect_eq(c.op->depth(&c), 20.0);
    c = fft_case("fft.c2c.fwd", GV_F64, 2, 1);
    cr_expect_eq(c.op->depth(&c), 1.0);
    cr_expect_eq(c.op->default_dist, GV_DIST_UNIFORM11);
    cr_expect_not(c.op->dists & (1u << GV_DIST_SPECIAL), "NaN/Inf smear over a whole row");

    for (size_t o = 0; o < 4; o++) {
        const gv_op *op = gv_op_find(op_names[o]);
        cr_assert_not_null(op);
        cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE) && gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
        cr_expect_not(gv_mode_ok(op, GV_F32, GV_MODE_TF32));
        cr_expect_not(gv_mode_ok(op, GV_F32, GV_MODE_FASTMATH));
        cr_expect_null(op->planted_bug);
        cr_expect_str_eq(op->dims, "n,batch");
        char why[256] = "";
        gv_shape s = {2, {1, 4}};
        cr_expect_not(gv_shape_ok(op, &s, why, sizeof why));
        cr_expect_not_null(strstr(why, "at least 2"), "%s", why);
        s = (gv_shape){2, {INT64_C(1) << 28, 1}};
        cr_expect_not(gv_shape_ok(op, &s, why, sizeof why));
        s = (gv_shape){2, {INT64_C(1) << 20, 1025}};
        cr_expect_not(gv_shape_ok(op, &s, why, sizeof why), "over 2^30 points");
        s = (gv_shape){2, {INT64_C(1) << 20, 1024}};
        cr_expect(gv_shape_ok(op, &s, why, sizeof why), "%s", why);
        s = (gv_shape){1, {1000}};
        cr_expect_not(gv_shape_ok(op, &s, why, sizeof why), "n and batch, both");
    }
    const gv_op *bug = gv_op_find("fft.c2c.fwd.wrongsign");
    cr_assert_not_null(bug);
    cr_expect_not_null(bug->planted_bug);
}

Test(oracle_fft, expected_tiers_follow_the_absolute_error_rule)
{
    char why[GV_WHY_LEN] = "";
    for (size_t o = 0; o < 4; o++) {
        const gv_op *op = gv_op_find(op_names[o]);
        gv_shape shapes[32];
        char err[256];
        int ns = gv_size_spec_parse(op->test_shapes, shapes, 32, err, sizeof err);
        cr_assert_gt(ns, 0, "%s", err);
        for (int s = 0; s < ns; s++) {
            gv_case c = fft_case(op_names[o], GV_F64, shapes[s].d[0], shapes[s].d[1]);
            cr_expect_eq(op->expected_tier(&c, why, sizeof why), 1e-8,
                         "f64 keeps 1e-8 at every size");
        }
    }
    gv_case c = fft_case("fft.c2c.fwd", GV_F32, 1000, 4);
    cr_expect_eq(c.op->expected_tier(&c, why, sizeof why), 1e-4);
    c = fft_case("fft.c2c.fwd", GV_F32, 4096, 2);
    cr_expect_eq(c.op->expected_tier(&c, why, sizeof why), 1e-4);
    why[0] = '\0';
    c = fft_case("fft.c2c.fwd", GV_F32, INT64_C(1) << 20, 1);
    cr_expect_eq(c.op->expected_tier(&c, why, sizeof why), 0.0, "2 u d rms(y) = 1.4e-3 > 1e-4");
    cr_expect_not_null(strstr(why, "= 0.0014 > 1e-04"), "the reason carries the number: %s", why);
    why[0] = '\0';
    c = fft_case("fft.c2c.fwd", GV_F32, 7919, 2);
    cr_expect_eq(c.op->expected_tier(&c, why, sizeof why), 0.0,
                 "Bluestein depth: 2 u 31 51.4 > 1e-4");
    cr_expect(why[0] != '\0');
}

/* ---- a faithful f32 FFT, to exercise the error model as a device would ---------------- */

typedef struct cf {
    float re, im;
} cf;

static cf cmul(cf a, cf b)
{
    return (cf){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

/* In-place iterative radix-2 FFT of length m (a power of two), all arithmetic in f32; the
 * twiddles are computed in f64 and rounded once, as libraries do. */
static void fft_pow2_f32(cf *a, int64_t m, int sign)
{
    for (int64_t i = 1, j = 0; i < m; i++) {
        int64_t bit = m >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            cf t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    cf *tw = malloc(sizeof(cf) * (size_t)(m / 2 + 1));
    cr_assert_not_null(tw);
    for (int64_t k = 0; k < m / 2; k++) {
        double ang = sign * 2.0 * M_PI * (double)k / (double)m;
        tw[k] = (cf){(float)cos(ang), (float)sin(ang)};
    }
    for (int64_t len = 2; len <= m; len <<= 1)
        for (int64_t i = 0; i < m; i += len)
            for (int64_t k = 0; k < len / 2; k++) {
                cf u = a[i + k], v = cmul(a[i + k + len / 2], tw[k * (m / len)]);
                a[i + k] = (cf){u.re + v.re, u.im + v.im};
                a[i + k + len / 2] = (cf){u.re - v.re, u.im - v.im};
            }
    free(tw);
}

/* y = DFT(x) of any length in f32: radix 2, or Bluestein's convolution through length
 * m >= 2n - 1 (cuFFT's own choice for sizes with prime factors above 7). */
static void dft_f32(const cf *x, cf *y, int64_t n, int sign)
{
    if ((n & (n - 1)) == 0) {
        memcpy(y, x, sizeof(cf) * (size_t)n);
        fft_pow2_f32(y, n, sign);
        return;
    }
    int64_t m = 1;
    while (m < 2 * n - 1)
        m <<= 1;
    cf *a = calloc((size_t)m, sizeof(cf)), *b = calloc((size_t)m, sizeof(cf));
    cf *w = malloc(sizeof(cf) * (size_t)n);
    cr_assert(a && b && w);
    for (int64_t k = 0; k < n; k++) { /* w_k = e^{sign i pi k^2 / n}, k^2 reduced mod 2n */
        double ang = sign * M_PI * (double)((k * k) % (2 * n)) / (double)n;
        w[k] = (cf){(float)cos(ang), (float)sin(ang)};
    }
    for (int64_t j = 0; j < n; j++) {
        a[j] = cmul(x[j], w[j]);
        b[j] = (cf){w[j].re, -w[j].im};
        if (j) b[m - j] = b[j];
    }
    fft_pow2_f32(a, m, -1);
    fft_pow2_f32(b, m, -1);
    float inv_m = 1.0f / (float)m; /* exact: m is a power of two */
    for (int64_t i = 0; i < m; i++) {
        a[i] = cmul(a[i], b[i]);
        a[i].re *= inv_m;
        a[i].im *= inv_m;
    }
    fft_pow2_f32(a, m, 1);
    for (int64_t k = 0; k < n; k++)
        y[k] = cmul(a[k], w[k]);
    free(a);
    free(b);
    free(w);
}

/* What a correct f32 device would write for the case's op, from the f32 inputs. */
static void simulate_f32(gv_problem *p)
{
    const char *name = p->c.op->name;
    int64_t n = p->c.shape.d[0], batch = p->c.shape.d[1], h = n / 2 + 1;
    const float *in = p->in[0].data;
    float *out = p->out[0].data;
    cf *x = malloc(sizeof(cf) * (size_t)n), *y = malloc(sizeof(cf) * (size_t)n);
    cr_assert(x && y);
    for (int64_t b = 0; b < batch; b++) {
        if (strncmp(name, "fft.c2c", 7) == 0) {
            memcpy(x, in + 2 * b * n, sizeof(cf) * (size_t)n);
            dft_f32(x, y, n, strcmp(name, "fft.c2c.inv") == 0 ? 1 : -1);
            memcpy(out + 2 * b * n, y, sizeof(cf) * (size_t)n);
        } else if (strcmp(name, "fft.r2c.fwd") == 0) {
            for (int64_t j = 0; j < n; j++)
                x[j] = (cf){in[b * n + j], 0.0f};
            dft_f32(x, y, n, -1);
            memcpy(out + 2 * b * h, y, sizeof(cf) * (size_t)h);
        } else {
            const float *row = in + 2 * b * h;
            for (int64_t k = 0; k < n; k++) {
                int64_t src = k < h ? k : n - k;
                x[k] = (cf){row[2 * src], k < h ? row[2 * src + 1] : -row[2 * src + 1]};
            }
            dft_f32(x, y, n, 1);
            for (int64_t j = 0; j < n; j++)
                out[b * n + j] = y[j].re;
        }
    }
    free(x);
    free(y);
}

Test(oracle_fft, a_faithful_f32_fft_stays_far_under_the_bound, .timeout = 240)
{
    gv_shape shapes[32];
    char err[256];
    int ns =
        gv_size_spec_parse(gv_op_find("fft.c2c.fwd")->test_shapes, shapes, 32, err, sizeof err);
    cr_assert_gt(ns, 0, "%s", err);
    for (size_t o = 0; o < 4; o++)
        for (int s = 0; s < ns; s++) {
            gv_case c = fft_case(op_names[o], GV_F32, shapes[s].d[0], shapes[s].d[1]);
            gv_problem p;
            gv_result r;
            cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
            cr_assert_eq(gv_reference(&p), GV_OK);
            simulate_f32(&p);
            r = gv_test_judge(&p);
            char label[160];
            gv_case_label(&c, label, sizeof label);
            cr_expect_eq(r.verdict, GV_PASS, "%s: %s (%s)", label, gv_verdict_name(r.verdict),
                         r.reason);
            cr_expect_lt(r.m.ratio, 1.0, "%s: ratio %g: the bound 16 has room", label, r.m.ratio);
            if (c.shape.d[0] > 16) /* (tiny sizes may happen to be exact) */
                cr_expect_gt(r.m.ratio, 0.0, "%s: an f32 FFT is not exact", label);
            cr_log_info("%s: ratio %.3g normwise %.3g tier 1e-4 misses %lld expected %g", label,
                        r.m.ratio, r.m.normwise_rel, (long long)r.m.mismatches[1], r.expected_tier);
            if (c.shape.d[0] == (INT64_C(1) << 20) && o == 0)
                cr_expect_gt(r.m.mismatches[1], 0,
                             "%s: f32 at 2^20 misses 1e-4 (why expected_tier drops it)", label);
            gv_problem_free(&p);
        }
}

Test(oracle_fft, f64_results_that_lost_precision_or_direction_fail)
{
    gv_case c = fft_case("fft.c2c.fwd", GV_F64, 4096, 2);
    gv_problem p;
    gv_result r;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    double *out = p.out[0].data;
    int64_t count = p.out[0].count;

    memcpy(out, p.out[0].ref, sizeof(double) * (size_t)count);
    r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_PASS, "the oracle's own values: %s", r.reason);

    /* f32 arithmetic on the f64 case: an FFT that silently dropped to single precision */
    float *in32 = malloc(sizeof(float) * (size_t)count),
          *out32 = malloc(sizeof(float) * (size_t)count);
    cr_assert(in32 && out32);
    for (int64_t i = 0; i < count; i++)
        in32[i] = (float)p.in[0].ref[i];
    for (int64_t b = 0; b < 2; b++)
        dft_f32((cf *)(in32 + 2 * b * 4096), (cf *)(out32 + 2 * b * 4096), 4096, -1);
    for (int64_t i = 0; i < count; i++)
        out[i] = out32[i];
    r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL, "f32 precision in an f64 case must FAIL");
    cr_expect_gt(r.m.ratio, 1e5, "ratio %g: the loss shows by orders of magnitude", r.m.ratio);

    /* the wrong direction: the inverse transform's values */
    cr_assert_eq(go_fft_c2c(4096, 2, 1, p.in[0].ref, 4096, out, 4096), 0);
    r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL, "inverse for forward must FAIL");

    /* a single wrong output, off by 1e-9 of the row's norm */
    memcpy(out, p.out[0].ref, sizeof(double) * (size_t)count);
    out[2 * 777] += 1e-9 * p.out[0].gauge[2 * 777];
    r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL, "one output off by 1e-9 ||y|| (ratio %g)", r.m.ratio);
    free(in32);
    free(out32);
    gv_problem_free(&p);
}

/* a transform length past 32 that is not a multiple of it */
static bool ragged_n(const gv_shape *s)
{
    return s->d[0] > 32 && s->d[0] % 32 != 0;
}

Test(oracle_fft, test_shapes_have_a_length_off_multiples_of_32)
{
    const char *const ops[] = {"fft.c2c.fwd", "fft.c2c.inv", "fft.r2c.fwd", "fft.c2r.inv",
                               "fft.c2c.fwd.wrongsign"};
    for (int o = 0; o < 5; o++)
        cr_expect_gt(gv_test_catalogue_count(ops[o], true, ragged_n), 0, "%s", ops[o]);
}
