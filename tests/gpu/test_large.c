/* test_large.c: the large tier (check --large), every case whose flat index or cell count
 * passes 2^31, judged end to end on the device: each PASSes where the host and the device can
 * hold it and is a SKIP that names the memory it lacks otherwise; the planted 32-bit index
 * (vadd.idx32) FAILs with exactly the elements past its last int index unwritten, and is right
 * below 2^31. Its cases need the device and most of the host's memory alone: tests/meson.build
 * runs them as a test of their own (gpu-large), one at a time. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <limits.h>
#include <string.h>

#include "core/judge.h"
#include "core/problem.h"
#include "core/reference.h"
#include "core/registry.h"
#include "core/run.h"

/* Plain data across Criterion's re-executed processes: the op by index. */
typedef struct large_param {
    int op_index;
    int dtype, mode, dist;
    gv_shape shape;
} large_param;

static void free_params(struct criterion_test_params *ctp)
{
    cr_free(ctp->params);
}

ParameterizedTestParameters(gpu_large, tier)
{
    gv_selection sel = {.dist = -1, .large = true, .planted = true, .seed = 11};
    gv_case *cases = NULL;
    char err[256];
    int n = gv_select(&sel, &cases, err, sizeof err);
    if (n <= 0) { /* an empty tier must fail, not pass with nothing run */
        large_param *bad = cr_malloc(sizeof *bad);
        *bad = (large_param){.op_index = -1, .dtype = n};
        return cr_make_param_array(large_param, bad, 1, free_params);
    }
    large_param *params = cr_malloc(sizeof *params * (size_t)n);
    const gv_op *const *ops = gv_registry();
    for (int i = 0; i < n; i++) {
        int idx = 0;
        while (ops[idx] != cases[i].op)
            idx++;
        params[i] =
            (large_param){idx, cases[i].dtype, cases[i].mode, cases[i].dist, cases[i].shape};
    }
    free(cases);
    return cr_make_param_array(large_param, params, (size_t)n, free_params);
}

/* The most elements any tensor or the workspace of the case holds. */
static double largest_index_space(const gv_case *c)
{
    gv_layout l;
    cr_assert_eq(c->op->layout(c, &l), GV_OK);
    double most = (double)l.workspace_bytes / (double)gv_dtype_size(c->dtype);
    for (int i = 0; i < l.n_in; i++)
        if ((double)l.in[i].count > most) most = (double)l.in[i].count;
    for (int i = 0; i < l.n_out; i++)
        if ((double)l.out[i].count > most) most = (double)l.out[i].count;
    return most;
}

/* About 30 s a case on 16 cores where it runs (inputs, oracle and gauges over 2^31 values, the
   judge); the slowest, diffusion.fixed over 8 steps in f64, about a minute. */
ParameterizedTest(large_param *p, gpu_large, tier, .timeout = 900)
{
    cr_assert_geq(p->op_index, 0, "the large tier's selection failed (%d): nothing would run",
                  p->dtype);
    gv_case c = {gv_registry()[p->op_index], (gv_dtype)p->dtype, (gv_mode)p->mode,
                 (gv_dist)p->dist,           p->shape,           11};
    char label[160];
    gv_case_label(&c, label, sizeof label);
    cr_assert_gt(largest_index_space(&c), 2147483648.0, "%s does not pass 2^31 elements", label);
    gv_result r;
    cr_assert_eq(gv_run_case(&c, &r), GV_OK, "%s: harness failed", label);
    cr_log_info("%s: %s ratio %.3g normwise %.3g %s (inputs %.0f ms, oracle %.0f ms, device "
                "%.0f ms, judge %.0f ms)",
                label, gv_verdict_name(r.verdict), r.m.ratio, r.m.normwise_rel, r.reason,
                r.inputs_ms, r.oracle_ms, r.device_ms, r.judge_ms);
    if (r.verdict == GV_SKIP) {
        /* the one reason the tier accepts: memory this machine lacks, with the numbers */
        bool host = strstr(r.reason, "GB of host memory") != NULL;
        bool device = strstr(r.reason, "bytes of device memory") != NULL;
        cr_assert(host || device, "%s: SKIP for another reason than memory: %s", label, r.reason);
        if (device) cr_assert_gt(r.bytes_needed, r.bytes_free, "%s: %s", label, r.reason);
        cr_skip_test("%s: %s", label, r.reason);
    }
    if (!c.op->planted_bug) {
        cr_expect_eq(r.verdict, GV_PASS, "%s: %s (%s), ratio %.3g, normwise %.3g", label,
                     gv_verdict_name(r.verdict), r.reason, r.m.ratio, r.m.normwise_rel);
        return;
    }
    cr_expect_eq(r.verdict, GV_FAIL, "%s (planted bug: %s) was judged %s, not FAIL (%s)", label,
                 c.op->planted_bug, gv_verdict_name(r.verdict), r.reason);
    if (strcmp(c.op->name, "vadd.idx32") == 0) {
        /* int indices 0 .. INT_MAX - 1 are written; every element from INT_MAX on is not */
        int64_t n = c.shape.d[0];
        cr_expect_eq(r.m.poisoned, n - INT_MAX, "%s: %lld unwritten, %lld past the last int index",
                     label, (long long)r.m.poisoned, (long long)(n - INT_MAX));
        cr_expect_eq(r.m.first_poisoned_index, (int64_t)INT_MAX, "%s: first unwritten at %lld",
                     label, (long long)r.m.first_poisoned_index);
    }
}

/* The planted 32-bit index is right wherever its indices fit: only the large tier can see it
   (which is why no other selection takes it). */
Test(gpu_large, idx32_is_right_below_2_31, .timeout = 300)
{
    const gv_op *op = gv_op_find("vadd.idx32");
    cr_assert_not_null(op);
    const int64_t sizes[] = {1, 4099, 1048583, 100000007};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        gv_case c = {op, GV_F32, GV_MODE_NATIVE, op->default_dist, {.nd = 1, .d = {sizes[s]}}, 11};
        gv_result r;
        cr_assert_eq(gv_run_case(&c, &r), GV_OK);
        cr_expect_eq(r.verdict, GV_PASS, "vadd.idx32 at %lld: %s (%s)", (long long)sizes[s],
                     gv_verdict_name(r.verdict), r.reason);
    }
}
