/* test_registry.c: every registered case at its small and medium test sizes, generated from
 * the registry, judged end to end on the device. Planted-bug variants must FAIL: proof that
 * the oracle can fail.
 *
 * One Criterion test per op, under the name of its family (gpu_registry/gemm,
 * gpu_registry/fft, ...: `--filter 'gpu_registry/fft'` runs one family): the op's cases run
 * one after another in the test's process. A process and a CUDA context per case cost about
 * a second each under eight workers and were 98 % of the suite's time (on an H100 the 609
 * non-planted cases take 14.5 s in one process); an op's cases share them now. A case that
 * breaks the context (a fault) fails its op's test and hides that op's later cases: its
 * failure names the case. Planted faults (a hang, an illegal address) never run here:
 * test_faults.c runs each in a process of its own. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "gk.h"

/* The families that have a test below: meson.build's list (gv_families.h, GV_FAMILY_LIST, made
   by tests/meson.build from it), so a family added there has its test here with no edit;
   gpu_registry_meta/every_family_has_a_test still fails when the registry holds one that is
   not here (its ops would go unchecked). */
#include "gv_families.h"
#define GV_FAMILY_NAME(f) #f,
static const char *const families[] = {GV_FAMILY_LIST(GV_FAMILY_NAME)};

/* The selection every op's cases come from. */
static int select_cases(gv_case **cases, char *err, size_t len)
{
    gv_selection sel = {.dist = -1, .test_shapes = true, .planted = true, .seed = 7};
    return gv_select(&sel, cases, err, len);
}

/* Parameters cross into each test's own process: plain data only (no pointers, which would
   not survive the re-executed binary), so the op travels by its registry index. */
typedef struct op_param {
    int op_index; /* -1: the selection failed (n holds its status) */
    int n;        /* the op's cases */
} op_param;

static void free_params(struct criterion_test_params *ctp)
{
    cr_free(ctp->params);
}

/* One parameter per op of family fam that has cases in the selection (planted faults left
   out). A failed or empty selection gives one parameter that the test fails on: the suite
   must not pass with nothing run. */
static struct criterion_test_params family_params(const char *fam)
{
    gv_case *cases = NULL;
    char err[256];
    int n = select_cases(&cases, err, sizeof err);
    const gv_op *const *ops = gv_registry();
    int nops = 0;
    while (ops[nops])
        nops++;
    op_param *params = cr_malloc(sizeof *params * (size_t)(nops > 0 ? nops : 1));
    int kept = 0;
    for (int o = 0; n > 0 && o < nops; o++) {
        if (strcmp(ops[o]->family, fam) != 0 || ops[o]->planted_fault) continue;
        int count = 0;
        for (int i = 0; i < n; i++)
            count += cases[i].op == ops[o];
        if (count > 0) params[kept++] = (op_param){o, count};
    }
    free(cases);
    if (kept == 0) params[kept++] = (op_param){-1, n};
    return cr_make_param_array(op_param, params, (size_t)kept, free_params);
}

/* One case, judged as the registry says it must be. */
static void judge_case(const gv_case *c, const gk_device_info *d)
{
    gv_result r;
    char label[160];
    gv_case_label(c, label, sizeof label);
    int rc = gv_run_case(c, &r);
    cr_expect_eq(rc, GV_OK, "%s: harness failed", label);
    if (rc != GV_OK) return;
    cr_log_info("%s: %s ratio %.3g normwise %.3g %s", label, gv_verdict_name(r.verdict), r.m.ratio,
                r.m.normwise_rel, r.reason);
    /* a mode this device lacks (gv_mode_need: bf16x9 off 10.x, fp8 before 8.9, ...) is a SKIP
       that says why, whatever the op: never run under its label, never an ERROR */
    char why[256];
    const char *lack = gv_mode_need(c->mode, d->cc_major * 10 + d->cc_minor, why, sizeof why);
    if (lack) {
        cr_expect_eq(r.verdict, GV_SKIP, "%s: %s (%s), but the device lacks the mode: %s", label,
                     gv_verdict_name(r.verdict), r.reason, lack);
        cr_expect(strstr(r.reason, lack) != NULL, "%s: SKIP reason '%s' does not say '%s'", label,
                  r.reason, lack);
        return;
    }
    /* a mode planted out of effect shows on its probes only; its other cases run the
       arithmetic of a neighbouring mode, which its model may well pass */
    const gv_op *op = c->op;
    bool must_fail = op->planted_bug && !op->planted_for_probe &&
                     (!op->planted_in_probes || gv_probe_applies(c->dist, c->dtype, c->mode));
    if (must_fail)
        cr_expect_eq(r.verdict, GV_FAIL, "%s (planted bug: %s) was judged %s, not FAIL (%s)", label,
                     op->planted_bug, gv_verdict_name(r.verdict), r.reason);
    else if (op->planted_bug)
        cr_expect(r.verdict == GV_PASS || r.verdict == GV_FAIL, "%s (planted bug: %s): %s (%s)",
                  label, op->planted_bug, gv_verdict_name(r.verdict), r.reason);
    else
        cr_expect_eq(r.verdict, GV_PASS, "%s: %s (%s), ratio %.3g, normwise %.3g", label,
                     gv_verdict_name(r.verdict), r.reason, r.m.ratio, r.m.normwise_rel);
}

/* Every case of the op p names, in selection order, in this process. */
static void run_op(const op_param *p)
{
    cr_assert_geq(p->op_index, 0, "the registry selection failed or left this family empty (%d)",
                  p->n);
    const gv_op *op = gv_registry()[p->op_index];
    gv_case *cases = NULL;
    char err[256];
    int n = select_cases(&cases, err, sizeof err);
    cr_assert_gt(n, 0, "registry selection: %s", err);
    gk_device_info d;
    cr_assert_eq(gk_device_info_get(&d), GV_OK, "device query: %s", gk_last_error());
    int ran = 0;
    for (int i = 0; i < n; i++) {
        if (cases[i].op != op) continue;
        judge_case(&cases[i], &d);
        ran++;
    }
    free(cases);
    /* the parameters were made in another process: the same selection must give the same */
    cr_expect_eq(ran, p->n, "%s: %d cases ran, the parameters counted %d", op->name, ran, p->n);
    cr_log_info("%s: %d cases", op->name, ran);
}

#define REGISTRY_FAMILY(fam)                                                                       \
    ParameterizedTestParameters(gpu_registry, fam)                                                 \
    {                                                                                              \
        return family_params(#fam);                                                                \
    }                                                                                              \
    ParameterizedTest(op_param *p, gpu_registry, fam, .timeout = 600)                              \
    {                                                                                              \
        run_op(p);                                                                                 \
    }

GV_FAMILY_LIST(REGISTRY_FAMILY)

/* The families above are every family of the registry that has a case to run. */
Test(gpu_registry_meta, every_family_has_a_test)
{
    gv_case *cases = NULL;
    char err[256];
    int n = select_cases(&cases, err, sizeof err);
    cr_assert_gt(n, 0, "registry selection: %s", err);
    size_t nf = sizeof families / sizeof families[0];
    for (int i = 0; i < n; i++) {
        if (cases[i].op->planted_fault) continue;
        bool listed = false;
        for (size_t f = 0; f < nf && !listed; f++)
            listed = strcmp(cases[i].op->family, families[f]) == 0;
        cr_expect(listed, "family '%s' (op %s) has no gpu_registry test: add REGISTRY_FAMILY(%s)",
                  cases[i].op->family, cases[i].op->name, cases[i].op->family);
        if (!listed) break;
    }
    free(cases);
}
