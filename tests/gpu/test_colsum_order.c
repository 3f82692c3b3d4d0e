/* test_colsum_order.c: the chunked column sum (kernels/colsum.cuh) adds in exactly the order
 * its error model counts (abi/colsum.h: gk_colsum_chunks chunks of ceil(rows / chunks) rows,
 * each column's chunk in row order, then the chunk sums in chunk order), whichever path the
 * kernel takes (16-byte column vectors where the column count allows, scalar columns
 * otherwise, the second pass fused into the last block of each column group): reduce.colsum's
 * output must equal that order emulated on the CPU bit for bit. vadd (one 16-byte vector a
 * thread, the tail in the last block) must equal a + b bit for bit at lengths around its
 * vector and block sizes, vadd.slow too. The planted einsum.colsum.lastchunk must still
 * change einsum.colsum's result. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "colsum.h"
#include "gk.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "../cpu/colsum_order.h"
#include "run_device.h"

/* rows x cols: single rows and columns, column counts that are and are not multiples of the
   vector width (4 f32, 2 f64), of a 256-thread block's columns, more and fewer chunks */
static const int64_t shapes[][2] = {
    {1, 1},      {1, 7},       {2, 3},     {5, 4},       {63, 97},
    {64, 128},   {65, 1001},   {300, 257}, {1000, 4},    {1000, 1027},
    {10001, 33}, {4097, 1024}, {3, 4096},  {2000, 1026}, {10000, 700},
};

Test(gpu_colsum_order, reduce_colsum_adds_in_the_modelled_order, .timeout = 600)
{
    const gv_op *op = gv_op_find("reduce.colsum");
    cr_assert_not_null(op);
    for (int t = 0; t < 2; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int64_t m = shapes[s][0], n = shapes[s][1];
            gv_case c = {op, (gv_dtype)t, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {2, {m, n}}, 3};
            gv_problem p;
            cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
            size_t es = gv_dtype_size((gv_dtype)t);
            unsigned char *got = malloc((size_t)n * es), *want = malloc((size_t)n * es);
            cr_assert(got && want);
            run_device(op, &p, got);
            if (t == GV_F32)
                colsum_f(p.in[0].data, m, n, (float *)want);
            else
                colsum_d(p.in[0].data, m, n, (double *)want);
            int64_t differ = 0, first = -1;
            for (int64_t j = 0; j < n; j++)
                if (memcmp(got + j * es, want + j * es, es)) {
                    if (first < 0) first = j;
                    differ++;
                }
            cr_expect_eq(differ, 0, "%s %lldx%lld: %lld of %lld columns differ (first %lld)",
                         gv_dtype_name((gv_dtype)t), (long long)m, (long long)n, (long long)differ,
                         (long long)n, (long long)first);
            free(got);
            free(want);
            gv_problem_free(&p);
        }
}

Test(gpu_colsum_order, the_planted_vector_tail_is_seen, .timeout = 120)
{
    /* 129 columns: not whole vectors in either dtype; 128: whole vectors, the bug is silent */
    const gv_op *bug = gv_op_find("reduce.colsum.vectail");
    cr_assert_not_null(bug);
    for (int t = 0; t < 2; t++)
        for (int64_t n = 128; n <= 129; n++) {
            gv_case c = {bug, (gv_dtype)t, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {2, {4097, n}}, 3};
            gv_problem p;
            cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
            size_t es = gv_dtype_size((gv_dtype)t);
            unsigned char *got = malloc((size_t)n * es), *want = malloc((size_t)n * es);
            cr_assert(got && want);
            run_device(bug, &p, got);
            if (t == GV_F32)
                colsum_f(p.in[0].data, 4097, n, (float *)want);
            else
                colsum_d(p.in[0].data, 4097, n, (double *)want);
            int64_t differ = 0;
            for (int64_t j = 0; j < n; j++)
                differ += memcmp(got + j * es, want + j * es, es) != 0;
            if (n == 128)
                cr_expect_eq(differ, 0, "%s 4097x128: whole vectors, same bits",
                             gv_dtype_name((gv_dtype)t));
            else
                cr_expect_gt(differ, 0, "%s 4097x129: the planted bug must show",
                             gv_dtype_name((gv_dtype)t));
            free(got);
            free(want);
            gv_problem_free(&p);
        }
}

/* Elements of op's output at length n (dtype t) whose bits differ from a + b. */
static int64_t vadd_differs(const char *name, gv_dtype t, int64_t n)
{
    const gv_op *op = gv_op_find(name);
    cr_assert_not_null(op, "%s registered", name);
    gv_case c = {op, t, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {1, {n}}, 9};
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    size_t es = gv_dtype_size(t);
    unsigned char *got = malloc((size_t)n * es);
    cr_assert_not_null(got);
    run_device(op, &p, got);
    int64_t differ = 0;
    for (int64_t i = 0; i < n; i++) {
        if (t == GV_F32) {
            float s = ((const float *)p.in[0].data)[i] + ((const float *)p.in[1].data)[i];
            differ += memcmp(got + i * es, &s, es) != 0;
        } else {
            double s = ((const double *)p.in[0].data)[i] + ((const double *)p.in[1].data)[i];
            differ += memcmp(got + i * es, &s, es) != 0;
        }
    }
    free(got);
    gv_problem_free(&p);
    return differ;
}

Test(gpu_colsum_order, vadd_is_a_plus_b_at_every_tail, .timeout = 300)
{
    /* around one vector (4 f32, 2 f64), one 1024-thread block of vectors, and several */
    const int64_t lengths[] = {1, 2, 3, 4, 5, 7, 4095, 4096, 4097, 8191, 8193, 1000003, 4194307};
    for (int t = 0; t < 2; t++)
        for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
            int64_t n = lengths[k];
            cr_expect_eq(vadd_differs("vadd", (gv_dtype)t, n), 0, "vadd %s n=%lld",
                         gv_dtype_name((gv_dtype)t), (long long)n);
        }
    cr_expect_eq(vadd_differs("vadd.slow", GV_F64, 100003), 0, "vadd.slow: same bits, slower");
    cr_expect_gt(vadd_differs("vadd.f32round", GV_F64, 100003), 0,
                 "the planted f32 rounding must change f64 results");
}

Test(gpu_colsum_order, the_planted_last_chunk_changes_einsum, .timeout = 120)
{
    const gv_op *good = gv_op_find("einsum.colsum"), *bad = gv_op_find("einsum.colsum.lastchunk");
    cr_assert(good && bad);
    for (int t = 0; t < 2; t++) {
        gv_case c = {good, (gv_dtype)t, GV_MODE_NATIVE, GV_DIST_UNIFORM01, {3, {300, 257, 129}}, 4};
        gv_problem p;
        cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
        size_t es = gv_dtype_size((gv_dtype)t), bytes = 129 * es;
        unsigned char *a = malloc(bytes), *b = malloc(bytes);
        cr_assert(a && b);
        run_device(good, &p, a);
        run_device(bad, &p, b);
        int64_t differ = 0;
        for (int64_t j = 0; j < 129; j++)
            differ += memcmp(a + j * es, b + j * es, es) != 0;
        /* uniform01 inputs: dropping rows lowers every output */
        cr_expect_eq(differ, 129, "%s: %lld of 129 outputs changed", gv_dtype_name((gv_dtype)t),
                     (long long)differ);
        free(a);
        free(b);
        gv_problem_free(&p);
    }
}
