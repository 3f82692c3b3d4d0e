/* test_repeat.c: check --repeat's judgement (src/core/repeat.c) on hand-planted launches: byte
 * differences are found and measured (values, ulps, NaN, signed zero), a deterministic op
 * FAILs naming the element, an op that declares itself nondeterministic keeps its verdict
 * and reports the spread. The launches themselves need a device (tests/gpu/test_faults.c).
 * Repeat canaries (gv_op.repeat_canaries): parsed, selected by a plain check (in the case list of
 * `gpuval check`), and launched as often as they ask wherever their case comes from. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/run_doc.h"
#include "render/run_text.h"
#include "core/registry.h"
#include "core/repeat.h"
#include "testkit.h"

static int one_layout(const gv_case *c, gv_layout *l)
{
    *l = (gv_layout){.n_in = 0, .n_out = 1};
    l->out[0] = (gv_tensor_spec){"s", c->shape.d[0]};
    return GV_OK;
}

static double zero(const gv_case *c)
{
    (void)c;
    return 0.0;
}

static double one(const gv_case *c)
{
    (void)c;
    return 1.0;
}

static int no_inputs(gv_problem *p)
{
    (void)p;
    return GV_OK;
}

#define COMMON                                                                                     \
    .family = "fake", .dims = "n", .dtypes = 3u, .modes = 1u << GV_MODE_NATIVE,                    \
    .layout = one_layout, .flops = zero, .bytes = zero, .make_inputs = no_inputs, .depth = one

static const gv_op steady = {.name = "steady", COMMON};
static const gv_op racy = {.name = "racy", .nondeterministic = "atomics", COMMON};

/* A judged first launch of op: outputs equal to the references 1, 2, ..., n (a PASS). */
static void first_launch(gv_problem *p, gv_result *r, const gv_op *op, gv_dtype t, int64_t n)
{
    gv_case c = {op, t, GV_MODE_NATIVE, GV_DIST_UNIFORM01, {1, {n}}, 0};
    cr_assert_eq(gv_problem_init(p, &c), GV_OK);
    for (int64_t i = 0; i < n; i++) {
        p->out[0].ref[i] = (double)(i + 1);
        p->out[0].gauge[i] = (double)(i + 1);
        gv_dtype_store(t, p->out[0].data, i, (double)(i + 1));
    }
    *r = gv_test_judge(p);
    cr_assert_eq(r->verdict, GV_PASS, "%s", r->reason);
}

Test(repeat, identical_repeats_pass)
{
    gv_problem p;
    gv_result r;
    first_launch(&p, &r, &steady, GV_F32, 5);
    float again[5] = {1, 2, 3, 4, 5};
    gv_repeat_diff d = {0};
    gv_repeat_diff_output(&p, 0, again, &d);
    cr_expect_eq(d.differing, 0);
    gv_repeat_record(&p, &r, 3, 0, &d, &d);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    cr_expect_eq(gv_test_extra(&r, "repeats"), 3);
    cr_expect_eq(gv_test_extra(&r, "repeat_differing"), 0);
    gv_problem_free(&p);
}

Test(repeat, one_ulp_fails_a_deterministic_op_naming_the_element)
{
    gv_problem p;
    gv_result r;
    first_launch(&p, &r, &steady, GV_F32, 5);
    float again[5] = {1, 2, 3, nextafterf(4.0f, 5.0f), 5};
    gv_repeat_diff d = {0};
    gv_repeat_diff_output(&p, 0, again, &d);
    cr_expect_eq(d.differing, 1);
    cr_expect_eq(d.first_index, 3);
    cr_expect_eq(d.max_abs, 0x1p-21); /* one ulp of 4 in f32 */
    cr_expect_eq(d.max_ulp, 1.0);
    gv_repeat_record(&p, &r, 3, 2, &d, &d);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect(strstr(r.reason, "not deterministic: repeat 2 of 3 differs in 1 of 5 elements, "
                               "first s element 3: 4, then 4.00000048") != NULL,
              "reason: %s", r.reason);
    gv_problem_free(&p);
}

Test(repeat, nondeterministic_op_reports_its_spread_only)
{
    gv_problem p;
    gv_result r;
    first_launch(&p, &r, &racy, GV_F64, 4);
    double again[4] = {1, 2 + 0x1p-51 * 2, 3, 4}; /* 2 ulps at 2 in f64 */
    gv_repeat_diff d = {0};
    gv_repeat_diff_output(&p, 0, again, &d);
    gv_repeat_record(&p, &r, 2, 2, &d, &d);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    cr_expect_eq(gv_test_extra(&r, "repeat_differing"), 1);
    cr_expect_eq(gv_test_extra(&r, "repeat_max_ulp_diff"), 2.0);
    cr_expect_eq(gv_test_extra(&r, "repeat_max_abs_diff"), 0x1p-50);
    /* the table row says so, with the op's own reason */
    char *row = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&row, &len);
    cr_assert_not_null(f);
    gv_table_row(f, &r);
    fclose(f);
    cr_expect(strstr(row, " PASS [nondeterministic (atomics): 2 launches, up to 1 elements differ, "
                          "by up to 2 ulps]") != NULL,
              "row: %s", row);
    free(row);
    gv_problem_free(&p);
}

Test(repeat, signed_zero_and_nan_differ)
{
    gv_problem p;
    gv_result r;
    first_launch(&p, &r, &steady, GV_F64, 3);
    p.out[0].ref[0] = 0.0;
    ((double *)p.out[0].data)[0] = 0.0;
    double again[3] = {-0.0, NAN, 3};
    gv_repeat_diff d = {0};
    gv_repeat_diff_output(&p, 0, again, &d);
    cr_expect_eq(d.differing, 2);
    cr_expect_eq(d.first_index, 0);
    cr_expect(isinf(d.max_abs) && isinf(d.max_ulp), "a NaN is infinitely far: %g %g", d.max_abs,
              d.max_ulp);
    gv_problem_free(&p);
}

/* ---- Repeat canaries (gv_op.repeat_canaries): selected by a plain check, launched again ---- */

/* The ops whose kernels communicate between blocks inside one launch (a ticket counter and a
   last block, or atomics into one result), found by reading kernels/: each must declare a
   repeat canary. (gemm.cublas's fp8 amax uses atomicMax, exact in any order, in a mode the
   native-only canaries do not reach; kernels/xfer.cu's input hash is not an op.) */
static const char *const communicating[] = {
    "reduce.sum.onepass", "reduce.sum.nofence", "reduce.sum.racy",
    "reduce.colsum",      "matmul_colsum",      "einsum.colsum",
};

static int canaries_of(const gv_op *op, gv_dist *d, gv_shape *s, int *k)
{
    char err[256] = "";
    int n = gv_repeat_canaries_parse(op, d, s, k, GV_MAX_REPEAT_CANARIES, err, sizeof err);
    cr_assert_geq(n, 0, "%s: %s", op->name, err);
    return n;
}

/* How many cases of sel are (op, t, native, d, s); *repeats: what gv_case_repeats gives them. */
static int selected(const gv_selection *sel, const gv_op *op, gv_dtype t, gv_dist d,
                    const gv_shape *s, int *repeats)
{
    gv_case *cases = NULL;
    char err[256] = "";
    int n = gv_select(sel, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s", err);
    int hits = 0;
    for (int i = 0; i < n; i++) {
        const gv_case *c = &cases[i];
        if (c->op == op && c->dtype == t && c->mode == GV_MODE_NATIVE && c->dist == d &&
            gv_repeat_same_shape(&c->shape, s)) {
            hits++;
            *repeats = gv_case_repeats(c, 1);
        }
    }
    free(cases);
    return hits;
}

Test(repeat_canary, communicating_ops_declare_one)
{
    for (size_t i = 0; i < sizeof communicating / sizeof *communicating; i++) {
        const gv_op *op = gv_op_find(communicating[i]);
        cr_assert_not_null(op, "%s is registered", communicating[i]);
        gv_dist d[GV_MAX_REPEAT_CANARIES];
        gv_shape s[GV_MAX_REPEAT_CANARIES];
        int k[GV_MAX_REPEAT_CANARIES];
        cr_expect_gt(canaries_of(op, d, s, k), 0, "%s declares no repeat canary", op->name);
    }
}

/* Every declared canary, of every op: in the default catalogue (planted ops: with --planted or
   named) and at test sizes, once a dtype, native, and launched as often as it asks. */
Test(repeat_canary, plain_selection_holds_every_canary_once_with_its_launches)
{
    int found = 0;
    for (const gv_op *const *opp = gv_registry(); *opp; opp++) {
        const gv_op *op = *opp;
        gv_dist d[GV_MAX_REPEAT_CANARIES];
        gv_shape s[GV_MAX_REPEAT_CANARIES];
        int k[GV_MAX_REPEAT_CANARIES];
        int n = canaries_of(op, d, s, k);
        for (int j = 0; j < n; j++) {
            cr_expect_geq(k[j], 2, "%s: a canary of one launch judges nothing", op->name);
            for (int t = 0; t < GV_NDTYPES; t++) {
                if (!gv_mode_ok(op, (gv_dtype)t, GV_MODE_NATIVE)) continue;
                for (int test_sizes = 0; test_sizes < 2; test_sizes++) {
                    gv_selection sel = {.dist = -1, .test_shapes = test_sizes, .seed = 7};
                    /* a planted op is out of the plain catalogue: selected by its name */
                    if (op->planted_bug || op->planted_slow) sel.op_glob = op->name;
                    int repeats = 0;
                    cr_expect_eq(selected(&sel, op, (gv_dtype)t, d[j], &s[j], &repeats), 1,
                                 "%s %s canary %d (test sizes %d) selected once", op->name,
                                 gv_dtype_name((gv_dtype)t), j, test_sizes);
                    cr_expect_eq(repeats, k[j], "%s: %d launches, the canary asks for %d", op->name,
                                 repeats, k[j]);
                    found++;
                }
            }
        }
    }
    /* onepass and the column sums in the plain catalogue, f32 and f64, at two size choices */
    cr_expect_geq(found, 16, "%d canary cases", found);

    /* planted ones stay out of the plain catalogue */
    const gv_op *nofence = gv_op_find("reduce.sum.nofence");
    cr_assert_not_null(nofence);
    gv_dist d[GV_MAX_REPEAT_CANARIES];
    gv_shape s[GV_MAX_REPEAT_CANARIES];
    int k[GV_MAX_REPEAT_CANARIES];
    cr_assert_eq(canaries_of(nofence, d, s, k), 1);
    gv_selection plain = {.dist = -1, .seed = 7};
    int repeats = 0;
    cr_expect_eq(selected(&plain, nofence, GV_F32, d[0], &s[0], &repeats), 0);
    gv_selection planted = {.dist = -1, .planted = true, .seed = 7};
    cr_expect_eq(selected(&planted, nofence, GV_F32, d[0], &s[0], &repeats), 1);
}

/* Like canaries, repeat canaries come with the op's own sizes and distribution only; a case
   with the canary's key is one wherever it comes from (--size, a run file). */
Test(repeat_canary, explicit_shape_or_distribution_leaves_them_out_but_the_key_counts)
{
    const gv_op *op = gv_op_find("reduce.sum.onepass");
    cr_assert_not_null(op);
    gv_dist d[GV_MAX_REPEAT_CANARIES];
    gv_shape s[GV_MAX_REPEAT_CANARIES];
    int k[GV_MAX_REPEAT_CANARIES];
    cr_assert_eq(canaries_of(op, d, s, k), 1);
    gv_shape other = {1, {1000}};
    gv_selection sized = {.op_glob = op->name, .dist = -1, .shapes = &other, .n_shapes = 1};
    int repeats = 0;
    cr_expect_eq(selected(&sized, op, GV_F32, d[0], &s[0], &repeats), 0);
    gv_selection dist = {.op_glob = op->name, .dist = (int)GV_DIST_UNIFORM11};
    cr_expect_eq(selected(&dist, op, GV_F32, d[0], &s[0], &repeats), 0);

    gv_case c = {op, GV_F64, GV_MODE_NATIVE, d[0], s[0], 3};
    cr_expect_eq(gv_case_repeats(&c, 1), k[0]);
    cr_expect_eq(gv_case_repeats(&c, 0), k[0]);
    cr_expect_eq(gv_case_repeats(&c, k[0] + 5), k[0] + 5, "the larger count wins");
    c.dist = GV_DIST_UNIFORM11;
    cr_expect_eq(gv_case_repeats(&c, 1), 1, "another distribution is another case");
    c.dist = d[0];
    c.shape.d[0] += 1;
    cr_expect_eq(gv_case_repeats(&c, 3), 3, "another shape is another case");
}

#define TWO_DISTS ((1u << GV_DIST_UNIFORM01) | (1u << GV_DIST_UNIFORM11))
static const gv_op bad_launches = {
    .name = "bad.launches", .repeat_canaries = "uniform01:100:1", .dists = TWO_DISTS, COMMON};
static const gv_op bad_dist = {.name = "bad.dist",
                               .repeat_canaries = "uniform11:100:4",
                               .dists = 1u << GV_DIST_UNIFORM01,
                               COMMON};
static const gv_op bad_form = {
    .name = "bad.form", .repeat_canaries = "uniform01:100", .dists = TWO_DISTS, COMMON};
static const gv_op good_two = {.name = "good.two",
                               .repeat_canaries = "uniform01:100:4,uniform11:7:2",
                               .dists = TWO_DISTS,
                               COMMON};

Test(repeat_canary, malformed_lists_are_named)
{
    gv_dist d[GV_MAX_REPEAT_CANARIES];
    gv_shape s[GV_MAX_REPEAT_CANARIES];
    int k[GV_MAX_REPEAT_CANARIES];
    char err[256];
    cr_expect_eq(gv_repeat_canaries_parse(&bad_launches, d, s, k, 8, err, sizeof err), GV_EINVAL);
    cr_expect(strstr(err, "bad.launches: repeat canary launches '1'") != NULL, "%s", err);
    cr_expect_eq(gv_repeat_canaries_parse(&bad_dist, d, s, k, 8, err, sizeof err), GV_EINVAL);
    cr_expect(strstr(err, "bad.dist: repeat canary distribution 'uniform11'") != NULL, "%s", err);
    cr_expect_eq(gv_repeat_canaries_parse(&bad_form, d, s, k, 8, err, sizeof err), GV_EINVAL);
    cr_expect(strstr(err, "bad.form: malformed repeat canary list") != NULL, "%s", err);
    cr_expect_eq(gv_repeat_canaries_parse(&good_two, d, s, k, 1, err, sizeof err), GV_EINVAL,
                 "more entries than room");
    cr_assert_eq(gv_repeat_canaries_parse(&good_two, d, s, k, 8, err, sizeof err), 2, "%s", err);
    cr_expect(d[0] == GV_DIST_UNIFORM01 && s[0].nd == 1 && s[0].d[0] == 100 && k[0] == 4);
    cr_expect(d[1] == GV_DIST_UNIFORM11 && s[1].nd == 1 && s[1].d[0] == 7 && k[1] == 2);
    /* a malformed list is no canary at run time (gv_select refuses it before) */
    gv_case c = {&bad_form, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, {1, {100}}, 0};
    cr_expect_eq(gv_case_repeats(&c, 1), 1);
}

/* A plain `gpuval check` lists every repeat canary of the default catalogue as a case of its
   own (run here with no device visible: every case a SKIP row, exit 77). */
Test(repeat_canary, plain_check_lists_them, .timeout = 120)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1); /* a CPU test never runs the catalogue on a GPU */
    static char out[1 << 17];
    int rc = gv_test_run_cli("check", out, sizeof out);
    cr_assert_eq(rc, 77, "exit %d:\n%.2000s", rc, out);
    int want = 0, got = 0;
    for (const gv_op *const *opp = gv_registry(); *opp; opp++) {
        const gv_op *op = *opp;
        if (op->planted_bug || op->planted_slow) continue;
        gv_dist d[GV_MAX_REPEAT_CANARIES];
        gv_shape s[GV_MAX_REPEAT_CANARIES];
        int k[GV_MAX_REPEAT_CANARIES];
        int n = canaries_of(op, d, s, k);
        for (int j = 0; j < n; j++)
            for (int t = 0; t < GV_NDTYPES; t++) {
                if (!gv_mode_ok(op, (gv_dtype)t, GV_MODE_NATIVE)) continue;
                char shape[64];
                gv_shape_format(&s[j], shape, sizeof shape);
                want++;
                /* a row: op dtype mode dist shape ... */
                for (const char *l = out; l && *l;
                     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                    char o[64], dt[16], m[16], di[32], sh[64];
                    if (sscanf(l, "%63s %15s %15s %31s %63s", o, dt, m, di, sh) == 5 &&
                        strcmp(o, op->name) == 0 && strcmp(dt, gv_dtype_name((gv_dtype)t)) == 0 &&
                        strcmp(m, "native") == 0 && strcmp(di, gv_dist_name(d[j])) == 0 &&
                        strcmp(sh, shape) == 0) {
                        got++;
                        break;
                    }
                }
            }
    }
    cr_expect_geq(want, 8, "onepass and the three column sums, f32 and f64");
    cr_expect_eq(got, want, "%d of %d repeat canaries in check's rows", got, want);
}
