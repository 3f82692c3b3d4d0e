/* test_ref_threads.c: a case's inputs and reference are the same bits on any thread count.
 * Runs of one catalogue on hosts of 16 and 4 cores differed in 126 record members and compare
 * called a case REGRESSED, because OpenBLAS's LU, QR, Cholesky and some of its products split
 * their sums by the thread count. The oracle's BLAS now runs on GO_BLAS_THREADS (go.h) and
 * gpuval's own OpenMP sums on partitions of the size, never of the team: here each case is
 * built and judged on 1, 2 and 3 OpenMP and OpenBLAS threads (3: oversubscribed on a 2-core
 * machine) and every input, reference and gauge must hash the same. The last test shows the
 * check fails where the fixed count is lifted. (test_threads.c varies OpenMP alone.) */
#include <cblas.h>
#include <criterion/criterion.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "core/hash.h"
#include "core/reference.h"
#include "go.h"
#include "testkit.h"

/* The families that call OpenBLAS or LAPACK (products, solvers, least squares) and some whose
   oracles run OpenMP loops with sums (attention, convolution, norms, scans, reductions), each
   at a size where both libraries use more than one thread. */
static const struct {
    const char *op;
    gv_dtype t;
    gv_dist dist;
    gv_shape shape;
} CASES[] = {
    {"gemm.cublas", GV_F64, GV_DIST_UNIFORM01, {3, {512, 515, 260}}},
    {"gemm.cublas", GV_F32, GV_DIST_UNIFORM11, {3, {300, 257, 129}}},
    {"matmul_colsum", GV_F32, GV_DIST_UNIFORM01, {3, {300, 257, 129}}},
    {"einsum.colsum", GV_F64, GV_DIST_UNIFORM01, {3, {257, 515, 129}}},
    {"dense.sigmoid", GV_F32, GV_DIST_UNIFORM11, {3, {100, 257, 129}}},
    {"solve.gesv", GV_F64, GV_DIST_UNIFORM11, {2, {257, 6}}},
    {"solve.gesv", GV_F32, GV_DIST_UNIFORM11, {2, {300, 1}}},
    {"solve.posv", GV_F64, GV_DIST_UNIFORM11, {2, {257, 6}}},
    {"lsmr.ridge", GV_F64, GV_DIST_UNIFORM01, {3, {300, 200, 2}}},
    {"conv.2d", GV_F64, GV_DIST_UNIFORM11, {4, {2, 64, 14, 32}}},
    {"norm.batch", GV_F32, GV_DIST_UNIFORM11, {4, {8, 32, 28, 28}}},
    {"scan.cumsum", GV_F64, GV_DIST_UNIFORM11, {2, {2, 65536}}},
    {"reduce.sum", GV_F32, GV_DIST_UNIFORM01, {1, {1000003}}},
};
enum { NCASES = sizeof CASES / sizeof CASES[0] };

static uint64_t hash_buf(const double *x, int64_t n, uint64_t h)
{
    return x ? gv_xxh64_chunked(x, (size_t)n * sizeof *x, h) : h;
}

/* One hash of case i's inputs and everything its reference computed, on t threads of each
   library. */
static uint64_t case_hash(int i, int t)
{
    omp_set_num_threads(t);
    openblas_set_num_threads(t);
    gv_case c =
        gv_test_case(CASES[i].op, CASES[i].t, GV_MODE_NATIVE, CASES[i].dist, CASES[i].shape, 3);
    gv_problem p;
    gv_test_problem(&p, &c);
    uint64_t h = 0;
    for (int k = 0; k < p.l.n_in; k++)
        h = hash_buf(p.in[k].ref, p.in[k].count, h);
    for (int k = 0; k < p.l.n_out; k++) {
        h = hash_buf(p.out[k].ref, p.out[k].count, h);
        h = hash_buf(p.out[k].gauge, p.out[k].count, h);
        h = hash_buf(p.out[k].pgauge, p.out[k].count, h);
        h = hash_buf(p.out[k].ref_lo, p.out[k].count, h);
    }
    gv_problem_free(&p);
    return h;
}

/* The cases whose hash on 2 or 3 threads differs from 1 thread's, named into why. */
static int differing(char *why, size_t len)
{
    int bad = 0;
    why[0] = '\0';
    for (int i = 0; i < NCASES; i++) {
        uint64_t one = case_hash(i, 1);
        for (int t = 2; t <= 3; t++) {
            if (case_hash(i, t) == one) continue;
            bad++;
            size_t used = strlen(why);
            snprintf(why + used, len - used, " %s %s on %d threads;", CASES[i].op,
                     gv_dtype_name(CASES[i].t), t);
        }
    }
    return bad;
}

Test(ref_threads, inputs_and_references_are_the_same_on_1_2_and_3_threads, .timeout = 240)
{
    char why[2048];
    int bad = differing(why, sizeof why);
    cr_assert_eq(bad, 0, "%d changed with the thread count:%s", bad, why);
}

/* The check can fail: with the caller's thread count (the fixed count lifted, as before it
   was fixed) OpenBLAS's LU gives other bits on 1, 2 and 3 threads. */
Test(ref_threads, lifting_the_fixed_count_is_caught, .timeout = 240)
{
    go_blas_fixed_threads(0);
    char why[2048];
    int bad = differing(why, sizeof why);
    go_blas_fixed_threads(GO_BLAS_THREADS);
    cr_assert_gt(bad, 0, "the thread count changed nothing: the check above cannot fail");
    cr_assert(strstr(why, "solve.gesv") != NULL, "LU changed with the thread count:%s", why);
}
