/* model_dot.c: the probabilistic error model of the dot-product ops separates genuine precision
 * from impostors. On gemm.cublas at 16 x K x 16 (K = 64 .. 16384) with the op's own inputs, the
 * CPU emulates several arithmetic paths a device could take — genuine f32 (with and without
 * FMA), genuine f64, genuine TF32 (rounded and truncated), and impostors: TF32 or f16 inputs
 * passed off as native f32, bf16 passed off as TF32, a ~48-bit float-float and a 40-bit
 * fixed-point (Ozaki-style) product passed off as native f64 — plants each result as the device
 * output and judges it with gv_judge_problem for the claimed (dtype, mode). Genuine paths must PASS well
 * inside the model's bounds (max R <= 8/5, RMS R <= 1/5) and impostors must FAIL, at every K on
 * zero-mean inputs; uniform [0,1) inputs are judged and printed for information only. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

__extension__ typedef __int128 i128;

#define M_ROWS 16
#define N_COLS 16
#define NK     5
#define SEED   20250611u

static const int64_t ks[NK] = {64, 256, 1024, 4096, 16384};

/* ---- rounding helpers (all on doubles, exact where the result fits) -------------------- */

/* x rounded to p significant bits, to nearest with ties to even; 0, inf and NaN kept. */
static double round_rn(double x, int p)
{
    if (x == 0.0 || !isfinite(x)) return x;
    int e;
    frexp(x, &e); /* |x| in [2^(e-1), 2^e): scaled below into [2^(p-1), 2^p) */
    return ldexp(nearbyint(ldexp(x, p - e)), e - p);
}

/* x truncated (toward zero) to p significant bits. */
static double round_tz(double x, int p)
{
    if (x == 0.0 || !isfinite(x)) return x;
    int e;
    frexp(x, &e);
    return ldexp(trunc(ldexp(x, p - e)), e - p);
}

/* hi + lo (an exact unevaluated pair, hi = RN53(hi + lo)) rounded once to p < 53 bits, to
   nearest even: RN_p(hi) unless hi lies exactly on a midpoint of the p-bit grid, where the
   sign of lo decides. Off a midpoint lo cannot move the value across one (the midpoints are
   53-bit numbers at least one 53-bit ulp from hi, |lo| at most half of one). */
static double round_rn_pair(double hi, double lo, int p)
{
    if (hi == 0.0 || !isfinite(hi) || lo == 0.0) return round_rn(hi, p);
    int e;
    frexp(hi, &e);
    double t = ldexp(hi, p - e);
    if (t - floor(t) != 0.5) return round_rn(hi, p);
    return ldexp(lo > 0 ? ceil(t) : floor(t), e - p);
}

/* IEEE binary16: 11 significant bits, subnormals below 2^-14 on the 2^-24 grid, overflow to
   inf past 65504 (after rounding). */
static double round_f16(double x)
{
    if (x == 0.0 || !isfinite(x)) return x;
    double y = fabs(x) < 0x1p-14 ? nearbyint(x * 0x1p24) * 0x1p-24 : round_rn(x, 11);
    return fabs(y) > 65504.0 ? copysign(INFINITY, x) : y;
}

static double in_id(double x)
{
    return x;
}
static double in_tf32_rn(double x)
{
    return round_rn(x, 11);
}
static double in_tf32_tz(double x)
{
    return round_tz(x, 11);
}
static double in_bf16(double x)
{
    return round_rn(x, 8);
}

/* ---- emulated arithmetic paths: p's inputs (p->in[].ref) to the f32 or f64 output data --- */

typedef void (*path_fn)(const gv_problem *p, void *out);

/* A (m x k) and B (k x n), B transposed, each element through `in`, as floats. */
static void load_f32(const gv_problem *p, double (*in)(double), float *a, float *bt)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    for (int64_t i = 0; i < m * k; i++)
        a[i] = (float)in(p->in[0].ref[i]);
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++)
            bt[j * k + l] = (float)in(p->in[1].ref[l * n + j]);
}

/* Recursive f32 accumulation of the products of the transformed inputs: fused (fmaf), or
   the product rounded to float and then added. */
static void f32_path(const gv_problem *p, void *out, double (*in)(double), bool fused)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    float *a = malloc(sizeof(float) * (size_t)(m * k)),
          *bt = malloc(sizeof(float) * (size_t)(k * n));
    cr_assert(a && bt);
    load_f32(p, in, a, bt);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            const float *x = a + i * k, *y = bt + j * k;
            float acc = 0.0f;
            for (int64_t l = 0; l < k; l++) {
                if (fused) {
                    acc = fmaf(x[l], y[l], acc);
                } else {
                    volatile float prod = x[l] * y[l]; /* never contracted into an FMA */
                    acc = acc + prod;
                }
            }
            ((float *)out)[i * n + j] = acc;
        }
    free(a);
    free(bt);
}

static void path_f32_fma(const gv_problem *p, void *out)
{
    f32_path(p, out, in_id, true);
}
static void path_f32_nofma(const gv_problem *p, void *out)
{
    f32_path(p, out, in_id, false);
}
static void path_tf32_rn(const gv_problem *p, void *out)
{
    f32_path(p, out, in_tf32_rn, true);
}
static void path_tf32_tz(const gv_problem *p, void *out)
{
    f32_path(p, out, in_tf32_tz, true);
}
static void path_f16(const gv_problem *p, void *out)
{
    f32_path(p, out, round_f16, true);
}
static void path_bf16(const gv_problem *p, void *out)
{
    f32_path(p, out, in_bf16, true);
}

/* Genuine f64: recursive fma in double. */
static void path_f64_fma(const gv_problem *p, void *out)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const double *a = p->in[0].ref, *b = p->in[1].ref;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0.0;
            for (int64_t l = 0; l < k; l++)
                acc = fma(a[i * k + l], b[l * n + j], acc);
            ((double *)out)[i * n + j] = acc;
        }
}

/* Float-float of a ~48-bit significand: inputs rounded to 48 bits, every product and every
   sum rounded once (to nearest even) to 48 bits from its exact value (TwoProd, TwoSum). */
#define FF_BITS 48
static void path_ff48(const gv_problem *p, void *out)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const double *a = p->in[0].ref, *b = p->in[1].ref;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0.0;
            for (int64_t l = 0; l < k; l++) {
                double x = round_rn(a[i * k + l], FF_BITS), y = round_rn(b[l * n + j], FF_BITS);
                double ph = x * y, pl = fma(x, y, -ph);
                double prod = round_rn_pair(ph, pl, FF_BITS);
                double s = acc + prod, bb = s - acc, se = (acc - (s - bb)) + (prod - bb);
                acc = round_rn_pair(s, se, FF_BITS);
            }
            ((double *)out)[i * n + j] = acc;
        }
}

/* 40-bit fixed point (Ozaki-style): row i of A scaled by 2^-E_i so that its largest |a_il| lies
   in [0.5, 1), each scaled entry truncated to a multiple of 2^-40; columns of B alike; the
   integer products summed exactly in 128 bits, rounded once to double, unscaled. */
#define FIX_BITS 40
static void path_fixed40(const gv_problem *p, void *out)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const double *a = p->in[0].ref, *b = p->in[1].ref;
    int64_t *ia = malloc(sizeof(int64_t) * (size_t)(m * k));
    int64_t *jb = malloc(sizeof(int64_t) * (size_t)(k * n)); /* transposed: column j at j * k */
    int *ea = malloc(sizeof(int) * (size_t)m), *eb = malloc(sizeof(int) * (size_t)n);
    cr_assert(ia && jb && ea && eb);
    for (int64_t i = 0; i < m; i++) {
        double mx = 0.0;
        for (int64_t l = 0; l < k; l++)
            mx = fmax(mx, fabs(a[i * k + l]));
        ea[i] = 0;
        if (mx > 0) frexp(mx, &ea[i]);
        for (int64_t l = 0; l < k; l++)
            ia[i * k + l] = (int64_t)trunc(ldexp(a[i * k + l], FIX_BITS - ea[i]));
    }
    for (int64_t j = 0; j < n; j++) {
        double mx = 0.0;
        for (int64_t l = 0; l < k; l++)
            mx = fmax(mx, fabs(b[l * n + j]));
        eb[j] = 0;
        if (mx > 0) frexp(mx, &eb[j]);
        for (int64_t l = 0; l < k; l++)
            jb[j * k + l] = (int64_t)trunc(ldexp(b[l * n + j], FIX_BITS - eb[j]));
    }
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            i128 acc = 0; /* |terms| < 2^80, at most 2^14 of them: far inside 2^127 */
            for (int64_t l = 0; l < k; l++)
                acc += (i128)ia[i * k + l] * jb[j * k + l];
            ((double *)out)[i * n + j] = ldexp((double)acc, ea[i] + eb[j] - 2 * FIX_BITS);
        }
    free(ia);
    free(jb);
    free(ea);
    free(eb);
}

/* ---- the paths, what they claim, what they must give ----------------------------------- */

enum expect { GENUINE, GENUINE_LOOSE, IMPOSTOR };

static const struct path {
    const char *name;
    gv_dtype t;
    gv_mode mode;
    path_fn fn;
    enum expect want;
} paths[] = {
    {"1 f32 fmaf             as f32", GV_F32, GV_MODE_NATIVE, path_f32_fma, GENUINE},
    {"2 f32 mul+add (no FMA) as f32", GV_F32, GV_MODE_NATIVE, path_f32_nofma, GENUINE},
    {"3 f64 fma              as f64", GV_F64, GV_MODE_NATIVE, path_f64_fma, GENUINE},
    {"4 tf32 (RN) inputs     as f32", GV_F32, GV_MODE_NATIVE, path_tf32_rn, IMPOSTOR},
    {"5 f16 inputs           as f32", GV_F32, GV_MODE_NATIVE, path_f16, IMPOSTOR},
    {"6 tf32 (RN) inputs     as tf32", GV_F32, GV_MODE_TF32, path_tf32_rn, GENUINE_LOOSE},
    {"6t tf32 (trunc) inputs as tf32", GV_F32, GV_MODE_TF32, path_tf32_tz, GENUINE_LOOSE},
    {"7 bf16 inputs          as tf32", GV_F32, GV_MODE_TF32, path_bf16, IMPOSTOR},
    {"8 float-float 48 bits  as f64", GV_F64, GV_MODE_NATIVE, path_ff48, IMPOSTOR},
    {"9 fixed point 40 bits  as f64", GV_F64, GV_MODE_NATIVE, path_fixed40, IMPOSTOR},
};
#define NPATHS ((int)(sizeof paths / sizeof paths[0]))

struct cell {
    double max, rms;
    gv_verdict v;
    char rule; /* what decided a FAIL: p probabilistic, w worst case, t tier, ? other */
    bool prob_fail;
    char reason[256];
};

static char fail_rule(const gv_result *r)
{
    if (r->verdict != GV_FAIL) return ' ';
    if (!strncmp(r->reason, "probabilistic model", 19)) return 'p';
    if (!strncmp(r->reason, "error model", 11)) return 'w';
    if (!strncmp(r->reason, "expected tier", 13)) return 't';
    return '?';
}

/* Judge every path at every K for one input distribution. */
static void run_all(gv_dist dist, struct cell out[NPATHS][NK])
{
    const gv_op *op = gv_op_find("gemm.cublas");
    cr_assert_not_null(op, "gemm.cublas registered");
    const struct {
        gv_dtype t;
        gv_mode mode;
    } claims[] = {{GV_F32, GV_MODE_NATIVE}, {GV_F32, GV_MODE_TF32}, {GV_F64, GV_MODE_NATIVE}};
    for (int q = 0; q < NK; q++)
        for (size_t cl = 0; cl < sizeof claims / sizeof claims[0]; cl++) {
            gv_case c = {op,  claims[cl].t, claims[cl].mode, dist, {3, {M_ROWS, ks[q], N_COLS}},
                         SEED};
            gv_problem p;
            cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
            cr_assert_eq(gv_reference(&p), GV_OK);
            cr_assert_not_null(p.out[0].pgauge, "gemm.cublas has a probabilistic gauge");
            for (int i = 0; i < NPATHS; i++) {
                if (paths[i].t != c.dtype || paths[i].mode != c.mode) continue;
                paths[i].fn(&p, p.out[0].data);
                gv_result r;
                gv_result_init(&r, &c);
                cr_assert(r.prob.on, "probabilistic model on for %s", paths[i].name);
                gv_judge_problem(&p, &r);
                struct cell *e = &out[i][q];
                e->max = r.m.prob_max;
                e->rms = r.m.prob_rms;
                e->v = r.verdict;
                e->rule = fail_rule(&r);
                e->prob_fail =
                    r.m.prob_max > GV_PROB_MAX_BOUND ||
                    (r.m.prob_n >= GV_PROB_RMS_MIN_N && r.m.prob_rms > GV_PROB_RMS_BOUND);
                snprintf(e->reason, sizeof e->reason, "%s", r.reason);
            }
            gv_problem_free(&p);
        }
}

/* One line to the Criterion log and to stdout (the meson test log). */
static void emit(const char *line)
{
    cr_log_info("%s", line);
    printf("%s\n", line);
}

static void print_table(gv_dist dist, struct cell t[NPATHS][NK])
{
    char line[512];
    int w;
    snprintf(line, sizeof line,
             "gemm.cublas 16xKx16, %s inputs, seed %u: max R / RMS R, verdict "
             "(FAIL[p] probabilistic model, [w] worst-case model, [t] expected tier)",
             gv_dist_name(dist), SEED);
    emit(line);
    w = snprintf(line, sizeof line, "%-31s", "path as claimed");
    for (int q = 0; q < NK; q++) {
        char h[32];
        snprintf(h, sizeof h, "K=%lld", (long long)ks[q]);
        w += snprintf(line + w, sizeof line - (size_t)w, " | %-22s", h);
    }
    emit(line);
    for (int i = 0; i < NPATHS; i++) {
        w = snprintf(line, sizeof line, "%-31s", paths[i].name);
        for (int q = 0; q < NK; q++) {
            const struct cell *e = &t[i][q];
            char cellb[64];
            if (e->v == GV_FAIL)
                snprintf(cellb, sizeof cellb, "%.3g/%.3g FAIL[%c]", e->max, e->rms, e->rule);
            else
                snprintf(cellb, sizeof cellb, "%.3g/%.3g %s", e->max, e->rms,
                         gv_verdict_name(e->v));
            w += snprintf(line + w, sizeof line - (size_t)w, " | %-22s", cellb);
        }
        emit(line);
    }
    fflush(stdout);
}

Test(model_dot, probabilistic_model_separates_genuine_from_impostors, .timeout = 120)
{
    static struct cell z[NPATHS][NK], u01[NPATHS][NK];
    run_all(GV_DIST_UNIFORM11, z);
    run_all(GV_DIST_UNIFORM01, u01);
    print_table(GV_DIST_UNIFORM11, z);
    print_table(GV_DIST_UNIFORM01, u01);

    for (int i = 0; i < NPATHS; i++)
        for (int q = 0; q < NK; q++) {
            const struct cell *e = &z[i][q];
            long long K = (long long)ks[q];
            const char *nm = paths[i].name;
            switch (paths[i].want) {
            case GENUINE:
                cr_assert_eq(e->v, GV_PASS, "%s K=%lld: %s", nm, K, e->reason);
                cr_assert_leq(e->max, 8.0 / 5.0, "%s K=%lld: max R %.4g", nm, K, e->max);
                cr_assert_leq(e->rms, 1.0 / 5.0, "%s K=%lld: RMS R %.4g", nm, K, e->rms);
                break;
            case GENUINE_LOOSE:
                cr_assert_eq(e->v, GV_PASS, "%s K=%lld: %s", nm, K, e->reason);
                break;
            case IMPOSTOR:
                cr_assert_eq(e->v, GV_FAIL, "%s K=%lld: max R %.4g RMS R %.4g: %s", nm, K, e->max,
                             e->rms, gv_verdict_name(e->v));
                /* and the probabilistic model on its own rejects it, whatever rule came first */
                cr_assert(e->prob_fail,
                          "%s K=%lld: probabilistic model alone passes (max R %.4g RMS R %.4g)", nm,
                          K, e->max, e->rms);
                break;
            }
        }
}
