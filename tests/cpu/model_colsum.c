/* model_colsum.c: the column-sum op descriptors' depths, tensor counts and modes, with the
 * chunked column sum's depth recomputed here. */
#include <criterion/criterion.h>
#include <math.h>

#include "colsum.h"
#include "core/registry.h"

/* The chunked column sum of kernels/colsum.cuh, recomputed from its description: rows split
   into c = ceil(sqrt(rows) / 4) chunks (at most 1024; chunks of about 16 times as many rows as
   there are chunks) of ceil(rows / c) rows; depth is the chunk length plus the number of
   chunks. */
static int64_t colsum_depth(int64_t rows)
{
    int64_t c = (int64_t)ceil(sqrt((double)rows) / 4.0);
    if (c > 1024) c = 1024;
    return (rows + c - 1) / c + c;
}

Test(oracle_colsum, chunked_depth_known_values)
{
    /* 1000 rows: 8 chunks (16 * 7^2 < 1000 <= 16 * 8^2) of 125 rows -> 133; 300: 5 chunks
       (16 * 4^2 < 300 <= 16 * 5^2) of 60 -> 65; 64: 2 of 32 -> 34; 10000 (seed 002's m): 25
       of 400 -> 425; 5000 (its k): 18 of 278 -> 296; 2^22: 512 chunks (16 * 512^2 = 2^22) of
       8192 -> 8704; 2^24: 1024 of 16384 -> 17408; 2^26: capped at 1024 chunks of 65536 ->
       66560 */
    cr_expect_eq(colsum_depth(1000), 133);
    cr_expect_eq(gk_colsum_depth(1000), 133);
    cr_expect_eq(gk_colsum_depth(300), 65);
    cr_expect_eq(gk_colsum_depth(64), 34);
    cr_expect_eq(gk_colsum_depth(10000), 425);
    cr_expect_eq(gk_colsum_depth(5000), 296);
    cr_expect_eq(gk_colsum_depth((int64_t)1 << 22), 8704);
    cr_expect_eq(gk_colsum_depth((int64_t)1 << 24), 17408);
    cr_expect_eq(gk_colsum_depth((int64_t)1 << 26), 66560);
    for (int64_t rows = 1; rows < 5000; rows += 7)
        cr_expect_eq(gk_colsum_depth(rows), colsum_depth(rows), "rows %ld", (long)rows);
    /* below the cap the depth stays near (4 + 1/4) sqrt(rows), about twice the smallest
       depth 2 sqrt(rows) of any chunking into equal chunks (c chunks give rows / c + c >=
       2 sqrt(rows)) */
    for (int64_t rows = 100; rows <= 1000000; rows = rows * 3 + 1)
        cr_expect_leq((double)gk_colsum_depth(rows), 4.25 * sqrt((double)rows) + 2.0, "rows %ld",
                      (long)rows);
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
    cr_expect_eq(mc.op->depth(&mc), 500.0 + (double)colsum_depth(1000));
    /* tf32: 4 u_tf32 for the operands plus (k + colsum depth) f32 roundings scaled by
       u_f32 / u_tf32 = 2^-13 */
    gv_case mt = colsum_case("matmul_colsum", GV_F32, GV_MODE_TF32, 1000, 500, 700);
    cr_expect_eq(mt.op->depth(&mt), 4.0 + (500.0 + (double)colsum_depth(1000)) / 8192.0);
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
    /* matmul_colsum keeps the m x n product, then the column sum's scratch: 16 bytes of
       alignment slack, a counter a column at most, 16 more, the per-chunk partial sums (2
       chunks of 32 rows at m = 64) */
    gv_case c = colsum_case("matmul_colsum", GV_F64, GV_MODE_NATIVE, 64, 48, 32);
    gv_layout l;
    c.op->layout(&c, &l);
    cr_expect_eq(l.workspace_bytes, 64 * 32 * 8 + 16 + 4 * 32 + 16 + 2 * 32 * 8);
    /* einsum.colsum: s (k), then one scratch for both sums: counters for max(k, n) columns and
       the larger partials: chunks(64) = 2 chunks x k = 48, chunks(48) = 2 x n = 32 */
    gv_case e = colsum_case("einsum.colsum", GV_F32, GV_MODE_NATIVE, 64, 48, 32);
    e.op->layout(&e, &l);
    cr_expect_eq(l.workspace_bytes, 48 * 4 + 16 + 4 * 48 + 16 + 2 * 48 * 4);
    const gv_op *mc = gv_op_find("matmul_colsum"), *ec = gv_op_find("einsum.colsum");
    cr_expect(gv_mode_ok(mc, GV_F32, GV_MODE_TF32));
    cr_expect_not(gv_mode_ok(mc, GV_F64, GV_MODE_TF32));
    cr_expect_not(gv_mode_ok(ec, GV_F32, GV_MODE_TF32));
    cr_expect_not_null(gv_op_find("einsum.colsum.lastchunk")->planted_bug);
    char why[256];
    gv_shape one = {1, {100}};
    cr_expect_not(gv_shape_ok(mc, &one, why, sizeof why));
}

/* The row counts of the sweeps below: every count up to 5000, then around each square the
   chunk count changes at (16 c^2) and around the cap (16 * 1024^2), then far past it. */
static int64_t sweep_rows(int i)
{
    if (i < 5000) return i + 1;
    i -= 5000;
    if (i < 3 * 1100) {
        int64_t c = i / 3 + 1;
        return 16 * c * c + (i % 3) - 1;
    }
    i -= 3 * 1100;
    return i < 60 ? ((int64_t)1 << 24) + ((int64_t)1 << (i / 2)) * (i % 2 ? 1 : 7) : -1;
}

/* gk_colsum_chunks as abi/colsum.h states it, at every row count of the sweep: the fewest c
   with (4 c)^2 >= rows, at most 1024; chunks of ceil(rows / c) rows that cover the rows and
   none of which is empty, so the depth (chunk length + chunks) counts every addition the
   kernel makes. kernels/colsum.cuh asserts the bounds and the cover at each launch. */
Test(oracle_colsum, chunks_cover_the_rows_within_the_bounds_at_every_size)
{
    int64_t rows;
    for (int i = 0; (rows = sweep_rows(i)) > 0; i++) {
        int64_t c = gk_colsum_chunks(rows), len = (rows + c - 1) / c;
        cr_assert(c >= 1 && c <= 1024, "rows %lld: %lld chunks", (long long)rows, (long long)c);
        cr_assert(c == 1024 || (GK_COLSUM_SPREAD * c) * (GK_COLSUM_SPREAD * c) >= rows,
                  "rows %lld: %lld chunks are too few", (long long)rows, (long long)c);
        cr_assert(c == 1 || (GK_COLSUM_SPREAD * (c - 1)) * (GK_COLSUM_SPREAD * (c - 1)) < rows,
                  "rows %lld: %lld chunks, one fewer would do", (long long)rows, (long long)c);
        cr_assert(c * len >= rows && (c - 1) * len < rows,
                  "rows %lld: %lld chunks of %lld rows leave rows out or a chunk empty",
                  (long long)rows, (long long)c, (long long)len);
        cr_assert_eq(gk_colsum_depth(rows), len + c, "rows %lld", (long long)rows);
    }
}

/* The bytes from a scratch area's start to the end of a rows x cols sum's partials when the
   area starts `mis` bytes past a 16-byte boundary and holds counter_cols counters: the carve of
   kernels/colsum.cuh (colsum_counters, colsum_partials, colsum_scratch_end) redone here. */
static int64_t carve_end(int64_t mis, int64_t counter_cols, int64_t rows, int64_t cols,
                         int64_t elem)
{
    int64_t counters = (mis + 15) / 16 * 16;
    int64_t partials = (counters + 4 * counter_cols + 15) / 16 * 16;
    return partials + gk_colsum_chunks(rows) * cols * elem - mis;
}

/* The scratch sizes of abi/colsum.h against the kernels' carve, for every start a scratch of
   T may have: one sum (reduce.colsum's layout), matmul_colsum's (after its m x n product) and
   einsum.colsum's two sums sharing one scratch (after s, k elements), through the ops' own
   layouts. kernels/colsum.cu refuses a launch whose carve passes its workspace. */
Test(oracle_colsum, scratch_sizes_hold_the_kernels_carve)
{
    static const int64_t dims[] = {1, 2, 3, 5, 7, 16, 17, 63, 64, 65, 129, 300, 1000, 4097};
    const int nd = sizeof dims / sizeof dims[0];
    const gv_op *red = gv_op_find("reduce.colsum");
    cr_assert_not_null(red);
    for (int e = 0; e < 2; e++) {
        gv_dtype t = e ? GV_F64 : GV_F32;
        int64_t es = (int64_t)gv_dtype_size(t);
        for (int a = 0; a < nd; a++)
            for (int b = 0; b < nd; b++) {
                int64_t rows = dims[a], cols = dims[b];
                for (int64_t mis = 0; mis < 16; mis += es)
                    cr_expect_leq(carve_end(mis, cols, rows, cols, es),
                                  gk_colsum_scratch_bytes(rows, cols, es),
                                  "%lld x %lld, %lld-byte elements, start %lld past 16",
                                  (long long)rows, (long long)cols, (long long)es, (long long)mis);
                gv_case rc = {red, t, GV_MODE_NATIVE, GV_DIST_UNIFORM01, {2, {rows, cols}}, 0};
                gv_layout l;
                cr_assert_eq(red->layout(&rc, &l), GV_OK);
                cr_expect_leq(carve_end(0, cols, rows, cols, es), l.workspace_bytes,
                              "reduce.colsum %lld x %lld", (long long)rows, (long long)cols);
                for (int c = 0; c < nd; c += 3) {
                    int64_t m = rows, k = cols, n = dims[c];
                    gv_case mc = colsum_case("matmul_colsum", t, GV_MODE_NATIVE, m, k, n);
                    cr_assert_eq(mc.op->layout(&mc, &l), GV_OK);
                    int64_t prod = m * n * es; /* the workspace is 256-byte aligned */
                    cr_expect_leq(prod + carve_end(prod % 16, n, m, n, es), l.workspace_bytes,
                                  "matmul_colsum %lldx%lldx%lld", (long long)m, (long long)k,
                                  (long long)n);
                    gv_case ec = colsum_case("einsum.colsum", t, GV_MODE_NATIVE, m, k, n);
                    cr_assert_eq(ec.op->layout(&ec, &l), GV_OK);
                    int64_t s = k * es, wide = k > n ? k : n;
                    cr_expect_leq(s + carve_end(s % 16, wide, m, k, es), l.workspace_bytes,
                                  "einsum.colsum %lldx%lldx%lld, first sum", (long long)m,
                                  (long long)k, (long long)n);
                    cr_expect_leq(s + carve_end(s % 16, wide, k, n, es), l.workspace_bytes,
                                  "einsum.colsum %lldx%lldx%lld, second sum", (long long)m,
                                  (long long)k, (long long)n);
                }
            }
    }
}
