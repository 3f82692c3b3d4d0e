/* test_judge_rejudge.c: gv_judge_run's second judgement of a FAIL with ftz and daz declared,
 * which names "flushed subnormals" (api/judge.c), runs only where flushing can matter: a
 * column sum of subnormals flushed is judged twice and still named so; a FAIL on ordinary data
 * (a wrong product, a lean of one ulp) is judged once, and judging it with ftz and daz declared
 * FAILs as well, so nothing was lost by not asking. No device is used. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/judge.h"
#include "testkit.h"

static float ftz32(float x)
{
    return fabsf(x) < 0x1p-126f ? copysignf(0.0f, x) : x;
}

/* outputs of op on ci's inputs judged as given data (dist NULL) or as the generated case */
static gv_result *judge(const char *op, const char *size, const char *dist, uint64_t seed,
                        const char *mode, const gv_case_inputs *ci, const void *out)
{
    gv_array in[GV_API_MAX_TENSORS];
    for (int i = 0; i < ci->n_in; i++)
        in[i] = (gv_array){ci->dtype, ci->in[i], ci->in_count[i], NULL};
    gv_array o = {ci->dtype, out, ci->out_count[0], NULL};
    gv_judge_spec s = {.op = op,
                       .mode = mode,
                       .size = size,
                       .dist = dist,
                       .seed = seed,
                       .n_in = ci->n_in,
                       .n_out = 1,
                       .in = in,
                       .out = &o};
    gv_result *r = calloc(1, sizeof *r);
    cr_assert_not_null(r);
    char err[256];
    cr_assert_eq(gv_judge_run(&s, r, NULL, err, sizeof err), GV_OK, "%s %s: %s", op, size, err);
    return r;
}

static gv_case_inputs make(const char *op, int dtype, const char *size, const char *dist,
                           uint64_t seed)
{
    gv_case_inputs ci;
    char err[256];
    cr_assert_eq(gv_make_inputs(op, dtype, NULL, size, dist, seed, &ci, err, sizeof err), GV_API_OK,
                 "%s: %s", op, err);
    return ci;
}

/* (a) reduce.colsum of the tiny dist, every operand and partial sum flushed (CuPy's -ftz
   kernels): FAILs undeclared, named "flushed subnormals" by the second judgement, which ran
   (as the generated case; as given data too, where its answer is another). */
Test(rejudge, flushed_subnormals_still_named, .timeout = 60)
{
    gv_case_inputs ci = make("reduce.colsum", GV_DTYPE_F32, "1000x3", "tiny", 0);
    const float *x = ci.in[0];
    float acc[3] = {0};
    for (int i = 0; i < 1000; i++)
        for (int j = 0; j < 3; j++)
            acc[j] = ftz32(acc[j] + ftz32(x[i * 3 + j]));
    for (int given = 0; given < 2; given++) {
        gv_result *r = judge("reduce.colsum", "1000x3", given ? NULL : "tiny", 0, NULL, &ci, acc);
        cr_expect_eq(r->verdict, GV_FAIL, "%s", r->reason);
        /* as given data the envelope of IEEE sums on the DAZ inputs judges, which flushed
           partial sums leave too (outside by 8.5e3 widths): named for the envelope, as before */
        if (!given) {
            cr_expect_eq(r->cause, GV_CAUSE_FLUSHED, "%s: %s", gv_cause_name(r->cause), r->reason);
            cr_expect(strncmp(r->reason, "flushed subnormals: PASS with ftz and daz allowed", 49) ==
                          0,
                      "%s", r->reason);
        }
        cr_expect_eq(r->judgements, 2, "%s: judged %d times", given ? "given" : "generated",
                     r->judgements);
        free(r);
    }
    gv_case_inputs_free(&ci);
}

/* (b) FAILs on ordinary data judged once, and (c) what the skipped judgement would have said:
   with ftz and daz declared they FAIL too, for the same cause. A wrong product (one element
   1 % off; every k-th product left out) and vadd one ulp up on every element (the bias rule),
   given and generated. */
Test(rejudge, ordinary_fails_judged_once, .timeout = 120)
{
    gv_case_inputs ci = make("gemm", GV_DTYPE_F32, "48x200x40", "uniform11", 5);
    const float *a = ci.in[0], *b = ci.in[1];
    float *c = calloc(48 * 40, sizeof *c), *sub = calloc(48 * 40, sizeof *sub);
    cr_assert(c && sub);
    for (int i = 0; i < 48; i++)
        for (int j = 0; j < 40; j++)
            for (int k = 0; k < 200; k++) {
                c[i * 40 + j] += a[i * 200 + k] * b[k * 40 + j];
                if (k % 7) sub[i * 40 + j] += a[i * 200 + k] * b[k * 40 + j];
            }
    c[17] *= 1.01f;
    const float *outs[2] = {c, sub};
    for (int w = 0; w < 2; w++)
        for (int given = 0; given < 2; given++) {
            const char *dist = given ? NULL : "uniform11";
            gv_result *r = judge("gemm", "48x200x40", dist, 5, NULL, &ci, outs[w]);
            cr_expect_eq(r->verdict, GV_FAIL, "%s", r->reason);
            cr_expect_neq(r->cause, GV_CAUSE_FLUSHED, "%s", r->reason);
            cr_expect_eq(r->judgements, 1, "wrong product %d %s: judged %d times", w,
                         given ? "given" : "generated", r->judgements);
            gv_result *f = judge("gemm", "48x200x40", dist, 5, "native+daz+ftz", &ci, outs[w]);
            cr_expect_eq(f->verdict, GV_FAIL, "declared: %s", f->reason);
            cr_expect_eq(f->cause, r->cause, "%s / %s", r->reason, f->reason);
            free(r);
            free(f);
        }
    free(c);
    free(sub);
    gv_case_inputs_free(&ci);

    /* one ulp up everywhere: the bias rule FAILs it (generated, where it judges); declared
       ftz switches that rule off (flushes lean toward zero), so a second judgement would
       have PASSed and named ordinary values' lean "flushed subnormals" */
    gv_case_inputs vi = make("vadd", GV_DTYPE_F32, "100003", "uniform11", 3);
    int64_t n = vi.out_count[0];
    float *v = malloc(sizeof *v * (size_t)n);
    cr_assert_not_null(v);
    const float *va = vi.in[0], *vb = vi.in[1];
    for (int64_t i = 0; i < n; i++)
        v[i] = nextafterf(va[i] + vb[i], INFINITY);
    gv_result *r = judge("vadd", "100003", "uniform11", 3, NULL, &vi, v);
    cr_expect_eq(r->verdict, GV_FAIL, "%s", r->reason);
    cr_expect_eq(r->cause, GV_CAUSE_BIAS, "%s: %s", gv_cause_name(r->cause), r->reason);
    cr_expect_eq(r->judgements, 1, "judged %d times", r->judgements);
    free(r);
    free(v);
    gv_case_inputs_free(&vi);
}

/* A PASS is judged once, as before. */
Test(rejudge, pass_judged_once, .timeout = 60)
{
    gv_case_inputs ci = make("vadd", GV_DTYPE_F32, "1000", "uniform11", 1);
    float v[1000];
    const float *a = ci.in[0], *b = ci.in[1];
    for (int i = 0; i < 1000; i++)
        v[i] = a[i] + b[i];
    gv_result *r = judge("vadd", "1000", "uniform11", 1, NULL, &ci, v);
    cr_expect_eq(r->verdict, GV_PASS, "%s", r->reason);
    cr_expect_eq(r->judgements, 1);
    free(r);
    gv_case_inputs_free(&ci);
}
