/* oracle_colsum.c: the column-sum oracles (oracle/colsum.c) — plain column sums, matmul then
 * column sum, and einsum ij,jk->k — against long double on small sizes; their gauges
 * (sum |X| and colsum(|A|)|B|); the LAPACKE-style argument checks; and the op descriptors'
 * depths and tensor counts, with the chunked column sum's depth recomputed here. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "colsum.h"
#include "gen.h"
#include "go.h"
#include "registry.h"

/* rows x cols, leading dimension ld, uniform [-1, 1); NaN in the padding so reading it shows */
static double *matrix(int64_t rows, int64_t cols, int64_t ld, uint64_t tensor)
{
    double *packed = malloc((size_t)(rows * cols) * sizeof *packed + 1);
    double *x = malloc((size_t)(rows * ld) * sizeof *x + 1);
    cr_assert(packed && x);
    gv_gen_fill(packed, rows * cols, GV_DIST_UNIFORM11, GV_F64, 23, tensor);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < ld; j++)
            x[i * ld + j] = j < cols ? packed[i * cols + j] : NAN;
    free(packed);
    return x;
}

static long double normwise(int64_t n, const double *got, const long double *want)
{
    long double e = 0, r = 0;
    for (int64_t j = 0; j < n; j++) {
        long double d = (long double)got[j] - want[j];
        e += d * d;
        r += want[j] * want[j];
    }
    return sqrtl(e) / sqrtl(r);
}

/* Gauge checks: g >= |s| and g equal to the long double value to 1e-14 relative. */
static void check_gauge(int64_t n, const double *g, const double *s, const long double *want,
                        const char *what)
{
    for (int64_t j = 0; j < n; j++) {
        cr_expect(g[j] >= fabs(s[j]), "%s: gauge %g below |s| %g at %ld", what, g[j], s[j],
                  (long)j);
        cr_expect(fabsl(g[j] - want[j]) <= 1e-14L * want[j], "%s: gauge %g vs %Lg at %ld", what,
                  g[j], want[j], (long)j);
    }
}

static void check_colsum(int64_t m, int64_t n, int64_t pad)
{
    int64_t ld = n + pad;
    double *x = matrix(m, n, ld, 0);
    double *s = malloc((size_t)n * sizeof *s), *g = malloc((size_t)n * sizeof *g);
    long double *s_ld = calloc((size_t)n, sizeof *s_ld), *g_ld = calloc((size_t)n, sizeof *g_ld);
    cr_assert(s && g && s_ld && g_ld);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            s_ld[j] += x[i * ld + j];
            g_ld[j] += fabsl((long double)x[i * ld + j]);
        }
    cr_assert_eq(go_colsum(m, n, x, ld, s), 0);
    cr_assert_eq(go_colsum_gauge(m, n, x, ld, g), 0);
    long double err = normwise(n, s, s_ld);
    cr_expect(err <= 1e-14L, "colsum %ldx%ld: normwise %Lg", (long)m, (long)n, err);
    check_gauge(n, g, s, g_ld, "colsum");
    free(x);
    free(s);
    free(g);
    free(s_ld);
    free(g_ld);
}

Test(oracle_colsum, colsum_matches_long_double)
{
    check_colsum(17, 23, 0);
    check_colsum(64, 64, 0);
    check_colsum(1, 1, 0);
    check_colsum(1000, 7, 3);
}

Test(oracle_colsum, colsum_is_compensated)
{
    /* one column 1e16, 1, -1e16: the exact sum is 1. A plain running sum loses the 1
       (ulp(1e16) = 2), Neumaier's correction keeps it */
    double x[3] = {1e16, 1.0, -1e16}, s;
    cr_assert_eq(go_colsum(3, 1, x, 1, &s), 0);
    cr_expect_eq(s, 1.0);
}

/* s = colsum(A B) in long double, and the gauge colsum(|A|) |B| */
static void product_ld(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                       const double *b, int64_t ldb, long double *s, long double *g)
{
    for (int64_t j = 0; j < n; j++)
        s[j] = g[j] = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++)
            for (int64_t j = 0; j < n; j++) {
                long double ail = a[i * lda + l], blj = b[l * ldb + j];
                s[j] += ail * blj;
                g[j] += fabsl(ail) * fabsl(blj);
            }
}

static void check_products(int64_t m, int64_t k, int64_t n, int64_t pad)
{
    int64_t lda = k + pad, ldb = n + pad;
    double *a = matrix(m, k, lda, 0), *b = matrix(k, n, ldb, 1);
    double *s1 = malloc((size_t)n * sizeof *s1), *s2 = malloc((size_t)n * sizeof *s2);
    double *g = malloc((size_t)n * sizeof *g);
    long double *s_ld = malloc((size_t)n * sizeof *s_ld), *g_ld = malloc((size_t)n * sizeof *g_ld);
    cr_assert(s1 && s2 && g && s_ld && g_ld);
    product_ld(m, k, n, a, lda, b, ldb, s_ld, g_ld);
    cr_assert_eq(go_matmul_colsum(m, k, n, a, lda, b, ldb, s1), 0);
    cr_assert_eq(go_einsum_colsum(m, k, n, a, lda, b, ldb, s2), 0);
    cr_assert_eq(go_colsum_product_gauge(m, k, n, a, lda, b, ldb, g), 0);
    long double e1 = normwise(n, s1, s_ld), e2 = normwise(n, s2, s_ld);
    cr_expect(e1 <= 1e-14L, "matmul_colsum %ldx%ldx%ld: normwise %Lg", (long)m, (long)k, (long)n,
              e1);
    cr_expect(e2 <= 1e-14L, "einsum_colsum %ldx%ldx%ld: normwise %Lg", (long)m, (long)k, (long)n,
              e2);
    check_gauge(n, g, s1, g_ld, "product gauge vs matmul_colsum");
    check_gauge(n, g, s2, g_ld, "product gauge vs einsum_colsum");
    free(a);
    free(b);
    free(s1);
    free(s2);
    free(g);
    free(s_ld);
    free(g_ld);
}

Test(oracle_colsum, products_match_long_double)
{
    check_products(17, 23, 19, 0);
    check_products(64, 64, 64, 0);
    check_products(1, 1, 1, 0);
    check_products(64, 48, 32, 3);
}

Test(oracle_colsum, bad_arguments_name_their_index)
{
    double x[16] = {0}, y[16] = {0}, s[16];
    /* go_colsum(m, n, x, ldx, s) */
    cr_expect_eq(go_colsum(-1, 2, x, 2, s), -1);
    cr_expect_eq(go_colsum(2, -1, x, 2, s), -2);
    cr_expect_eq(go_colsum(2, 2, NULL, 2, s), -3);
    cr_expect_eq(go_colsum(2, 3, x, 2, s), -4);
    cr_expect_eq(go_colsum(2, 2, x, 2, NULL), -5);
    cr_expect_eq(go_colsum_gauge(2, 3, x, 2, s), -4);
    cr_expect_eq(go_colsum_gauge(2, 2, x, 2, NULL), -5);
    /* the (m, k, n, a, lda, b, ldb, s) oracles: arguments 1..8, each the same way */
    int (*const fns[])(int64_t, int64_t, int64_t, const double *, int64_t, const double *, int64_t,
                       double *) = {go_matmul_colsum, go_einsum_colsum, go_colsum_product_gauge};
    const char *names[] = {"go_matmul_colsum", "go_einsum_colsum", "go_colsum_product_gauge"};
    int64_t big = (int64_t)INT32_MAX + 2;
    for (int f = 0; f < 3; f++) {
        const char *nm = names[f];
        cr_expect_eq(fns[f](-1, 2, 2, x, 2, y, 2, s), -1, "%s: m < 0", nm);
        cr_expect_eq(fns[f](2, -1, 2, x, 2, y, 2, s), -2, "%s: k < 0", nm);
        cr_expect_eq(fns[f](2, 2, -1, x, 2, y, 2, s), -3, "%s: n < 0", nm);
        cr_expect_eq(fns[f](2, 2, 2, NULL, 2, y, 2, s), -4, "%s: a NULL", nm);
        cr_expect_eq(fns[f](2, 3, 2, x, 2, y, 2, s), -5, "%s: lda < k", nm);
        cr_expect_eq(fns[f](2, 2, 2, x, 2, NULL, 2, s), -6, "%s: b NULL", nm);
        cr_expect_eq(fns[f](2, 2, 3, x, 2, y, 2, s), -7, "%s: ldb < n", nm);
        cr_expect_eq(fns[f](2, 2, 2, x, 2, y, 2, NULL), -8, "%s: s NULL", nm);
        cr_expect_eq(fns[f](big, 1, 1, x, 1, y, 1, s), -1, "%s: m past INT_MAX", nm);
        cr_expect_eq(fns[f](1, 1, 1, x, 1, y, big, s), -7, "%s: ldb past INT_MAX", nm);
        cr_expect_eq(fns[f](2, 2, 2, x, 2, y, 2, s), 0, "%s: good call", nm);
    }
}

/* ---- the op descriptors ------------------------------------------------------------------- */

/* The chunked column sum of kernels/colsum.cuh, recomputed from its description: rows split
   into c = ceil(sqrt(rows)) chunks (at most 1024) of ceil(rows / c) rows; depth is the chunk
   length plus the number of chunks. */
static int64_t colsum_depth(int64_t rows)
{
    int64_t c = (int64_t)ceil(sqrt((double)rows));
    if (c > 1024) c = 1024;
    return (rows + c - 1) / c + c;
}

Test(oracle_colsum, chunked_depth_known_values)
{
    /* 1000 rows: 32 chunks (31^2 < 1000 <= 32^2) of 32 rows -> 64; 300: 18 chunks of 17 ->
       35; 64: 8 of 8 -> 16; 2^22: capped at 1024 chunks of 4096 -> 5120 */
    cr_expect_eq(colsum_depth(1000), 64);
    cr_expect_eq(gk_colsum_depth(1000), 64);
    cr_expect_eq(gk_colsum_depth(300), 35);
    cr_expect_eq(gk_colsum_depth(64), 16);
    cr_expect_eq(gk_colsum_depth((int64_t)1 << 22), 5120);
    for (int64_t rows = 1; rows < 5000; rows += 7)
        cr_expect_eq(gk_colsum_depth(rows), colsum_depth(rows), "rows %ld", (long)rows);
}

static gv_case colsum_case(const char *op, gv_dtype t, gv_mode mode, int64_t m, int64_t k,
                           int64_t n)
{
    gv_case c = {gv_op_find(op), t, mode, GV_DIST_UNIFORM01, {3, {m, k, n}}, 0};
    cr_assert_not_null(c.op, "%s is registered", op);
    return c;
}

Test(oracle_colsum, depths_per_op_and_mode)
{
    /* matmul_colsum: product depth k plus the column sum's over m rows */
    gv_case mc = colsum_case("matmul_colsum", GV_F64, GV_MODE_NATIVE, 1000, 500, 700);
    cr_expect_eq(mc.op->depth(&mc), 500.0 + 64.0);
    /* tf32: 4 u_tf32 for the operands plus (k + colsum depth) f32 roundings scaled by
       u_f32 / u_tf32 = 2^-13 */
    gv_case mt = colsum_case("matmul_colsum", GV_F32, GV_MODE_TF32, 1000, 500, 700);
    cr_expect_eq(mt.op->depth(&mt), 4.0 + (500.0 + 64.0) / 8192.0);
    /* einsum: column sums of A over m, then the k-term weighting: colsum depths of m and k,
       plus one */
    gv_case ec = colsum_case("einsum.colsum", GV_F32, GV_MODE_NATIVE, 300, 257, 129);
    cr_expect_eq(ec.op->depth(&ec), (double)(colsum_depth(300) + colsum_depth(257) + 1));
    gv_case eb = colsum_case("einsum.colsum.lastchunk", GV_F64, GV_MODE_NATIVE, 300, 257, 129);
    cr_expect_eq(eb.op->depth(&eb), ec.op->depth(&ec), "the planted variant is judged alike");
}

Test(oracle_colsum, layouts_and_modes)
{
    const char *ops[] = {"matmul_colsum", "einsum.colsum", "einsum.colsum.lastchunk"};
    for (int i = 0; i < 3; i++) {
        gv_case c = colsum_case(ops[i], GV_F32, GV_MODE_NATIVE, 64, 48, 32);
        gv_layout l;
        cr_assert_eq(c.op->layout(&c, &l), GV_OK);
        cr_expect_eq(l.n_in, 2, "%s", ops[i]);
        cr_expect_eq(l.n_out, 1, "%s", ops[i]);
        cr_expect_eq(l.in[0].count, 64 * 48, "%s: A is m x k", ops[i]);
        cr_expect_eq(l.in[1].count, 48 * 32, "%s: B is k x n", ops[i]);
        cr_expect_eq(l.out[0].count, 32, "%s: s has n entries", ops[i]);
        cr_expect_gt(l.workspace_bytes, 0, "%s needs scratch", ops[i]);
    }
    /* matmul_colsum keeps the m x n product and the per-chunk partial sums */
    gv_case c = colsum_case("matmul_colsum", GV_F64, GV_MODE_NATIVE, 64, 48, 32);
    gv_layout l;
    c.op->layout(&c, &l);
    cr_expect_eq(l.workspace_bytes, (64 * 32 + 8 * 32) * 8);
    const gv_op *mc = gv_op_find("matmul_colsum"), *ec = gv_op_find("einsum.colsum");
    cr_expect(gv_mode_ok(mc, GV_F32, GV_MODE_TF32));
    cr_expect_not(gv_mode_ok(mc, GV_F64, GV_MODE_TF32));
    cr_expect_not(gv_mode_ok(ec, GV_F32, GV_MODE_TF32));
    cr_expect_not_null(gv_op_find("einsum.colsum.lastchunk")->planted_bug);
    char why[256];
    gv_shape one = {1, {100}};
    cr_expect_not(gv_shape_ok(mc, &one, why, sizeof why));
}
