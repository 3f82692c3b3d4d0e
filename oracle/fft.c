/* fft.c: oracles for the batched 1-D discrete Fourier transforms (the fft family), through
 * FFTW3 in double precision with FFTW_ESTIMATE plans, and the gauges of their error model.
 *
 * Conventions (the same as cuFFT and FFTW): forward y_k = sum_j x_j exp(-2 pi i jk/n),
 * inverse y_k = sum_j x_j exp(+2 pi i jk/n), neither scaled (an inverse after a forward
 * gives n x). Complex arrays are interleaved (re, im) doubles; a batch is `batch` rows, row b
 * starting at element b * ld, where ld counts complex elements for complex arrays and reals
 * for real ones. Real-to-complex keeps the n/2 + 1 non-redundant outputs of each row;
 * complex-to-real reads them and returns n reals, treating the row as the half spectrum of a
 * real signal (imaginary parts of X_0, and of X_{n/2} for even n, must be 0 for that).
 *
 * Why FFTW: a mature, Debian-packaged FFT whose f64 results are accurate to a few units of
 * 2^-53 relative to the norm (rms error O(u sqrt(log n)) for every n, primes included, by
 * its own accuracy benchmarks); tests/cpu/oracle_fft.c checks it against a long-double
 * direct DFT.
 *
 * Threads: the rows of a batch are independent, so they run on all cores (OpenMP), each row
 * transformed by a single-threaded plan for ONE row (howmany = 1) executed on that row with
 * FFTW's new-array execute functions, the only thread-safe calls in FFTW (manual, "Thread
 * safety"). A row's arithmetic is then that one plan's whatever the thread count: the same
 * bits on 1 thread or 16 (tests/cpu/test_threads.c), and the same bits as the batched plan
 * this oracle used before (FFTW_ESTIMATE applies the one-row algorithm to each row of a
 * batch; host-bench digests unchanged). FFTW's own threads library splits one transform
 * across threads in ways that depend on their count: not used. New-array execution needs
 * arrays with the plan's alignment (fftw_alignment_of), and rows at b * ld elements fall into
 * a few alignment classes: one plan per class, planned on a row of that class. Planning is
 * not thread-safe: every planner call is made under one lock, before the parallel loop. */
#include <fftw3.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <math.h>
#include <string.h>

#include "go.h"

/* FFTW's planner (and fftw_destroy_plan) touch global state: one caller at a time. */
static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;

/* Plans for the alignment classes of one batch: class_of(in, out) indexes them. FFTW's
   alignment_of is an address modulo its SIMD alignment (at most 64 bytes), so an input and an
   output offset of a multiple of 8 bytes each give at most 8 x 8 classes. */
enum { FFT_NCLASS = 8 };
typedef struct row_plans {
    fftw_plan p[FFT_NCLASS * FFT_NCLASS];
} row_plans;

static int class_of(const void *in, const void *out)
{
    int a = fftw_alignment_of((double *)in) / 8, b = fftw_alignment_of((double *)out) / 8;
    return (a % FFT_NCLASS) * FFT_NCLASS + b % FFT_NCLASS;
}

typedef enum fft_kind { KIND_C2C, KIND_R2C, KIND_C2R } fft_kind;

/* A one-row plan of kind on the given row pair (FFTW_ESTIMATE does not touch the arrays). */
static fftw_plan plan_row(fft_kind kind, int n, int sign, double *in, double *out)
{
    switch (kind) {
    case KIND_R2C: return fftw_plan_dft_r2c_1d(n, in, (fftw_complex *)out, FFTW_ESTIMATE);
    case KIND_C2R: return fftw_plan_dft_c2r_1d(n, (fftw_complex *)in, out, FFTW_ESTIMATE);
    default:
        return fftw_plan_dft_1d(n, (fftw_complex *)in, (fftw_complex *)out,
                                sign < 0 ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
    }
}

static void destroy_plans(row_plans *rp)
{
    pthread_mutex_lock(&planner_lock);
    for (int i = 0; i < FFT_NCLASS * FFT_NCLASS; i++)
        if (rp->p[i]) fftw_destroy_plan(rp->p[i]);
    pthread_mutex_unlock(&planner_lock);
}

/* Transform batch rows: row b reads in + b * in_step doubles and writes out + b * out_step.
   Plans first (serial, locked), one per alignment class met; then the rows in parallel. */
static int transform_rows(const char *fn, fft_kind kind, int64_t n, int64_t batch, int sign,
                          double *in, int64_t in_step, double *out, int64_t out_step)
{
    row_plans rp = {{0}};
    bool ok = true;
    pthread_mutex_lock(&planner_lock);
    for (int64_t b = 0; b < batch && ok; b++) {
        double *i = in + b * in_step, *o = out + b * out_step;
        int c = class_of(i, o);
        if (rp.p[c]) continue;
        rp.p[c] = plan_row(kind, (int)n, sign, i, o);
        ok = rp.p[c] != NULL;
    }
    pthread_mutex_unlock(&planner_lock);
    if (!ok) {
        destroy_plans(&rp);
        return go_enomem(fn);
    }
#pragma omp parallel for schedule(dynamic,                                                         \
                                  1) if ((double)n * (double)batch >= GO_PAR_MIN && batch > 1)
    for (int64_t b = 0; b < batch; b++) {
        double *i = in + b * in_step, *o = out + b * out_step;
        fftw_plan p = rp.p[class_of(i, o)];
        switch (kind) {
        case KIND_R2C: fftw_execute_dft_r2c(p, i, (fftw_complex *)o); break;
        case KIND_C2R: fftw_execute_dft_c2r(p, (fftw_complex *)i, o); break;
        default: fftw_execute_dft(p, (fftw_complex *)i, (fftw_complex *)o); break;
        }
    }
    destroy_plans(&rp);
    return 0;
}

/* Common argument checks: -(index) of the first bad argument, named (go.h), or 0. The
 * leading dimensions are checked against the row lengths in their own units. */
static int check_args(const char *fn, int64_t n, int64_t batch, const double *x, int64_t ldx,
                      int64_t row_x, const double *y, int64_t ldy, int64_t row_y, int first_x,
                      bool gauge)
{
    if (n < 1 || n > INT_MAX) return go_xerbla(fn, 1, "n");
    if (batch < 0 || batch > INT_MAX) return go_xerbla(fn, 2, "batch");
    if (!x) return go_xerbla(fn, first_x, "x");
    if (ldx < row_x || ldx > INT_MAX) return go_xerbla(fn, first_x + 1, "ldx");
    if (!y) return go_xerbla(fn, first_x + 2, gauge ? "g" : "y");
    if (ldy < row_y || ldy > INT_MAX) return go_xerbla(fn, first_x + 3, gauge ? "ldg" : "ldy");
    return 0;
}

int go_fft_c2c(int64_t n, int64_t batch, int sign, const double *x, int64_t ldx, double *y,
               int64_t ldy)
{
    int rc = check_args(__func__, n, batch, x, ldx, n, y, ldy, n, 4, false);
    if (rc == -1 || rc == -2) return rc;
    if (sign != -1 && sign != 1)
        return go_xerbla(__func__, 3, "sign"); /* arguments are reported in order */
    if (rc) return rc;
    if (batch == 0) return 0;
    /* FFTW leaves the input of an out-of-place complex transform intact (FFTW manual,
       "Planner Flags": FFTW_PRESERVE_INPUT is the default there), so the cast is safe. */
    return transform_rows(__func__, KIND_C2C, n, batch, sign, (double *)x, 2 * ldx, y, 2 * ldy);
}

int go_fft_r2c(int64_t n, int64_t batch, const double *x, int64_t ldx, double *y, int64_t ldy)
{
    int rc = check_args(__func__, n, batch, x, ldx, n, y, ldy, n / 2 + 1, 3, false);
    if (rc) return rc;
    if (batch == 0) return 0;
    /* out-of-place r2c also preserves its input (same section of the FFTW manual) */
    return transform_rows(__func__, KIND_R2C, n, batch, 0, (double *)x, ldx, y, 2 * ldy);
}

int go_fft_c2r(int64_t n, int64_t batch, const double *x, int64_t ldx, double *y, int64_t ldy)
{
    int64_t h = n / 2 + 1;
    int rc = check_args(__func__, n, batch, x, ldx, h, y, ldy, n, 3, false);
    if (rc) return rc;
    if (batch == 0) return 0;
    /* c2r destroys its input in FFTW (as in cuFFT): work on a copy, packed to h per row */
    fftw_complex *work = fftw_malloc(sizeof(fftw_complex) * (size_t)(h * batch));
    if (!work) return go_enomem(__func__);
#pragma omp parallel for schedule(static) if ((double)h * (double)batch >= GO_PAR_MIN)
    for (int64_t b = 0; b < batch; b++)
        memcpy(work[b * h], x + 2 * b * ldx, sizeof(fftw_complex) * (size_t)h);
    rc = transform_rows(__func__, KIND_C2R, n, batch, 0, (double *)work, 2 * h, y, ldy);
    fftw_free(work);
    return rc;
}

/* Squared 2-norm of m interleaved complex values, scaled against overflow like LAPACK's
 * dnrm2 (accumulate (v/scale)^2), so the gauge of huge inputs stays finite. */
static double sumsq_scaled(const double *v, int64_t count, const double *weight, double *scale)
{
    double s = 0.0, sc = 0.0;
    for (int64_t i = 0; i < count; i++) {
        double a = fabs(v[i]);
        if (a == 0.0) continue;
        double w = weight ? weight[i] : 1.0;
        if (a > sc) {
            s = s * (sc / a) * (sc / a) + w;
            sc = a;
        } else {
            s += w * (a / sc) * (a / sc);
        }
    }
    *scale = sc;
    return s;
}

/* Fill the count gauge entries of one row with g. */
static void fill_row(double *g, int64_t count, double value)
{
    for (int64_t i = 0; i < count; i++)
        g[i] = value;
}

int go_fft_c2c_gauge(int64_t n, int64_t batch, const double *x, int64_t ldx, double *g, int64_t ldg)
{
    int rc = check_args(__func__, n, batch, x, ldx, n, g, ldg, n, 3, true);
    if (rc) return rc;
        /* rows are independent: each row's sum as on one thread */
#pragma omp parallel for schedule(static) if ((double)n * (double)batch >= GO_PAR_MIN)
    for (int64_t b = 0; b < batch; b++) {
        double sc, s = sumsq_scaled(x + 2 * b * ldx, 2 * n, NULL, &sc);
        fill_row(g + 2 * b * ldg, 2 * n, sqrt((double)n) * sc * sqrt(s));
    }
    return 0;
}

int go_fft_r2c_gauge(int64_t n, int64_t batch, const double *x, int64_t ldx, double *g, int64_t ldg)
{
    int64_t h = n / 2 + 1;
    int rc = check_args(__func__, n, batch, x, ldx, n, g, ldg, h, 3, true);
    if (rc) return rc;
        /* rows are independent: each row's sum as on one thread */
#pragma omp parallel for schedule(static) if ((double)n * (double)batch >= GO_PAR_MIN)
    for (int64_t b = 0; b < batch; b++) {
        double sc, s = sumsq_scaled(x + b * ldx, n, NULL, &sc);
        fill_row(g + 2 * b * ldg, 2 * h, sqrt((double)n) * sc * sqrt(s));
    }
    return 0;
}

int go_fft_c2r_gauge(int64_t n, int64_t batch, const double *x, int64_t ldx, double *g, int64_t ldg)
{
    int64_t h = n / 2 + 1;
    int rc = check_args(__func__, n, batch, x, ldx, h, g, ldg, n, 3, true);
    if (rc) return rc;
    /* The full spectrum's norm: X_1 .. X_{ceil(n/2)-1} appear twice (with their conjugates),
       X_0 and, for even n, X_{n/2} once. Imaginary parts of the last two count too, which
       only makes the gauge larger when the input is not a real signal's spectrum. */
    double *w = fftw_malloc(sizeof(double) * (size_t)(2 * h));
    if (!w) return go_enomem(__func__);
    for (int64_t k = 0; k < h; k++) {
        double wk = (k == 0 || (n % 2 == 0 && k == n / 2)) ? 1.0 : 2.0;
        w[2 * k] = w[2 * k + 1] = wk;
    }
    /* rows are independent: each row's sum as on one thread */
#pragma omp parallel for schedule(static) if ((double)n * (double)batch >= GO_PAR_MIN)
    for (int64_t b = 0; b < batch; b++) {
        double sc, s = sumsq_scaled(x + 2 * b * ldx, 2 * h, w, &sc);
        fill_row(g + b * ldg, n, sqrt((double)n) * sc * sqrt(s));
    }
    fftw_free(w);
    return 0;
}
