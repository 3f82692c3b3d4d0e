/* test_judge_api.c: outputs computed outside gpuval judged through the 1.2 API (gv_judge,
 * gv_make_inputs, gv_op_info) and the commands on it (gpuval judge, gpuval inputs): a
 * product computed on the CPU passes in f64 and f32, a wrong one fails whether one element
 * is off or the sum ran over a subsample of k; generated inputs round-trip through .npy; bad
 * arrays are refused with a message that names the fault. No device is used. */
#include <criterion/criterion.h>
#include <fenv.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/gpuval.h"
#include "io/npy.h"
#include "testkit.h"

/* C = A B, row-major, summed in the dtype's own arithmetic (float for f32), in k order: what
   a plain CPU loop of another framework gives. keep_k: sum only the k with k % keep_k == 0
   (1: all), the result of a product over a subsample of the inner dimension. */
static void *cpu_gemm(int dtype, const void *a, const void *b, int64_t m, int64_t k, int64_t n,
                      int keep_k)
{
    size_t es = dtype == GV_DTYPE_F64 ? 8 : 4;
    void *c = malloc((size_t)(m * n) * es);
    cr_assert_not_null(c);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            if (dtype == GV_DTYPE_F64) {
                const double *A = a, *B = b;
                double s = 0.0;
                for (int64_t p = 0; p < k; p += keep_k)
                    s += A[i * k + p] * B[p * n + j];
                ((double *)c)[i * n + j] = s;
            } else {
                const float *A = a, *B = b;
                float s = 0.0f;
                for (int64_t p = 0; p < k; p += keep_k)
                    s = fmaf(A[i * k + p], B[p * n + j], s);
                ((float *)c)[i * n + j] = s;
            }
        }
    return c;
}

/* Element idx of c times (1 + rel), in c's dtype. */
static void perturb(int dtype, void *c, int64_t idx, double rel)
{
    if (dtype == GV_DTYPE_F64)
        ((double *)c)[idx] *= 1.0 + rel;
    else
        ((float *)c)[idx] = (float)(((float *)c)[idx] * (1.0 + rel));
}

typedef struct judged {
    int rc;
    gv_judgement j;
} judged;

/* Judge out (m x n) against the generated inputs ci of gemm at m x k x n: as generated (dist
   named) or as given data (dist NULL). */
static judged judge_gemm(const gv_case_inputs *ci, const char *size, const char *dist,
                         uint64_t seed, void *out)
{
    gv_array in[2] = {{ci->dtype, ci->in[0], ci->in_count[0], "A"},
                      {ci->dtype, ci->in[1], ci->in_count[1], "B"}};
    gv_array o = {ci->dtype, out, ci->out_count[0], "C"};
    gv_judge_spec s = {.op = "gemm",
                       .size = size,
                       .dist = dist,
                       .seed = seed,
                       .n_in = 2,
                       .n_out = 1,
                       .in = in,
                       .out = &o};
    judged r;
    r.rc = gv_judge(&s, &r.j);
    return r;
}

static void gemm_case(int dtype, const char *dist)
{
    const int64_t m = 37, k = 64, n = 29;
    const char *size = "37x64x29";
    gv_case_inputs ci;
    char err[512];
    cr_assert_eq(gv_make_inputs("gemm", dtype, NULL, size, "uniform11", 5, &ci, err, sizeof err),
                 GV_API_OK, "%s", err);
    cr_assert_eq(ci.n_in, 2);
    cr_assert_eq(ci.n_out, 1);
    cr_assert_eq(ci.in_ndim[0], 2);
    cr_assert_eq(ci.in_shape[0][0], m);
    cr_assert_eq(ci.in_shape[0][1], k);
    cr_assert_eq(ci.in_shape[1][0], k);
    cr_assert_eq(ci.in_shape[1][1], n);
    cr_assert_eq(ci.out_shape[0][0], m);
    cr_assert_eq(ci.out_shape[0][1], n);
    cr_assert_eq(ci.out_count[0], m * n);
    const char *tag = dtype == GV_DTYPE_F64 ? "f64" : "f32";

    void *c = cpu_gemm(dtype, ci.in[0], ci.in[1], m, k, n, 1);
    judged r = judge_gemm(&ci, size, dist, 5, c);
    cr_assert_eq(r.rc, GV_API_OK, "%s: %s", tag, r.j.reason);
    cr_expect_eq(r.j.verdict, GV_VERDICT_PASS, "%s %s: a CPU product: %s", tag,
                 dist ? dist : "given", r.j.reason);
    cr_expect(r.j.ratio < 1.0, "%s: ratio %g", tag, r.j.ratio);
    cr_expect(r.j.meets_1e4, "%s: the 1e-4 tier", tag);
    if (dtype == GV_DTYPE_F64) cr_expect(r.j.meets_1e8, "f64: the 1e-8 tier");
    cr_assert_not_null(r.j.json);
    cr_expect_not_null(strstr(r.j.json, dist ? "\"generated\"" : "\"given\""), "%s", r.j.json);
    cr_expect_not_null(strstr(r.j.json, "\"sha256\""), "%s", r.j.json);
    gv_judgement_free(&r.j);
    cr_expect_null(r.j.json);

    /* one element off by 1e-3 relative: past every model for a k of 64 in either dtype */
    perturb(dtype, c, 5 * n + 7, 1e-3);
    r = judge_gemm(&ci, size, dist, 5, c);
    cr_assert_eq(r.rc, GV_API_OK, "%s", r.j.reason);
    cr_expect_eq(r.j.verdict, GV_VERDICT_FAIL, "%s: one element off: %s", tag, r.j.reason);
    cr_expect(r.j.max_rel >= 0.9e-3, "%s: max_rel %g", tag, r.j.max_rel);
    cr_expect_neq(r.j.reason[0], '\0');
    /* the worst element is named where it lies: row 5, column 7 of C, as well as flat */
    json_t *doc = json_loads(r.j.json, 0, NULL);
    cr_assert_not_null(doc);
    json_t *metrics = json_object_get(doc, "metrics");
    cr_expect_eq(json_integer_value(json_object_get(metrics, "worst_index")), 5 * n + 7, "%s",
                 r.j.json);
    json_t *want =
        json_pack("{s:s, s:[I, I]}", "output", "C", "index", (json_int_t)5, (json_int_t)7);
    cr_expect(json_equal(json_object_get(metrics, "worst_at"), want), "%s: worst_at in %s", tag,
              r.j.json);
    json_decref(want);
    json_decref(doc);
    gv_judgement_free(&r.j);
    free(c);

    /* the product over every other k: a subsample's result */
    c = cpu_gemm(dtype, ci.in[0], ci.in[1], m, k, n, 2);
    r = judge_gemm(&ci, size, dist, 5, c);
    cr_assert_eq(r.rc, GV_API_OK, "%s", r.j.reason);
    cr_expect_eq(r.j.verdict, GV_VERDICT_FAIL, "%s: half the k: %s", tag, r.j.reason);
    gv_judgement_free(&r.j);
    free(c);
    gv_case_inputs_free(&ci);
}

Test(judge_api, f64_cpu_product_passes_wrong_ones_fail_given)
{
    gemm_case(GV_DTYPE_F64, NULL);
}
Test(judge_api, f64_cpu_product_passes_wrong_ones_fail_generated)
{
    gemm_case(GV_DTYPE_F64, "uniform11");
}
Test(judge_api, f32_cpu_product_passes_wrong_ones_fail_given)
{
    gemm_case(GV_DTYPE_F32, NULL);
}
Test(judge_api, f32_cpu_product_passes_wrong_ones_fail_generated)
{
    gemm_case(GV_DTYPE_F32, "uniform11");
}

/* x[0] + x[1] + ... in order, one f32 addition after another (a CPU loop, NumPy's
   np.cumsum(x)[-1] in float32), each rounded as `rounding` (FE_TONEAREST, FE_TOWARDZERO) says;
   the mode is restored after. The accumulator is volatile so that every addition runs here,
   under that mode. */
static __attribute__((noinline)) float seq_sum_f32(const float *x, int64_t n, int rounding)
{
    int before = fegetround();
    cr_assert_eq(fesetround(rounding), 0);
    volatile float acc = 0.0f;
    for (int64_t i = 0; i < n; i++)
        acc = acc + x[i];
    float s = acc;
    fesetround(before);
    return s;
}

/* A number of the case JSON gv_judge returned: metrics.KEY (a string "inf" read as inf). */
static double json_metric(const char *json, const char *key)
{
    json_error_t jerr;
    json_t *doc = json_loads(json, 0, &jerr);
    cr_assert_not_null(doc, "%s", jerr.text);
    const json_t *v = json_object_get(json_object_get(doc, "metrics"), key);
    double d = json_is_number(v)   ? json_number_value(v)
               : json_is_string(v) ? strtod(json_string_value(v), NULL)
                                   : NAN;
    json_decref(doc);
    return d;
}

static double json_depth(const char *json, const char *model)
{
    json_error_t jerr;
    json_t *doc = json_loads(json, 0, &jerr);
    cr_assert_not_null(doc, "%s", jerr.text);
    double d = json_number_value(json_object_get(json_object_get(doc, model), "depth"));
    json_decref(doc);
    return d;
}

/* The outputs of another program are judged at the depth of any summation order (reduce.sum's
   order-free depth n), never at gpuval's own kernel's tree (ceil(log2 n) + 1): a sequential
   f32 sum of n uniform [0, 1) values, correctly rounded at each step, PASSes as the generated
   case and as given data (at the tree's depth it FAILed: max R 37.7 at n = 10^6). The same sum
   with every addition rounded toward zero (a 3 % error at n = 10^6) is printed with its
   numbers, and FAILs as the generated case, whose probabilistic model judges it. */
Test(judge_api, a_sequential_sum_is_judged_order_free, .timeout = 120)
{
    const int64_t ns[] = {100000, 1000000};
    for (int s = 0; s < 2; s++) {
        int64_t n = ns[s];
        char size[32];
        snprintf(size, sizeof size, "%lld", (long long)n);
        gv_case_inputs ci;
        char err[512];
        cr_assert_eq(gv_make_inputs("reduce.sum", GV_DTYPE_F32, NULL, size, "uniform01", 7, &ci,
                                    err, sizeof err),
                     GV_API_OK, "%s", err);
        const float *x = ci.in[0];
        const int roundings[2] = {FE_TONEAREST, FE_TOWARDZERO};
        for (int rd = 0; rd < 2; rd++) {
            float out = seq_sum_f32(x, n, roundings[rd]);
            for (int given = 0; given < 2; given++) {
                gv_array in = {GV_DTYPE_F32, ci.in[0], n, "x"};
                gv_array o = {GV_DTYPE_F32, &out, 1, "s"};
                gv_judge_spec spec = {.op = "reduce.sum",
                                      .size = size,
                                      .dist = given ? NULL : "uniform01",
                                      .seed = 7,
                                      .n_in = 1,
                                      .n_out = 1,
                                      .in = &in,
                                      .out = &o};
                gv_judgement j;
                cr_assert_eq(gv_judge(&spec, &j), GV_API_OK, "%s", j.reason);
                double depth = json_depth(j.json, "error_model");
                double pdepth = json_depth(j.json, "prob_model");
                double z = json_metric(j.json, "bias_z");
                printf("reduce.sum f32 n=%lld sequential %s, %s: %s max_rel %.3g ratio %.3g "
                       "R %.3g bias z %.3g (depth %g, prob depth %g)%s%s\n",
                       (long long)n, rd ? "toward zero" : "to nearest",
                       given ? "given" : "generated",
                       j.verdict == GV_VERDICT_PASS ? "PASS" : "FAIL", j.max_rel, j.ratio, j.r_max,
                       z, depth, pdepth, j.reason[0] ? ": " : "", j.reason);
                fflush(stdout);
                cr_expect_eq(depth, (double)n,
                             "the order-free depth of a sum of n, not the tree's");
                cr_expect_eq(pdepth, (double)n);
                if (rd == 0)
                    cr_expect_eq(j.verdict, GV_VERDICT_PASS, "n=%lld %s: %s", (long long)n,
                                 given ? "given" : "generated", j.reason);
                else if (!given)
                    cr_expect_eq(j.verdict, GV_VERDICT_FAIL,
                                 "n=%lld: every addition chopped passes as generated",
                                 (long long)n);
                gv_judgement_free(&j);
            }
        }
        gv_case_inputs_free(&ci);
    }
}

/* x rounded to TF32's 11 significant bits (to nearest), as tensor cores take f32 operands. */
static float tf32(float x)
{
    int e;
    float m = frexpf(x, &e);
    return ldexpf(rintf(m * 2048.0f) / 2048.0f, e);
}

/* A TF32 product (operands rounded to 11 bits, f32 accumulation) claimed as f32 native on
   generated inputs: the generated case's probabilistic model FAILs it (its worst-case bound
   at k = 1024 is loose enough to hide TF32); claimed as what it is, tf32, it passes. */
Test(judge_api, tf32_claimed_native_fails_as_generated_case, .timeout = 60)
{
    const int64_t m = 64, k = 1024, n = 64;
    gv_case_inputs ci;
    char err[256];
    cr_assert_eq(gv_make_inputs("gemm", GV_DTYPE_F32, NULL, "64x1024x64", "uniform11", 0, &ci, err,
                                sizeof err),
                 GV_API_OK, "%s", err);
    const float *a = ci.in[0], *b = ci.in[1];
    float *c = malloc((size_t)(m * n) * sizeof *c);
    cr_assert_not_null(c);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            float s = 0.0f;
            for (int64_t p = 0; p < k; p++)
                s = fmaf(tf32(a[i * k + p]), tf32(b[p * n + j]), s);
            c[i * n + j] = s;
        }
    judged r = judge_gemm(&ci, "64x1024x64", "uniform11", 0, c);
    cr_assert_eq(r.rc, GV_API_OK, "%s", r.j.reason);
    cr_expect_eq(r.j.verdict, GV_VERDICT_FAIL, "TF32 claimed native: %s", r.j.reason);
    cr_expect_not_null(strstr(r.j.reason, "probabilistic model"), "%s", r.j.reason);
    cr_expect(r.j.r_max > 8.0, "R max %g", r.j.r_max);
    gv_judgement_free(&r.j);

    gv_array in[2] = {{ci.dtype, ci.in[0], ci.in_count[0], "A"},
                      {ci.dtype, ci.in[1], ci.in_count[1], "B"}};
    gv_array o = {ci.dtype, c, ci.out_count[0], "C"};
    gv_judge_spec s = {.op = "gemm",
                       .mode = "tf32",
                       .size = "64x1024x64",
                       .dist = "uniform11",
                       .n_in = 2,
                       .n_out = 1,
                       .in = in,
                       .out = &o};
    cr_assert_eq(gv_judge(&s, &r.j), GV_API_OK, "%s", r.j.reason);
    cr_expect_eq(r.j.verdict, GV_VERDICT_PASS, "TF32 claimed tf32: %s", r.j.reason);
    gv_judgement_free(&r.j);
    free(c);
    gv_case_inputs_free(&ci);
}

/* A NaN in the outputs where the oracle has none never passes. */
Test(judge_api, nan_output_fails)
{
    gv_case_inputs ci;
    char err[256];
    cr_assert_eq(
        gv_make_inputs("gemm.cublas", GV_DTYPE_F64, NULL, "8x8x8", NULL, 0, &ci, err, sizeof err),
        GV_API_OK, "%s", err);
    double *c = cpu_gemm(GV_DTYPE_F64, ci.in[0], ci.in[1], 8, 8, 8, 1);
    c[9] = NAN;
    judged r = judge_gemm(&ci, "8x8x8", NULL, 0, c);
    cr_assert_eq(r.rc, GV_API_OK, "%s", r.j.reason);
    cr_expect_eq(r.j.verdict, GV_VERDICT_FAIL, "%s", r.j.reason);
    gv_judgement_free(&r.j);
    free(c);
    gv_case_inputs_free(&ci);
}

/* Claimed generated inputs are checked bit for bit: another seed's, or one bit changed, are
   refused rather than judged as the generated case. */
Test(judge_api, generated_claim_is_checked)
{
    gv_case_inputs ci;
    char err[256];
    cr_assert_eq(gv_make_inputs("gemm", GV_DTYPE_F64, NULL, "16x16x16", "uniform11", 1, &ci, err,
                                sizeof err),
                 GV_API_OK, "%s", err);
    double *c = cpu_gemm(GV_DTYPE_F64, ci.in[0], ci.in[1], 16, 16, 16, 1);
    judged r = judge_gemm(&ci, "16x16x16", "uniform11", 2, c); /* another seed */
    cr_expect_eq(r.rc, GV_API_EINVAL);
    cr_expect_not_null(strstr(r.j.reason, "not the ones gpuval generates"), "%s", r.j.reason);
    gv_judgement_free(&r.j);
    ((double *)ci.in[0])[3] = nextafter(((double *)ci.in[0])[3], 2.0);
    r = judge_gemm(&ci, "16x16x16", "uniform11", 1, c);
    cr_expect_eq(r.rc, GV_API_EINVAL, "%s", r.j.reason);
    gv_judgement_free(&r.j);
    free(c);
    gv_case_inputs_free(&ci);
}

/* vadd of the tiny dist as flush-to-zero hardware computes it (CuPy's kernels): subnormal
   operands read as 0, subnormal results returned as 0 with their sign. */
static float ftz32(float x)
{
    return fabsf(x) < 0x1p-126f ? copysignf(0.0f, x) : x;
}

static gv_judgement judge_vadd(const gv_case_inputs *ci, const char *dist, const char *mode,
                               const float *c)
{
    gv_array in[2] = {{GV_DTYPE_F32, ci->in[0], ci->in_count[0], "a"},
                      {GV_DTYPE_F32, ci->in[1], ci->in_count[1], "b"}};
    gv_array out = {GV_DTYPE_F32, c, ci->out_count[0], "c"};
    gv_judge_spec s = {.op = "vadd",
                       .mode = mode,
                       .size = "100003",
                       .dist = dist,
                       .seed = 3,
                       .n_in = 2,
                       .n_out = 1,
                       .in = in,
                       .out = &out};
    gv_judgement j;
    memset(&j, 0, sizeof j);
    cr_assert_eq(gv_judge(&s, &j), GV_API_OK, "%s: %s", mode, j.reason);
    return j;
}

/* Flush-to-zero declared ("native+ftz", judge --allow ftz): the flushes PASS with a note;
   undeclared they FAIL as FTZ; a wrong sum still FAILs with them declared; "+ftz" alone is
   no mode. */
Test(judge_api, ftz_declared_passes_undeclared_fails, .timeout = 60)
{
    gv_case_inputs ci;
    char err[256];
    cr_assert_eq(
        gv_make_inputs("vadd", GV_DTYPE_F32, NULL, "100003", "tiny", 3, &ci, err, sizeof err),
        GV_API_OK, "%s", err);
    int64_t n = ci.out_count[0], flushed = 0;
    float *c = malloc(sizeof *c * (size_t)n);
    cr_assert_not_null(c);
    const float *a = ci.in[0], *b = ci.in[1];
    for (int64_t i = 0; i < n; i++) {
        c[i] = ftz32(ftz32(a[i]) + ftz32(b[i]));
        flushed += c[i] == 0.0f && a[i] + b[i] != 0.0f;
    }
    cr_assert_gt(flushed, 100, "the tiny dist reaches the subnormals");
    gv_judgement j = judge_vadd(&ci, "tiny", NULL, c);
    cr_expect_eq(j.verdict, GV_VERDICT_FAIL, "%s", j.reason);
    cr_expect(strncmp(j.reason, "FTZ: ", 5) == 0, "%s", j.reason);
    gv_judgement_free(&j);
    j = judge_vadd(&ci, "tiny", "native+ftz", c);
    cr_expect_eq(j.verdict, GV_VERDICT_PASS, "%s", j.reason);
    cr_expect(j.json && strstr(j.json, "FTZ allowed: ") && strstr(j.json, "\"ftz_allowed\": true"),
              "%s", j.json ? j.json : "(no json)");
    gv_judgement_free(&j);
    /* on ordinary values one result in 1000 off by 1 %: the declaration does not hide it
       (on the tiny dist every value lies below 2^-120, within the smallest normal that a
       flush may cost: there, flush-to-zero arithmetic cannot be told from small errors) */
    gv_case_inputs cu;
    cr_assert_eq(
        gv_make_inputs("vadd", GV_DTYPE_F32, NULL, "100003", "uniform11", 3, &cu, err, sizeof err),
        GV_API_OK, "%s", err);
    const float *ua = cu.in[0], *ub = cu.in[1];
    for (int64_t i = 0; i < n; i++)
        c[i] = ftz32(ftz32(ua[i]) + ftz32(ub[i]));
    j = judge_vadd(&cu, "uniform11", "native+ftz", c);
    cr_expect_eq(j.verdict, GV_VERDICT_PASS, "%s", j.reason);
    gv_judgement_free(&j);
    for (int64_t i = 0; i < n; i += 1000)
        c[i] *= 1.01f;
    j = judge_vadd(&cu, "uniform11", "native+ftz", c);
    cr_expect_eq(j.verdict, GV_VERDICT_FAIL, "%s", j.reason);
    gv_judgement_free(&j);
    gv_case_inputs_free(&cu);
    gv_array in[2] = {{GV_DTYPE_F32, ci.in[0], ci.in_count[0], "a"},
                      {GV_DTYPE_F32, ci.in[1], ci.in_count[1], "b"}};
    gv_array out = {GV_DTYPE_F32, c, n, "c"};
    gv_judge_spec s = {.op = "vadd",
                       .mode = "+ftz",
                       .size = "100003",
                       .n_in = 2,
                       .n_out = 1,
                       .in = in,
                       .out = &out};
    memset(&j, 0, sizeof j);
    cr_expect_eq(gv_judge(&s, &j), GV_API_EINVAL, "%s", j.reason);
    gv_judgement_free(&j);
    free(c);
    gv_case_inputs_free(&ci);
}

/* Denormals-are-zero declared ("native+daz", judge --allow daz): an IEEE sum of inputs whose
   subnormals were read as zero PASSes and says how many were; undeclared it FAILs; "+daz" and
   "+ftz" stack in either order; "+daz" alone is no mode. */
Test(judge_api, daz_declared_reads_subnormal_inputs_as_zero, .timeout = 60)
{
    gv_case_inputs ci;
    char err[256];
    cr_assert_eq(
        gv_make_inputs("vadd", GV_DTYPE_F32, NULL, "100003", "tiny", 3, &ci, err, sizeof err),
        GV_API_OK, "%s", err);
    int64_t n = ci.out_count[0], zeroed = 0;
    float *c = malloc(sizeof *c * (size_t)n);
    cr_assert_not_null(c);
    const float *a = ci.in[0], *b = ci.in[1];
    for (int64_t i = 0; i < n; i++) {
        c[i] = ftz32(a[i]) + ftz32(b[i]); /* the inputs flushed, the sum IEEE */
        zeroed += (a[i] != 0.0f && ftz32(a[i]) == 0.0f) + (b[i] != 0.0f && ftz32(b[i]) == 0.0f);
    }
    cr_assert_gt(zeroed, 100, "the tiny dist holds subnormal inputs");
    gv_judgement j = judge_vadd(&ci, "tiny", NULL, c);
    cr_expect_eq(j.verdict, GV_VERDICT_FAIL, "%s", j.reason);
    gv_judgement_free(&j);
    char note[96];
    snprintf(note, sizeof note, "[DAZ allowed: %lld subnormal inputs read as zero]",
             (long long)zeroed);
    static const char *modes[] = {"native+daz", "native+daz+ftz", "native+ftz+daz"};
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
        j = judge_vadd(&ci, "tiny", modes[k], c);
        cr_expect_eq(j.verdict, GV_VERDICT_PASS, "%s: %s", modes[k], j.reason);
        cr_expect(j.json && strstr(j.json, note) && strstr(j.json, "\"daz_allowed\": true"),
                  "%s: %s", modes[k], j.json ? j.json : "(no json)");
        cr_expect_eq(k > 0, j.json && strstr(j.json, "\"ftz_allowed\": true") != NULL, "%s",
                     modes[k]);
        gv_judgement_free(&j);
    }
    gv_array in[2] = {{GV_DTYPE_F32, ci.in[0], ci.in_count[0], "a"},
                      {GV_DTYPE_F32, ci.in[1], ci.in_count[1], "b"}};
    gv_array out = {GV_DTYPE_F32, c, n, "c"};
    gv_judge_spec s = {.op = "vadd",
                       .mode = "+daz",
                       .size = "100003",
                       .n_in = 2,
                       .n_out = 1,
                       .in = in,
                       .out = &out};
    memset(&j, 0, sizeof j);
    cr_expect_eq(gv_judge(&s, &j), GV_API_EINVAL, "%s", j.reason);
    gv_judgement_free(&j);
    free(c);
    gv_case_inputs_free(&ci);
}

/* Specs that cannot be judged: each refused with its reason. */
Test(judge_api, bad_specs_are_refused_with_a_reason)
{
    double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4] = {0};
    float cf[4] = {0};
    gv_array in[2] = {{GV_DTYPE_F64, a, 6, "a"}, {GV_DTYPE_F64, b, 6, "b"}};
    gv_array out = {GV_DTYPE_F64, c, 4, "c"}, outf = {GV_DTYPE_F32, cf, 4, "cf"};
    struct {
        gv_judge_spec s;
        const char *says;
    } bad[] = {
        {{.op = "nosuch", .size = "2x3x2", .n_in = 2, .n_out = 1, .in = in, .out = &out},
         "no op 'nosuch'"},
        {{.op = "gemm",
          .mode = "nosuch",
          .size = "2x3x2",
          .n_in = 2,
          .n_out = 1,
          .in = in,
          .out = &out},
         "no mode 'nosuch'"},
        {{.op = "gemm", .size = "2x3x2", .n_in = 1, .n_out = 1, .in = in, .out = &out},
         "takes 2 inputs"},
        {{.op = "gemm", .size = "2x3x3", .n_in = 2, .n_out = 1, .in = in, .out = &out}, "elements"},
        {{.op = "gemm", .size = "2x3x2", .n_in = 2, .n_out = 1, .in = in, .out = &outf},
         "share one dtype"},
        {{.op = "gemm", .size = "2x3", .n_in = 2, .n_out = 1, .in = in, .out = &out}, "m,k,n"},
        {{.op = "gemm", .n_in = 2, .n_out = 1, .in = in, .out = &out}, "needs a size"},
        {{.op = "gemm",
          .size = "2x3x2",
          .dist = "nosuch",
          .n_in = 2,
          .n_out = 1,
          .in = in,
          .out = &out},
         "no input distribution"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gv_judgement j;
        cr_expect_eq(gv_judge(&bad[i].s, &j), GV_API_EINVAL, "case %zu", i);
        cr_expect_not_null(strstr(j.reason, bad[i].says), "case %zu: '%s' lacks '%s'", i, j.reason,
                           bad[i].says);
        cr_expect_null(j.json);
        gv_judgement_free(&j);
    }
    gv_judgement zero;
    memset(&zero, 0, sizeof zero);
    gv_judgement_free(&zero); /* safe on a zeroed struct */
    gv_judgement_free(NULL);
}

/* Every built-in family's inputs and shapes at its first op's first test shape: the shapes'
   products are the counts, and the matrices and complex arrays have their dims. */
Test(judge_api, make_inputs_gives_every_family_its_shapes, .timeout = 120)
{
    const char *fams[] = {"vadd",
                          "gemm",
                          "matmul_colsum",
                          "dense",
                          "stencil.laplace",
                          "diffusion.fixed",
                          "sin_iter",
                          "reduce.sum",
                          "fft.c2c.fwd",
                          "fft.r2c.fwd",
                          "fft.c2r.inv",
                          "lsmr.ridge",
                          "solve.gesv",
                          "math.sin"};
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        char *info = NULL;
        cr_assert_eq(gv_op_info(fams[f], &info), GV_API_OK, "%s", fams[f]);
        cr_expect_not_null(strstr(info, "\"test_shapes\""), "%s", info);
        gv_free(info);
        const gv_op *op = gv_builtin_find(fams[f]);
        cr_assert_not_null(op, "%s", fams[f]);
        char size[64];
        size_t len = strcspn(op->test_shapes, ",");
        snprintf(size, sizeof size, "%.*s", (int)len, op->test_shapes);
        int dtype = (op->dtypes & (1u << GV_F64)) ? GV_DTYPE_F64 : GV_DTYPE_F32;
        gv_case_inputs ci;
        char err[512];
        cr_assert_eq(gv_make_inputs(fams[f], dtype, NULL, size, NULL, 0, &ci, err, sizeof err),
                     GV_API_OK, "%s %s: %s", fams[f], size, err);
        for (int side = 0; side < 2; side++) {
            int n = side ? ci.n_out : ci.n_in;
            for (int i = 0; i < n; i++) {
                int nd = side ? ci.out_ndim[i] : ci.in_ndim[i];
                const int64_t *s = side ? ci.out_shape[i] : ci.in_shape[i];
                int64_t prod = 1;
                cr_expect(nd >= 1 && nd <= GV_API_MAX_DIMS, "%s: nd %d", fams[f], nd);
                for (int d = 0; d < nd; d++)
                    prod *= s[d];
                cr_expect_eq(prod, side ? ci.out_count[i] : ci.in_count[i], "%s %s %d", fams[f],
                             side ? "out" : "in", i);
                cr_expect_not_null(side ? ci.out_names[i] : ci.in_names[i]);
            }
        }
        if (strncmp(fams[f], "fft.c2c", 7) == 0) {
            cr_expect_eq(ci.in_ndim[0], 3, "fft: batch x n x (re, im)");
            cr_expect_eq(ci.in_shape[0][2], 2);
        }
        if (strcmp(fams[f], "solve.gesv") == 0) {
            cr_expect_eq(ci.in_ndim[0], 2, "solve: A is n x n");
            cr_expect_eq(ci.in_shape[0][0], ci.in_shape[0][1]);
        }
        if (strcmp(fams[f], "diffusion.fixed") == 0) cr_expect_eq(ci.in_ndim[0], 2, "ny x nx");
        gv_case_inputs_free(&ci);
    }
    char *info = (char *)"untouched";
    cr_expect_eq(gv_op_info("nosuch", &info), GV_API_EINVAL);
    cr_expect_null(info);
}

/* 1.4: gv_make_inputs_nd gives conv.3d's 5-D tensors their shapes, with the same bytes as
   gv_make_inputs, which gives them flat (its 1.3 struct holds 4 dims); a grouped convolution's
   weights (o, c / groups, 3, 3) in both. */
Test(judge_api, make_inputs_nd_gives_5d_shapes_and_the_old_struct_flat, .timeout = 60)
{
    char err[512];
    gv_case_inputs_nd nd;
    gv_case_inputs ci;
    cr_assert_eq(
        gv_make_inputs_nd("conv.3d", GV_DTYPE_F32, NULL, "2x3x5x4", NULL, 7, &nd, err, sizeof err),
        GV_API_OK, "%s", err);
    cr_assert_eq(
        gv_make_inputs("conv.3d", GV_DTYPE_F32, NULL, "2x3x5x4", NULL, 7, &ci, err, sizeof err),
        GV_API_OK, "%s", err);
    const int64_t x[] = {2, 3, 5, 5, 5}, w[] = {4, 3, 3, 3, 3}, y[] = {2, 4, 5, 5, 5};
    cr_assert_eq(nd.n_in, 3);
    cr_assert_eq(nd.in_ndim[0], 5);
    cr_assert_eq(nd.in_ndim[1], 5);
    cr_assert_eq(nd.in_ndim[2], 1);
    cr_assert_eq(nd.out_ndim[0], 5);
    for (int d = 0; d < 5; d++) {
        cr_expect_eq(nd.in_shape[0][d], x[d], "x dim %d", d);
        cr_expect_eq(nd.in_shape[1][d], w[d], "w dim %d", d);
        cr_expect_eq(nd.out_shape[0][d], y[d], "y dim %d", d);
    }
    cr_expect_eq(nd.in_shape[2][0], 4, "the bias");
    /* the 1.3 struct: flat where a tensor has more than 4 dims, the same bytes */
    cr_expect(ci.in_ndim[0] == 1 && ci.in_shape[0][0] == 2 * 3 * 125);
    cr_expect(ci.out_ndim[0] == 1 && ci.out_shape[0][0] == 2 * 4 * 125);
    cr_expect(ci.in_ndim[2] == 1 && ci.in_shape[2][0] == 4);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(ci.in_count[i], nd.in_count[i]);
        cr_expect_eq(memcmp(ci.in[i], nd.in[i], (size_t)ci.in_count[i] * sizeof(float)), 0,
                     "input %d", i);
    }
    gv_case_inputs_free(&ci);
    gv_case_inputs_nd_free(&nd);

    cr_assert_eq(gv_make_inputs_nd("conv.2d.grouped", GV_DTYPE_F64, NULL, "2x8x7x12", NULL, 1, &nd,
                                   err, sizeof err),
                 GV_API_OK, "%s", err);
    cr_expect(nd.in_ndim[1] == 4 && nd.in_shape[1][0] == 12 && nd.in_shape[1][1] == 2 &&
              nd.in_shape[1][2] == 3 && nd.in_shape[1][3] == 3);
    gv_case_inputs_nd_free(&nd);
    cr_expect_eq(
        gv_make_inputs_nd("conv.3d", GV_DTYPE_F32, NULL, "2x3x5x4", NULL, 7, NULL, err, sizeof err),
        GV_API_EINVAL);
}

/* ---- the commands ---------------------------------------------------------------------- */

/* gpuval inputs writes A.npy, B.npy and case.json; C computed from them and judged by
   --case: PASS, exit 0, the run document recording the files and their SHA-256; one element
   off: FAIL, exit 1. The same arrays judged as given data (--op, --inputs): PASS. */
Test(judge_cli, inputs_then_judge_round_trip, .timeout = 120)
{
    char dir[512], args[4096], path[1024], a_path[1024], b_path[1024], json[1024];
    static char out[1 << 16];
    gv_test_scratch_dir(dir, sizeof dir, "judge");
    snprintf(args, sizeof args,
             "inputs --op gemm.cublas --dtype f32 --size 24x40x16 --dist uniform11 --seed 9 "
             "--out '%s'",
             dir);
    cr_assert_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
    snprintf(a_path, sizeof a_path, "%s/A.npy", dir);
    snprintf(b_path, sizeof b_path, "%s/B.npy", dir);
    gv_npy a, b;
    char err[512];
    cr_assert_eq(gv_npy_read(a_path, &a, err, sizeof err), GV_OK, "%s", err);
    cr_assert_eq(gv_npy_read(b_path, &b, err, sizeof err), GV_OK, "%s", err);
    cr_assert_eq(a.type, GV_NPY_F32);
    cr_assert_eq(a.nd, 2);
    cr_assert_eq(a.shape[0], 24);
    cr_assert_eq(a.shape[1], 40);
    cr_assert_eq(b.shape[0], 40);
    cr_assert_eq(b.shape[1], 16);
    float *c = cpu_gemm(GV_DTYPE_F32, a.data, b.data, 24, 40, 16, 1);
    int64_t shape[2] = {24, 16};
    snprintf(path, sizeof path, "%s/C.npy", dir);
    cr_assert_eq(gv_npy_write(path, GV_NPY_F32, 2, shape, c), 0);
    snprintf(json, sizeof json, "%s/run.json", dir);
    snprintf(args, sizeof args, "judge --case '%s/case.json' --outputs '%s' --json '%s'", dir, path,
             json);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
    cr_expect_not_null(strstr(out, "PASS"), "%s", out);
    gv_test_slurp(json, out, sizeof out);
    cr_expect_not_null(strstr(out, "\"gpuval-run/1\""), "%s", out);
    cr_expect_not_null(strstr(out, "\"generated\""), "%s", out);
    cr_expect_not_null(strstr(out, "\"file_sha256\""), "%s", out);
    cr_expect_not_null(strstr(out, "C.npy"), "%s", out);

    /* the same files as given data, dims read off the shapes */
    snprintf(args, sizeof args, "judge --op gemm --inputs '%s,%s' --outputs '%s'", a_path, b_path,
             path);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
    cr_expect_not_null(strstr(out, "24x40x16"), "%s", out);

    c[3 * 16 + 2] *= 1.001f;
    cr_assert_eq(gv_npy_write(path, GV_NPY_F32, 2, shape, c), 0);
    snprintf(args, sizeof args, "judge --case '%s/case.json' --outputs '%s' -q", dir, path);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 1, "%s", out);
    cr_expect_not_null(strstr(out, "FAIL"), "%s", out);

    /* usage errors, each named: a missing file, a wrong count, a dtype mix, a transposed
       output, no --size where the inputs do not carry the dims */
    double dc[24 * 16] = {0};
    char pd[1024], pt[1024];
    snprintf(pd, sizeof pd, "%s/C64.npy", dir);
    cr_assert_eq(gv_npy_write(pd, GV_NPY_F64, 2, shape, dc), 0);
    int64_t tshape[2] = {16, 24};
    snprintf(pt, sizeof pt, "%s/CT.npy", dir);
    cr_assert_eq(gv_npy_write(pt, GV_NPY_F32, 2, tshape, c), 0);
    struct {
        char args[6000];
        const char *says;
    } bad[6];
    snprintf(bad[0].args, sizeof bad[0].args,
             "judge --op gemm --inputs '%s,%s/none.npy' --outputs '%s'", a_path, dir, path);
    bad[0].says = "none.npy";
    snprintf(bad[1].args, sizeof bad[1].args, "judge --op gemm --inputs '%s' --outputs '%s'",
             a_path, path);
    bad[1].says = "takes 2 input files";
    snprintf(bad[2].args, sizeof bad[2].args, "judge --op gemm --inputs '%s,%s' --outputs '%s'",
             a_path, b_path, pd);
    bad[2].says = "share one dtype";
    snprintf(bad[3].args, sizeof bad[3].args, "judge --op gemm --inputs '%s,%s' --outputs '%s'",
             a_path, b_path, pt);
    bad[3].says = "shape (16, 24)";
    snprintf(bad[4].args, sizeof bad[4].args, "judge --op fft.c2c.fwd --inputs '%s' --outputs '%s'",
             a_path, path);
    bad[4].says = "is complex"; /* a 2-d real array where the FFT's input is complex */
    snprintf(bad[5].args, sizeof bad[5].args, "judge --op gemm --inputs '%s,%s' --outputs '%s,%s'",
             a_path, b_path, path, path);
    bad[5].says = "takes 2 inputs";
    for (int i = 0; i < 6; i++) {
        cr_expect_eq(gv_test_run_cli(bad[i].args, out, sizeof out), 2, "%s: %s", bad[i].args, out);
        cr_expect_not_null(strstr(out, bad[i].says), "%s: '%s' lacks '%s'", bad[i].args, out,
                           bad[i].says);
    }
    free(c);
    gv_npy_free(&a);
    gv_npy_free(&b);
    gv_test_remove_dir(dir);
}

/* judge reads its outputs in full before saying anything: a mode the op lacks is a usage
   error, and so is a --seed without the --dist it belongs to. */
Test(judge_cli, usage_errors_before_any_work)
{
    static char out[8192];
    cr_expect_eq(gv_test_run_cli("judge", out, sizeof out), 2, "%s", out);
    cr_expect_eq(gv_test_run_cli("judge --op gemm --inputs a.npy,b.npy --outputs c.npy --seed 3",
                                 out, sizeof out),
                 2, "%s", out);
    cr_expect_not_null(strstr(out, "--dist"), "%s", out);
    cr_expect_eq(gv_test_run_cli("inputs --op gemm", out, sizeof out), 2, "%s", out);
    cr_expect_eq(gv_test_run_cli("inputs --op nosuch --out /tmp/x", out, sizeof out), 2, "%s", out);
    cr_expect_eq(gv_test_run_cli("judge --help", out, sizeof out), 0, "%s", out);
    cr_expect_not_null(strstr(out, "--outputs"), "%s", out);
}

/* gpuval inputs writes DIR (reduce.sum or reduce.colsum, f64, the tiny dist: f64 subnormals),
   the output is the exact sum (one double rounding of the long double sum: the inputs are
   multiples of 2^-1074, so the f64 sum of n <= 2 of them is exact) written as nd dims (0: the
   shape () of NumPy's x.sum(), torch's and CuPy's), and judged: the exit code and the row. */
static int judge_exact_sum(const char *dir, const char *op, const char *size, int nd, char *out,
                           size_t len)
{
    char args[4096], path[1024], out_path[1024];
    snprintf(args, sizeof args,
             "inputs --op %s --dtype f64 --size %s --dist tiny --out '%s' --force", op, size, dir);
    cr_assert_eq(gv_test_run_cli(args, out, len), 0, "%s", out);
    snprintf(path, sizeof path, "%s/%s", dir, strcmp(op, "reduce.sum") == 0 ? "x.npy" : "X.npy");
    gv_npy x;
    char err[512];
    cr_assert_eq(gv_npy_read(path, &x, err, sizeof err), GV_OK, "%s", err);
    cr_assert_eq(x.type, GV_NPY_F64);
    const double *v = x.data;
    double s = 0.0;
    for (int64_t i = 0; i < x.count; i++) {
        cr_assert(v[i] != 0.0 && fabs(v[i]) < 0x1p-1022, "the tiny inputs are subnormal: %a", v[i]);
        s += v[i];
    }
    int64_t one = 1;
    snprintf(out_path, sizeof out_path, "%s/s.npy", dir);
    cr_assert_eq(gv_npy_write(out_path, GV_NPY_F64, nd, &one, &s), 0);
    gv_npy_free(&x);
    snprintf(args, sizeof args, "judge --case '%s/case.json' --outputs '%s'", dir, out_path);
    return gv_test_run_cli(args, out, len);
}

/* An exact output never FAILs a model: the exact f64 sums of the tiny dist at n = 1, 2 and the
   column sum of 1x1 (as torch and CuPy return them) FAILed with "max R inf" at max_rel 0, the
   probabilistic gauge having come out NaN (go_pow2_scale's scale overflowed). A 0-d .npy is
   taken for the one-element output. */
Test(judge_cli, exact_sums_of_subnormals_pass, .timeout = 60)
{
    char dir[512];
    static char out[1 << 14];
    gv_test_scratch_dir(dir, sizeof dir, "judge_tiny");
    const struct {
        const char *op, *size;
        int nd;
    } cases[] = {{"reduce.sum", "1", 0}, {"reduce.sum", "1", 1},      {"reduce.sum", "2", 0},
                 {"reduce.sum", "2", 1}, {"reduce.colsum", "1x1", 0}, {"reduce.colsum", "1x1", 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = judge_exact_sum(dir, cases[i].op, cases[i].size, cases[i].nd, out, sizeof out);
        cr_expect_eq(rc, 0, "%s %s, output of %d dims: %s", cases[i].op, cases[i].size, cases[i].nd,
                     out);
        cr_expect_not_null(strstr(out, "PASS"), "%s", out);
        cr_expect_null(strstr(out, "inf over"), "%s", out);
    }
    gv_test_remove_dir(dir);
}

/* judge --json of given data records the input files' SHA-256 (input_files, as check --inputs
   does), so that compare matches two judgements only on the same data: the same arrays twice
   are matched (SAME, exit 0); arrays of the same shape with other values are not (each case
   on one side only: the base's ran and is missing from the new run, INCONCLUSIVE, exit 5),
   where they were matched as one case and their different errors read as REGRESSED (exit 4). */
Test(judge_cli, given_data_is_part_of_the_case, .timeout = 60)
{
    char dir[512], args[8192], x1[1024], x2[1024], s1[1024], s2[1024], j1[1024], j1b[1024],
        j2[1024];
    static char out[1 << 16];
    gv_test_scratch_dir(dir, sizeof dir, "judge_key");
    const int64_t n = 1000;
    float a[1000], b[1000];
    for (int64_t i = 0; i < n; i++) {
        a[i] = (float)((i * 7919 % 1000) / 1000.0);
        b[i] = (float)((i * 104729 % 997) / 997.0);
    }
    /* each sum in f32, in order: a's correct, b's a little off (a worse but passing error) */
    float sa = 0.0f, sb = 0.0f;
    for (int64_t i = 0; i < n; i++) {
        sa += a[i];
        sb += b[i];
    }
    sb *= 1.0f + 3e-6f;
    int64_t shape = n, one = 1;
    snprintf(x1, sizeof x1, "%s/x1.npy", dir);
    snprintf(x2, sizeof x2, "%s/x2.npy", dir);
    snprintf(s1, sizeof s1, "%s/s1.npy", dir);
    snprintf(s2, sizeof s2, "%s/s2.npy", dir);
    cr_assert_eq(gv_npy_write(x1, GV_NPY_F32, 1, &shape, a), 0);
    cr_assert_eq(gv_npy_write(x2, GV_NPY_F32, 1, &shape, b), 0);
    cr_assert_eq(gv_npy_write(s1, GV_NPY_F32, 1, &one, &sa), 0);
    cr_assert_eq(gv_npy_write(s2, GV_NPY_F32, 1, &one, &sb), 0);
    const char *xs[3] = {x1, x1, x2}, *ss[3] = {s1, s1, s2};
    char *js[3] = {j1, j1b, j2};
    snprintf(j1, sizeof j1, "%s/r1.json", dir);
    snprintf(j1b, sizeof j1b, "%s/r1b.json", dir);
    snprintf(j2, sizeof j2, "%s/r2.json", dir);
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args,
                 "judge --op reduce.sum --inputs '%s' --outputs '%s' --json '%s'", xs[i], ss[i],
                 js[i]);
        cr_assert_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
    }
    /* the digest of the file, as the run document records it */
    json_error_t jerr;
    json_t *doc = json_load_file(j1, 0, &jerr);
    cr_assert_not_null(doc, "%s", jerr.text);
    json_t *c = json_array_get(json_object_get(doc, "cases"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(c, "inputs")), "given");
    json_t *files = json_object_get(c, "input_files");
    cr_expect(json_is_array(files) && json_array_size(files) == 1, "input_files recorded");
    const char *h = json_string_value(json_object_get(json_array_get(files, 0), "sha256"));
    cr_expect(h && strlen(h) == 64, "a SHA-256");
    json_decref(doc);

    snprintf(args, sizeof args, "compare '%s' '%s'", j1, j1b);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "the same data: %s", out);
    cr_expect_not_null(strstr(out, "1 matched"), "%s", out);
    snprintf(args, sizeof args, "compare '%s' '%s'", j1, j2);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 5, "other data: %s", out);
    cr_expect_null(strstr(out, "REGRESSED"), "%s", out);
    cr_expect_not_null(strstr(out, "only in base"), "%s", out);
    cr_expect_not_null(strstr(out, "only in new"), "%s", out);
    gv_test_remove_dir(dir);
}
