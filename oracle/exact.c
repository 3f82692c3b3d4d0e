/* exact.c: exact dot products and sums of inputs that sit on a fixed-point grid (go.h,
 * "exact"). gpuval generates its inputs as integers times a power of two (uniform [0,1) on a
 * 2^-53 grid, uniform [-1,1) on 2^-52, small integers, the probes' grids), so a row of A and a
 * column of B are integers once scaled by a power of two each, and their dot product is a sum
 * of integer products: computed in integers it is exact, and rounding it once gives the
 * correctly rounded f64 result with the remainder beside it (hi + lo). OpenBLAS's dgemm is
 * itself about 5.5e-16 from the exact product at K = 4096 (50.7 bits), so an f64 result better
 * than that can only be measured against this.
 *
 * Method. Each row of A (column of B) is scaled by 2^s, s the negative exponent of its least
 * significant set bit, into int64 when its width (most significant bit down to that least one)
 * is at most 62 bits. Products of int64 are exact in __int128; partial sums stay in __int128
 * for as many terms as cannot overflow it (2^(126 - wa - wb)), then spill into a 256-bit
 * accumulator. A row or column with a non-finite value or a width over 62 bits (a value tiny
 * beside its neighbours) is off the grid: the call then says so and writes nothing, and the
 * caller keeps its floating-point oracle. The work is that of a naive triple loop in integers,
 * on all cores over rows. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "go.h"

typedef __int128 i128;
typedef unsigned __int128 u128;

/* ---- 256-bit two's complement accumulator ---------------------------------------------------- */

typedef struct acc256 {
    uint64_t w[4]; /* little-endian limbs */
} acc256;

static void acc_add_i128(acc256 *a, i128 v)
{
    uint64_t lo = (uint64_t)(u128)v, hi = (uint64_t)((u128)v >> 64);
    uint64_t ext = v < 0 ? ~0ull : 0ull; /* sign extension into the upper limbs */
    uint64_t in[4] = {lo, hi, ext, ext};
    unsigned carry = 0;
    for (int i = 0; i < 4; i++) {
        u128 s = (u128)a->w[i] + in[i] + carry;
        a->w[i] = (uint64_t)s;
        carry = (unsigned)(s >> 64);
    }
}

static bool acc_negative(const acc256 *a)
{
    return (a->w[3] >> 63) != 0;
}

static void acc_negate(acc256 *a)
{
    unsigned carry = 1;
    for (int i = 0; i < 4; i++) {
        u128 s = (u128)(~a->w[i]) + carry;
        a->w[i] = (uint64_t)s;
        carry = (unsigned)(s >> 64);
    }
}

/* Position of the most significant set bit of a non-negative a, or -1 for zero. */
static int acc_msb(const acc256 *a)
{
    for (int i = 3; i >= 0; i--)
        if (a->w[i]) return i * 64 + 63 - __builtin_clzll(a->w[i]);
    return -1;
}

static int acc_bit(const acc256 *a, int b)
{
    return b < 0 || b > 255 ? 0 : (int)((a->w[b / 64] >> (b % 64)) & 1);
}

/* Any bit set below position b. */
static bool acc_any_below(const acc256 *a, int b)
{
    if (b <= 0) return false;
    for (int i = 0; i < 4 && i * 64 < b; i++) {
        int top = b - i * 64; /* bits [0, top) of limb i */
        uint64_t mask = top >= 64 ? ~0ull : ((1ull << top) - 1);
        if (a->w[i] & mask) return true;
    }
    return false;
}

/* Bits [b, b+53) of a non-negative a as an integer (b may be negative: zeros shifted in). */
static uint64_t acc_field53(const acc256 *a, int b)
{
    uint64_t v = 0;
    for (int k = 52; k >= 0; k--)
        v = v << 1 | (uint64_t)acc_bit(a, b + k);
    return v;
}

/* Subtract the non-negative m * 2^b (m < 2^54) from a. */
static void acc_sub_shifted(acc256 *a, uint64_t m, int b)
{
    acc256 t = {{0, 0, 0, 0}};
    for (int k = 0; k < 54; k++)
        if ((m >> k) & 1 && b + k >= 0 && b + k < 256) t.w[(b + k) / 64] |= 1ull << ((b + k) % 64);
    acc_negate(&t);
    unsigned carry = 0;
    for (int i = 0; i < 4; i++) {
        u128 s = (u128)a->w[i] + t.w[i] + carry;
        a->w[i] = (uint64_t)s;
        carry = (unsigned)(s >> 64);
    }
}

/* The non-negative a, rounded to 53 significant bits to nearest (ties to even): the
   significand m (< 2^54: the rounding may carry into a 54th bit) and its weight b, so that
   round(a) = m 2^b. a must not be zero. */
static void acc_round53(const acc256 *a, uint64_t *m, int *b)
{
    int top = acc_msb(a);
    int low = top - 52; /* the weight of the kept field's last bit */
    uint64_t f = acc_field53(a, low);
    if (low > 0) {
        int half = acc_bit(a, low - 1);
        bool sticky = acc_any_below(a, low - 1);
        if (half && (sticky || (f & 1))) f++;
    }
    *m = f;
    *b = low;
}

/* hi = the correctly rounded value of a 2^-scale, lo = the correctly rounded remainder; both
   finite for the sizes the callers allow (|a| < 2^256, scale within double's exponents). */
static void acc_to_hilo(const acc256 *in, int scale, double *hi, double *lo)
{
    acc256 a = *in;
    bool neg = acc_negative(&a);
    if (neg) acc_negate(&a);
    if (acc_msb(&a) < 0) {
        *hi = 0.0;
        *lo = 0.0;
        return;
    }
    uint64_t m;
    int b;
    acc_round53(&a, &m, &b);
    double h = ldexp((double)m, b - scale);
    /* the remainder a - m 2^b, signed: its sign flips when the rounding went up */
    acc_sub_shifted(&a, m, b);
    bool rneg = acc_negative(&a);
    if (rneg) acc_negate(&a);
    double l = 0.0;
    if (acc_msb(&a) >= 0) {
        acc_round53(&a, &m, &b);
        l = ldexp((double)m, b - scale);
        if (rneg) l = -l;
    }
    *hi = neg ? -h : h;
    *lo = neg ? -l : l;
}

/* ---- the grid of a vector ------------------------------------------------------------------- */

/* The exponents of x's most and least significant set bits (x finite, non-zero). */
static void bit_span(double x, int *msb, int *lsb)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    int e = (int)((u >> 52) & 0x7ff);
    uint64_t f = u & ((1ull << 52) - 1);
    uint64_t mant = e ? f | (1ull << 52) : f;
    int e2 = e ? e - 1075 : -1074; /* x = mant 2^e2 */
    *lsb = e2 + __builtin_ctzll(mant);
    *msb = e2 + 63 - __builtin_clzll(mant);
}

/* The scale 2^s that makes the values of a rows x cols block (rows ld apart, columns stride
   apart) integers below 2^62 in magnitude, into *s, and their width in bits into *width;
   false when one is not finite, the width is over 62, or the scale is beyond what keeps the
   results' exponents normal. All zeros: s 0, width 0. */
static bool grid_of2(const double *x, int64_t rows, int64_t cols, int64_t ld, int64_t stride,
                     int *s, int *width)
{
    int hi = INT32_MIN, lo = INT32_MAX;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t i = 0; i < cols; i++) {
            double v = x[r * ld + i * stride];
            if (!isfinite(v)) return false;
            if (v == 0.0) continue;
            int msb, lsb;
            bit_span(v, &msb, &lsb);
            if (msb > hi) hi = msb;
            if (lsb < lo) lo = lsb;
        }
    if (hi == INT32_MIN) {
        *s = 0;
        *width = 0;
        return true;
    }
    if (hi - lo + 1 > 62 || lo < -900 || lo > 900) return false;
    *s = -lo;
    *width = hi - lo + 1;
    return true;
}

/* grid_of2 of one vector of n values, stride apart. */
static bool grid_of(const double *x, int64_t n, int64_t stride, int *s, int *width)
{
    return grid_of2(x, 1, n, 0, stride, s, width);
}

/* x scaled by 2^s into integers (exact: the grid said so). */
static void to_ints(const double *x, int64_t n, int64_t stride, int s, int64_t *out)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = (int64_t)ldexp(x[i * stride], s);
}

/* sum_k a[k] b[k] of int64 vectors of widths wa and wb, exactly. */
static void dot_ints(const int64_t *a, const int64_t *b, int64_t k, int wa, int wb, acc256 *acc)
{
    int room = 126 - wa - wb; /* products are below 2^(wa + wb): 2^room of them fit i128 */
    int64_t chunk = room >= 40 ? ((int64_t)1 << 40) : room > 0 ? ((int64_t)1 << room) : 1;
    memset(acc, 0, sizeof *acc);
    for (int64_t k0 = 0; k0 < k; k0 += chunk) {
        int64_t k1 = k - k0 < chunk ? k : k0 + chunk;
        i128 part = 0;
        for (int64_t t = k0; t < k1; t++)
            part += (i128)a[t] * b[t];
        acc_add_i128(acc, part);
    }
}

/* ---- the entry points ------------------------------------------------------------------------ */

int go_gemm_exact(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                  int64_t ldb, double *hi, double *lo, int64_t ldc, int *done)
{
    static const char fn[] = "go_gemm_exact";
    if (m < 0) return go_xerbla(fn, 1, "m");
    if (k < 0) return go_xerbla(fn, 2, "k");
    if (n < 0) return go_xerbla(fn, 3, "n");
    if (!a && m * k > 0) return go_xerbla(fn, 4, "a");
    if (lda < (k > 1 ? k : 1)) return go_xerbla(fn, 5, "lda");
    if (!b && k * n > 0) return go_xerbla(fn, 6, "b");
    if (ldb < (n > 1 ? n : 1)) return go_xerbla(fn, 7, "ldb");
    if (!hi && m * n > 0) return go_xerbla(fn, 8, "hi");
    if (!lo && m * n > 0) return go_xerbla(fn, 9, "lo");
    if (ldc < (n > 1 ? n : 1)) return go_xerbla(fn, 10, "ldc");
    if (!done) return go_xerbla(fn, 11, "done");
    *done = 0;
    if (m == 0 || n == 0) {
        *done = 1;
        return 0;
    }
    /* 1 + m + n scales and widths; A's rows and B's columns (transposed) as integers */
    int *sa = malloc(sizeof(int) * (size_t)(2 * m + 2 * n));
    int64_t *ia = malloc(sizeof(int64_t) * (size_t)(m * k > 0 ? m * k : 1));
    int64_t *ib = malloc(sizeof(int64_t) * (size_t)(k * n > 0 ? k * n : 1));
    if (!sa || !ia || !ib) {
        free(sa);
        free(ia);
        free(ib);
        return go_enomem(fn);
    }
    int *wa = sa + m, *sb = sa + 2 * m, *wb = sa + 2 * m + n;
    bool on_grid = true;
    for (int64_t i = 0; i < m && on_grid; i++)
        on_grid = grid_of(a + i * lda, k, 1, &sa[i], &wa[i]);
    for (int64_t j = 0; j < n && on_grid; j++)
        on_grid = grid_of(b + j, k, ldb, &sb[j], &wb[j]);
    if (on_grid) {
#pragma omp parallel for schedule(static) if ((double)m * (double)k >= GO_PAR_MIN)
        for (int64_t i = 0; i < m; i++)
            to_ints(a + i * lda, k, 1, sa[i], ia + i * k);
#pragma omp parallel for schedule(static) if ((double)n * (double)k >= GO_PAR_MIN)
        for (int64_t j = 0; j < n; j++)
            to_ints(b + j, k, ldb, sb[j], ib + j * k);
#pragma omp parallel for schedule(dynamic, 1) if ((double)m * (double)k * (double)n >= GO_PAR_MIN)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                acc256 acc;
                dot_ints(ia + i * k, ib + j * k, k, wa[i], wb[j], &acc);
                acc_to_hilo(&acc, sa[i] + sb[j], &hi[i * ldc + j], &lo[i * ldc + j]);
            }
        *done = 1;
    }
    free(sa);
    free(ia);
    free(ib);
    return 0;
}

int go_colsum_exact(int64_t m, int64_t n, const double *x, int64_t ldx, double *hi, double *lo,
                    int *done)
{
    static const char fn[] = "go_colsum_exact";
    if (m < 0) return go_xerbla(fn, 1, "m");
    if (n < 0) return go_xerbla(fn, 2, "n");
    if (!x && m * n > 0) return go_xerbla(fn, 3, "x");
    if (ldx < (n > 1 ? n : 1)) return go_xerbla(fn, 4, "ldx");
    if (!hi && n > 0) return go_xerbla(fn, 5, "hi");
    if (!lo && n > 0) return go_xerbla(fn, 6, "lo");
    if (!done) return go_xerbla(fn, 7, "done");
    *done = 0;
    int *s = malloc(sizeof(int) * (size_t)(2 * (n > 0 ? n : 1)));
    if (!s) return go_enomem(fn);
    int *w = s + n;
    bool on_grid = true;
    for (int64_t j = 0; j < n && on_grid; j++)
        on_grid = grid_of(x + j, m, ldx, &s[j], &w[j]);
    if (on_grid) {
#pragma omp parallel for schedule(static) if ((double)m * (double)n >= GO_PAR_MIN)
        for (int64_t j = 0; j < n; j++) {
            /* values below 2^62: 2^64 of them fit i128 */
            acc256 acc = {{0, 0, 0, 0}};
            i128 part = 0;
            int64_t in_part = 0;
            for (int64_t i = 0; i < m; i++) {
                part += (i128)(int64_t)ldexp(x[i * ldx + j], s[j]);
                if (++in_part == ((int64_t)1 << 60)) {
                    acc_add_i128(&acc, part);
                    part = 0;
                    in_part = 0;
                }
            }
            acc_add_i128(&acc, part);
            acc_to_hilo(&acc, s[j], &hi[j], &lo[j]);
        }
        *done = 1;
    }
    free(s);
    return 0;
}

int go_colsum_product_exact(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                            const double *b, int64_t ldb, double *hi, double *lo, int *done)
{
    static const char fn[] = "go_colsum_product_exact";
    if (m < 0) return go_xerbla(fn, 1, "m");
    if (k < 0) return go_xerbla(fn, 2, "k");
    if (n < 0) return go_xerbla(fn, 3, "n");
    if (!a && m * k > 0) return go_xerbla(fn, 4, "a");
    if (lda < (k > 1 ? k : 1)) return go_xerbla(fn, 5, "lda");
    if (!b && k * n > 0) return go_xerbla(fn, 6, "b");
    if (ldb < (n > 1 ? n : 1)) return go_xerbla(fn, 7, "ldb");
    if (!hi && n > 0) return go_xerbla(fn, 8, "hi");
    if (!lo && n > 0) return go_xerbla(fn, 9, "lo");
    if (!done) return go_xerbla(fn, 10, "done");
    *done = 0;
    if (n == 0) {
        *done = 1;
        return 0;
    }
    /* s_j = sum_k (sum_i a_ik) b_kj: A's column sums exactly (one grid for all of A, so that
       they share a scale), then each column of B against them */
    int sA, wA;
    int *sb = malloc(sizeof(int) * (size_t)(2 * n));
    i128 *colA = malloc(sizeof(i128) * (size_t)(k > 0 ? k : 1));
    if (!sb || !colA) {
        free(sb);
        free(colA);
        return go_enomem(fn);
    }
    int *wb = sb + n;
    bool on_grid = grid_of2(a, m, k, lda, 1, &sA, &wA);
    /* A's column sums: below 2^(wA + log2 m); with B's width the products must fit i128 */
    int wsum = wA + 1;
    for (int64_t t = m; t > 1; t >>= 1)
        wsum++;
    for (int64_t j = 0; j < n && on_grid; j++)
        on_grid = grid_of(b + j, k, ldb, &sb[j], &wb[j]) && wsum + wb[j] <= 125;
    if (on_grid) {
        for (int64_t t = 0; t < k; t++)
            colA[t] = 0;
        for (int64_t i = 0; i < m; i++)
            for (int64_t t = 0; t < k; t++)
                colA[t] += (i128)(int64_t)ldexp(a[i * lda + t], sA);
#pragma omp parallel for schedule(static) if ((double)k * (double)n >= GO_PAR_MIN)
        for (int64_t j = 0; j < n; j++) {
            acc256 acc = {{0, 0, 0, 0}};
            int room = 126 - wsum - wb[j];
            int64_t chunk = room >= 40 ? ((int64_t)1 << 40) : room > 0 ? ((int64_t)1 << room) : 1;
            for (int64_t k0 = 0; k0 < k; k0 += chunk) {
                int64_t k1 = k - k0 < chunk ? k : k0 + chunk;
                i128 part = 0;
                for (int64_t t = k0; t < k1; t++)
                    part += colA[t] * (int64_t)ldexp(b[t * ldb + j], sb[j]);
                acc_add_i128(&acc, part);
            }
            acc_to_hilo(&acc, sA + sb[j], &hi[j], &lo[j]);
        }
        *done = 1;
    }
    free(sb);
    free(colA);
    return 0;
}
