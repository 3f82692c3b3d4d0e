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
 * direct DFT. Planning is not thread-safe in FFTW, which is fine: the oracle runs in one
 * thread. */
#include <fftw3.h>
#include <limits.h>
#include <stdbool.h>
#include <math.h>
#include <string.h>

#include "go.h"

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
    int nn = (int)n;
    /* FFTW leaves the input of an out-of-place complex transform intact (FFTW manual,
       "Planner Flags": FFTW_PRESERVE_INPUT is the default there), so the cast is safe. */
    fftw_plan p = fftw_plan_many_dft(1, &nn, (int)batch, (fftw_complex *)x, NULL, 1, (int)ldx,
                                     (fftw_complex *)y, NULL, 1, (int)ldy,
                                     sign < 0 ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
    if (!p) return go_enomem(__func__);
    fftw_execute(p);
    fftw_destroy_plan(p);
    return 0;
}

int go_fft_r2c(int64_t n, int64_t batch, const double *x, int64_t ldx, double *y, int64_t ldy)
{
    int rc = check_args(__func__, n, batch, x, ldx, n, y, ldy, n / 2 + 1, 3, false);
    if (rc) return rc;
    if (batch == 0) return 0;
    int nn = (int)n;
    /* out-of-place r2c also preserves its input (same section of the FFTW manual) */
    fftw_plan p = fftw_plan_many_dft_r2c(1, &nn, (int)batch, (double *)x, NULL, 1, (int)ldx,
                                         (fftw_complex *)y, NULL, 1, (int)ldy, FFTW_ESTIMATE);
    if (!p) return go_enomem(__func__);
    fftw_execute(p);
    fftw_destroy_plan(p);
    return 0;
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
    for (int64_t b = 0; b < batch; b++)
        memcpy(work[b * h], x + 2 * b * ldx, sizeof(fftw_complex) * (size_t)h);
    int nn = (int)n;
    fftw_plan p = fftw_plan_many_dft_c2r(1, &nn, (int)batch, work, NULL, 1, (int)h, y, NULL, 1,
                                         (int)ldy, FFTW_ESTIMATE);
    if (!p) {
        fftw_free(work);
        return go_enomem(__func__);
    }
    fftw_execute(p);
    fftw_destroy_plan(p);
    fftw_free(work);
    return 0;
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
    for (int64_t b = 0; b < batch; b++) {
        double sc, s = sumsq_scaled(x + 2 * b * ldx, 2 * h, w, &sc);
        fill_row(g + b * ldg, n, sqrt((double)n) * sc * sqrt(s));
    }
    fftw_free(w);
    return 0;
}
