/* test_threads.c: the oracles and the generator give the same bits on any number of threads
 * (OpenMP): each parallel loop is run with 1 thread and with several, and compared bit for
 * bit; the generator's fill is compared with its one-element definition, gv_gen_value. */
#include <criterion/criterion.h>
#include <fftw3.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../oracle/go.h"
#include "core/metrics.h"
#include "core/gen.h"
#include "core/hash.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "../../tools/case_digest.h"

/* A field of n values in [-1, 1) from the generator (seeded, the same on every machine). */
static double *field(int64_t n, uint64_t tensor)
{
    double *x = malloc(sizeof *x * (size_t)n + 1);
    cr_assert_not_null(x);
    for (int64_t i = 0; i < n; i++)
        x[i] = gv_gen_value(GV_DIST_UNIFORM11, 42, tensor, (uint64_t)i);
    return x;
}

/* out_t = f(threads) for threads in {1, 3, 8}: all equal, bit for bit. */
#define SAME_ON_ANY_THREADS(n, call)                                                               \
    do {                                                                                           \
        double *ref_ = NULL;                                                                       \
        const int threads_[3] = {1, 3, 8};                                                         \
        for (int t_ = 0; t_ < 3; t_++) {                                                           \
            omp_set_num_threads(threads_[t_]);                                                     \
            double *out = calloc((size_t)(n) + 1, sizeof *out);                                    \
            cr_assert_eq((call), 0, #call);                                                        \
            if (!ref_)                                                                             \
                ref_ = out;                                                                        \
            else {                                                                                 \
                cr_expect_eq(memcmp(ref_, out, sizeof *out *(size_t)(n)), 0,                       \
                             "%s: %d threads differ from 1", #call, threads_[t_]);                 \
                free(out);                                                                         \
            }                                                                                      \
        }                                                                                          \
        free(ref_);                                                                                \
        omp_set_num_threads(omp_get_num_procs());                                                  \
    } while (0)

Test(threads, the_generator_fill_is_its_element_definition)
{
    const int64_t n = 300007;
    double *out = malloc(sizeof *out * (size_t)n);
    const gv_dist dists[] = {GV_DIST_UNIFORM11, GV_DIST_WIDE, GV_DIST_SPECIAL, GV_DIST_SMALLINT};
    omp_set_num_threads(8);
    for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
        for (int t = 0; t < 2; t++) {
            gv_dtype dt = t ? GV_F32 : GV_F64;
            gv_gen_fill(out, n, dists[d], dt, 9, 1);
            for (int64_t i = 0; i < n; i++) {
                double want = gv_round_to(gv_gen_value(dists[d], 9, 1, (uint64_t)i), dt);
                if (memcmp(&want, &out[i], sizeof want) != 0) {
                    cr_expect_fail("dist %s %s element %lld: %a, not %a", gv_dist_name(dists[d]),
                                   gv_dtype_name(dt), (long long)i, out[i], want);
                    break;
                }
            }
        }
    omp_set_num_threads(omp_get_num_procs());
    free(out);
}

Test(threads, a_problem_is_the_same_bits_on_any_threads)
{
    gv_case c = {gv_op_find("vadd"),        GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                 {.nd = 1, .d = {1 << 19}}, 3};
    gv_problem p1, p8;
    omp_set_num_threads(1);
    cr_assert_eq(gv_problem_init(&p1, &c), GV_OK);
    cr_assert_eq(gv_reference(&p1), GV_OK);
    omp_set_num_threads(8);
    cr_assert_eq(gv_problem_init(&p8, &c), GV_OK);
    cr_assert_eq(gv_reference(&p8), GV_OK);
    size_t n = (size_t)p1.in[0].count;
    for (int i = 0; i < 2; i++) {
        cr_expect_eq(memcmp(p1.in[i].ref, p8.in[i].ref, n * 8), 0, "input %d", i);
        cr_expect_eq(memcmp(p1.in[i].data, p8.in[i].data, n * 4), 0, "input %d's f32 copy", i);
    }
    cr_expect_eq(memcmp(p1.out[0].ref, p8.out[0].ref, n * 8), 0);
    cr_expect_eq(memcmp(p1.out[0].gauge, p8.out[0].gauge, n * 8), 0);
    gv_problem_free(&p1);
    gv_problem_free(&p8);
    omp_set_num_threads(omp_get_num_procs());
}

Test(threads, sin_iter_and_vadd)
{
    const int64_t n = 300007; /* over GO_PAR_MIN: the parallel path */
    double *x = field(n, 1), *y = field(n, 2);
    SAME_ON_ANY_THREADS(n, go_sin_iter(n, 20, x, out));
    SAME_ON_ANY_THREADS(n, go_vadd(n, x, y, out));
    SAME_ON_ANY_THREADS(n, go_vadd_gauge(n, x, y, out));
    free(x);
    free(y);
}

Test(threads, column_sums_and_their_gauges)
{
    /* n over several 256-column blocks and not a multiple of one */
    const int64_t m = 301, k = 257, n = 1100; /* k n and m n over GO_PAR_MIN */
    double *a = field(m * k, 3), *b = field(k * n, 4), *x = field(m * n, 5);
    SAME_ON_ANY_THREADS(n, go_colsum(m, n, x, n, out));
    SAME_ON_ANY_THREADS(n, go_colsum_gauge(m, n, x, n, out));
    SAME_ON_ANY_THREADS(n, go_colsum_sqgauge(m, n, x, n, out));
    SAME_ON_ANY_THREADS(n, go_einsum_colsum(m, k, n, a, k, b, n, out));
    SAME_ON_ANY_THREADS(n, go_colsum_product_gauge(m, k, n, a, k, b, n, out));
    SAME_ON_ANY_THREADS(n, go_colsum_product_sqgauge(m, k, n, a, k, b, n, out));
    SAME_ON_ANY_THREADS(m * n, go_gemm_gauge(m, k, n, a, k, b, n, out, n));
    SAME_ON_ANY_THREADS(m * n, go_gemm_sqgauge(m, k, n, a, k, b, n, out, n));
    free(a);
    free(b);
    free(x);
}

/* The exact sums (oracle/exact.c) split the rows into fixed tiles of 2^16 and the columns into
   blocks, on all cores: a vector over several row tiles, a matrix over several column blocks, and
   a product; hi and lo both the same bits on any thread count, and all on the grid (done). */
Test(threads, exact_sums_and_products)
{
    const int64_t len = 300007, m = 70001, n = 300, k = 61, mg = 90, ng = 70;
    double *v = field(len, 6), *x = field(m * n, 7), *a = field(m * k, 8), *b = field(k * n, 9);
    double *ga = field(mg * k, 10), *gb = field(k * ng, 11);
    double *lo = malloc(sizeof *lo * (size_t)(mg * ng) + 1);
    int done = 0;
    cr_assert_not_null(lo);
#define EXACT_SAME(count, call)                                                                    \
    do {                                                                                           \
        SAME_ON_ANY_THREADS(count, (call) || !done);                                               \
        SAME_ON_ANY_THREADS(                                                                       \
            count, ((call) || !done) ? -1 : (memcpy(out, lo, sizeof *out * (size_t)(count)), 0));  \
    } while (0)
    EXACT_SAME(1, go_colsum_exact(len, 1, v, 1, out, lo, &done));
    EXACT_SAME(n, go_colsum_exact(m, n, x, n, out, lo, &done));
    EXACT_SAME(n, go_colsum_product_exact(m, k, n, a, k, b, n, out, lo, &done));
    EXACT_SAME(mg * ng, go_gemm_exact(mg, k, ng, ga, k, gb, ng, out, lo, ng, &done));
#undef EXACT_SAME
    free(v);
    free(x);
    free(a);
    free(b);
    free(ga);
    free(gb);
    free(lo);
}

Test(threads, stencils_and_their_gauges)
{
    const int64_t ny = 600, nx = 457; /* over GO_PAR_MIN */
    double *f = field(ny * nx, 6);
    SAME_ON_ANY_THREADS(ny * nx, go_stencil_laplace(ny, nx, f, nx, out, nx));
    SAME_ON_ANY_THREADS(ny * nx, go_stencil_laplace_gauge(ny, nx, f, nx, out, nx));
    SAME_ON_ANY_THREADS(ny * nx, go_diffusion_fixed(ny, nx, 9, f, nx, out, nx));
    SAME_ON_ANY_THREADS(ny * nx, go_diffusion_fixed_gauge(ny, nx, 9, f, nx, out, nx));
    SAME_ON_ANY_THREADS(ny * nx, go_diffusion_periodic(ny, nx, 9, 0.2, f, nx, out, nx));
    SAME_ON_ANY_THREADS(ny * nx, go_diffusion_periodic_gauge(ny, nx, 9, 0.2, f, nx, out, nx));
    free(f);
}

/* The FFTs split a batch's rows over threads, one one-row plan per alignment class: the same
   bits on any thread count, and the same bits as FFTW's own batched plan of the whole batch
   (what the oracle computed before its rows were split; FFTW_ESTIMATE, one thread). Rows of odd
   length so that they fall in several alignment classes; 2^k and Bluestein lengths both. */
static void batched_plan(int kind, int n, int batch, double *x, double *y)
{
    fftw_plan p;
    int h = n / 2 + 1;
    if (kind == 0)
        p = fftw_plan_many_dft(1, &n, batch, (fftw_complex *)x, NULL, 1, n, (fftw_complex *)y, NULL,
                               1, n, FFTW_FORWARD, FFTW_ESTIMATE);
    else if (kind == 1)
        p = fftw_plan_many_dft_r2c(1, &n, batch, x, NULL, 1, n, (fftw_complex *)y, NULL, 1, h,
                                   FFTW_ESTIMATE);
    else
        p = fftw_plan_many_dft_c2r(1, &n, batch, (fftw_complex *)x, NULL, 1, h, y, NULL, 1, n,
                                   FFTW_ESTIMATE);
    cr_assert_not_null(p);
    fftw_execute(p);
    fftw_destroy_plan(p);
}

Test(threads, ffts_and_their_gauges)
{
    const int lens[] = {1023, 4096, 4099}, batch = 67; /* n batch over GO_PAR_MIN */
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        int n = lens[l], h = n / 2 + 1;
        int64_t cn = 2 * (int64_t)n * batch, hn = 2 * (int64_t)h * batch, rn = (int64_t)n * batch;
        double *x = field(cn, 7);
        for (int b = 0; b < batch; b++) { /* a real signal's half spectrum for c2r */
            double *row = x + 2 * (int64_t)b * h;
            row[1] = 0.0;
            if (n % 2 == 0) row[2 * (h - 1) + 1] = 0.0;
        }
        SAME_ON_ANY_THREADS(cn, go_fft_c2c(n, batch, -1, x, n, out, n));
        SAME_ON_ANY_THREADS(cn, go_fft_c2c(n, batch, 1, x, n, out, n));
        SAME_ON_ANY_THREADS(hn, go_fft_r2c(n, batch, x, n, out, h));
        SAME_ON_ANY_THREADS(rn, go_fft_c2r(n, batch, x, h, out, n));
        SAME_ON_ANY_THREADS(cn, go_fft_c2c_gauge(n, batch, x, n, out, n));
        SAME_ON_ANY_THREADS(hn, go_fft_r2c_gauge(n, batch, x, n, out, h));
        SAME_ON_ANY_THREADS(rn, go_fft_c2r_gauge(n, batch, x, h, out, n));
        /* against the batched plan, on fftw_malloc'd copies (FFTW's own alignment) */
        for (int kind = 0; kind < 3; kind++) {
            int64_t in_n = kind == 0 ? cn : kind == 1 ? rn : hn;
            int64_t out_n = kind == 0 ? cn : kind == 1 ? hn : rn;
            double *xi = fftw_malloc(sizeof(double) * (size_t)in_n);
            double *want = fftw_malloc(sizeof(double) * (size_t)out_n);
            double *got = malloc(sizeof(double) * (size_t)out_n);
            memcpy(xi, x, sizeof(double) * (size_t)in_n);
            omp_set_num_threads(8);
            int rc = kind == 0   ? go_fft_c2c(n, batch, -1, x, n, got, n)
                     : kind == 1 ? go_fft_r2c(n, batch, x, n, got, h)
                                 : go_fft_c2r(n, batch, x, h, got, n);
            cr_assert_eq(rc, 0);
            batched_plan(kind, n, batch, xi, want);
            cr_expect_eq(memcmp(want, got, sizeof(double) * (size_t)out_n), 0,
                         "n %d kind %d: the split rows differ from FFTW's batched plan", n, kind);
            fftw_free(xi);
            fftw_free(want);
            free(got);
        }
        omp_set_num_threads(omp_get_num_procs());
        free(x);
    }
}

/* The dense layer's element-wise epilogues (bias and sigmoid; the gauge's sum) on all cores. */
Test(threads, the_dense_epilogues)
{
    const int64_t m = 300, k = 37, n = 1001; /* m n over GO_PAR_MIN */
    double *w = field(m * k, 8), *x = field(k * n, 9), *b = field(m, 10);
    double *y = calloc((size_t)(m * n), sizeof *y);
    cr_assert_eq(go_dense_sigmoid(m, k, n, w, k, x, n, b, y, n), 0);
    SAME_ON_ANY_THREADS(m * n, go_dense_sigmoid(m, k, n, w, k, x, n, b, out, n));
    SAME_ON_ANY_THREADS(m * n, go_dense_sigmoid_gauge(m, k, n, w, k, x, n, b, y, n, out, n));
    free(w);
    free(x);
    free(b);
    free(y);
}

/* HPL's scaled residual splits A's rows over threads and merges maxima: the same bits. */
Test(threads, the_scaled_residual)
{
    const int64_t n = 601; /* n^2 over GO_PAR_MIN */
    double *a = field(n * n, 11), *x = field(n, 12), *b = field(n, 13);
    SAME_ON_ANY_THREADS(1, go_solve_scaled_residual(n, a, n, x, b, 0x1p-53, out));
    free(a);
    free(x);
    free(b);
}

/* The judge over several of its 2^20-element chunks: the same metrics on any thread count, and
   its maxima, counts and worst element those of one serial pass (computed here). */
Test(threads, the_compare_is_the_same_on_any_threads)
{
    const int64_t n = (3 << 20) + 17;
    double *ref = field(n, 7), *gauge = malloc(sizeof *gauge * (size_t)n);
    float *got = malloc(sizeof *got * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        got[i] = (float)ref[i];
        gauge[i] = fabs(ref[i]);
    }
    got[2500000] += 1e-3f; /* the worst element, in the third chunk */
    gv_tiers tiers = {.n = 2, .t = {1e-8, 1e-4}};
    gv_error_model em = {.gauge = gauge, .depth = 1.0, .u = 0x1p-24};
    gv_metrics m1, m8;
    omp_set_num_threads(1);
    gv_compare(got, GV_F32, ref, n, &tiers, &em, 24, &m1);
    omp_set_num_threads(8);
    gv_compare(got, GV_F32, ref, n, &tiers, &em, 24, &m8);
    omp_set_num_threads(omp_get_num_procs());
    /* field by field (a struct copy need not copy padding) */
    cr_expect_eq(m1.n, m8.n);
    cr_expect_eq(m1.sq_err.med, m8.sq_err.med, "%a %a", m1.sq_err.med, m8.sq_err.med);
    cr_expect_eq(m1.sq_err.sml, m8.sq_err.sml, "%a %a", m1.sq_err.sml, m8.sq_err.sml);
    cr_expect_eq(m1.sq_err.big, m8.sq_err.big, "%a %a", m1.sq_err.big, m8.sq_err.big);
    cr_expect_eq(m1.sq_ref.med, m8.sq_ref.med, "%a %a", m1.sq_ref.med, m8.sq_ref.med);
    cr_expect_eq(m1.sq_ref.sml, m8.sq_ref.sml, "%a %a", m1.sq_ref.sml, m8.sq_ref.sml);
    cr_expect_eq(m1.sq_ref.big, m8.sq_ref.big, "%a %a", m1.sq_ref.big, m8.sq_ref.big);
    cr_expect_eq(m1.normwise_rel, m8.normwise_rel);
    cr_expect_eq(m1.max_rel, m8.max_rel);
    cr_expect_eq(m1.max_ulp, m8.max_ulp);
    cr_expect_eq(m1.ratio, m8.ratio);
    cr_expect_eq(m1.worst_index, m8.worst_index);
    cr_expect_eq(m1.ulp_p99, m8.ulp_p99);
    cr_expect_eq(memcmp(m1.ulp_hist, m8.ulp_hist, sizeof m1.ulp_hist), 0);
    double max_abs = 0;
    int64_t worst = -1, over_1e8 = 0;
    double worst_scaled = -1;
    for (int64_t i = 0; i < n; i++) {
        double err = fabs((double)got[i] - ref[i]), scaled = err / (1 + fabs(ref[i]));
        if (err > max_abs) max_abs = err;
        if (scaled > worst_scaled) worst_scaled = scaled, worst = i;
        if (!(err <= 1e-8 * (1 + fabs(ref[i])))) over_1e8++;
    }
    cr_expect_eq(m8.n, n);
    cr_expect_eq(m8.max_abs, max_abs);
    cr_expect_eq(m8.worst_index, worst);
    cr_expect_eq(worst, 2500000);
    cr_expect_eq(m8.mismatches[0], over_1e8);
    cr_expect_eq(m8.mismatches[1], 1);
    free(ref);
    free(gauge);
    free(got);
}

/* The math functions' measure hook (src/ops/mathfn.c) judges fixed chunks on all cores and
   continues their worst elements in index order: the same worst element, values and ties as
   one scan on any number of threads. Two elements 5 ulps off (over expf's 2) in different
   chunks tie; the first is the worst, as the scan in index order finds it. */
Test(threads, the_math_functions_worst_element_is_the_same_on_any_threads)
{
    const gv_op *op = gv_op_find("math.exp");
    cr_assert_not_null(op);
    gv_case c = {op, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {.nd = 1, .d = {1000003}}, 5};
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    float *y = p.out[0].data;
    const int64_t n = p.out[0].count, tie[2] = {300001, 900007};
    for (int64_t i = 0; i < n; i++)
        y[i] = (float)p.out[0].ref[i]; /* correctly rounded: 0 ulps */
    for (int k = 0; k < 2; k++)
        for (int s = 0; s < 5; s++)
            y[tie[k]] = nextafterf(y[tie[k]], INFINITY);
    y[600011] = nextafterf(y[600011], INFINITY); /* 1 ulp: within the bound, not the worst */
    double want[4] = {0};
    for (int t = 0; t < 3; t++) {
        const int threads[3] = {1, 3, 8};
        omp_set_num_threads(threads[t]);
        gv_result r;
        gv_result_init(&r, &c);
        op->measure(&p, &r);
        double got[4] = {NAN, NAN, NAN, NAN};
        for (int e = 0; e < r.n_extra; e++) {
            if (strcmp(r.extra[e].name, "ulp_max") == 0) got[0] = r.extra[e].value;
            if (strcmp(r.extra[e].name, "ulp_worst_x") == 0) got[1] = r.extra[e].value;
        }
        cr_assert_eq(r.n_checks, 1, "the ulp check");
        got[2] = r.checks[0].value;
        got[3] = r.checks[0].bound;
        cr_expect_eq(got[0], 5.0, "%d threads: the largest distance", threads[t]);
        cr_expect_eq(got[1], p.in[0].ref[tie[0]], "%d threads: the first of the tied worst",
                     threads[t]);
        cr_expect_eq(got[2], 5.0);
        if (t == 0)
            memcpy(want, got, sizeof want);
        else
            cr_expect_eq(memcmp(want, got, sizeof want), 0, "%d threads differ from 1", threads[t]);
    }
    omp_set_num_threads(omp_get_num_procs());
    cr_expect_neq(p.in[0].ref[tie[0]], p.in[0].ref[tie[1]], "the ties are told apart by x");
    gv_problem_free(&p);
}

/* ---- whole cases: inputs, reference, gauges and the judgement ---------------------------- */

/* A digest of what a case computed (inputs, references, gauges) and of its judgement, as
   tools/host_bench.c prints them (tools/case_digest.h). */
static void case_digests(const gv_case *c, uint64_t *data, uint64_t *judged)
{
    gv_problem p;
    gv_result r;
    gv_result_init(&r, c);
    cr_assert_eq(gv_problem_init(&p, c), GV_OK, "%s: inputs", c->op->name);
    cr_assert_eq(gv_reference(&p), GV_OK, "%s: reference", c->op->name);
    case_fake_output(&p, c->dtype, false);
    gv_judge_problem(&p, &r);
    *data = case_data_digest(&p, c->dtype);
    gv_problem_free(&p);
    *judged = case_judged_digest(&r);
}

/* Every op family whose inputs, reference or judge runs on all cores, at sizes past the
   parallel thresholds (GV_PAR_MIN, GO_PAR_MIN, the compare's 2^16-element chunks) and with
   ragged ends: one thread, two and three give the same bits and the same judgement. The
   BLAS-backed references (gemm, solve, lsmr) are OpenBLAS's, whose own threads are not
   OpenMP's: this varies OpenMP's alone, the one count the rest of the host work reads. */
Test(threads, whole_cases_are_the_same_on_any_threads, .timeout = 600)
{
    static const struct {
        const char *op;
        gv_dtype dtype;
        gv_mode mode;
        gv_dist dist;
        gv_shape shape;
    } cases[] = {
        {"vadd", GV_F32, GV_MODE_NATIVE, GV_DIST_WIDE, {1, {1000003}}},
        {"vadd", GV_F64, GV_MODE_NATIVE, GV_DIST_TINY, {1, {1000003}}},
        {"reduce.sum", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, {1, {2000003}}},
        {"reduce.colsum", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {2, {1001, 701}}},
        {"softmax.rows", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {2, {67, 8193}}},
        {"softmax.log", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {2, {301, 1024}}},
        {"scan.cumsum", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {2, {257, 4097}}},
        {"math.sin", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {1, {1000003}}},
        {"diffusion.periodic", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {3, {601, 457, 5}}},
        {"gemm.cublas", GV_F32, GV_MODE_TF32, GV_DIST_UNIFORM01, {3, {301, 129, 257}}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gv_case c = {gv_op_find(cases[i].op), cases[i].dtype, cases[i].mode,
                     cases[i].dist,           cases[i].shape, 7};
        cr_assert_not_null(c.op, "%s is registered", cases[i].op);
        char why[256] = "";
        cr_assert(gv_shape_ok(c.op, &c.shape, why, sizeof why), "%s: %s", cases[i].op, why);
        uint64_t d1 = 0, j1 = 0;
        const int threads[3] = {1, 2, 3};
        for (int t = 0; t < 3; t++) {
            omp_set_num_threads(threads[t]);
            uint64_t d, j;
            case_digests(&c, &d, &j);
            if (t == 0) {
                d1 = d, j1 = j;
                continue;
            }
            cr_expect_eq(d, d1, "%s %s %s: inputs, reference or gauges differ on %d threads",
                         c.op->name, gv_dtype_name(c.dtype), gv_dist_name(c.dist), threads[t]);
            cr_expect_eq(j, j1, "%s %s %s: the judgement differs on %d threads", c.op->name,
                         gv_dtype_name(c.dtype), gv_dist_name(c.dist), threads[t]);
        }
    }
    omp_set_num_threads(omp_get_num_procs());
}
