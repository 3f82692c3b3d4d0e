/* test_judge_anywhere.c: the ops whose outputs were once judged only on gpuval's own device
 * (FFTs, solves, diffusion, sin_iter) judging outputs computed elsewhere: the case's inputs from
 * gv_make_inputs (`gpuval inputs`), outputs from a plain C reference written here in the case's
 * own arithmetic (a radix-2 FFT, a direct DFT, an f32 Gaussian elimination, an in-order stencil,
 * sinf applied k times), judged by gv_judge (`gpuval judge`). Each must PASS; the same outputs
 * corrupted (one element off by many ulps, a conjugated spectrum, a transposed solve) must FAIL.
 * Through the command: complex .npy in and out, hostile complex files refused with exit 2, and a
 * 0-d result judged as its (1,) twin. */
#include <complex.h>
#include <jansson.h>
#include <stdarg.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/gpuval.h"
#include "io/npy.h"
#include "testkit.h"

/* ---- the case and its judgement ---------------------------------------------------------- */

static gv_case_inputs make(const char *op, int dtype, const char *size)
{
    gv_case_inputs ci;
    char err[512];
    int rc = gv_make_inputs(op, dtype, NULL, size, NULL, 1, &ci, err, sizeof err);
    cr_assert_eq(rc, GV_API_OK, "%s %s: %s", op, size, err);
    return ci;
}

/* Judge outs against ci's inputs as given data (no dist): what a user's framework hands in. */
static gv_judgement judge(const char *op, const char *size, const gv_case_inputs *ci, void **outs)
{
    gv_array in[GV_API_MAX_TENSORS], out[GV_API_MAX_TENSORS];
    for (int i = 0; i < ci->n_in; i++)
        in[i] = (gv_array){ci->dtype, ci->in[i], ci->in_count[i], ci->in_names[i]};
    for (int i = 0; i < ci->n_out; i++)
        out[i] = (gv_array){ci->dtype, outs[i], ci->out_count[i], ci->out_names[i]};
    gv_judge_spec s = {
        .op = op, .size = size, .n_in = ci->n_in, .n_out = ci->n_out, .in = in, .out = out};
    gv_judgement j;
    int rc = gv_judge(&s, &j);
    cr_assert_eq(rc, GV_API_OK, "%s %s: %s", op, size, j.reason);
    return j;
}

static void expect_verdict(gv_judgement *j, int verdict, const char *what, const char *op,
                           const char *size, int dtype, const char *reason_has)
{
    cr_expect_eq(j->verdict, verdict, "%s %s %s %s: verdict %d (want %d): %s", what, op, size,
                 dtype == GV_DTYPE_F64 ? "f64" : "f32", j->verdict, verdict, j->reason);
    if (reason_has && j->verdict == verdict)
        cr_expect(strstr(j->reason, reason_has) != NULL, "%s %s %s: reason '%s' lacks '%s'", what,
                  op, size, j->reason, reason_has);
    gv_judgement_free(j);
}

static double get(int dtype, const void *p, int64_t i)
{
    return dtype == GV_DTYPE_F64 ? ((const double *)p)[i] : ((const float *)p)[i];
}
static void put(int dtype, void *p, int64_t i, double v)
{
    if (dtype == GV_DTYPE_F64)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}
static void *alloc_out(int dtype, int64_t count)
{
    void *p = calloc((size_t)count + 1, dtype == GV_DTYPE_F64 ? 8 : 4);
    cr_assert_not_null(p);
    return p;
}
static void *copy_out(int dtype, const void *src, int64_t count)
{
    void *p = alloc_out(dtype, count);
    memcpy(p, src, (size_t)count * (dtype == GV_DTYPE_F64 ? 8 : 4));
    return p;
}

/* The element of largest magnitude, moved by rel of itself: many ulps (rel 1e-3 is 8000 ulps
   in f32, 4.5e12 in f64), far past any model a correct result needs. */
static void bump_largest(int dtype, void *p, int64_t count, double rel)
{
    int64_t at = 0;
    for (int64_t i = 1; i < count; i++)
        if (fabs(get(dtype, p, i)) > fabs(get(dtype, p, at))) at = i;
    put(dtype, p, at, get(dtype, p, at) * (1.0 + rel));
}

/* ---- FFT: an f32 radix-2 FFT, a direct DFT in the dtype, or one in long double ------------- */

/* Radix 2 by decimation in time on a (n a power of 2), in T's arithmetic, twiddles rounded
   to T: what an FFT library does. */
#define RADIX2(T, a, n, sign)                                                                      \
    do {                                                                                           \
        for (int64_t len = 2; len <= (n); len *= 2)                                                \
            for (int64_t s0 = 0; s0 < (n); s0 += len)                                              \
                for (int64_t j = 0; j < len / 2; j++) {                                            \
                    double ang = (sign)*2.0 * M_PI * (double)j / (double)len;                      \
                    T w = (T)cos(ang) + (T)sin(ang) * I;                                           \
                    T u = (a)[s0 + j], v = (a)[s0 + j + len / 2] * w;                              \
                    (a)[s0 + j] = u + v;                                                           \
                    (a)[s0 + j + len / 2] = u - v;                                                 \
                }                                                                                  \
    } while (0)

static int64_t bit_reverse(int64_t j, int bits)
{
    int64_t r = 0;
    for (int b = 0; b < bits; b++)
        r |= ((j >> b) & 1) << (bits - 1 - b);
    return r;
}

/* y = sum_j x_j e^{sign 2 pi i jk/n} for one row of n complex values, in the dtype's own
   arithmetic: radix 2 where n is a power of 2 (as an FFT library does it); else the direct sum,
   in float with twiddles rounded to float for f32, in long double rounded once for f64. */
static void dft_row(int dtype, int sign, int64_t n, const double *xr, const double *xi, double *yr,
                    double *yi)
{
    if ((n & (n - 1)) == 0) {
        int bits = 0;
        while ((INT64_C(1) << bits) < n)
            bits++;
        if (dtype == GV_DTYPE_F64) {
            double complex *a = malloc((size_t)n * sizeof *a);
            cr_assert_not_null(a);
            for (int64_t j = 0; j < n; j++)
                a[bit_reverse(j, bits)] = xr[j] + xi[j] * I;
            RADIX2(double complex, a, n, sign);
            for (int64_t k = 0; k < n; k++)
                yr[k] = creal(a[k]), yi[k] = cimag(a[k]);
            free(a);
        } else {
            float complex *a = malloc((size_t)n * sizeof *a);
            cr_assert_not_null(a);
            for (int64_t j = 0; j < n; j++)
                a[bit_reverse(j, bits)] = (float)xr[j] + (float)xi[j] * I;
            RADIX2(float complex, a, n, sign);
            for (int64_t k = 0; k < n; k++)
                yr[k] = crealf(a[k]), yi[k] = cimagf(a[k]);
            free(a);
        }
        return;
    }
    /* the n twiddles e^{sign 2 pi i m/n}, each rounded once to the arithmetic */
    long double *c = malloc((size_t)n * sizeof *c), *sn = malloc((size_t)n * sizeof *sn);
    cr_assert(c && sn);
    for (int64_t m = 0; m < n; m++) {
        long double a =
            sign * 2.0L * 3.14159265358979323846264338327950288L * (long double)m / (long double)n;
        c[m] = dtype == GV_DTYPE_F64 ? cosl(a) : (float)cosl(a);
        sn[m] = dtype == GV_DTYPE_F64 ? sinl(a) : (float)sinl(a);
    }
    for (int64_t k = 0; k < n; k++) {
        long double lr = 0, li = 0;
        float fr = 0, fi = 0;
        for (int64_t j = 0; j < n; j++) {
            int64_t m = (j * k) % n;
            if (dtype == GV_DTYPE_F64) {
                lr += xr[j] * c[m] - xi[j] * sn[m];
                li += xr[j] * sn[m] + xi[j] * c[m];
            } else {
                float cf = (float)c[m], sf = (float)sn[m];
                fr += (float)xr[j] * cf - (float)xi[j] * sf;
                fi += (float)xr[j] * sf + (float)xi[j] * cf;
            }
        }
        yr[k] = dtype == GV_DTYPE_F64 ? (double)lr : fr;
        yi[k] = dtype == GV_DTYPE_F64 ? (double)li : fi;
    }
    free(c);
    free(sn);
}

typedef enum { C2C_FWD, C2C_INV, R2C, C2R } fft_kind;

/* The op's output from ci's input, row by row, as NumPy's np.fft.fft / ifft * n / rfft /
   irfft * n give it. */
static void *fft_ref(fft_kind k, const gv_case_inputs *ci, int64_t n, int64_t batch)
{
    int dt = ci->dtype;
    int64_t h = n / 2 + 1;
    double *xr = calloc((size_t)n, 8), *xi = calloc((size_t)n, 8);
    double *yr = calloc((size_t)n, 8), *yi = calloc((size_t)n, 8);
    void *out = alloc_out(dt, ci->out_count[0]);
    for (int64_t b = 0; b < batch; b++) {
        for (int64_t j = 0; j < n; j++) {
            xr[j] = xi[j] = 0;
            if (k == R2C) {
                xr[j] = get(dt, ci->in[0], b * n + j);
            } else if (k == C2R) {
                /* the half spectrum's Hermitian completion */
                int64_t m = j < h ? j : n - j;
                xr[j] = get(dt, ci->in[0], 2 * (b * h + m));
                xi[j] = (j < h ? 1 : -1) * get(dt, ci->in[0], 2 * (b * h + m) + 1);
            } else {
                xr[j] = get(dt, ci->in[0], 2 * (b * n + j));
                xi[j] = get(dt, ci->in[0], 2 * (b * n + j) + 1);
            }
        }
        dft_row(dt, k == C2C_FWD || k == R2C ? -1 : 1, n, xr, xi, yr, yi);
        for (int64_t j = 0; j < n; j++) {
            if (k == C2R) {
                put(dt, out, b * n + j, yr[j]);
            } else if (k == R2C) {
                if (j >= h) continue;
                put(dt, out, 2 * (b * h + j), yr[j]);
                put(dt, out, 2 * (b * h + j) + 1, yi[j]);
            } else {
                put(dt, out, 2 * (b * n + j), yr[j]);
                put(dt, out, 2 * (b * n + j) + 1, yi[j]);
            }
        }
    }
    free(xr), free(xi), free(yr), free(yi);
    return out;
}

static const struct {
    const char *op;
    fft_kind kind;
} fft_ops[] = {
    {"fft.c2c.fwd", C2C_FWD}, {"fft.c2c.inv", C2C_INV}, {"fft.r2c.fwd", R2C}, {"fft.c2r.inv", C2R}};

Test(judge_anywhere, fft_outputs_of_another_implementation_pass_and_corrupted_ones_fail)
{
    static const struct {
        int64_t n, batch;
    } sizes[] = {{64, 3}, {17, 2}, {1024, 2}, {4097, 1}, {65536, 1}};
    for (size_t o = 0; o < sizeof fft_ops / sizeof fft_ops[0]; o++)
        for (int dt = GV_DTYPE_F32; dt <= GV_DTYPE_F64; dt++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                const char *op = fft_ops[o].op;
                char size[32];
                snprintf(size, sizeof size, "%lldx%lld", (long long)sizes[s].n,
                         (long long)sizes[s].batch);
                gv_case_inputs ci = make(op, dt, size);
                void *y = fft_ref(fft_ops[o].kind, &ci, sizes[s].n, sizes[s].batch);
                gv_judgement j = judge(op, size, &ci, &y);
                expect_verdict(&j, GV_VERDICT_PASS, "another FFT", op, size, dt, NULL);

                /* 1% of the largest bin: the model's allowance is u d ||y_b||_2 in every bin
                   (normwise, Higham ASNA Thm 24.2), which at n = 2^16 in f32 is about 1e-3 of
                   the largest bin of uniform [-1, 1) data */
                void *bad = copy_out(dt, y, ci.out_count[0]);
                bump_largest(dt, bad, ci.out_count[0], 1e-2);
                j = judge(op, size, &ci, &bad);
                expect_verdict(&j, GV_VERDICT_FAIL, "one bin off", op, size, dt, NULL);
                free(bad);

                if (fft_ops[o].kind != C2R) { /* c2r's outputs are real */
                    bad = copy_out(dt, y, ci.out_count[0]);
                    for (int64_t i = 1; i < ci.out_count[0]; i += 2) /* conjugated */
                        put(dt, bad, i, -get(dt, bad, i));
                    j = judge(op, size, &ci, &bad);
                    expect_verdict(&j, GV_VERDICT_FAIL, "conjugated", op, size, dt, NULL);
                    free(bad);
                }
                free(y);
                gv_case_inputs_free(&ci);
            }
}

/* ---- solve: Gaussian elimination with partial pivoting in the dtype ----------------------- */

/* x = A^-1 b (or A^-T b when transposed) by GEPP in the dtype's arithmetic, as LAPACK's
   unblocked getf2/getrs order it. */
static void *gepp(int dt, const void *a, const void *b, int64_t n, bool transposed)
{
    double *m = malloc((size_t)(n * n) * 8), *x = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) {
        x[i] = get(dt, b, i);
        for (int64_t j = 0; j < n; j++)
            m[i * n + j] = get(dt, a, transposed ? j * n + i : i * n + j);
    }
#define RND(v) (dt == GV_DTYPE_F64 ? (v) : (double)(float)(v))
    for (int64_t k = 0; k < n; k++) {
        int64_t p = k;
        for (int64_t i = k + 1; i < n; i++)
            if (fabs(m[i * n + k]) > fabs(m[p * n + k])) p = i;
        for (int64_t j = 0; j < n; j++) {
            double t = m[k * n + j];
            m[k * n + j] = m[p * n + j];
            m[p * n + j] = t;
        }
        double t = x[k];
        x[k] = x[p];
        x[p] = t;
        for (int64_t i = k + 1; i < n; i++) {
            double l = RND(m[i * n + k] / m[k * n + k]);
            for (int64_t j = k + 1; j < n; j++)
                m[i * n + j] = RND(m[i * n + j] - RND(l * m[k * n + j]));
            x[i] = RND(x[i] - RND(l * x[k]));
        }
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        double s = x[i];
        for (int64_t j = i + 1; j < n; j++)
            s = RND(s - RND(m[i * n + j] * x[j]));
        x[i] = RND(s / m[i * n + i]);
    }
#undef RND
    void *out = alloc_out(dt, n);
    for (int64_t i = 0; i < n; i++)
        put(dt, out, i, x[i]);
    free(m);
    free(x);
    return out;
}

Test(judge_anywhere, solve_outputs_of_another_solver_pass_and_a_transposed_solve_fails)
{
    static const char *ops[] = {"solve.gesv", "solve.posv"};
    static const char *sizes[] = {"37x1", "37x6", "100x3"};
    for (int o = 0; o < 2; o++)
        for (int dt = GV_DTYPE_F32; dt <= GV_DTYPE_F64; dt++)
            for (int s = 0; s < 3; s++) {
                gv_case_inputs ci = make(ops[o], dt, sizes[s]);
                int64_t n = ci.in_count[1];
                void *outs[2] = {gepp(dt, ci.in[0], ci.in[1], n, false), alloc_out(dt, 1)};
                gv_judgement j = judge(ops[o], sizes[s], &ci, outs);
                expect_verdict(&j, GV_VERDICT_PASS, "GEPP", ops[o], sizes[s], dt, NULL);
                if (strcmp(ops[o], "solve.gesv") == 0) { /* posv's A is symmetric */
                    void *xt = gepp(dt, ci.in[0], ci.in[1], n, true);
                    void *bad[2] = {xt, outs[1]};
                    j = judge(ops[o], sizes[s], &ci, bad);
                    expect_verdict(&j, GV_VERDICT_FAIL, "transposed", ops[o], sizes[s], dt,
                                   "scaled residual");
                    free(xt);
                }
                void *bad = copy_out(dt, outs[0], n);
                bump_largest(dt, bad, n, 1e-2);
                void *bo[2] = {bad, outs[1]};
                j = judge(ops[o], sizes[s], &ci, bo);
                expect_verdict(&j, GV_VERDICT_FAIL, "one x off", ops[o], sizes[s], dt,
                               "scaled residual");
                put(dt, outs[1], 0, 3.0); /* a failure reported where there was none */
                j = judge(ops[o], sizes[s], &ci, outs);
                expect_verdict(&j, GV_VERDICT_FAIL, "info 3", ops[o], sizes[s], dt, "info");
                free(bad);
                free(outs[0]);
                free(outs[1]);
                gv_case_inputs_free(&ci);
            }
}

/* The singular and indefinite matrices: info is the first zero (or non-positive) pivot's
   index, which any LU with row pivoting (Cholesky) finds at k. */
Test(judge_anywhere, singular_info_of_another_factorisation_passes_and_a_wrong_one_fails)
{
    static const char *ops[] = {"solve.gesv.singular", "solve.posv.indefinite"};
    for (int o = 0; o < 2; o++)
        for (int dt = GV_DTYPE_F32; dt <= GV_DTYPE_F64; dt++) {
            gv_case_inputs ci = make(ops[o], dt, "37x20");
            void *info = alloc_out(dt, 1);
            put(dt, info, 0, 20.0);
            gv_judgement j = judge(ops[o], "37x20", &ci, &info);
            expect_verdict(&j, GV_VERDICT_PASS, "info k", ops[o], "37x20", dt, NULL);
            put(dt, info, 0, 0.0);
            j = judge(ops[o], "37x20", &ci, &info);
            expect_verdict(&j, GV_VERDICT_FAIL, "info 0", ops[o], "37x20", dt, "info");
            free(info);
            gv_case_inputs_free(&ci);
        }
}

/* ---- sin_iter and diffusion: the plain loops ------------------------------------------------ */

Test(judge_anywhere, sin_iter_of_a_plain_loop_passes_and_one_element_off_fails)
{
    static const char *sizes[] = {"1000x1", "4097x10", "1000x100"};
    for (int dt = GV_DTYPE_F32; dt <= GV_DTYPE_F64; dt++)
        for (int s = 0; s < 3; s++) {
            gv_case_inputs ci = make("sin_iter", dt, sizes[s]);
            int64_t n = ci.in_count[0], k = atoll(strchr(sizes[s], 'x') + 1);
            void *y = alloc_out(dt, n);
            for (int64_t i = 0; i < n; i++) {
                double v = get(dt, ci.in[0], i);
                for (int64_t r = 0; r < k; r++)
                    v = dt == GV_DTYPE_F64 ? sin(v) : sinf((float)v);
                put(dt, y, i, v);
            }
            gv_judgement j = judge("sin_iter", sizes[s], &ci, &y);
            expect_verdict(&j, GV_VERDICT_PASS, "libm sin", "sin_iter", sizes[s], dt, NULL);
            bump_largest(dt, y, n, 1e-3);
            j = judge("sin_iter", sizes[s], &ci, &y);
            expect_verdict(&j, GV_VERDICT_FAIL, "one off", "sin_iter", sizes[s], dt, NULL);
            free(y);
            gv_case_inputs_free(&ci);
        }
}

/* steps of the op's update on an ny x nx grid, in the dtype, each point's terms summed left,
   right, up, down (not the oracle's order): fixed f - 0.25 (4f - sum of existing
   neighbours), periodic f + 0.1 (sum of the 4 wrapped - 4f) with 0.1 rounded to the dtype. */
static void *diffuse(int dt, bool periodic, const void *f0, int64_t ny, int64_t nx, int64_t steps)
{
    double *f = malloc((size_t)(ny * nx) * 8), *g = malloc((size_t)(ny * nx) * 8);
    for (int64_t i = 0; i < ny * nx; i++)
        f[i] = get(dt, f0, i);
#define RND(v) (dt == GV_DTYPE_F64 ? (v) : (double)(float)(v))
    double coeff = RND(0.1);
    for (int64_t s = 0; s < steps; s++) {
        for (int64_t i = 0; i < ny; i++)
            for (int64_t j = 0; j < nx; j++) {
                double c = f[i * nx + j], sum = 0;
                if (periodic) {
                    sum = f[i * nx + (j + nx - 1) % nx];
                    sum = RND(sum + f[i * nx + (j + 1) % nx]);
                    sum = RND(sum + f[((i + ny - 1) % ny) * nx + j]);
                    sum = RND(sum + f[((i + 1) % ny) * nx + j]);
                    g[i * nx + j] = RND(c + RND(coeff * RND(sum - RND(4 * c))));
                } else {
                    if (j > 0) sum = RND(sum + f[i * nx + j - 1]);
                    if (j < nx - 1) sum = RND(sum + f[i * nx + j + 1]);
                    if (i > 0) sum = RND(sum + f[(i - 1) * nx + j]);
                    if (i < ny - 1) sum = RND(sum + f[(i + 1) * nx + j]);
                    g[i * nx + j] = RND(c - RND(0.25 * RND(4 * c - sum)));
                }
            }
        double *t = f;
        f = g;
        g = t;
    }
#undef RND
    void *out = alloc_out(dt, ny * nx);
    for (int64_t i = 0; i < ny * nx; i++)
        put(dt, out, i, f[i]);
    free(f);
    free(g);
    return out;
}

Test(judge_anywhere, diffusion_of_an_in_order_loop_passes_and_one_point_off_fails)
{
    static const char *ops[] = {"diffusion.fixed", "diffusion.periodic", "diffusion.fixed.perstep",
                                "diffusion.periodic.perstep"};
    static const struct {
        int64_t ny, nx, steps;
    } sizes[] = {{37, 53, 1}, {37, 53, 50}, {2, 3, 7}, {64, 64, 20}};
    for (int o = 0; o < 4; o++)
        for (int dt = GV_DTYPE_F32; dt <= GV_DTYPE_F64; dt++)
            for (int s = 0; s < 4; s++) {
                char size[48];
                snprintf(size, sizeof size, "%lldx%lldx%lld", (long long)sizes[s].ny,
                         (long long)sizes[s].nx, (long long)sizes[s].steps);
                gv_case_inputs ci = make(ops[o], dt, size);
                void *y = diffuse(dt, strstr(ops[o], "periodic") != NULL, ci.in[0], sizes[s].ny,
                                  sizes[s].nx, sizes[s].steps);
                gv_judgement j = judge(ops[o], size, &ci, &y);
                expect_verdict(&j, GV_VERDICT_PASS, "in-order loop", ops[o], size, dt, NULL);
                /* 5%: the worst-case model's allowance after N steps is (4N) u gauge, with the
                   gauge carrying |f0| where the field itself has decayed */
                bump_largest(dt, y, ci.out_count[0], 5e-2);
                j = judge(ops[o], size, &ci, &y);
                expect_verdict(&j, GV_VERDICT_FAIL, "one point off", ops[o], size, dt, NULL);
                free(y);
                gv_case_inputs_free(&ci);
            }
}

/* ---- the op descriptions ------------------------------------------------------------------ */

Test(judge_anywhere, every_catalogue_op_takes_inputs_and_names_its_complex_tensors)
{
    static const char *ops[] = {"fft.c2c.fwd",
                                "fft.c2c.inv",
                                "fft.r2c.fwd",
                                "fft.c2r.inv",
                                "solve.gesv",
                                "solve.posv",
                                "solve.gesv.singular",
                                "solve.posv.indefinite",
                                "diffusion.fixed",
                                "diffusion.periodic",
                                "diffusion.fixed.perstep",
                                "diffusion.periodic.perstep",
                                "sin_iter",
                                "lsmr.ridge"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        char *js = NULL;
        cr_assert_eq(gv_op_info(ops[i], &js), GV_API_OK, "%s", ops[i]);
        json_error_t e;
        json_t *o = json_loads(js, 0, &e);
        cr_assert_not_null(o, "%s", ops[i]);
        cr_expect(json_is_true(json_object_get(o, "takes_inputs")), "%s takes no inputs", ops[i]);
        size_t nci = json_array_size(json_object_get(o, "complex_inputs"));
        size_t nco = json_array_size(json_object_get(o, "complex_outputs"));
        bool fft = strncmp(ops[i], "fft.", 4) == 0;
        cr_expect_eq(nci, fft && strcmp(ops[i], "fft.r2c.fwd") != 0 ? 1u : 0u, "%s", ops[i]);
        cr_expect_eq(nco, fft && strcmp(ops[i], "fft.c2r.inv") != 0 ? 1u : 0u, "%s", ops[i]);
        json_decref(o);
        gv_free(js);
    }
}

/* ---- through the command: complex .npy, hostile files, 0-d results ------------------------ */

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char args[2048], out[16384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return gv_test_run_cli(args, out, sizeof out);
}

static void read_npy(const char *path, gv_npy *a)
{
    char err[512];
    cr_assert_eq(gv_npy_read(path, a, err, sizeof err), 0, "%s", err);
}

Test(judge_anywhere, fft_through_the_command_reads_and_writes_numpy_complex)
{
    char dir[256];
    gv_test_scratch_dir(dir, sizeof dir, "fftcli");
    for (int dt = GV_DTYPE_F32; dt <= GV_DTYPE_F64; dt++) {
        const char *dn = dt == GV_DTYPE_F64 ? "f64" : "f32";
        cr_assert_eq(
            run("inputs --op fft.c2c.fwd --dtype %s --size 64x3 --seed 1 --out %s/c --force", dn,
                dir),
            0);
        char path[512];
        snprintf(path, sizeof path, "%s/c/x.npy", dir);
        gv_npy x;
        read_npy(path, &x);
        cr_expect_eq(x.type, dt == GV_DTYPE_F64 ? GV_NPY_C128 : GV_NPY_C64, "x.npy is complex");
        cr_expect(x.nd == 2 && x.shape[0] == 3 && x.shape[1] == 64, "x.npy is (3, 64)");
        /* the same inputs as the API's, their spectrum as complex, judged by the command */
        gv_case_inputs ci = make("fft.c2c.fwd", dt, "64x3");
        cr_expect(memcmp(x.data, ci.in[0], (size_t)ci.in_count[0] * (dt ? 8 : 4)) == 0);
        void *y = fft_ref(C2C_FWD, &ci, 64, 3);
        int64_t shape[2] = {3, 64};
        snprintf(path, sizeof path, "%s/y.npy", dir);
        cr_assert_eq(gv_npy_write(path, dt ? GV_NPY_C128 : GV_NPY_C64, 2, shape, y), 0);
        cr_expect_eq(run("judge --case %s/c/case.json --outputs %s", dir, path), 0, "%s PASS", dn);
        cr_expect_eq(run("judge --op fft.c2c.fwd --inputs %s/c/x.npy --outputs %s", dir, path), 0,
                     "%s given inputs, size read off them", dn);
        /* the same bytes as reals with a last dim of 2 are the same array */
        int64_t shape3[3] = {3, 64, 2};
        char real_path[512];
        snprintf(real_path, sizeof real_path, "%s/y_re_im.npy", dir);
        cr_assert_eq(gv_npy_write(real_path, dt ? GV_NPY_F64 : GV_NPY_F32, 3, shape3, y), 0);
        cr_expect_eq(run("judge --case %s/c/case.json --outputs %s", dir, real_path), 0);
        /* and as an input whose size is read off it (a dumped case's layout) */
        char x_re_im[512];
        snprintf(x_re_im, sizeof x_re_im, "%s/x_re_im.npy", dir);
        cr_assert_eq(gv_npy_write(x_re_im, dt ? GV_NPY_F64 : GV_NPY_F32, 3, shape3, x.data), 0);
        cr_expect_eq(run("judge --op fft.c2c.fwd --inputs %s --outputs %s", x_re_im, path), 0);
        /* a complex array where sin_iter's x is real: refused */
        char said[4096];
        snprintf(said, sizeof said,
                 "judge --op sin_iter --size 384x1 --inputs %s/c/x.npy --outputs %s", dir,
                 real_path);
        cr_expect_eq(gv_test_run_cli(said, said, sizeof said), 2);
        cr_expect(strstr(said, "a complex array, but sin_iter's input 0 is real") != NULL, "%s",
                  said);
        cr_expect_eq(run("check --op sin_iter --inputs %s/c/x.npy", dir), 2);
        /* conjugated: FAIL */
        for (int64_t i = 1; i < ci.out_count[0]; i += 2)
            put(dt, y, i, -get(dt, y, i));
        cr_assert_eq(gv_npy_write(path, dt ? GV_NPY_C128 : GV_NPY_C64, 2, shape, y), 0);
        cr_expect_eq(run("judge --case %s/c/case.json --outputs %s", dir, path), 1, "%s FAIL", dn);
        /* a real array where the spectrum is complex: refused */
        cr_assert_eq(gv_npy_write(path, dt ? GV_NPY_F64 : GV_NPY_F32, 2, shape, y), 0);
        cr_expect_eq(run("judge --case %s/c/case.json --outputs %s", dir, path), 2);
        free(y);
        gv_npy_free(&x);
        gv_case_inputs_free(&ci);
    }
    gv_test_remove_dir(dir);
}

/* A hand-made .npy header with data bytes: the hostile complex files. */
static void write_raw(const char *path, const char *dict, size_t data_bytes)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    char head[256];
    int n = snprintf(head, sizeof head, "%s", dict);
    size_t total = 10 + (size_t)n + 1, padded = (total + 63) / 64 * 64;
    size_t hlen = padded - 10;
    unsigned char pre[10] = {0x93,
                             'N',
                             'U',
                             'M',
                             'P',
                             'Y',
                             1,
                             0,
                             (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    fwrite(pre, 1, 10, f);
    fwrite(head, 1, (size_t)n, f);
    for (size_t i = (size_t)n; i + 1 < hlen; i++)
        fputc(' ', f);
    fputc('\n', f);
    for (size_t i = 0; i < data_bytes; i++)
        fputc(0, f);
    fclose(f);
}

Test(judge_anywhere, hostile_complex_files_are_refused_with_exit_2)
{
    char dir[256], path[512];
    gv_test_scratch_dir(dir, sizeof dir, "fftbad");
    cr_assert_eq(run("inputs --op fft.c2c.fwd --dtype f32 --size 16x2 --out %s/c", dir), 0);
    static const struct {
        const char *dict;
        size_t bytes;
        const char *why;
    } bad[] = {
        {"{'descr': '<c4', 'fortran_order': False, 'shape': (2, 16), }", 2 * 16 * 4, "itemsize"},
        {"{'descr': '<c32', 'fortran_order': False, 'shape': (2, 16), }", 2 * 16 * 32, "c32"},
        {"{'descr': '>c8', 'fortran_order': False, 'shape': (2, 16), }", 2 * 16 * 8, "big-endian"},
        {"{'descr': '<c8', 'fortran_order': True, 'shape': (2, 16), }", 2 * 16 * 8, "fortran"},
        {"{'descr': '<c8', 'fortran_order': False, 'shape': (2, 16), }", 2 * 16 * 8 - 3,
         "truncated"},
        {"{'descr': '<c8', 'fortran_order': False, 'shape': (2, 16), }", 2 * 16 * 8 + 8,
         "trailing"},
        {"{'descr': '<c16', 'fortran_order': False, 'shape': (2, 16), }", 2 * 16 * 16,
         "c128 for an f32 case"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "%s/bad%zu.npy", dir, i);
        write_raw(path, bad[i].dict, bad[i].bytes);
        cr_expect_eq(run("judge --case %s/c/case.json --outputs %s", dir, path), 2, "%s",
                     bad[i].why);
    }
    /* the reader's own words for the header faults */
    gv_npy a;
    char err[512];
    snprintf(path, sizeof path, "%s/bad3.npy", dir);
    cr_expect_neq(gv_npy_read(path, &a, err, sizeof err), 0);
    cr_expect(strstr(err, "Fortran") != NULL, "%s", err);
    snprintf(path, sizeof path, "%s/bad0.npy", dir);
    cr_expect_neq(gv_npy_read(path, &a, err, sizeof err), 0);
    cr_expect(strstr(err, "<c4") != NULL, "%s", err);
    gv_test_remove_dir(dir);
}

/* torch's and CuPy's x.sum() is a 0-d array: a .npy of shape () is the one-element output. */
Test(judge_anywhere, a_0d_result_is_judged_as_its_1_element_twin)
{
    char dir[256], path[512];
    gv_test_scratch_dir(dir, sizeof dir, "zerod");
    cr_assert_eq(run("inputs --op reduce.sum --dtype f64 --size 1000 --out %s/c", dir), 0);
    char in_path[512];
    snprintf(in_path, sizeof in_path, "%s/c/x.npy", dir);
    gv_npy x;
    read_npy(in_path, &x);
    long double s = 0;
    for (int64_t i = 0; i < x.count; i++)
        s += ((double *)x.data)[i];
    double sum = (double)s;
    int64_t one = 1;
    snprintf(path, sizeof path, "%s/s0.npy", dir);
    cr_assert_eq(gv_npy_write(path, GV_NPY_F64, 0, &one, &sum), 0);
    cr_expect_eq(run("judge --case %s/c/case.json --outputs %s", dir, path), 0, "0-d");
    snprintf(path, sizeof path, "%s/s1.npy", dir);
    cr_assert_eq(gv_npy_write(path, GV_NPY_F64, 1, &one, &sum), 0);
    cr_expect_eq(run("judge --case %s/c/case.json --outputs %s", dir, path), 0, "(1,)");
    sum *= 1.0 + 1e-9;
    snprintf(path, sizeof path, "%s/s0.npy", dir);
    cr_assert_eq(gv_npy_write(path, GV_NPY_F64, 0, &one, &sum), 0);
    cr_expect_eq(run("judge --case %s/c/case.json --outputs %s", dir, path), 1, "0-d, off");
    gv_npy_free(&x);
    gv_test_remove_dir(dir);
}
