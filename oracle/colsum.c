/* colsum.c: oracles for column sums and the seed-002 pair matmul -> sum and einsum
 * ij,jk->k. Column sums use Neumaier's compensated summation (Higham, Accuracy and
 * Stability of Numerical Algorithms, 2nd ed., sec. 4.3), so the oracle's error stays near
 * one f64 rounding however many rows are summed: the truth must be far tighter than the
 * device's bound, which for a tree or chunked sum is much shorter than m. */
#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "go.h"

/* What colsum_impl and einsum_impl sum: the entries, their absolute values (the worst-case
   gauge) or their squares (the probabilistic model's spread, before its square root). */
enum { SUM_PLAIN = 0, SUM_ABS = 1, SUM_SQUARE = 2 };

static double term(double v, int how)
{
    return how == SUM_ABS ? fabs(v) : how == SUM_SQUARE ? v * v : v;
}

/* Sums of values that all lie below 2^-960 (f64's subnormals and the binades above them) are
   summed lifted by 2^LIFT: x86 takes a microcode assist for each subnormal operand or result,
   about 100 times a normal addition. Lifting changes no bit: every double is a multiple of
   2^-1074, so a sum or difference of two of them that lies below 2^-1021 is exact, lifted or
   not, and one above it rounds at the same relative place in both; the lifted sums (at most
   2^40 each, m < 2^64 terms below 2^40) neither overflow nor underflow. So each step of the
   lifted sum is 2^LIFT times the step of the plain one, and the result times 2^-LIFT is the
   plain result exactly. */
enum { LIFT = 1000 };
#define LIFT_BELOW 0x1p-960

/* v pre for a power of two pre >= 2^52, where tiny is pre 2^-1074 (a normal double), without
   multiplying a subnormal v: that product is the assist the lift is there to avoid. A subnormal
   v is its significand f (< 2^52) times 2^-1074, so v pre = f tiny, exact (f converts exactly,
   and f tiny is a normal double or zero), with v's sign put back (a zero keeps it). A normal,
   infinite or NaN v is multiplied as it was; both are computed and one kept, with no branch on
   the kind of v (inputs near the threshold mix the two at random). */
static inline double lift_term(double v, double pre, double tiny)
{
    uint64_t b, hb, lb;
    memcpy(&b, &v, sizeof b);
    const uint64_t sign = b & 1ULL << 63, normal = b & 0x7ff0000000000000ULL;
    const uint64_t nb = normal ? b : 0x3ff0000000000000ULL; /* 1.0 in place of a subnormal */
    double vn, lo;
    memcpy(&vn, &nb, sizeof vn);
    const double hi = vn * pre;
    lo = (double)(int64_t)(b & 0x000fffffffffffffULL) * tiny;
    memcpy(&hb, &hi, sizeof hb);
    memcpy(&lb, &lo, sizeof lb);
    lb |= sign;
    const uint64_t r = normal ? hb : lb;
    memcpy(&lo, &r, sizeof lo);
    return lo;
}

/* v pre, pre a power of two: through lift_term when tiny (pre 2^-1074, 0 when pre < 2^52)
   is a normal double, else the plain product (pre 1: v). */
static inline double scale_term(double v, double pre, double tiny)
{
    return pre == 1.0 ? v : tiny != 0.0 ? lift_term(v, pre, tiny) : v * pre;
}

static double lift_tiny(double pre)
{
    return pre >= 0x1p52 ? ldexp(pre, -1074) : 0.0;
}

/* Few columns of many rows (a vector's sum, n x 1): too few column blocks to share among the
   cores. The rows are cut into fixed chunks of ROWS_CHUNK (by the sizes alone, never by the
   thread count, so the bits do not depend on it), each chunk's columns summed compensated on
   a core of its own, and the chunks' (sum, compensation) pairs added in chunk order, each sum
   compensated as one more term: the result stays within about one f64 rounding of the exact
   sum, as the one long compensated sum does (Higham, ASNA 2nd ed., sec. 4.3: the error bound
   of compensated summation does not depend on the order), while the work spreads over every
   core. */
enum { ROWS_CHUNK = 1 << 16, ROWS_SPLIT_BLOCKS = 16 };

/* One column's run of rows into its (sum, compensation) pair sc, the steps of the loop below
   for n = 1, with the pair held in registers rather than read and written back through memory
   at every term (the compiler cannot tell that sc is not x). */
static void sum_column(const double *x, int64_t ldx, int64_t rows, int take_abs, double pre,
                       double tiny, double *sc)
{
    double acc = sc[0], comp = sc[1];
    for (int64_t i = 0; i < rows; i++) {
        double v = term(scale_term(x[i * ldx], pre, tiny), take_abs), t = acc + v;
        comp += fabs(acc) >= fabs(v) ? (acc - t) + v : (v - t) + acc;
        acc = t;
    }
    sc[0] = acc;
    sc[1] = comp;
}

static int colsum_rows_split(const char *fn, int64_t m, int64_t n, const double *x, int64_t ldx,
                             double *s, int take_abs, double pre, double post)
{
    int64_t nchunks = (m + ROWS_CHUNK - 1) / ROWS_CHUNK;
    /* part[(c n + j) 2]: chunk c's sum of column j, then its compensation */
    double *part = malloc(sizeof *part * (size_t)(2 * nchunks * n) + 1);
    if (!part) return go_enomem(fn);
    const double tiny = lift_tiny(pre);
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t i0 = c * ROWS_CHUNK, i1 = i0 + ROWS_CHUNK < m ? i0 + ROWS_CHUNK : m;
        double *ps = part + 2 * c * n;
        for (int64_t j = 0; j < n; j++)
            ps[2 * j] = ps[2 * j + 1] = 0.0;
        if (n == 1) {
            sum_column(x + i0 * ldx, ldx, i1 - i0, take_abs, pre, tiny, ps);
            continue;
        }
        for (int64_t i = i0; i < i1; i++) {
            const double *row = x + i * ldx;
            for (int64_t j = 0; j < n; j++) {
                double v = term(scale_term(row[j], pre, tiny), take_abs);
                double acc = ps[2 * j], t = acc + v;
                ps[2 * j + 1] += fabs(acc) >= fabs(v) ? (acc - t) + v : (v - t) + acc;
                ps[2 * j] = t;
            }
        }
    }
    for (int64_t j = 0; j < n; j++) {
        double acc = 0.0, comp = 0.0;
        for (int64_t c = 0; c < nchunks; c++) {
            double v = part[2 * (c * n + j)], t = acc + v;
            comp += fabs(acc) >= fabs(v) ? (acc - t) + v : (v - t) + acc;
            comp += part[2 * (c * n + j) + 1];
            acc = t;
        }
        s[j] = acc + comp;
        if (post != 1.0) s[j] *= post;
    }
    free(part);
    return 0;
}

/* s(n) = sum_i X(i, :) of term(x pre, how), compensated. pre is a power of two the callers
   chose (go_pow2_scale: exact), or 0 to have the sum lifted out of the subnormals when its
   values lie there (SUM_PLAIN and SUM_ABS: the bits are those of the plain sum). */
static int colsum_impl(const char *fn, int64_t m, int64_t n, const double *x, int64_t ldx,
                       double *s, int take_abs, double pre)
{
    if (m < 0) return go_xerbla(fn, 1, "m");
    if (n < 0) return go_xerbla(fn, 2, "n");
    if (!x) return go_xerbla(fn, 3, "x");
    if (ldx < (n > 1 ? n : 1)) return go_xerbla(fn, 4, "ldx");
    if (!s) return go_xerbla(fn, 5, take_abs == SUM_PLAIN ? "s" : "g");
    double post = 1.0;
    if (pre == 0.0) {
        double mx = take_abs == SUM_SQUARE ? 1.0 : go_max_finite_abs(m, n, x, ldx);
        pre = mx > 0.0 && mx < LIFT_BELOW ? ldexp(1.0, LIFT) : 1.0;
        post = 1.0 / pre;
    }
    /* Columns are independent: blocks of COLSUM_BLOCK columns on all cores, each column summed
       over the rows in order as in one thread, so the bits do not depend on the thread count. */
    enum { COLSUM_BLOCK = 256 };
    int64_t nblocks = (n + COLSUM_BLOCK - 1) / COLSUM_BLOCK;
    if (nblocks < ROWS_SPLIT_BLOCKS && m >= 4 * (int64_t)ROWS_CHUNK)
        return colsum_rows_split(fn, m, n, x, ldx, s, take_abs, pre, post);
    double *comp = calloc((size_t)n + 1, sizeof *comp);
    if (!comp) return go_enomem(fn);
    const double tiny = lift_tiny(pre);
#pragma omp parallel for schedule(dynamic, 1) if ((double)m * (double)n >= GO_PAR_MIN)
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t j0 = b * COLSUM_BLOCK, j1 = j0 + COLSUM_BLOCK < n ? j0 + COLSUM_BLOCK : n;
        for (int64_t j = j0; j < j1; j++)
            s[j] = 0.0;
        for (int64_t i = 0; i < m; i++) {
            const double *row = x + i * ldx;
            for (int64_t j = j0; j < j1; j++) {
                double v = term(scale_term(row[j], pre, tiny), take_abs);
                double t = s[j] + v;
                comp[j] += fabs(s[j]) >= fabs(v) ? (s[j] - t) + v : (v - t) + s[j];
                s[j] = t;
            }
        }
        for (int64_t j = j0; j < j1; j++) {
            s[j] += comp[j];
            if (post != 1.0) s[j] *= post;
        }
    }
    free(comp);
    return 0;
}

int go_colsum(int64_t m, int64_t n, const double *x, int64_t ldx, double *s)
{
    return colsum_impl(__func__, m, n, x, ldx, s, SUM_PLAIN, 0.0);
}

int go_colsum_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, double *g)
{
    return colsum_impl(__func__, m, n, x, ldx, g, SUM_ABS, 0.0);
}

/* Arguments of the (m, k, n, A, lda, B, ldb, s) oracles; CBLAS takes int sizes. */
static int check_product_args(const char *fn, int64_t m, int64_t k, int64_t n, const double *a,
                              int64_t lda, const double *b, int64_t ldb, const double *s, int how)
{
    if (m < 0 || m > INT_MAX) return go_xerbla(fn, 1, "m");
    if (k < 0 || k > INT_MAX) return go_xerbla(fn, 2, "k");
    if (n < 0 || n > INT_MAX) return go_xerbla(fn, 3, "n");
    if (!a) return go_xerbla(fn, 4, "a");
    if (lda < (k > 1 ? k : 1) || lda > INT_MAX) return go_xerbla(fn, 5, "lda");
    if (!b) return go_xerbla(fn, 6, "b");
    if (ldb < (n > 1 ? n : 1) || ldb > INT_MAX) return go_xerbla(fn, 7, "ldb");
    if (!s) return go_xerbla(fn, 8, how == SUM_PLAIN ? "s" : "g");
    return 0;
}

int go_matmul_colsum(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                     int64_t ldb, double *s)
{
    /* checked here, before the m x n scratch: a bad m or s must name its own argument */
    int bad = check_product_args(__func__, m, k, n, a, lda, b, ldb, s, SUM_PLAIN);
    if (bad) return bad;
    double *c = malloc((size_t)(m * n) * sizeof *c + 1);
    if (!c) return go_enomem(__func__);
    int rc = go_gemm(m, k, n, a, lda, b, ldb, c, n > 1 ? n : 1);
    if (rc == 0) rc = go_colsum(m, n, c, n > 1 ? n : 1, s);
    free(c);
    return rc;
}

/* s = (1^T A) B, or with |A| and |B| for the gauge. */
static int einsum_impl(const char *fn, int64_t m, int64_t k, int64_t n, const double *a,
                       int64_t lda, const double *b, int64_t ldb, double *s, int take_abs,
                       double pre_a, double pre_b)
{
    int bad = check_product_args(fn, m, k, n, a, lda, b, ldb, s, take_abs);
    if (bad) return bad;
    double *w = malloc((size_t)k * sizeof *w + 1);
    if (!w) return go_enomem(fn);
    int rc = colsum_impl(fn, m, k, a, lda, w, take_abs, pre_a);
    if (rc == 0 && take_abs == SUM_PLAIN) {
        GO_BLAS(cblas_dgemv(CblasRowMajor, CblasTrans, (int)k, (int)n, 1.0, b, (int)ldb, w, 1, 0.0,
                            s, 1));
    } else if (rc == 0) {
        /* by blocks of columns, each summed over i in order: the bits of one thread */
        enum { BLOCK = 256 };
        int64_t nblocks = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(dynamic, 1) if ((double)k * (double)n >= GO_PAR_MIN)
        for (int64_t bl = 0; bl < nblocks; bl++) {
            int64_t j0 = bl * BLOCK, j1 = j0 + BLOCK < n ? j0 + BLOCK : n;
            for (int64_t j = j0; j < j1; j++)
                s[j] = 0.0;
            for (int64_t i = 0; i < k; i++)
                for (int64_t j = j0; j < j1; j++)
                    s[j] += w[i] * term(b[i * ldb + j] * pre_b, take_abs);
        }
    }
    free(w);
    return rc;
}

int go_einsum_colsum(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                     int64_t ldb, double *s)
{
    return einsum_impl(__func__, m, k, n, a, lda, b, ldb, s, SUM_PLAIN, 0.0, 1.0);
}

int go_colsum_product_gauge(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                            const double *b, int64_t ldb, double *g)
{
    return einsum_impl(__func__, m, k, n, a, lda, b, ldb, g, SUM_ABS, 0.0, 1.0);
}

int go_colsum_sqgauge(int64_t m, int64_t n, const double *x, int64_t ldx, double *g)
{
    /* near the overflow threshold or deep in the subnormals, the squares of x scaled by a power
       of two (go_pow2_scale: exact), applied as each value is read rather than to a copy */
    double s = m > 0 && n > 0 && x && ldx >= n ? go_pow2_scale(m, n, x, ldx) : 1.0;
    int rc = colsum_impl(__func__, m, n, x, ldx, g, SUM_SQUARE, s);
    for (int64_t j = 0; rc == 0 && j < n; j++)
        g[j] = sqrt(g[j]) / s;
    return rc;
}

int go_colsum_product_sqgauge(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                              const double *b, int64_t ldb, double *g)
{
    int ok = m > 0 && k > 0 && n > 0 && a && b && lda >= k && ldb >= n;
    double sa = ok ? go_pow2_scale(m, k, a, lda) : 1.0, sb = ok ? go_pow2_scale(k, n, b, ldb) : 1.0;
    int rc = einsum_impl(__func__, m, k, n, a, lda, b, ldb, g, SUM_SQUARE, sa, sb);
    /* 1 / (sa sb) as two factors: each scale is at most 2^1000, their product may not be a
       double */
    for (int64_t j = 0; rc == 0 && j < n; j++)
        g[j] = sqrt(g[j]) / sa / sb;
    return rc;
}
