/* test_guard.c: gk_run's guards on the device. The planted vadd.pastend, vadd.prestart and
 * vadd.clobber compute c correctly and make one stray store each (c[n], c[-1], a[n-1]):
 * only the red zones and the input check can FAIL them, and the reason must name the
 * violation. Plain vadd, at sizes that are and are not multiples of the vector width, must
 * still PASS with the red zones in place. GPUVAL_INJECT_FAULT=launch must turn a run into
 * an ERROR (what makes `gpuval check` exit 3). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"

static gv_result run(const char *op, gv_dtype t, int64_t n)
{
    gv_case cs = {gv_op_find(op), t, GV_MODE_NATIVE, GV_DIST_UNIFORM01, {1, {n}}, 11};
    cr_assert_not_null(cs.op, "op %s is registered", op);
    gv_result r;
    cr_assert_eq(gv_run_case(&cs, &r), GV_OK);
    cr_log_info("%s %s %lld: %s ratio %.3g (%s)", op, gv_dtype_name(t), (long long)n,
                gv_verdict_name(r.verdict), r.m.ratio, r.reason);
    return r;
}

/* A guard FAIL whose reason holds both `what` and `where`; the outputs still came back, so
   the metrics are those of a correct c (nothing unwritten, within the error model). */
static void expect_guard_fail(const char *op, gv_dtype t, int64_t n, const char *what,
                              const char *where)
{
    gv_result r = run(op, t, n);
    cr_expect_eq(r.verdict, GV_FAIL, "%s %s %lld: %s, not FAIL (%s)", op, gv_dtype_name(t),
                 (long long)n, gv_verdict_name(r.verdict), r.reason);
    cr_expect_not_null(strstr(r.reason, what), "%s: reason \"%s\" lacks \"%s\"", op, r.reason,
                       what);
    cr_expect_not_null(strstr(r.reason, where), "%s: reason \"%s\" lacks \"%s\"", op, r.reason,
                       where);
    cr_expect_eq(r.m.poisoned, 0, "%s: the outputs were downloaded (%lld unwritten)", op,
                 (long long)r.m.poisoned);
    cr_expect(r.m.ratio <= r.ratio_bound, "%s: c itself is right (ratio %.3g)", op, r.m.ratio);
}

Test(gpu_guard, write_past_the_end_of_an_output_fails, .timeout = 120)
{
    expect_guard_fail("vadd.pastend", GV_F32, 1001, "past the end", "output 0 (c)");
    expect_guard_fail("vadd.pastend", GV_F64, 1001, "past the end", "output 0 (c)");
    expect_guard_fail("vadd.pastend", GV_F32, 1, "past the end", "output 0 (c)");
}

Test(gpu_guard, write_before_the_start_of_an_output_fails, .timeout = 120)
{
    expect_guard_fail("vadd.prestart", GV_F32, 1001, "before the start", "output 0 (c)");
    expect_guard_fail("vadd.prestart", GV_F64, 1001, "before the start", "output 0 (c)");
}

Test(gpu_guard, changed_input_fails, .timeout = 120)
{
    expect_guard_fail("vadd.clobber", GV_F32, 1001, "changed", "input 0 (a)");
    expect_guard_fail("vadd.clobber", GV_F64, 1001, "changed", "input 0 (a)");
    gv_result r = run("vadd.clobber", GV_F64, 1001);
    cr_expect_not_null(strstr(r.reason, "1 of 1001 elements differ, first at element 1000"),
                       "the clobbered element is named: %s", r.reason);
}

Test(gpu_guard, plain_vadd_still_passes, .timeout = 120)
{
    const int64_t sizes[] = {1001, 100003};
    for (int t = 0; t < GV_NDTYPES; t++) {
        for (int k = 0; k < 2; k++) {
            gv_result r = run("vadd", (gv_dtype)t, sizes[k]);
            cr_expect_eq(r.verdict, GV_PASS, "vadd %s %lld: %s (%s)", gv_dtype_name((gv_dtype)t),
                         (long long)sizes[k], gv_verdict_name(r.verdict), r.reason);
        }
    }
}

Test(gpu_guard, injected_launch_fault_is_an_error, .timeout = 120)
{
    /* Criterion runs each test in a process of its own: the variable stays here */
    cr_assert_eq(setenv("GPUVAL_INJECT_FAULT", "launch", 1), 0);
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
    gv_result r = run("vadd", GV_F32, 1001);
    unsetenv("GPUVAL_INJECT_FAULT");
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
    cr_expect_eq(r.verdict, GV_ERROR, "injected fault: %s (%s)", gv_verdict_name(r.verdict),
                 r.reason);
    cr_expect_not_null(strstr(r.reason, "injected fault (GPUVAL_INJECT_FAULT=launch)"), "%s",
                       r.reason);
    gv_result again = run("vadd", GV_F32, 1001);
    cr_expect_eq(again.verdict, GV_PASS, "after the injected fault: %s (%s)",
                 gv_verdict_name(again.verdict), again.reason);
}
