/* model_vadd.c: the vadd op descriptors' facts (depth, tensor counts, modes, the planted
 * variant) and the catalogue's ragged lengths. */
#include <criterion/criterion.h>
#include <stdbool.h>

#include "core/registry.h"
#include "testkit.h"

Test(oracle_vadd, descriptor_facts)
{
    const gv_op *op = gv_op_find("vadd"), *bug = gv_op_find("vadd.f32round");
    cr_assert(op && bug);
    gv_case c = {op, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, {1, {4099}}, 0};
    gv_layout l;
    cr_assert_eq(op->layout(&c, &l), GV_OK);
    cr_expect_eq(l.n_in, 2);
    cr_expect_eq(l.n_out, 1);
    cr_expect_eq(l.in[0].count, 4099);
    cr_expect_eq(l.in[1].count, 4099);
    cr_expect_eq(l.out[0].count, 4099);
    /* one correctly rounded addition: depth 1 whatever n */
    cr_expect_eq(op->depth(&c), 1.0);
    c.shape.d[0] = 100000000;
    cr_expect_eq(op->depth(&c), 1.0);
    cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE));
    cr_expect(gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
    cr_expect_not(gv_mode_ok(op, GV_F32, GV_MODE_TF32));
    cr_expect_not_null(bug->planted_bug);
    /* signed inputs by default: sums cancel (the tier analysis in src/ops/vadd.c) */
    cr_expect_eq(op->default_dist, GV_DIST_UNIFORM11);
    cr_expect_eq(bug->default_dist, GV_DIST_UNIFORM11);
    cr_expect_not(gv_mode_ok(bug, GV_F32, GV_MODE_NATIVE), "the planted variant is f64 only");
    char why[256];
    gv_shape three = {3, {2, 2, 2}};
    cr_expect_not(gv_shape_ok(op, &three, why, sizeof why));
}

/* past one 1024-thread block and not a multiple of 4 (so of 8 or 32 either): the vector
 * loads' and the last block's tails */
static bool ragged_length(const gv_shape *s)
{
    return s->d[0] > 1024 && s->d[0] % 4 != 0;
}

Test(oracle_vadd, catalogues_have_ragged_lengths)
{
    for (int t = 0; t < 2; t++)
        cr_expect_gt(gv_test_catalogue_count("vadd", t, ragged_length), 0,
                     "vadd %s: no n > 1024 that is not a multiple of 4",
                     t ? "test_shapes" : "shapes");
}

Test(oracle_vadd, bias_variants_facts)
{
    /* the bias bugs (tests/cpu/model_bias.c emulates them): planted, both dtypes, judged by
       the bias rule on their default inputs; vadd.rz on wide inputs, since every f64 sum of
       the uniform ones is exact; vadd itself runs a wide canary for the same reason */
    const gv_op *op = gv_op_find("vadd"), *rz = gv_op_find("vadd.rz"),
                *ulp = gv_op_find("vadd.ulp");
    cr_assert(op && rz && ulp);
    cr_expect_not_null(rz->planted_bug);
    cr_expect_not_null(ulp->planted_bug);
    cr_expect(gv_mode_ok(rz, GV_F64, GV_MODE_NATIVE) && gv_mode_ok(rz, GV_F32, GV_MODE_NATIVE));
    cr_expect(gv_mode_ok(ulp, GV_F64, GV_MODE_NATIVE) && gv_mode_ok(ulp, GV_F32, GV_MODE_NATIVE));
    cr_expect_eq(rz->default_dist, GV_DIST_WIDE);
    cr_expect_eq(ulp->default_dist, GV_DIST_UNIFORM11);
    cr_expect(rz->bias_dists & (1u << rz->default_dist));
    cr_expect(ulp->bias_dists & (1u << ulp->default_dist));
    cr_expect(op->bias_dists & (1u << GV_DIST_WIDE));
    /* wide, then the edges (docs/error-models.md, "The edges") */
    cr_expect_str_eq(op->canaries, "wide:100003,tiny:100003,huge:100003,sparse-special:100003");
    cr_expect(op->zero_sign, "IEEE fixes the sign of a + b's zeros");
}
