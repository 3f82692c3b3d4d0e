/* model_sum_order.c: one sum, judged against its order (src/core/envelope.h; docs/error-models.md,
 * "One sum, and a declared order"). reduce.sum's kernel is emulated here literally, thread by
 * thread and shuffle by shuffle (kernels/reduce.cu: reduce_tile_kernel, level after level;
 * kernels/reduce_onepass.cuh: the last block's groups), independently of the envelope's own
 * replay, in round-to-nearest and with fesetround(FE_TOWARDZERO) in scope (the mutant that
 * rounds every addition toward zero, __fadd_rz: the planted reduce.sum.rz), restored after.
 *   - generated inputs (check's own outputs: the kernel's tree is known): the correct tree
 *     PASSes on every dist of the op and several seeds, f32 and f64; the mutant FAILs on
 *     uniform [0, 1) at n = 10^5, 10^6 and 2 x 10^7, naming round-toward-zero;
 *   - given inputs (outputs computed elsewhere, judged order-free unless declared): the
 *     sequential, pairwise, blocked and tree sums PASS; the mutant tree FAILs declared tree;
 *     a sequential sum that rounds toward zero FAILs undeclared; a pairwise sum declared k
 *     FAILs naming the k order on data where the two differ, the sequential one PASSes, and
 *     the public API takes the order as a mode suffix and refuses an unknown one. */
#include <criterion/criterion.h>
#include <fenv.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuval.h"
#include "core/envelope.h"
#include "core/inputs.h"
#include "core/knobs.h"
#include "testkit.h"

static void envelope_on(void)
{
    setenv("GPUVAL_ENVELOPE", "1", 1);
    gv_knobs_reload();
}
TestSuite(model_sum_order, .init = envelope_on);

static void emit(const char *line)
{
    cr_log_info("%s", line);
    printf("%s\n", line);
    fflush(stdout);
}

/* The kernel, literally: __shfl_down_sync(v, off) gives lane l the value of lane l + off, its
   own where l + off >= 32; every lane adds. T float or double. */
#define KERNEL(T, NAME)                                                                            \
    static void NAME##_shfl_down(T *lane, int off)                                                 \
    {                                                                                              \
        T got[32];                                                                                 \
        for (int l = 0; l < 32; l++)                                                               \
            got[l] = l + off < 32 ? lane[l + off] : lane[l];                                       \
        for (int l = 0; l < 32; l++)                                                               \
            lane[l] = lane[l] + got[l];                                                            \
    }                                                                                              \
    static T NAME##_block(const T *x, int64_t start, int64_t n)                                    \
    {                                                                                              \
        T a[256], warp_sums[8];                                                                    \
        for (int t = 0; t < 256; t++) {                                                            \
            T v[8];                                                                                \
            for (int j = 0; j < 8; j++) {                                                          \
                int64_t i = start + t + (int64_t)j * 256;                                          \
                v[j] = i < n ? x[i] : (T)0;                                                        \
            }                                                                                      \
            a[t] = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));              \
        }                                                                                          \
        for (int w = 0; w < 8; w++) {                                                              \
            for (int off = 16; off > 0; off >>= 1)                                                 \
                NAME##_shfl_down(a + 32 * w, off);                                                 \
            warp_sums[w] = a[32 * w];                                                              \
        }                                                                                          \
        T b[32];                                                                                   \
        for (int l = 0; l < 32; l++)                                                               \
            b[l] = l < 8 ? warp_sums[l] : (T)0;                                                    \
        for (int off = 4; off > 0; off >>= 1)                                                      \
            NAME##_shfl_down(b, off);                                                              \
        return b[0];                                                                               \
    }                                                                                              \
    /* reduce.sum (onepass false) or reduce.sum.onepass */                                         \
    static T NAME(const T *x, int64_t n, bool onepass)                                             \
    {                                                                                              \
        int64_t blocks = n < 1 ? 1 : (n + 2047) / 2048;                                            \
        T *part = calloc((size_t)blocks, sizeof(T)); /* zeroed: gcc -O2 with the sanitizers cannot \
                                                        see that blocks >= 1 fills part[0] */      \
        cr_assert_not_null(part);                                                                  \
        for (int64_t b = 0; b < blocks; b++)                                                       \
            part[b] = NAME##_block(x, b * 2048, n);                                                \
        T s = part[0];                                                                             \
        if (onepass) {                                                                             \
            for (int64_t g = 0; blocks > 1 && g < blocks; g += 2048) {                             \
                T t = NAME##_block(part, g, blocks);                                               \
                s = g == 0 ? t : s + t;                                                            \
            }                                                                                      \
        } else {                                                                                   \
            while (blocks > 1) {                                                                   \
                int64_t up = (blocks + 2047) / 2048;                                               \
                for (int64_t b = 0; b < up; b++)                                                   \
                    part[b] = NAME##_block(part, b * 2048, blocks);                                \
                blocks = up;                                                                       \
            }                                                                                      \
            s = part[0];                                                                           \
        }                                                                                          \
        free(part);                                                                                \
        return s;                                                                                  \
    }
KERNEL(float, kernel_f32)
KERNEL(double, kernel_f64)

typedef enum sumk { S_TREE, S_SEQ, S_PAIRWISE, S_BLOCK64, NSUMK } sumk;
static const char *const sumk_names[NSUMK] = {"kernel tree", "sequential", "pairwise",
                                              "blocks of 64"};

/* One sum of x (the case's dtype) by q, rounding toward zero where rz. */
static double sum_by(gv_dtype t, const void *x, int64_t n, sumk q, bool rz, bool onepass)
{
    int saved = fegetround();
    if (rz) fesetround(FE_TOWARDZERO);
    double s = 0.0;
#define ORDERS(T, KERNEL_FN)                                                                       \
    do {                                                                                           \
        const T *v = x;                                                                            \
        T acc = 0, part = 0;                                                                       \
        if (q == S_TREE) {                                                                         \
            acc = KERNEL_FN(v, n, onepass);                                                        \
        } else if (q == S_SEQ) {                                                                   \
            for (int64_t l = 0; l < n; l++)                                                        \
                acc = acc + v[l];                                                                  \
        } else if (q == S_BLOCK64) {                                                               \
            for (int64_t l = 0; l < n; l++) {                                                      \
                part = part + v[l];                                                                \
                if ((l + 1) % 64 == 0 || l + 1 == n) acc = acc + part, part = 0;                   \
            }                                                                                      \
        } else { /* recursive pairwise: halves */                                                  \
            T *tmp = malloc(sizeof(T) * (size_t)n);                                                \
            cr_assert_not_null(tmp);                                                               \
            memcpy(tmp, v, sizeof(T) * (size_t)n);                                                 \
            for (int64_t len = n; len > 1; len = (len + 1) / 2) {                                  \
                for (int64_t i = 0; i < len / 2; i++)                                              \
                    tmp[i] = tmp[2 * i] + tmp[2 * i + 1];                                          \
                if (len & 1) tmp[len / 2] = tmp[len - 1];                                          \
            }                                                                                      \
            acc = tmp[0];                                                                          \
            free(tmp);                                                                             \
        }                                                                                          \
        s = (double)acc;                                                                           \
    } while (0)
    if (t == GV_F32)
        ORDERS(float, kernel_f32);
    else
        ORDERS(double, kernel_f64);
    fesetround(saved);
    return s;
}

/* ---- generated inputs: check's own outputs, the kernel's tree known --------------------- */

/* The verdict of op's case (dt, dist, n, seed) with its output computed by the kernel's tree,
   rounding toward zero where rz, as check judges gpuval's own outputs. */
static gv_result generated(const char *op, gv_dtype dt, gv_dist dist, int64_t n, uint64_t seed,
                           bool rz)
{
    gv_case c = gv_test_case(op, dt, GV_MODE_NATIVE, dist, (gv_shape){1, {n}}, seed);
    gv_problem p;
    gv_test_problem(&p, &c);
    bool onepass = strcmp(op, "reduce.sum.onepass") == 0;
    double s = sum_by(dt, p.in[0].data, n, S_TREE, rz, onepass);
    gv_dtype_store(dt, p.out[0].data, 0, s);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    return r;
}

static void row(const char *what, const gv_result *r)
{
    char line[900];
    snprintf(line, sizeof line, "%s: %s (%s) [%s] envelope %.1f ms", what,
             gv_verdict_name(r->verdict), r->reason, r->env.judged ? r->env.note : r->env.why_not,
             r->env.ms);
    emit(line);
}

static void mutant_fails(const char *op, gv_dtype dt, int64_t n, uint64_t seed)
{
    char what[160];
    gv_result ok = generated(op, dt, GV_DIST_UNIFORM01, n, seed, false);
    snprintf(what, sizeof what, "%s %s n=%lld seed %llu generated, correct tree", op,
             gv_dtype_name(dt), (long long)n, (unsigned long long)seed);
    row(what, &ok);
    cr_expect(ok.env.judged, "%s: %s", what, ok.env.why_not);
    cr_expect_eq(ok.verdict, GV_PASS, "%s: %s", what, ok.reason);
    cr_expect_eq(ok.env.d_max, 0.0, "%s: the replay is bit for bit", what);
    gv_result bad = generated(op, dt, GV_DIST_UNIFORM01, n, seed, true);
    snprintf(what, sizeof what, "%s %s n=%lld seed %llu generated, tree rounding toward zero", op,
             gv_dtype_name(dt), (long long)n, (unsigned long long)seed);
    row(what, &bad);
    cr_expect_eq(bad.verdict, GV_FAIL, "%s: %s", what, bad.reason);
    cr_expect(strstr(bad.reason, "round-toward-zero") != NULL, "%s: %s", what, bad.reason);
}

Test(model_sum_order, generated_rz_tree_fails, .timeout = 600)
{
    static const int64_t ns[] = {100000, 1000000};
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < 2; i++)
            for (uint64_t seed = 0; seed < 3; seed++)
                mutant_fails("reduce.sum", d ? GV_F64 : GV_F32, ns[i], seed);
    mutant_fails("reduce.sum.onepass", GV_F32, 1000000, 1);
    mutant_fails("reduce.sum.onepass", GV_F64, 100000, 2);
}

Test(model_sum_order, generated_rz_tree_fails_2e7, .timeout = 600)
{
    mutant_fails("reduce.sum", GV_F32, 20000000, 0);
    mutant_fails("reduce.sum", GV_F64, 20000000, 5);
    mutant_fails("reduce.sum.onepass", GV_F32, 20000000, 0);
}

/* The tree's first level is replayed on every core where one sum is judged: one thread and
   two give the same judgement to the bit, for the correct tree and the mutant (whose replay
   runs toward zero on every thread: a worker left to nearest would move the rz arithmetic's
   results, and with them its share and the mutant's distances). */
Test(model_sum_order, one_sum_replay_thread_count_free, .timeout = 600)
{
    for (int d = 0; d < 2; d++)
        for (int rz = 0; rz < 2; rz++) {
            gv_dtype dt = d ? GV_F64 : GV_F32;
            omp_set_num_threads(1);
            gv_result one = generated("reduce.sum", dt, GV_DIST_UNIFORM01, 3000001, 4, rz);
            omp_set_num_threads(2);
            gv_result two = generated("reduce.sum", dt, GV_DIST_UNIFORM01, 3000001, 4, rz);
            cr_assert(one.env.judged && two.env.judged, "%s / %s", one.env.why_not,
                      two.env.why_not);
            cr_expect_eq(one.verdict, rz ? GV_FAIL : GV_PASS, "%s", one.reason);
            cr_expect_eq(one.verdict, two.verdict);
            cr_expect_eq(one.env.d_max, two.env.d_max, "%s rz %d: d_max %.17g and %.17g",
                         gv_dtype_name(dt), rz, one.env.d_max, two.env.d_max);
            cr_expect_eq(one.env.z, two.env.z);
            cr_expect_eq(one.env.n_arith, two.env.n_arith);
            for (int a = 0; a < one.env.n_arith; a++)
                cr_expect_eq(one.env.arith[a].share, two.env.arith[a].share, "arith %d", a);
            cr_expect_str_eq(one.reason, two.reason);
            char line[300];
            snprintf(line, sizeof line,
                     "reduce.sum %s n=3000001 rz %d: envelope %.1f ms on 1 "
                     "thread, %.1f ms on 2",
                     gv_dtype_name(dt), rz, one.env.ms, two.env.ms);
            emit(line);
        }
}

/* The planted op: its case is reduce.sum's, its kernel the mutant. */
Test(model_sum_order, planted_rz_op, .timeout = 300)
{
    const gv_op *op = gv_op_find("reduce.sum.rz");
    cr_assert_not_null(op);
    cr_assert_not_null(op->planted_bug);
    cr_assert_eq(op->env_order, GV_ORDER_TREE);
    gv_result bad = generated("reduce.sum.rz", GV_F32, GV_DIST_UNIFORM01, 100000, 0, true);
    row("reduce.sum.rz f32 n=100000 (emulated)", &bad);
    cr_expect_eq(bad.verdict, GV_FAIL, "%s", bad.reason);
}

/* Every dist of the op, both dtypes, three seeds: the correct tree PASSes. */
Test(model_sum_order, generated_correct_every_dist, .timeout = 600)
{
    const gv_op *op = gv_op_find("reduce.sum");
    cr_assert_not_null(op);
    int judged = 0;
    for (int d = 0; d < GV_NDISTS; d++) {
        if (!(op->dists & (1u << d))) continue;
        for (int t = 0; t < 2; t++)
            for (uint64_t seed = 0; seed < 3; seed++) {
                gv_result r = generated("reduce.sum", t ? GV_F64 : GV_F32, (gv_dist)d, 100003,
                                        seed + 11, false);
                char what[160];
                snprintf(what, sizeof what, "reduce.sum %s %s n=100003 seed %llu, correct tree",
                         t ? "f64" : "f32", gv_dist_name((gv_dist)d),
                         (unsigned long long)seed + 11);
                if (seed == 0) row(what, &r);
                cr_expect(r.verdict == GV_PASS || r.verdict == GV_SKIP, "%s: %s %s", what,
                          gv_verdict_name(r.verdict), r.reason);
                cr_expect(!r.env.judged || r.env.d_max == 0.0, "%s: d %g", what, r.env.d_max);
                judged += r.env.judged;
            }
    }
    cr_expect_gt(judged, 10);
}

/* ---- given inputs: outputs computed elsewhere, order-free unless declared --------------- */

/* op reduce.sum on x (dt, n values) as given data, the output s, the order declared (NULL:
   none), as gpuval judge takes them. */
static gv_result given(gv_dtype dt, const void *x, int64_t n, double s, const char *order)
{
    gv_case c =
        gv_test_case("reduce.sum", dt, GV_MODE_NATIVE, GV_DIST_UNIFORM01, (gv_shape){1, {n}}, 0);
    gv_given_inputs g = {1, {x}, {n}, GV_INPUTS_GIVEN};
    gv_result r;
    gv_problem p;
    gv_result_init(&r, &c);
    gv_result_order_free(&r);
    char why[160];
    cr_assert_eq(gv_env_order_parse(order, &r.env.order, why, sizeof why), GV_OK, "%s", why);
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_problem_given(&p, &g, &r), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    gv_dtype_store(dt, p.out[0].data, 0, s);
    gv_judge_problem(&p, &r);
    gv_problem_free(&p);
    return r;
}

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void *uniform(gv_dtype dt, int64_t n, uint64_t seed, double lo)
{
    void *x = malloc(gv_dtype_size(dt) * (size_t)n);
    cr_assert_not_null(x);
    for (int64_t i = 0; i < n; i++)
        gv_dtype_store(dt, x, i, lo + (1.0 - lo) * (double)(mix(&seed) >> 11) * 0x1p-53);
    return x;
}

static void given_sums(gv_dtype dt, int64_t n)
{
    void *x = uniform(dt, n, 42, 0.0);
    char what[200];
    for (int q = 0; q < NSUMK; q++) {
        gv_result r = given(dt, x, n, sum_by(dt, x, n, (sumk)q, false, false), NULL);
        snprintf(what, sizeof what, "reduce.sum %s n=%lld given, %s, any order", gv_dtype_name(dt),
                 (long long)n, sumk_names[q]);
        row(what, &r);
        cr_expect(r.env.judged, "%s", r.env.why_not);
        cr_expect_eq(r.verdict, GV_PASS, "%s: %s", what, r.reason);
    }
    /* the mutant tree: inside the spread of RN orders undeclared, outside its own tree's */
    double rz_tree = sum_by(dt, x, n, S_TREE, true, false);
    gv_result any = given(dt, x, n, rz_tree, NULL);
    snprintf(what, sizeof what, "reduce.sum %s n=%lld given, tree toward zero, any order",
             gv_dtype_name(dt), (long long)n);
    row(what, &any);
    gv_result tree = given(dt, x, n, rz_tree, "tree");
    snprintf(what, sizeof what, "reduce.sum %s n=%lld given, tree toward zero, --order tree",
             gv_dtype_name(dt), (long long)n);
    row(what, &tree);
    cr_expect_eq(tree.verdict, GV_FAIL, "%s: %s", what, tree.reason);
    cr_expect(strstr(tree.reason, "round-toward-zero") != NULL, "%s: %s", what, tree.reason);
    cr_expect(strstr(tree.reason, "tree order") != NULL, "%s: %s", what, tree.reason);
    gv_result tree_ok = given(dt, x, n, sum_by(dt, x, n, S_TREE, false, false), "tree");
    snprintf(what, sizeof what, "reduce.sum %s n=%lld given, tree, --order tree", gv_dtype_name(dt),
             (long long)n);
    row(what, &tree_ok);
    cr_expect_eq(tree_ok.verdict, GV_PASS, "%s: %s", what, tree_ok.reason);
    /* a sequential chain toward zero errs ~ -n u|s|/2: outside every RN order's spread */
    gv_result seq_rz = given(dt, x, n, sum_by(dt, x, n, S_SEQ, true, false), NULL);
    snprintf(what, sizeof what, "reduce.sum %s n=%lld given, sequential toward zero, any order",
             gv_dtype_name(dt), (long long)n);
    row(what, &seq_rz);
    cr_expect_eq(seq_rz.verdict, GV_FAIL, "%s: %s", what, seq_rz.reason);
    free(x);
}

Test(model_sum_order, given_sums_f32, .timeout = 600)
{
    given_sums(GV_F32, 100000);
    given_sums(GV_F32, 1000000);
    given_sums(GV_F32, 20000000);
}

Test(model_sum_order, given_sums_f64, .timeout = 600)
{
    given_sums(GV_F64, 100000);
    given_sums(GV_F64, 1000000);
}

/* Data where the orders differ by far more than an ulp of the sum: uniform [-1, 1) with the
   last term cancelling the rest, so that |s| is tiny beside sum |x|. */
Test(model_sum_order, declared_k, .timeout = 300)
{
    const int64_t n = 1000000;
    float *x = uniform(GV_F32, n, 7, -1.0);
    double rest = 0.0;
    for (int64_t i = 0; i < n - 1; i++)
        rest += x[i];
    x[n - 1] = (float)-rest;
    double seq = sum_by(GV_F32, x, n, S_SEQ, false, false);
    double pw = sum_by(GV_F32, x, n, S_PAIRWISE, false, false);
    cr_assert_neq(seq, pw);
    gv_result ok = given(GV_F32, x, n, seq, "k");
    row("cancelling f32 n=1e6, sequential declared k", &ok);
    cr_expect_eq(ok.verdict, GV_PASS, "%s", ok.reason);
    gv_result bad = given(GV_F32, x, n, pw, "k");
    row("cancelling f32 n=1e6, pairwise declared k", &bad);
    cr_expect_eq(bad.verdict, GV_FAIL, "%s", bad.reason);
    cr_expect(strstr(bad.reason, "f32 in k order") != NULL, "%s", bad.reason);
    gv_result pw_ok = given(GV_F32, x, n, pw, "pairwise");
    row("cancelling f32 n=1e6, pairwise declared pairwise", &pw_ok);
    cr_expect_eq(pw_ok.verdict, GV_PASS, "%s", pw_ok.reason);
    gv_result any = given(GV_F32, x, n, pw, NULL);
    cr_expect_eq(any.verdict, GV_PASS, "%s", any.reason);
    double blk = sum_by(GV_F32, x, n, S_BLOCK64, false, false);
    gv_result b64 = given(GV_F32, x, n, blk, "blocked:64");
    row("cancelling f32 n=1e6, blocks of 64 declared blocked:64", &b64);
    cr_expect_eq(b64.verdict, GV_PASS, "%s", b64.reason);

    /* the public API: the order as the mode's suffix, an unknown one refused */
    gv_array in = {GV_DTYPE_F32, x, n, "x"};
    float s32 = (float)pw;
    gv_array out = {GV_DTYPE_F32, &s32, 1, "s"};
    gv_judge_spec spec = {.op = "reduce.sum",
                          .mode = "native+order=k",
                          .size = "1000000",
                          .n_in = 1,
                          .n_out = 1,
                          .in = &in,
                          .out = &out};
    gv_judgement j;
    cr_assert_eq(gv_judge(&spec, &j), GV_API_OK, "%s", j.reason);
    cr_expect_eq(j.verdict, GV_VERDICT_FAIL, "%s", j.reason);
    gv_judgement_free(&j);
    spec.mode = "native+order=pairwise+ftz";
    cr_assert_eq(gv_judge(&spec, &j), GV_API_OK, "%s", j.reason);
    cr_expect_eq(j.verdict, GV_VERDICT_PASS, "%s", j.reason);
    gv_judgement_free(&j);
    spec.mode = "native+order=zigzag";
    cr_expect_eq(gv_judge(&spec, &j), GV_API_EINVAL);
    cr_expect(strstr(j.reason, "no order 'zigzag'") != NULL, "%s", j.reason);
    gv_judgement_free(&j);
    free(x);
}

/* Every dist reduce.sum's default cases and canaries take, at n = 10^5 and 1000003 (the
   canaries' size), f32 and f64, on check's own outputs (the tree known): the correct tree
   PASSes; the tree rounding toward zero FAILs naming round-toward-zero wherever its output
   differs and is finite. Before the exact-impostor rule, f64 on uniform [-1, 1) at 1000003,
   tiny at both sizes and huge at 10^5 lay 1 or 2 widths out (inside the bound) and PASSed;
   now they FAIL as the outputs are the rz replay's bits. */
Test(model_sum_order, generated_rz_tree_every_dist, .timeout = 600)
{
    static const gv_dist dists[] = {GV_DIST_UNIFORM01, GV_DIST_UNIFORM11, GV_DIST_TINY,
                                    GV_DIST_HUGE, GV_DIST_SPARSE_SPECIAL};
    static const int64_t ns[] = {100000, 1000003};
    int failed = 0;
    for (int t = 0; t < 2; t++)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
            for (int i = 0; i < 2; i++) {
                gv_dtype dt = t ? GV_F64 : GV_F32;
                gv_result ok = generated("reduce.sum", dt, dists[d], ns[i], 3, false);
                gv_result bad = generated("reduce.sum", dt, dists[d], ns[i], 3, true);
                char what[160];
                snprintf(what, sizeof what, "reduce.sum %s %s n=%lld generated, RN tree",
                         gv_dtype_name(dt), gv_dist_name(dists[d]), (long long)ns[i]);
                row(what, &ok);
                cr_expect_eq(ok.verdict, GV_PASS, "%s: %s", what, ok.reason);
                snprintf(what, sizeof what, "reduce.sum %s %s n=%lld generated, RZ tree",
                         gv_dtype_name(dt), gv_dist_name(dists[d]), (long long)ns[i]);
                row(what, &bad);
                bool differs =
                    bad.env.judged && ok.env.judged && bad.env.worst_value != ok.env.worst_value;
                if (!differs) continue; /* NaN sums (sparse-special): nothing to see */
                cr_expect_eq(bad.verdict, GV_FAIL, "%s: %s", what, bad.reason);
                cr_expect(strstr(bad.reason, "round-toward-zero") != NULL, "%s: %s", what,
                          bad.reason);
                failed += bad.verdict == GV_FAIL;
            }
    cr_expect_geq(failed, 16, "%d RZ trees FAILed", failed);
}

/* Given inputs with check's own outputs (check --inputs: the kernel's tree known, not an
   output computed elsewhere): the RZ tree FAILs, the correct one PASSes. */
Test(model_sum_order, given_inputs_kernel_tree, .timeout = 300)
{
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        const int64_t n = 100000;
        void *x = uniform(dt, n, 5, -1.0);
        for (int rz = 0; rz < 2; rz++) {
            gv_case c = gv_test_case("reduce.sum", dt, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                                     (gv_shape){1, {n}}, 0);
            gv_given_inputs g = {1, {x}, {n}, GV_INPUTS_GIVEN};
            gv_result r;
            gv_problem p;
            gv_result_init(&r, &c);
            cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
            cr_assert_eq(gv_problem_given(&p, &g, &r), GV_OK);
            cr_assert_eq(gv_reference(&p), GV_OK);
            gv_dtype_store(dt, p.out[0].data, 0, sum_by(dt, x, n, S_TREE, rz, false));
            gv_judge_problem(&p, &r);
            gv_problem_free(&p);
            char what[160];
            snprintf(what, sizeof what, "reduce.sum %s n=%lld given, check's own %s tree",
                     gv_dtype_name(dt), (long long)n, rz ? "RZ" : "RN");
            row(what, &r);
            cr_expect(r.env.judged, "%s: %s", what, r.env.why_not);
            cr_expect_eq(r.verdict, rz ? GV_FAIL : GV_PASS, "%s: %s", what, r.reason);
            if (rz)
                cr_expect(strstr(r.reason, "round-toward-zero") != NULL, "%s: %s", what, r.reason);
        }
        free(x);
    }
}
