/* model_edges.c: the edges of arithmetic (docs/error-models.md, "The edges") on kernels
 * emulated on the CPU from each op's own inputs and oracle, planted as the device's output and
 * judged by gv_judge_problem:
 *  - the edge distributions reach where they promise: tiny gives subnormal inputs and outputs,
 *    huge gives sums past the overflow threshold for element-wise ops and keeps every partial
 *    sum of a product below half of it, sparse-special leaves most outputs finite;
 *  - correct round-to-nearest kernels (vadd; gemm in k order with FMA; the tree-free sum) PASS
 *    on each of them, in f32 and f64;
 *  - flushing subnormals FAILs with the FTZ reason in native mode and is a finding, not a FAIL,
 *    in a mode that does not promise IEEE subnormals; an intermediate that overflows FAILs with
 *    its own reason; a sum that drops its NaN FAILs; a zero of the wrong sign FAILs where IEEE
 *    fixes it (vadd), with their own reasons. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "testkit.h"

typedef void (*emulate_fn)(const gv_problem *p, void *out);

static gv_result judge_as(const char *op_name, gv_dtype t, gv_mode mode, gv_dist dist,
                          gv_shape shape, uint64_t seed, emulate_fn f)
{
    const gv_op *op = gv_op_find(op_name);
    cr_assert_not_null(op, "%s registered", op_name);
    gv_case c = {op, t, mode, dist, shape, seed};
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK, "%s inputs", op_name);
    cr_assert_eq(gv_reference(&p), GV_OK, "%s reference", op_name);
    f(&p, p.out[0].data);
    gv_result r;
    gv_result_init(&r, &c);
    /* the sums here are emulated in order, not by reduce.sum's tree: outputs computed
       elsewhere, judged in any order (gpuval's own tree would be replayed bit for bit) */
    if (strncmp(op_name, "reduce.sum", 10) == 0) gv_result_order_free(&r);
    gv_judge_problem(&p, &r);
    gv_problem_free(&p);
    return r;
}

static gv_shape shape1(int64_t n)
{
    return (gv_shape){1, {n}};
}
static gv_shape shape3(int64_t m, int64_t k, int64_t n)
{
    return (gv_shape){3, {m, k, n}};
}

/* ---- emulated kernels ------------------------------------------------------------------------ */

static float ftz32(float x)
{
    return fabsf(x) < FLT_MIN ? copysignf(0.0f, x) : x;
}

enum vadd_kind { ADD_RN, ADD_FTZ, ADD_ACCUM, ADD_OVERFLOW };

static void vadd_kind(const gv_problem *p, void *out, enum vadd_kind kind)
{
    int64_t n = p->c.shape.d[0];
    if (p->c.dtype == GV_F32) {
        const float *a = p->in[0].data, *b = p->in[1].data;
        float *c = out;
        for (int64_t i = 0; i < n; i++) {
            volatile float acc = 0.0f; /* volatile: 0 + x must stay an addition */
            switch (kind) {
            case ADD_RN: c[i] = a[i] + b[i]; break;
            case ADD_FTZ: c[i] = ftz32(ftz32(a[i]) + ftz32(b[i])); break; /* DAZ and FTZ */
            case ADD_ACCUM: /* the output zeroed, then both added into it */
                acc += a[i];
                acc += b[i];
                c[i] = acc;
                break;
            case ADD_OVERFLOW: c[i] = (2.0f * a[i] + 2.0f * b[i]) * 0.5f; break;
            }
        }
    } else {
        const double *a = p->in[0].data, *b = p->in[1].data;
        double *c = out;
        for (int64_t i = 0; i < n; i++) {
            volatile double acc = 0.0;
            switch (kind) {
            case ADD_RN:
            case ADD_FTZ: c[i] = a[i] + b[i]; break;
            case ADD_ACCUM:
                acc += a[i];
                acc += b[i];
                c[i] = acc;
                break;
            case ADD_OVERFLOW: c[i] = (2.0 * a[i] + 2.0 * b[i]) * 0.5; break;
            }
        }
    }
}

static void vadd_rn(const gv_problem *p, void *out)
{
    vadd_kind(p, out, ADD_RN);
}
static void vadd_ftz(const gv_problem *p, void *out)
{
    vadd_kind(p, out, ADD_FTZ);
}
static void vadd_accum(const gv_problem *p, void *out)
{
    vadd_kind(p, out, ADD_ACCUM);
}
static void vadd_overflow(const gv_problem *p, void *out)
{
    vadd_kind(p, out, ADD_OVERFLOW);
}

/* C = A B, each output's k terms fused in order into an accumulator that starts at 0 (fmaf /
   fma); ftz: every partial sum flushed (an FTZ FMA). */
static void gemm_fma(const gv_problem *p, void *out, bool ftz)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            if (p->c.dtype == GV_F32) {
                const float *a = p->in[0].data, *b = p->in[1].data;
                float acc = 0.0f;
                for (int64_t l = 0; l < k; l++) {
                    acc = fmaf(a[i * k + l], b[l * n + j], acc);
                    if (ftz) acc = ftz32(acc);
                }
                ((float *)out)[i * n + j] = acc;
            } else {
                const double *a = p->in[0].data, *b = p->in[1].data;
                double acc = 0.0;
                for (int64_t l = 0; l < k; l++)
                    acc = fma(a[i * k + l], b[l * n + j], acc);
                ((double *)out)[i * n + j] = acc;
            }
        }
}
static void gemm_rn(const gv_problem *p, void *out)
{
    gemm_fma(p, out, false);
}
static void gemm_ftz(const gv_problem *p, void *out)
{
    gemm_fma(p, out, true);
}

/* s = sum of x in order from its first term (IEEE: a sum of -0 is -0); skip_nan: NaN terms
   left out, as a max-style guard (x == x) would. */
static void sum_in_order(const gv_problem *p, void *out, bool skip_nan)
{
    int64_t n = p->c.shape.d[0];
    if (p->c.dtype == GV_F32) {
        const float *x = p->in[0].data;
        float s = x[0];
        if (skip_nan && s != s) s = 0.0f; /* the kernel reads a NaN term as 0 */
        for (int64_t i = 1; i < n; i++)
            if (!skip_nan || x[i] == x[i]) s += x[i];
        *(float *)out = s;
    } else {
        const double *x = p->in[0].data;
        double s = x[0];
        if (skip_nan && s != s) s = 0.0;
        for (int64_t i = 1; i < n; i++)
            if (!skip_nan || x[i] == x[i]) s += x[i];
        *(double *)out = s;
    }
}
static void sum_rn(const gv_problem *p, void *out)
{
    sum_in_order(p, out, false);
}
static void sum_dropnan(const gv_problem *p, void *out)
{
    sum_in_order(p, out, true);
}

/* ---- the distributions reach their edges ----------------------------------------------------- */

/* Case (op, t, dist, shape) with its inputs made; the caller frees it. */
static void make_case(gv_problem *p, const char *op_name, gv_dtype t, gv_dist dist, gv_shape s)
{
    const gv_op *op = gv_op_find(op_name);
    cr_assert_not_null(op);
    gv_case c = {op, t, GV_MODE_NATIVE, dist, s, 3};
    cr_assert_eq(gv_problem_init(p, &c), GV_OK);
}

Test(edges, tiny_reaches_subnormals)
{
    for (int t = 0; t < GV_NDTYPES; t++) {
        gv_problem p;
        make_case(&p, "vadd", (gv_dtype)t, GV_DIST_TINY, shape1(4099));
        int64_t sub = 0, zero = 0, normal = 0;
        double lo = gv_dtype_normal_min(t);
        for (int64_t i = 0; i < p.in[0].count; i++) {
            double v = fabs(p.in[0].ref[i]);
            cr_assert(isfinite(v));
            if (v == 0)
                zero++;
            else if (v < lo)
                sub++;
            else
                normal++;
            cr_assert_lt(v, 4.0 * lo, "tiny input %a above its window", v);
        }
        /* p + 1 binades, all but two of them subnormal */
        cr_assert_gt(sub, p.in[0].count / 2, "%s: %ld subnormal inputs", gv_dtype_name(t), sub);
        cr_assert_gt(normal, 0);
        cr_assert_eq(zero, 0, "tiny makes no zeros");
        gv_problem_free(&p);
    }
}

Test(edges, huge_overflows_elementwise_and_never_a_product)
{
    for (int t = 0; t < GV_NDTYPES; t++) {
        gv_problem p;
        make_case(&p, "vadd", (gv_dtype)t, GV_DIST_HUGE, shape1(4099));
        cr_assert_eq(gv_reference(&p), GV_OK);
        int64_t over = 0;
        for (int64_t i = 0; i < p.out[0].count; i++)
            over += isinf(gv_dtype_round(t, p.out[0].ref[i])) != 0;
        cr_assert_gt(over, 100, "%s: %ld sums past the overflow threshold", gv_dtype_name(t), over);
        cr_assert_lt(over, p.out[0].count, "and some that are not");
        gv_problem_free(&p);

        make_case(&p, "gemm.tiled", (gv_dtype)t, GV_DIST_HUGE, shape3(64, 256, 64));
        double maxf = t == GV_F32 ? FLT_MAX : DBL_MAX;
        for (int64_t i = 0; i < 64; i++)
            for (int64_t j = 0; j < 64; j++) {
                long double g = 0; /* sum |a||b| in long double: cannot overflow */
                for (int64_t l = 0; l < 256; l++)
                    g += fabsl((long double)p.in[0].ref[i * 256 + l]) *
                         fabsl((long double)p.in[1].ref[l * 64 + j]);
                cr_assert_lt(g, (long double)maxf / 2, "partial sums below half the largest");
                cr_assert_gt(g, (long double)maxf / 1e6L, "and near it: %Lg", g);
            }
        gv_problem_free(&p);
    }
}

Test(edges, sparse_special_leaves_most_outputs_finite)
{
    gv_problem p;
    make_case(&p, "gemm.tiled", GV_F32, GV_DIST_SPARSE_SPECIAL, shape3(128, 256, 128));
    cr_assert_eq(gv_reference(&p), GV_OK);
    int64_t nonfinite = 0, specials = 0;
    for (int64_t i = 0; i < p.out[0].count; i++)
        nonfinite += !isfinite(p.out[0].ref[i]);
    for (int64_t i = 0; i < p.in[0].count; i++)
        specials += !isfinite(p.in[0].ref[i]) || (p.in[0].ref[i] == 0 && signbit(p.in[0].ref[i]));
    cr_assert_gt(specials, 8, "%ld specials in A", specials);
    cr_assert_gt(nonfinite, 0, "some outputs NaN or infinite");
    cr_assert_lt(nonfinite, p.out[0].count / 2, "%ld of %ld outputs not finite", nonfinite,
                 p.out[0].count);
    gv_problem_free(&p);

    /* element-wise: the same positions in both tensors */
    make_case(&p, "vadd", GV_F64, GV_DIST_SPARSE_SPECIAL, shape1(100003));
    int64_t both_neg_zero = 0;
    for (int64_t i = 0; i < p.in[0].count; i++) {
        bool sa = !isfinite(p.in[0].ref[i]) || (p.in[0].ref[i] == 0 && signbit(p.in[0].ref[i]));
        bool sb = !isfinite(p.in[1].ref[i]) || (p.in[1].ref[i] == 0 && signbit(p.in[1].ref[i]));
        cr_assert_eq(sa, sb, "element %ld: specials at the same positions", i);
        both_neg_zero += sa && p.in[0].ref[i] == 0 && p.in[1].ref[i] == 0;
    }
    cr_assert_gt(both_neg_zero, 20, "%ld sums of -0 and -0", both_neg_zero);
    gv_problem_free(&p);
}

/* ---- correct kernels pass; each edge bug fails for its reason -------------------------------- */

static const gv_dist edge_dists[] = {GV_DIST_TINY, GV_DIST_HUGE, GV_DIST_SPARSE_SPECIAL};

Test(edges, correct_kernels_pass)
{
    for (int t = 0; t < GV_NDTYPES; t++)
        for (size_t d = 0; d < 3; d++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                gv_result r = judge_as("vadd", (gv_dtype)t, GV_MODE_NATIVE, edge_dists[d],
                                       shape1(100003), seed, vadd_rn);
                cr_assert_eq(r.verdict, GV_PASS, "vadd %s %s seed %lu: %s", gv_dtype_name(t),
                             gv_dist_name(edge_dists[d]), seed, r.reason);
                r = judge_as("gemm.tiled", (gv_dtype)t, GV_MODE_NATIVE, edge_dists[d],
                             shape3(64, 256, 64), seed, gemm_rn);
                cr_assert_eq(r.verdict, GV_PASS, "gemm %s %s seed %lu: %s", gv_dtype_name(t),
                             gv_dist_name(edge_dists[d]), seed, r.reason);
                r = judge_as("reduce.sum", (gv_dtype)t, GV_MODE_NATIVE, edge_dists[d], shape1(4097),
                             seed, sum_rn);
                cr_assert_eq(r.verdict, GV_PASS, "sum %s %s seed %lu: %s", gv_dtype_name(t),
                             gv_dist_name(edge_dists[d]), seed, r.reason);
            }
}

Test(edges, flush_to_zero_fails_in_native_and_is_a_finding_in_fastmath)
{
    gv_result r =
        judge_as("vadd", GV_F32, GV_MODE_NATIVE, GV_DIST_TINY, shape1(100003), 1, vadd_ftz);
    cr_assert_eq(r.verdict, GV_FAIL);
    cr_assert(strncmp(r.reason, "FTZ: ", 5) == 0, "reason: %s", r.reason);
    cr_assert_gt(r.m.flushed, 1000);
    /* a mode that does not promise IEEE subnormals: the flush is allowed for (eta = 2^emin) and
       reported, not a FAIL */
    r = judge_as("vadd", GV_F32, GV_MODE_FASTMATH, GV_DIST_TINY, shape1(100003), 1, vadd_ftz);
    cr_assert_eq(r.verdict, GV_PASS, "fastmath: %s", r.reason);
    cr_assert_gt(r.m.flushed, 1000, "the finding is still counted");
    /* an FTZ product: fails (the partial sums below 2^-126 lost) */
    r = judge_as("gemm.tiled", GV_F32, GV_MODE_NATIVE, GV_DIST_TINY, shape3(64, 256, 64), 1,
                 gemm_ftz);
    cr_assert_eq(r.verdict, GV_FAIL, "gemm FTZ: %s", r.reason);
}

Test(edges, overflowing_intermediate_fails_with_its_reason)
{
    for (int t = 0; t < GV_NDTYPES; t++) {
        gv_result r = judge_as("vadd", (gv_dtype)t, GV_MODE_NATIVE, GV_DIST_HUGE, shape1(100003), 1,
                               vadd_overflow);
        cr_assert_eq(r.verdict, GV_FAIL);
        cr_assert(strstr(r.reason, "where the result is finite") != NULL, "reason: %s", r.reason);
    }
}

Test(edges, dropped_nan_fails)
{
    int failed = 0, with_nan = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        const gv_op *op = gv_op_find("reduce.sum");
        gv_case c = {op, GV_F64, GV_MODE_NATIVE, GV_DIST_SPARSE_SPECIAL, shape1(4097), seed};
        gv_problem p;
        cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
        cr_assert_eq(gv_reference(&p), GV_OK);
        bool nan_in = false;
        for (int64_t i = 0; i < p.in[0].count; i++)
            nan_in = nan_in || isnan(p.in[0].ref[i]);
        double dropped;
        sum_dropnan(&p, &dropped);
        gv_problem_free(&p);
        /* a NaN among the terms whose loss shows: without it the sum is not NaN (where +Inf
           and -Inf are both there, it is NaN anyway) */
        if (!nan_in || isnan(dropped)) continue;
        with_nan++;
        gv_result r = judge_as("reduce.sum", GV_F64, GV_MODE_NATIVE, GV_DIST_SPARSE_SPECIAL,
                               shape1(4097), seed, sum_dropnan);
        cr_assert_eq(r.verdict, GV_FAIL, "seed %lu: a NaN dropped passed", seed);
        failed++;
    }
    cr_assert_geq(with_nan, 3, "only %d of 12 seeds drop a NaN that shows", with_nan);
    cr_assert_eq(failed, with_nan);
}

Test(edges, zero_of_the_wrong_sign_fails_where_ieee_fixes_it)
{
    for (int t = 0; t < GV_NDTYPES; t++) {
        gv_result r = judge_as("vadd", (gv_dtype)t, GV_MODE_NATIVE, GV_DIST_SPARSE_SPECIAL,
                               shape1(100003), 1, vadd_accum);
        cr_assert_eq(r.verdict, GV_FAIL, "%s", gv_dtype_name(t));
        cr_assert(strstr(r.reason, "zeros of the wrong sign") != NULL, "reason: %s", r.reason);
        cr_assert_gt(r.m.zero_sign_wrong, 20);
    }
}

/* The planted reduce.sum.dropnan must FAIL wherever the GPU suite (seed 7, test sizes) and the
   catalogue (seed 0, its sizes) run it: its sizes are chosen so that those seeds put a NaN
   among the terms. The CPU emulates it (the same arithmetic up to the order, which a NaN
   does not care about). */
Test(edges, planted_dropnan_fails_at_its_sizes)
{
    const gv_op *op = gv_op_find("reduce.sum.dropnan");
    cr_assert_not_null(op);
    const struct {
        const char *spec;
        uint64_t seed;
    } runs[] = {{op->shapes, 0}, {op->test_shapes, 7}};
    for (size_t k = 0; k < 2; k++) {
        gv_shape s[8];
        char err[128];
        int ns = gv_size_spec_parse(runs[k].spec, s, 8, err, sizeof err);
        cr_assert_gt(ns, 0, "%s", err);
        for (int i = 0; i < ns; i++)
            for (int t = 0; t < GV_NDTYPES; t++) {
                gv_result r = judge_as("reduce.sum.dropnan", (gv_dtype)t, GV_MODE_NATIVE,
                                       op->default_dist, s[i], runs[k].seed, sum_dropnan);
                cr_assert_eq(r.verdict, GV_FAIL, "%s n %ld seed %lu: %s", gv_dtype_name(t),
                             s[i].d[0], runs[k].seed, r.reason);
            }
    }
}

/* Every op's edge canaries at its test sizes, the oracle's own result rounded to the dtype
   planted as the device's: a kernel that gets the correctly rounded answer must PASS every
   rule, so no gauge may come out NaN (0 times an infinite spread, a square that overflows)
   where the output is finite. */
Test(edges, the_rounded_oracle_passes_every_edge_canary, .timeout = 600)
{
    int judged = 0;
    for (const gv_op *const *opp = gv_registry(); *opp; opp++) {
        const gv_op *op = *opp;
        if (op->planted_bug || op->planted_slow || !op->test_canaries || op->user_inputs) continue;
        gv_dist dist[16];
        gv_shape shape[16];
        int nc = 0;
        char spec[512];
        snprintf(spec, sizeof spec, "%s", op->test_canaries);
        for (char *tok = strtok(spec, ","); tok && nc < 16; tok = strtok(NULL, ",")) {
            char *colon = strchr(tok, ':');
            cr_assert_not_null(colon);
            *colon = '\0';
            gv_dist d;
            cr_assert_eq(gv_dist_parse(tok, &d), GV_OK, "%s", tok);
            if (d != GV_DIST_TINY && d != GV_DIST_HUGE && d != GV_DIST_SPARSE_SPECIAL) continue;
            char err[128];
            cr_assert_eq(gv_size_spec_parse(colon + 1, &shape[nc], 1, err, sizeof err), 1, "%s",
                         err);
            dist[nc++] = d;
        }
        for (int k = 0; k < nc; k++)
            for (int t = 0; t < GV_NDTYPES; t++) {
                if (!gv_mode_ok(op, (gv_dtype)t, GV_MODE_NATIVE)) continue;
                gv_case c = {op, (gv_dtype)t, GV_MODE_NATIVE, dist[k], shape[k], 7};
                gv_problem p;
                cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
                cr_assert_eq(gv_reference(&p), GV_OK, "%s reference", op->name);
                for (int o = 0; o < p.l.n_out; o++) {
                    gv_dtype_store_n(t, p.out[o].data, p.out[o].ref, p.out[o].count);
                    /* f64 subnormal results one spacing off, toward zero and away in turn: what
                       one rounding of an FMA in the subnormals may do (f64's eta, 2^-1075, is
                       no double: the model must still allow it) */
                    for (int64_t i = 0; t == GV_F64 && i < p.out[o].count; i++) {
                        double *y = (double *)p.out[o].data + i;
                        if (isfinite(*y) && *y != 0 && fabs(*y) < DBL_MIN)
                            *y = nextafter(*y, i % 2 ? copysign(INFINITY, *y) : 0.0);
                    }
                    for (int64_t i = 0; i < p.out[o].count; i++) {
                        bool fin = isfinite(p.out[o].ref[i]);
                        cr_expect(!fin || !p.out[o].gauge || !isnan(p.out[o].gauge[i]),
                                  "%s %s %s: gauge NaN at %ld", op->name, gv_dtype_name(t),
                                  gv_dist_name(dist[k]), i);
                        cr_expect(!fin || !p.out[o].pgauge || !isnan(p.out[o].pgauge[i]),
                                  "%s %s %s: pgauge NaN at %ld", op->name, gv_dtype_name(t),
                                  gv_dist_name(dist[k]), i);
                    }
                }
                gv_result r;
                gv_result_init(&r, &c);
                gv_judge_problem(&p, &r);
                gv_problem_free(&p);
                cr_expect_eq(r.verdict, GV_PASS, "%s %s %s: %s", op->name, gv_dtype_name(t),
                             gv_dist_name(dist[k]), r.reason);
                judged++;
            }
    }
    cr_assert_gt(judged, 40, "%d edge canaries judged", judged);
}

/* 1 / (1 + expf(-x)) in f32, as torch.sigmoid and NumPy compute it: where exp(-x) overflows
   (x < -88.72) the output is 0 while the true value is a subnormal, and just above it the
   subnormal comes back as such (lost range); a flush-to-zero build returns none. No math
   library promises subnormal results of exp-based functions (op.h, subnormals_unpromised):
   both PASS, the zeros within the smallest normal. A zero where the result is a normal
   number is still wrong: it FAILs. */
Test(model_edges, sigmoid_underflow_to_zero_passes)
{
    gv_shape s = {.nd = 1, .d = {1000000}};
    gv_case c = gv_test_case("math.sigmoid", GV_F32, GV_MODE_NATIVE, GV_DIST_WIDE, s, 0);
    gv_problem p;
    gv_test_problem(&p, &c);
    const float *x = p.in[0].data;
    double *y = malloc(sizeof *y * (size_t)p.out[0].count);
    cr_assert_not_null(y);
    int64_t zero = 0, sub = 0;
    for (int64_t i = 0; i < p.out[0].count; i++) {
        float v = 1.0f / (1.0f + expf(-x[i]));
        y[i] = v;
        zero += v == 0.0f && p.out[0].ref[i] != 0.0;
        sub += v != 0.0f && fabsf(v) < FLT_MIN;
    }
    cr_assert_gt(zero, 0, "the wide dist reaches exp's overflow");
    cr_assert_gt(sub, 0, "and the subnormals just above it");
    gv_test_store(&p, 0, y);
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    cr_expect_gt(r.m.subnormal_kept, 0);
    /* every subnormal flushed too (a flush-to-zero build): PASS as well */
    for (int64_t i = 0; i < p.out[0].count; i++)
        if (fabs(y[i]) < FLT_MIN) y[i] = 0.0;
    gv_test_store(&p, 0, y);
    r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    cr_expect_eq(r.m.subnormal_kept, 0);
    /* but a zero where the sigmoid is a normal number FAILs */
    int64_t at = -1;
    for (int64_t i = 0; i < p.out[0].count && at < 0; i++)
        if (p.out[0].ref[i] > 1e-30 && p.out[0].ref[i] < 1e-20) at = i;
    cr_assert_geq(at, 0, "the wide dist has a sigmoid between 1e-30 and 1e-20");
    y[at] = 0.0;
    gv_test_store(&p, 0, y);
    r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL, "a normal result returned as zero: %s", r.reason);
    free(y);
    gv_problem_free(&p);
}

/* log(1 + exp(x)) in f32, the naive softplus: below x of about -17 exp(x) is under half an ulp
   of 1 and every output is 0, where the results are normal numbers (e^-20 is 2e-9) as well as,
   further down, subnormals. Flush-to-zero leaves normal results alone, so the verdict names a
   loss of range, not FTZ; a flush of the subnormal results alone is still named FTZ. */
Test(model_edges, zeros_of_normal_results_are_lost_range_not_ftz)
{
    gv_shape s = {.nd = 1, .d = {100000}};
    gv_case c = gv_test_case("act.softplus", GV_F32, GV_MODE_NATIVE, GV_DIST_WIDE, s, 0);
    gv_problem p;
    gv_test_problem(&p, &c);
    const float *x = p.in[0].data;
    double *y = malloc(sizeof *y * (size_t)p.out[0].count);
    cr_assert_not_null(y);
    int64_t sub_zero = 0, normal_zero = 0;
    for (int64_t i = 0; i < p.out[0].count; i++) {
        float v = logf(1.0f + expf(x[i]));
        y[i] = v;
        double ref = p.out[0].ref[i];
        sub_zero += v == 0.0f && ref != 0.0 && fabs(ref) < FLT_MIN;
        normal_zero += v == 0.0f && fabs(ref) > 1e-20;
    }
    cr_assert_gt(sub_zero, 0, "the wide dist reaches subnormal softplus results");
    cr_assert_gt(normal_zero, 0, "and normal ones the naive form returns as 0");
    gv_test_store(&p, 0, y);
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL, "%s", r.reason);
    cr_expect_eq(r.cause, GV_CAUSE_LOST_RANGE, "%s: %s", gv_cause_name(r.cause), r.reason);
    cr_expect_gt(r.m.zero_normal, 0);
    /* the correct values everywhere but the subnormal results, flushed: FTZ */
    for (int64_t i = 0; i < p.out[0].count; i++) {
        double ref = p.out[0].ref[i];
        y[i] = fabs(ref) < FLT_MIN ? 0.0 : (double)(float)ref;
    }
    gv_test_store(&p, 0, y);
    r = gv_test_judge(&p);
    cr_expect_eq(r.m.zero_normal, 0);
    if (r.verdict == GV_FAIL)
        cr_expect_eq(r.cause, GV_CAUSE_FLUSHED, "%s: %s", gv_cause_name(r.cause), r.reason);
    free(y);
    gv_problem_free(&p);
}
