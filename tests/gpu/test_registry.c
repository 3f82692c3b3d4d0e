/* test_registry.c: every registered case at its small and medium test sizes, generated from
 * the registry, judged end to end on the device. Planted-bug variants must FAIL: proof that
 * the oracle can fail. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "gk.h"

/* Parameters cross into each test's own process: plain data only (no pointers, which
 * would not survive the re-executed binary), so the op travels by index. */
typedef struct case_param {
    int op_index;
    int dtype, mode, dist;
    gv_shape shape;
} case_param;

static void free_params(struct criterion_test_params *ctp)
{
    cr_free(ctp->params);
}

ParameterizedTestParameters(gpu, registry)
{
    gv_selection sel = {.dist = -1, .test_shapes = true, .planted = true, .seed = 7};
    gv_case *cases = NULL;
    char err[256];
    int n = gv_select(&sel, &cases, err, sizeof err);
    if (n <= 0) {
        /* a failed or empty selection must fail the suite, not leave it with nothing to run:
           one parameter that the test below fails on */
        case_param *bad = cr_malloc(sizeof *bad);
        *bad = (case_param){.op_index = -1, .dtype = n};
        return cr_make_param_array(case_param, bad, 1, free_params);
    }
    case_param *params = cr_malloc(sizeof *params * (size_t)n);
    const gv_op *const *ops = gv_registry();
    int kept = 0;
    for (int i = 0; i < n; i++) {
        /* planted faults lose the context or hang by design: test_faults.c runs them, each in
           a child process of its own under check's --case-timeout */
        if (cases[i].op->planted_fault) continue;
        int idx = 0;
        while (ops[idx] != cases[i].op)
            idx++;
        params[kept++] =
            (case_param){idx, cases[i].dtype, cases[i].mode, cases[i].dist, cases[i].shape};
    }
    free(cases);
    return cr_make_param_array(case_param, params, (size_t)kept, free_params);
}

ParameterizedTest(case_param *p, gpu, registry, .timeout = 300)
{
    cr_assert_geq(p->op_index, 0, "the registry selection failed (%d): no case would run",
                  p->dtype);
    gv_case c = {gv_registry()[p->op_index], (gv_dtype)p->dtype, (gv_mode)p->mode,
                 (gv_dist)p->dist,           p->shape,           7};
    gv_result r;
    char label[160];
    gv_case_label(&c, label, sizeof label);
    cr_assert_eq(gv_run_case(&c, &gv_default_tiers, &r), GV_OK, "%s: harness failed", label);
    cr_log_info("%s: %s ratio %.3g normwise %.3g %s", label, gv_verdict_name(r.verdict), r.m.ratio,
                r.m.normwise_rel, r.reason);
    /* a mode this device lacks (gv_mode_need: bf16x9 off 10.x, fp8 before 8.9, ...) is a SKIP
       that says why, whatever the op: never run under its label, never an ERROR */
    gk_device_info d;
    cr_assert_eq(gk_device_info_get(&d), GV_OK, "device query: %s", gk_last_error());
    char why[256];
    const char *lack = gv_mode_need(c.mode, d.cc_major * 10 + d.cc_minor, why, sizeof why);
    if (lack) {
        cr_expect_eq(r.verdict, GV_SKIP, "%s: %s (%s), but the device lacks the mode: %s", label,
                     gv_verdict_name(r.verdict), r.reason, lack);
        cr_expect(strstr(r.reason, lack) != NULL, "%s: SKIP reason '%s' does not say '%s'", label,
                  r.reason, lack);
        return;
    }
    /* a mode planted out of effect shows on its probes only; its other cases run the
       arithmetic of a neighbouring mode, which its model may well pass */
    bool must_fail = c.op->planted_bug && !c.op->planted_for_probe &&
                     (!c.op->planted_in_probes || gv_probe_applies(c.dist, c.dtype, c.mode));
    if (must_fail)
        cr_expect_eq(r.verdict, GV_FAIL, "%s (planted bug: %s) was judged %s, not FAIL (%s)", label,
                     c.op->planted_bug, gv_verdict_name(r.verdict), r.reason);
    else if (c.op->planted_bug)
        cr_expect(r.verdict == GV_PASS || r.verdict == GV_FAIL, "%s (planted bug: %s): %s (%s)",
                  label, c.op->planted_bug, gv_verdict_name(r.verdict), r.reason);
    else
        cr_expect_eq(r.verdict, GV_PASS, "%s: %s (%s), ratio %.3g, normwise %.3g", label,
                     gv_verdict_name(r.verdict), r.reason, r.m.ratio, r.m.normwise_rel);
}
