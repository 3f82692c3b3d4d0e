/* test_judge.c: outputs computed outside gpuval, judged through gv_judge (gpuval.h 1.2) from
 * a program that links only the installed library: gpuval makes a gemm case's inputs
 * (gv_make_inputs), this program multiplies them on the CPU as any framework would, and the
 * product passes; the same product with one element off by 1e-3 relative fails. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuval.h>

#include "check.h"

/* C = A B, row-major, A m x k, B k x n, summed in k order in double. */
static double *product(const double *a, const double *b, int64_t m, int64_t k, int64_t n)
{
    double *c = malloc((size_t)(m * n) * sizeof *c);
    if (!c) return NULL;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0.0;
            for (int64_t p = 0; p < k; p++)
                s += a[i * k + p] * b[p * n + j];
            c[i * n + j] = s;
        }
    return c;
}

static int judge(const gv_case_inputs *ci, const double *c, gv_judgement *j)
{
    gv_array in[2] = {{ci->dtype, ci->in[0], ci->in_count[0], "A"},
                      {ci->dtype, ci->in[1], ci->in_count[1], "B"}};
    gv_array out = {ci->dtype, c, ci->out_count[0], "C"};
    gv_judge_spec s = {.op = "gemm",
                       .size = "48x64x40",
                       .dist = "uniform11",
                       .seed = 7,
                       .n_in = 2,
                       .n_out = 1,
                       .in = in,
                       .out = &out};
    return gv_judge(&s, j);
}

int main(void)
{
    CHECK(gv_api_version() >= 1002, "the library is API %d; gv_judge needs 1.2", gv_api_version());
    gv_case_inputs ci;
    char err[512] = "";
    int rc = gv_make_inputs("gemm", GV_DTYPE_F64, NULL, "48x64x40", "uniform11", 7, &ci, err,
                            sizeof err);
    CHECK(rc == GV_API_OK, "gv_make_inputs: %s (%s)", gv_api_strerror(rc), err);
    if (rc != GV_API_OK) return 1;
    CHECK(ci.n_in == 2 && ci.n_out == 1 && ci.in_shape[0][0] == 48 && ci.in_shape[0][1] == 64 &&
              ci.in_shape[1][1] == 40 && ci.out_count[0] == 48 * 40,
          "gemm's tensors: %d in, %d out", ci.n_in, ci.n_out);
    double *c = product(ci.in[0], ci.in[1], 48, 64, 40);
    CHECK(c != NULL, "out of memory");
    if (!c) return 1;

    gv_judgement j;
    rc = judge(&ci, c, &j);
    CHECK(rc == GV_API_OK, "gv_judge: %s (%s)", gv_api_strerror(rc), j.reason);
    CHECK(j.verdict == GV_VERDICT_PASS, "a correct product: verdict %d (%s)", j.verdict, j.reason);
    CHECK(j.meets_1e8 && j.ratio < 1.0, "tiers 1e-8 %d, ratio %g", j.meets_1e8, j.ratio);
    CHECK(j.json && strstr(j.json, "\"verdict\": \"PASS\""), "the case's JSON");
    gv_judgement_free(&j);

    c[17 * 40 + 3] *= 1.0 + 1e-3;
    rc = judge(&ci, c, &j);
    CHECK(rc == GV_API_OK, "gv_judge: %s (%s)", gv_api_strerror(rc), j.reason);
    CHECK(j.verdict == GV_VERDICT_FAIL, "one element off: verdict %d (%s)", j.verdict, j.reason);
    CHECK(j.reason[0] != '\0', "a FAIL says why");
    gv_judgement_free(&j);

    free(c);
    gv_case_inputs_free(&ci);
    return ext_failures ? 1 : 0;
}
