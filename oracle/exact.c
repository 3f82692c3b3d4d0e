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
 * on all cores over blocks of four rows (each column of B read once a block). */
#include <assert.h>
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

/* The tiles the grid and the column sums walk: GRID_ROWS rows (a fixed count, not one share per
   thread, so that the partial results are the same whatever the thread count) by GRID_COLS
   columns, each read row by row (contiguous), never down a column. */
enum { GRID_ROWS = 65536, GRID_COLS = 256 };

/* The bit span of each of the cols columns of a rows x cols matrix (leading dimension ld):
   colhi[j] the highest most significant bit, collo[j] the lowest least significant bit of a
   non-zero value of column j (INT32_MIN and INT32_MAX when the column is all zeros). false
   when a value is not finite. One row-major pass on all cores, by tiles; the tiles' maxima and
   minima are merged afterwards, which gives the same result in any order. */
static bool col_spans(const double *x, int64_t rows, int64_t cols, int64_t ld, int *colhi,
                      int *collo)
{
    int64_t rt = rows > 0 ? (rows + GRID_ROWS - 1) / GRID_ROWS : 0;
    int64_t ct = (cols + GRID_COLS - 1) / GRID_COLS, tiles = rt * ct;
    for (int64_t j = 0; j < cols; j++) {
        colhi[j] = INT32_MIN;
        collo[j] = INT32_MAX;
    }
    if (tiles == 0) return true;
    /* each tile's span of each of its columns, merged below */
    int *th = malloc(sizeof(int) * 2 * (size_t)(rt * cols));
    if (!th) return false;
    int *tl = th + rt * cols;
    int bad = 0;
#pragma omp parallel for schedule(dynamic, 1)                                                      \
    reduction(|                                                                                    \
              : bad) if ((double)rows * (double)cols >= GO_PAR_MIN)
    for (int64_t t = 0; t < tiles; t++) {
        int64_t r0 = (t / ct) * GRID_ROWS, r1 = r0 + GRID_ROWS < rows ? r0 + GRID_ROWS : rows;
        int64_t j0 = (t % ct) * GRID_COLS, j1 = j0 + GRID_COLS < cols ? j0 + GRID_COLS : cols;
        int hi[GRID_COLS], lo[GRID_COLS];
        for (int64_t j = j0; j < j1; j++) {
            hi[j - j0] = INT32_MIN;
            lo[j - j0] = INT32_MAX;
        }
        for (int64_t r = r0; r < r1 && !bad; r++) {
            const double *row = x + r * ld;
            for (int64_t j = j0; j < j1; j++) {
                double v = row[j];
                if (v == 0.0) continue;
                if (!isfinite(v)) {
                    bad = 1;
                    break;
                }
                int msb, lsb;
                bit_span(v, &msb, &lsb);
                if (msb > hi[j - j0]) hi[j - j0] = msb;
                if (lsb < lo[j - j0]) lo[j - j0] = lsb;
            }
        }
        for (int64_t j = j0; j < j1; j++) {
            th[(t / ct) * cols + j] = hi[j - j0];
            tl[(t / ct) * cols + j] = lo[j - j0];
        }
    }
    for (int64_t r = 0; r < rt && !bad; r++)
        for (int64_t j = 0; j < cols; j++) {
            if (th[r * cols + j] > colhi[j]) colhi[j] = th[r * cols + j];
            if (tl[r * cols + j] < collo[j]) collo[j] = tl[r * cols + j];
        }
    free(th);
    return !bad;
}

/* The scale 2^s that makes values of bit span [lo, hi] integers below 2^62 in magnitude, into
   *s, and their width in bits into *width; false when the width is over 62 or the scale is
   beyond what keeps the results' exponents normal. No non-zero value (hi INT32_MIN): s 0,
   width 0. */
static bool grid_of_span(int hi, int lo, int *s, int *width)
{
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

/* grid_of_span of each column of a rows x cols matrix into s[j], width[j]; false when one
   value is not finite or one column is off its grid, or on no memory (*nomem set). */
static bool grid_of_cols(const double *x, int64_t rows, int64_t cols, int64_t ld, int *s,
                         int *width, bool *nomem)
{
    int *hi = malloc(sizeof(int) * 2 * (size_t)(cols > 0 ? cols : 1));
    if (!hi) {
        *nomem = true;
        return false;
    }
    int *lo = hi + cols;
    bool ok = col_spans(x, rows, cols, ld, hi, lo);
    for (int64_t j = 0; j < cols && ok; j++)
        ok = grid_of_span(hi[j], lo[j], &s[j], &width[j]);
    free(hi);
    return ok;
}

/* One grid for the whole rows x cols matrix: the columns' spans merged. */
static bool grid_of_all(const double *x, int64_t rows, int64_t cols, int64_t ld, int *s, int *width,
                        bool *nomem)
{
    int *hi = malloc(sizeof(int) * 2 * (size_t)(cols > 0 ? cols : 1));
    if (!hi) {
        *nomem = true;
        return false;
    }
    int *lo = hi + cols;
    bool ok = col_spans(x, rows, cols, ld, hi, lo);
    int h = INT32_MIN, l = INT32_MAX;
    for (int64_t j = 0; j < cols && ok; j++) {
        if (hi[j] > h) h = hi[j];
        if (lo[j] < l) l = lo[j];
    }
    free(hi);
    return ok && grid_of_span(h, l, s, width);
}

/* grid_of_span of one contiguous vector of n values. */
static bool grid_of(const double *x, int64_t n, int *s, int *width)
{
    int hi = INT32_MIN, lo = INT32_MAX;
    for (int64_t i = 0; i < n; i++) {
        double v = x[i];
        if (!isfinite(v)) return false;
        if (v == 0.0) continue;
        int msb, lsb;
        bit_span(v, &msb, &lsb);
        if (msb > hi) hi = msb;
        if (lsb < lo) lo = lsb;
    }
    return grid_of_span(hi, lo, s, width);
}

/* 2^s as a double, for the scales grid_of_span allows (|s| <= 900: a normal double). Scaling
   a value of the grid by it is exact: x 2^s is x's own significand (at most 53 bits, all of
   them at or above the grid's least bit 2^-s) moved to an integer of fewer than 63 bits, a
   normal double, so the product rounds nothing, and its conversion to int64 is exact too. This
   is ldexp's result without ldexp's cost per element. */
static double pow2(int s)
{
    assert(s >= -900 && s <= 900);
    uint64_t u = (uint64_t)(s + 1023) << 52;
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* x (contiguous) scaled by 2^s into integers (exact: the grid said so). */
static void to_ints(const double *x, int64_t n, int s, int64_t *out)
{
    double f = pow2(s);
    for (int64_t i = 0; i < n; i++)
        out[i] = (int64_t)(x[i] * f);
}

/* The exact column sums of a rows x cols matrix whose column j is scaled by 2^s[j] (or by 2^s[0]
   for every column when one_scale) into integers below 2^62: out[j] = sum_i x_ij 2^s_j. By
   tiles of GRID_ROWS rows (fixed: not per thread) x GRID_COLS columns on all cores; each tile's
   sums are exact in i128 (2^(127-62) values fit it, and no tile has more than 2^16 rows), and so
   is adding the tiles' sums in any order, so the result is the same bits on any thread count.
   false on no memory. */
static bool colsum_ints(const double *x, int64_t rows, int64_t cols, int64_t ld, const int *s,
                        bool one_scale, i128 *out)
{
    int64_t rt = rows > 0 ? (rows + GRID_ROWS - 1) / GRID_ROWS : 0;
    int64_t ct = (cols + GRID_COLS - 1) / GRID_COLS, tiles = rt * ct;
    for (int64_t j = 0; j < cols; j++)
        out[j] = 0;
    if (tiles == 0) return true;
    i128 *part = malloc(sizeof(i128) * (size_t)(rt * cols));
    if (!part) return false;
#pragma omp parallel for schedule(dynamic, 1) if ((double)rows * (double)cols >= GO_PAR_MIN)
    for (int64_t t = 0; t < tiles; t++) {
        int64_t r0 = (t / ct) * GRID_ROWS, r1 = r0 + GRID_ROWS < rows ? r0 + GRID_ROWS : rows;
        int64_t j0 = (t % ct) * GRID_COLS, j1 = j0 + GRID_COLS < cols ? j0 + GRID_COLS : cols;
        i128 acc[GRID_COLS];
        double f[GRID_COLS];
        for (int64_t j = j0; j < j1; j++) {
            acc[j - j0] = 0;
            f[j - j0] = pow2(one_scale ? s[0] : s[j]);
        }
        for (int64_t r = r0; r < r1; r++) {
            const double *row = x + r * ld + j0;
            for (int64_t j = 0; j < j1 - j0; j++)
                acc[j] += (int64_t)(row[j] * f[j]);
        }
        for (int64_t j = j0; j < j1; j++)
            part[(t / ct) * cols + j] = acc[j - j0];
    }
    for (int64_t r = 0; r < rt; r++)
        for (int64_t j = 0; j < cols; j++)
            out[j] += part[r * cols + j];
    free(part);
    return true;
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

/* The same sums for four rows of A against one column b: a[r k + t], r < 4. Each b[t] is read
   once for the four rows (a column of B is k int64 from memory: one row at a time streamed
   all of B once a row), and the four i128 sums are independent chains. Every sum is exact,
   so the result is the same as four calls of dot_ints. */
static void dot_ints4(const int64_t *a, const int64_t *b, int64_t k, const int *wa, int wb,
                      acc256 acc[4])
{
    int w = wa[0];
    for (int r = 1; r < 4; r++)
        w = wa[r] > w ? wa[r] : w;
    int room = 126 - w - wb;
    int64_t chunk = room >= 40 ? ((int64_t)1 << 40) : room > 0 ? ((int64_t)1 << room) : 1;
    memset(acc, 0, 4 * sizeof *acc);
    const int64_t *a0 = a, *a1 = a + k, *a2 = a + 2 * k, *a3 = a + 3 * k;
    for (int64_t k0 = 0; k0 < k; k0 += chunk) {
        int64_t k1 = k - k0 < chunk ? k : k0 + chunk;
        i128 p0 = 0, p1 = 0, p2 = 0, p3 = 0;
        for (int64_t t = k0; t < k1; t++) {
            int64_t bt = b[t];
            p0 += (i128)a0[t] * bt;
            p1 += (i128)a1[t] * bt;
            p2 += (i128)a2[t] * bt;
            p3 += (i128)a3[t] * bt;
        }
        acc_add_i128(&acc[0], p0);
        acc_add_i128(&acc[1], p1);
        acc_add_i128(&acc[2], p2);
        acc_add_i128(&acc[3], p3);
    }
}

/* Rows i0 .. i0 + rows - 1 of C (rows <= 4) from A's rows as integers in ia (k apart). */
static void exact_rows(const int64_t *ia, int64_t i0, int rows, int64_t k, int64_t n,
                       const int64_t *ib, const int *sa, const int *wa, const int *sb,
                       const int *wb, double *hi, double *lo, int64_t ldc)
{
    for (int64_t j = 0; j < n; j++) {
        acc256 acc[4];
        if (rows == 4)
            dot_ints4(ia, ib + j * k, k, wa + i0, wb[j], acc);
        else
            for (int r = 0; r < rows; r++)
                dot_ints(ia + r * k, ib + j * k, k, wa[i0 + r], wb[j], &acc[r]);
        for (int r = 0; r < rows; r++)
            acc_to_hilo(&acc[r], sa[i0 + r] + sb[j], &hi[(i0 + r) * ldc + j],
                        &lo[(i0 + r) * ldc + j]);
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
    /* 1 + m + n scales and widths; B's columns (transposed) as integers. A's rows are
       converted one at a time into a buffer of the thread that uses them: an m x k integer
       copy of A would be fresh memory the kernel must clear, for no reuse. */
    int *sa = malloc(sizeof(int) * (size_t)(2 * m + 2 * n));
    int64_t *ib = malloc(sizeof(int64_t) * (size_t)(k * n > 0 ? k * n : 1));
    if (!sa || !ib) {
        free(sa);
        free(ib);
        return go_enomem(fn);
    }
    int *wa = sa + m, *sb = sa + 2 * m, *wb = sa + 2 * m + n;
    bool nomem = false;
    bool on_grid = grid_of_cols(b, k, n, ldb, sb, wb, &nomem);
    int bad = 0;
#pragma omp parallel for schedule(static)                                                          \
    reduction(|                                                                                    \
              : bad) if (on_grid && (double)m * (double)k >= GO_PAR_MIN)
    for (int64_t i = 0; i < m; i++)
        bad |= on_grid && !grid_of(a + i * lda, k, &sa[i], &wa[i]);
    on_grid = on_grid && !bad;
    if (on_grid) {
        /* B transposed by blocks of rows, each block's columns written out contiguously */
        enum { TB = 64 };
#pragma omp parallel for schedule(static) if ((double)n * (double)k >= GO_PAR_MIN)
        for (int64_t t0 = 0; t0 < k; t0 += TB)
            for (int64_t j = 0; j < n; j++) {
                double f = pow2(sb[j]);
                int64_t t1 = t0 + TB < k ? t0 + TB : k;
                for (int64_t t = t0; t < t1; t++)
                    ib[j * k + t] = (int64_t)(b[t * ldb + j] * f);
            }
        int alloc_bad = 0;
#pragma omp parallel reduction(| : alloc_bad) if ((double)m * (double)k * (double)n >= GO_PAR_MIN)
        {
            int64_t *ia = malloc(sizeof(int64_t) * 4 * (size_t)(k > 0 ? k : 1));
            alloc_bad = !ia;
#pragma omp for schedule(dynamic, 1)
            for (int64_t i0 = 0; i0 < m; i0 += 4) {
                if (!ia) continue;
                int rows = m - i0 < 4 ? (int)(m - i0) : 4;
                for (int r = 0; r < rows; r++)
                    to_ints(a + (i0 + r) * lda, k, sa[i0 + r], ia + r * k);
                exact_rows(ia, i0, rows, k, n, ib, sa, wa, sb, wb, hi, lo, ldc);
            }
            free(ia);
        }
        nomem = nomem || alloc_bad;
        *done = !nomem;
    }
    free(sa);
    free(ib);
    return nomem ? go_enomem(fn) : 0;
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
    i128 *sum = malloc(sizeof(i128) * (size_t)(n > 0 ? n : 1));
    if (!s || !sum) {
        free(s);
        free(sum);
        return go_enomem(fn);
    }
    int *w = s + n;
    bool nomem = false;
    bool on_grid = grid_of_cols(x, m, n, ldx, s, w, &nomem);
    /* values below 2^62, at most 2^32 rows (the callers' sizes): the sums fit i128 */
    if (on_grid && !colsum_ints(x, m, n, ldx, s, false, sum)) nomem = true;
    if (on_grid && !nomem) {
        for (int64_t j = 0; j < n; j++) {
            acc256 acc = {{0, 0, 0, 0}};
            acc_add_i128(&acc, sum[j]);
            acc_to_hilo(&acc, s[j], &hi[j], &lo[j]);
        }
        *done = 1;
    }
    free(s);
    free(sum);
    return nomem ? go_enomem(fn) : 0;
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
    int sA = 0, wA = 0;
    int *sb = malloc(sizeof(int) * (size_t)(2 * n));
    i128 *colA = malloc(sizeof(i128) * (size_t)(k > 0 ? k : 1));
    if (!sb || !colA) {
        free(sb);
        free(colA);
        return go_enomem(fn);
    }
    int *wb = sb + n;
    bool nomem = false;
    bool on_grid = grid_of_all(a, m, k, lda, &sA, &wA, &nomem);
    /* A's column sums: below 2^(wA + log2 m); with B's width the products must fit i128 */
    int wsum = wA + 1;
    for (int64_t t = m; t > 1; t >>= 1)
        wsum++;
    on_grid = on_grid && grid_of_cols(b, k, n, ldb, sb, wb, &nomem);
    for (int64_t j = 0; j < n && on_grid; j++)
        on_grid = wsum + wb[j] <= 125;
    if (on_grid && !colsum_ints(a, m, k, lda, &sA, true, colA)) nomem = true;
    if (on_grid && !nomem) {
        /* by blocks of columns, B read row by row; each product below 2^(wsum + wb[j]), so
           2^(126 - wsum - wb[j]) of them fit i128: the block's partial sums are spilled into
           the 256-bit accumulators every `chunk` rows, the least room of its columns (a sum
           of integers is exact wherever it is spilled) */
        enum { BLOCK = 64 };
        int64_t nblocks = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(dynamic, 1) if ((double)k * (double)n >= GO_PAR_MIN)
        for (int64_t bl = 0; bl < nblocks; bl++) {
            int64_t j0 = bl * BLOCK, j1 = j0 + BLOCK < n ? j0 + BLOCK : n;
            acc256 acc[BLOCK];
            i128 part[BLOCK];
            double f[BLOCK];
            int room = 126;
            for (int64_t j = j0; j < j1; j++) {
                memset(&acc[j - j0], 0, sizeof acc[0]);
                part[j - j0] = 0;
                f[j - j0] = pow2(sb[j]);
                if (126 - wsum - wb[j] < room) room = 126 - wsum - wb[j];
            }
            int64_t chunk = room >= 40 ? ((int64_t)1 << 40) : room > 0 ? ((int64_t)1 << room) : 1;
            for (int64_t k0 = 0; k0 < k; k0 += chunk) {
                int64_t k1 = k - k0 < chunk ? k : k0 + chunk;
                for (int64_t t = k0; t < k1; t++) {
                    const double *row = b + t * ldb + j0;
                    i128 ct = colA[t];
                    for (int64_t j = 0; j < j1 - j0; j++)
                        part[j] += ct * (int64_t)(row[j] * f[j]);
                }
                for (int64_t j = 0; j < j1 - j0; j++) {
                    acc_add_i128(&acc[j], part[j]);
                    part[j] = 0;
                }
            }
            for (int64_t j = j0; j < j1; j++)
                acc_to_hilo(&acc[j - j0], sA + sb[j], &hi[j], &lo[j]);
        }
        *done = 1;
    }
    free(sb);
    free(colA);
    return nomem ? go_enomem(fn) : 0;
}
