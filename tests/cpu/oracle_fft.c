/* oracle_fft.c: the fft family's oracles (oracle/fft.c, FFTW) against a long double direct
 * DFT at small and large sizes, and their argument checks. */
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

/* ---- long-double references ---------------------------------------------------------- */

/* Direct DFT of one row: y_k = sum_j x_j e^{sign 2 pi i jk/n}. jk is reduced mod n in
 * integers so every angle lies in [0, 2 pi) and cosl/sinl see it nearly exactly. */
static void ld_dft(int64_t n, int sign, const long double *x, long double *y)
{
    for (int64_t k = 0; k < n; k++) {
        long double re = 0, im = 0;
        for (int64_t j = 0; j < n; j++) {
            long double a = sign * 2 * PI_L * (long double)((j * k) % n) / (long double)n;
            long double c = cosl(a), s = sinl(a);
            re += x[2 * j] * c - x[2 * j + 1] * s;
            im += x[2 * j] * s + x[2 * j + 1] * c;
        }
        y[2 * k] = re;
        y[2 * k + 1] = im;
    }
}

/* ||got - want||_2 / ||want||_2 over count values */
static long double rel_err(const double *got, const long double *want, int64_t count)
{
    long double e = 0, r = 0;
    for (int64_t i = 0; i < count; i++) {
        long double d = got[i] - want[i];
        e += d * d;
        r += want[i] * want[i];
    }
    return r > 0 ? sqrtl(e / r) : sqrtl(e);
}

static double *gen(int64_t count, uint64_t seed)
{
    double *v = malloc((size_t)count * sizeof *v + 1);
    cr_assert_not_null(v);
    gv_gen_fill(v, count, GV_DIST_UNIFORM11, GV_F64, seed, 0);
    return v;
}

static const int64_t small_n[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 31, 60, 61, 64};

#define N_SMALL (sizeof small_n / sizeof small_n[0])

#define SENTINEL 12345.0

Test(oracle_fft, c2c_matches_long_double_dft)
{
    for (size_t t = 0; t < N_SMALL; t++) {
        int64_t n = small_n[t], batch = 3, ldx = n + 2, ldy = n + 1;
        double *x = gen(2 * ldx * batch, (uint64_t)n);
        double *y = malloc(sizeof(double) * (size_t)(2 * ldy * batch));
        long double *xl = malloc(sizeof(long double) * (size_t)(2 * n));
        long double *yl = malloc(sizeof(long double) * (size_t)(2 * n));
        cr_assert(y && xl && yl);
        for (int sign = -1; sign <= 1; sign += 2) {
            for (int64_t i = 0; i < 2 * ldy * batch; i++)
                y[i] = SENTINEL;
            cr_assert_eq(go_fft_c2c(n, batch, sign, x, ldx, y, ldy), 0);
            for (int64_t b = 0; b < batch; b++) {
                for (int64_t i = 0; i < 2 * n; i++)
                    xl[i] = x[2 * b * ldx + i];
                ld_dft(n, sign, xl, yl);
                long double e = rel_err(y + 2 * b * ldy, yl, 2 * n);
                cr_expect(e <= 1e-14L, "c2c n=%ld sign %d row %ld: normwise %Lg", (long)n, sign,
                          (long)b, e);
                for (int64_t i = 2 * n; i < 2 * ldy; i++)
                    cr_expect_eq(y[2 * b * ldy + i], SENTINEL, "c2c wrote past its row");
            }
        }
        free(x);
        free(y);
        free(xl);
        free(yl);
    }
}

Test(oracle_fft, r2c_matches_long_double_dft)
{
    for (size_t t = 0; t < N_SMALL; t++) {
        int64_t n = small_n[t], h = n / 2 + 1, batch = 2, ldx = n + 3, ldy = h + 1;
        double *x = gen(ldx * batch, 100 + (uint64_t)n);
        double *y = malloc(sizeof(double) * (size_t)(2 * ldy * batch));
        long double *xl = calloc((size_t)(2 * n), sizeof(long double));
        long double *yl = malloc(sizeof(long double) * (size_t)(2 * n));
        cr_assert(y && xl && yl);
        for (int64_t i = 0; i < 2 * ldy * batch; i++)
            y[i] = SENTINEL;
        cr_assert_eq(go_fft_r2c(n, batch, x, ldx, y, ldy), 0);
        for (int64_t b = 0; b < batch; b++) {
            for (int64_t j = 0; j < n; j++)
                xl[2 * j] = x[b * ldx + j];
            ld_dft(n, -1, xl, yl);
            long double e = rel_err(y + 2 * b * ldy, yl, 2 * h);
            cr_expect(e <= 1e-14L, "r2c n=%ld row %ld: normwise %Lg", (long)n, (long)b, e);
            cr_expect_eq(y[2 * b * ldy + 2 * h], SENTINEL, "r2c wrote past n/2+1 outputs");
        }
        free(x);
        free(y);
        free(xl);
        free(yl);
    }
}

/* Zero what a real signal's half spectrum has as 0: Im X_0 and, n even, Im X_{n/2}. */
static void make_half_spectrum_real(double *row, int64_t n)
{
    row[1] = 0.0;
    if (n % 2 == 0) row[2 * (n / 2) + 1] = 0.0;
}

Test(oracle_fft, c2r_matches_long_double_dft)
{
    for (size_t t = 0; t < N_SMALL; t++) {
        int64_t n = small_n[t], h = n / 2 + 1, batch = 2, ldx = h + 2, ldy = n + 1;
        double *x = gen(2 * ldx * batch, 200 + (uint64_t)n);
        double *y = malloc(sizeof(double) * (size_t)(ldy * batch));
        long double *xl = malloc(sizeof(long double) * (size_t)(2 * n));
        long double *yl = malloc(sizeof(long double) * (size_t)(2 * n));
        long double *want = malloc(sizeof(long double) * (size_t)n);
        cr_assert(y && xl && yl && want);
        for (int64_t b = 0; b < batch; b++)
            make_half_spectrum_real(x + 2 * b * ldx, n);
        double *x_copy = malloc(sizeof(double) * (size_t)(2 * ldx * batch));
        cr_assert_not_null(x_copy);
        memcpy(x_copy, x, sizeof(double) * (size_t)(2 * ldx * batch));
        for (int64_t i = 0; i < ldy * batch; i++)
            y[i] = SENTINEL;
        cr_assert_eq(go_fft_c2r(n, batch, x, ldx, y, ldy), 0);
        cr_expect_eq(memcmp(x, x_copy, sizeof(double) * (size_t)(2 * ldx * batch)), 0,
                     "c2r must leave its input alone (FFTW destroys it: the oracle copies)");
        for (int64_t b = 0; b < batch; b++) {
            const double *row = x + 2 * b * ldx;
            for (int64_t k = 0; k < n; k++) { /* the Hermitian extension X_{n-k} = conj X_k */
                int64_t src = k < h ? k : n - k;
                xl[2 * k] = row[2 * src];
                xl[2 * k + 1] = k < h ? row[2 * src + 1] : -row[2 * src + 1];
            }
            ld_dft(n, 1, xl, yl);
            for (int64_t j = 0; j < n; j++) {
                want[j] = yl[2 * j];
                cr_expect(fabsl(yl[2 * j + 1]) <= 1e-15L * (1 + fabsl(yl[2 * j])),
                          "the extension must give a real signal");
            }
            long double e = rel_err(y + b * ldy, want, n);
            cr_expect(e <= 1e-14L, "c2r n=%ld row %ld: normwise %Lg", (long)n, (long)b, e);
            cr_expect_eq(y[b * ldy + n], SENTINEL, "c2r wrote past n outputs");
        }
        free(x);
        free(x_copy);
        free(y);
        free(xl);
        free(yl);
        free(want);
    }
}

/* Large sizes (a Fermat prime, FFTW's Rader path, and 2^20): 24 bins against long-double
 * sums with a long-double twiddle table, and the round trip inverse(forward(x)) = n x. */
static void check_large(int64_t n)
{
    double *x = gen(2 * n, 300 + (uint64_t)n);
    double *y = malloc(sizeof(double) * (size_t)(2 * n));
    double *z = malloc(sizeof(double) * (size_t)(2 * n));
    long double *cs = malloc(sizeof(long double) * (size_t)(2 * n));
    cr_assert(y && z && cs);
    cr_assert_eq(go_fft_c2c(n, 1, -1, x, n, y, n), 0);
    for (int64_t m = 0; m < n; m++) {
        long double a = -2 * PI_L * (long double)m / (long double)n;
        cs[2 * m] = cosl(a);
        cs[2 * m + 1] = sinl(a);
    }
    long double xnorm2 = 0, e2 = 0;
    for (int64_t j = 0; j < 2 * n; j++)
        xnorm2 += (long double)x[j] * x[j];
    /* bins 0..3, n/3, n/2, n-1 and 17 spread by the generator */
    int64_t bins[24] = {0, 1, 2, 3, n / 3, n / 2, n - 1};
    for (int i = 7; i < 24; i++)
        bins[i] = (int64_t)(gv_gen_bits(9, 1, (uint64_t)i) % (uint64_t)n);
    int nbins = 0;
    for (int i = 0; i < 24; i++) {
        int64_t k = bins[i];
        long double re = 0, im = 0;
        for (int64_t j = 0; j < n; j++) {
            int64_t m = (j * k) % n;
            re += x[2 * j] * cs[2 * m] - x[2 * j + 1] * cs[2 * m + 1];
            im += x[2 * j] * cs[2 * m + 1] + x[2 * j + 1] * cs[2 * m];
        }
        long double dr = y[2 * k] - re, di = y[2 * k + 1] - im;
        e2 += dr * dr + di * di;
        nbins++;
    }
    /* rms |y_k| = ||x||_2 (Parseval): the bins' rms error relative to it */
    long double e = sqrtl(e2 / nbins / xnorm2);
    cr_expect(e <= 1e-14L, "n=%ld: bins' rms error / rms|y| = %Lg", (long)n, e);
    cr_assert_eq(go_fft_c2c(n, 1, 1, y, n, z, n), 0);
    long double d2 = 0;
    for (int64_t j = 0; j < 2 * n; j++) {
        long double d = z[j] - (long double)n * x[j];
        d2 += d * d;
    }
    long double rt = sqrtl(d2 / xnorm2) / (long double)n;
    cr_expect(rt <= 1e-14L, "n=%ld: round trip normwise %Lg", (long)n, rt);
    free(x);
    free(y);
    free(z);
    free(cs);
}

Test(oracle_fft, large_sizes_agree_with_long_double_bins, .timeout = 120)
{
    check_large(65537);
    check_large(INT64_C(1) << 20);
}

Test(oracle_fft, bad_arguments_name_their_index)
{
    double x[16] = {0}, y[16] = {0};
    cr_expect_eq(go_fft_c2c(0, 1, -1, x, 4, y, 4), -1);
    cr_expect_eq(go_fft_c2c(4, -1, -1, x, 4, y, 4), -2);
    cr_expect_eq(go_fft_c2c(4, 1, 0, x, 4, y, 4), -3);
    cr_expect_str_eq(go_last_error(), "go_fft_c2c: argument 3 (sign) is invalid");
    cr_expect_eq(go_fft_c2c(4, 1, 0, x, 3, y, 4), -3, "the first bad argument, sign before ldx");
    cr_expect_str_eq(go_last_error(), "go_fft_c2c: argument 3 (sign) is invalid");
    cr_expect_eq(go_fft_c2c(4, 1, -1, NULL, 4, y, 4), -4);
    cr_expect_eq(go_fft_c2c(4, 1, -1, x, 3, y, 4), -5);
    cr_expect_eq(go_fft_c2c(4, 1, -1, x, 4, NULL, 4), -6);
    cr_expect_eq(go_fft_c2c(4, 1, -1, x, 4, y, 3), -7);
    cr_expect_eq(go_fft_r2c(4, 1, x, 3, y, 3), -4);
    cr_expect_eq(go_fft_r2c(4, 1, x, 4, y, 2), -6, "r2c rows hold n/2+1 = 3 outputs");
    cr_expect_eq(go_fft_c2r(4, 1, x, 2, y, 4), -4, "c2r rows hold n/2+1 = 3 inputs");
    cr_expect_eq(go_fft_c2r(4, 1, x, 3, y, 3), -6);
    cr_expect_eq(go_fft_c2c_gauge(4, 1, x, 4, y, 3), -6);
    cr_expect_eq(go_fft_r2c_gauge(4, 1, x, 4, NULL, 3), -5);
    cr_expect_str_eq(go_last_error(), "go_fft_r2c_gauge: argument 5 (g) is invalid");
    cr_expect_eq(go_fft_c2r_gauge(4, 1, x, 3, y, 3), -6);
    cr_expect_eq(go_fft_c2c(4, 0, -1, x, 4, y, 4), 0, "an empty batch is fine");
    x[0] = 1.0; /* a unit impulse transforms to all ones */
    cr_assert_eq(go_fft_c2c(4, 1, -1, x, 4, y, 4), 0);
    for (int k = 0; k < 4; k++) {
        cr_expect_eq(y[2 * k], 1.0);
        cr_expect_eq(y[2 * k + 1], 0.0);
    }
}
