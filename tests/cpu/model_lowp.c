/* model_lowp.c: the models of gemm.cublas's fp8 and f16acc modes, and the flag for a mode that
 * does better than its model. On gemm.cublas at 16 x K x 16 the CPU emulates the paths those
 * modes take — fp8: per-tensor scaling s = 448 / amax, e4m3 rounding (4 significand bits,
 * subnormals on 2^-9, saturating at 448), f32 accumulation, the descales applied at the end;
 * f16acc: f16 inputs and every partial sum rounded to f16 — and impostors, plants each result
 * as the device output and judges it with gv_judge_problem for the claimed mode, as model_dot.c does
 * for the native modes. Genuine paths PASS and are not flagged; native f32 claiming fp8 PASSes
 * (it is better, not worse) and is flagged; fp8 claiming f16 or f32, and f16acc claiming f16,
 * FAIL. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model_floor.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"
#include "bench/trade_report.h"

#define M_ROWS 16
#define N_COLS 16
#define SEED   20251122u

/* e4m3 (OCP FP8, as cuda_fp8.h's __NV_E4M3 with __NV_SATFINITE): 4 significand bits, smallest
   normal 2^-6, subnormals on the 2^-9 grid, largest finite 448; round to nearest even. */
static double round_e4m3(double y)
{
    if (y == 0.0 || isnan(y)) return y;
    double r = fabs(y) < 0x1p-6 ? nearbyint(y * 0x1p9) * 0x1p-9 : gv_round_bits(y, 4);
    return fabs(r) > 448.0 ? copysign(448.0, y) : r;
}

/* IEEE binary16, as model_dot.c: 11 bits, subnormals on 2^-24, overflow past 65504. */
static double round_f16(double x)
{
    if (x == 0.0 || !isfinite(x)) return x;
    double y = fabs(x) < 0x1p-14 ? nearbyint(x * 0x1p24) * 0x1p-24 : gv_round_bits(x, 11);
    return fabs(y) > 65504.0 ? copysign(INFINITY, x) : y;
}

typedef void (*path_fn)(const gv_problem *p, float *out);

static double amax(const double *x, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* the scale in f32 as the kernel computes it: 448 / amax, 1 where amax is 0 */
static float fp8_scale(double a)
{
    return a > 0 ? 448.0f / (float)a : 1.0f;
}

static void path_fp8(const gv_problem *p, float *out)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const double *A = p->in[0].ref, *B = p->in[1].ref;
    float sa = fp8_scale(amax(A, m * k)), sb = fp8_scale(amax(B, k * n));
    float da = 1.0f / sa, db = 1.0f / sb;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (int64_t l = 0; l < k; l++) {
                float a8 = (float)round_e4m3((float)A[i * k + l] * sa);
                float b8 = (float)round_e4m3((float)B[l * n + j] * sb);
                acc = fmaf(a8, b8, acc);
            }
            out[i * n + j] = acc * (da * db);
        }
}

static void path_f32(const gv_problem *p, float *out)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (int64_t l = 0; l < k; l++)
                acc = fmaf((float)p->in[0].ref[i * k + l], (float)p->in[1].ref[l * n + j], acc);
            out[i * n + j] = acc;
        }
}

/* f16 inputs; accumulation in f32 (acc16 false) or every partial sum rounded to f16 (the
   product of two f16 values is exact in double, so is its sum with an f16 partial sum) */
static void half_path(const gv_problem *p, float *out, bool acc16)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc16v = 0.0;
            float acc32 = 0.0f;
            for (int64_t l = 0; l < k; l++) {
                double x = round_f16(p->in[0].ref[i * k + l]);
                double y = round_f16(p->in[1].ref[l * n + j]);
                if (acc16)
                    acc16v = round_f16(acc16v + x * y);
                else
                    acc32 = fmaf((float)x, (float)y, acc32);
            }
            out[i * n + j] = acc16 ? (float)acc16v : acc32;
        }
}
static void path_f16(const gv_problem *p, float *out)
{
    half_path(p, out, false);
}
static void path_f16acc(const gv_problem *p, float *out)
{
    half_path(p, out, true);
}

enum expect { GENUINE, BETTER, IMPOSTOR };

static const struct path {
    const char *name;
    gv_mode claim;
    path_fn fn;
    enum expect want;
    int64_t min_k; /* judged from this K on (an impostor too close to its claim below) */
} paths[] = {
    {"fp8 (scaled e4m3)  as fp8", GV_MODE_FP8, path_fp8, GENUINE, 0},
    {"f32 native         as fp8", GV_MODE_FP8, path_f32, BETTER, 0},
    {"fp8 (scaled e4m3)  as f16", GV_MODE_F16, path_fp8, IMPOSTOR, 0},
    {"fp8 (scaled e4m3)  as f32", GV_MODE_NATIVE, path_fp8, IMPOSTOR, 0},
    {"f16 in, f16 acc    as f16acc", GV_MODE_F16ACC, path_f16acc, GENUINE, 0},
    {"f16 in, f32 acc    as f16acc", GV_MODE_F16ACC, path_f16, GENUINE, 0},
    {"f16 in, f16 acc    as f16", GV_MODE_F16, path_f16acc, IMPOSTOR, 256},
    {"f32 native         as f16", GV_MODE_F16, path_f32, BETTER, 0},
};

/* Judge path q at K on dist; the row as tradeoffs would flag it. */
static gv_trade_row judge_path(const struct path *q, int64_t K, gv_dist dist)
{
    const gv_op *op = gv_op_find("gemm.cublas");
    cr_assert_not_null(op);
    gv_case c = {op, GV_F32, q->claim, dist, {3, {M_ROWS, K, N_COLS}}, SEED};
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    q->fn(&p, (float *)p.out[0].data);
    gv_trade_row row;
    memset(&row, 0, sizeof row);
    gv_result_init(&row.r, &c);
    cr_assert(row.r.prob.on, "%s: probabilistic model on", q->name);
    gv_judge_problem(&p, &row.r);
    gv_trade_flag_models(&row, 1);
    gv_problem_free(&p);
    return row;
}

Test(model_lowp, fp8_and_f16acc_models_separate_genuine_better_and_impostor, .timeout = 120)
{
    static const int64_t ks[] = {64, 256, 1024, 4096};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++) {
            if (ks[q] < paths[i].min_k) continue;
            gv_trade_row row = judge_path(&paths[i], ks[q], GV_DIST_UNIFORM11);
            const gv_result *r = &row.r;
            char line[512];
            snprintf(line, sizeof line,
                     "%-30s K=%-5lld %s  max R %.3g  RMS R %.3g  floor %.3g  %s%s", paths[i].name,
                     (long long)ks[q], gv_verdict_name(r->verdict), r->m.prob_max, r->m.prob_rms,
                     r->prob.floor_rms, row.model_flag[0] ? "FLAGGED " : "", r->reason);
            cr_log_info("%s", line);
            printf("%s\n", line);
            switch (paths[i].want) {
            case GENUINE:
                cr_expect_eq(r->verdict, GV_PASS, "%s", line);
                cr_expect(!row.model_flag[0], "a genuine path is not flagged: %s", line);
                break;
            case BETTER:
                cr_expect_eq(r->verdict, GV_PASS, "better than claimed passes: %s", line);
                cr_expect(strstr(row.model_flag, "better than its model") != NULL,
                          "flagged as better than its model: %s", line);
                break;
            case IMPOSTOR: cr_expect_eq(r->verdict, GV_FAIL, "%s", line); break;
            }
        }
    fflush(stdout);
}

/* The floor's numbers: s_X of e4m3 (4 bits) on uniform inputs is near its value for a
   uniform mantissa, 2^-8 / 6 (the mean of (ulp/x)^2 / 12 over a binade); the fp8 model's w
   and u come from the mode table. */
Test(model_lowp, fp8_model_numbers_come_from_the_mode_table)
{
    const gv_op *op = gv_op_find("gemm.cublas");
    gv_case c = {op, GV_F32, GV_MODE_FP8, GV_DIST_UNIFORM11, {3, {16, 1024, 16}}, SEED};
    gv_result r;
    gv_result_init(&r, &c);
    cr_expect_eq(r.prob.u_in, 0x1p-4, "e4m3 inputs: u_in = 2^-4");
    cr_expect_eq(r.prob.u, 0x1p-24, "fp8 accumulates in f32");
    cr_expect_eq(r.expected_tier, 0.0, "fp8 expects no tier");
    cr_expect_not_null(strstr(r.expected_tier_why, "2^-4"), "%s", r.expected_tier_why);
    c.mode = GV_MODE_F16ACC;
    gv_result_init(&r, &c);
    cr_expect_eq(r.prob.u_in, 0x1p-11);
    cr_expect_eq(r.prob.u, 0x1p-11, "f16acc accumulates at f16's unit roundoff");
    cr_expect_eq(r.expected_tier, 0.0);
    cr_expect_not_null(strstr(r.expected_tier_why, "f16 accumulation"), "%s", r.expected_tier_why);

    gv_problem p;
    c.mode = GV_MODE_FP8;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    double s = gv_rounding_msq(p.in[0].ref, p.in[0].count, 4);
    cr_expect(s > 0.5 * 0x1p-8 / 6 && s < 2 * 0x1p-8 / 6, "s_A %.4g vs 2^-8/6 = %.4g", s,
              0x1p-8 / 6);
    gv_problem_free(&p);
    /* values on the grid round without error: no floor from them */
    double grid[] = {1.0, -0.5, 0.75, 448.0, 0.0};
    cr_expect_eq(gv_rounding_msq(grid, 5, 4), 0.0);
}

/* gv_round_bits rounds the significand's bits directly; by its definition x = f 2^e with f in
   [0.5, 1) rounds to nearbyint(f 2^p) 2^(e - p). The two agree on ties (both ways), on values
   next to them, at binade tops that carry into the next binade or to infinity, on subnormals
   and for every p from 1 to 53. */
static double round_bits_by_definition(double x, int p)
{
    if (x == 0.0 || !isfinite(x)) return x;
    int e;
    frexp(x, &e);
    return ldexp(nearbyint(ldexp(x, p - e)), e - p);
}

Test(model_lowp, round_bits_agrees_with_its_definition)
{
    uint64_t state = 12345;
    for (int p = 1; p <= 53; p++) {
        double tie = 1.0 + ldexp(1.0, -p); /* 1 + half an ulp at p bits: a tie, to even */
        double xs[] = {tie,
                       -tie,
                       1.0 + 3 * ldexp(1.0, -p),
                       nextafter(tie, 2),
                       nextafter(tie, 0),
                       nextafter(2.0, 0),
                       -nextafter(2.0, 0),
                       DBL_MAX,
                       0x1p-1070,
                       -0x1.8p-1060,
                       0x1p-1022,
                       1e300,
                       -3.5e-200};
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
            cr_expect_eq(gv_round_bits(xs[i], p), round_bits_by_definition(xs[i], p),
                         "%a at %d bits", xs[i], p);
        for (int k = 0; k < 2000; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t bits = state ^ (state >> 29);
            double x;
            memcpy(&x, &bits, sizeof x);
            if (!isfinite(x)) continue;
            cr_expect_eq(gv_round_bits(x, p), round_bits_by_definition(x, p), "%a at %d bits", x,
                         p);
        }
    }
}
