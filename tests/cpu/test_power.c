/* test_power.c: the board's account around a timed case without a board. Two NVML reads
 * make a gv_clocks: only a slowdown reason (power cap, thermal, hardware, power brake) marks
 * the time, never idle or an application clock setting; a failed read is no measurement. A
 * bench case carrying such a mark writes it to its JSON, and its table row (from the struct
 * or from the JSON) ends with a Warn: note naming the reasons and the clocks. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench_json.h"
#include "io/json_util.h"
#include "render/bench_text.h"
#include "bench/bench_result.h"
#include "core/power.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

static gv_power reading(unsigned mhz, unsigned long long reasons)
{
    gv_power p;
    memset(&p, 0, sizeof p);
    p.ok = true;
    p.sm_clock_mhz = mhz;
    p.throttle = reasons;
    return p;
}

Test(power, only_slowdown_reasons_mark_a_time)
{
    gv_clocks c;
    gv_power a = reading(1980, 0x1 /* idle */), b = reading(1980, 0x2 /* app clocks */);
    gv_clocks_from(&a, &b, &c);
    cr_expect(c.ok);
    cr_expect(!c.throttled, "idle and application clocks are not a slowdown");
    cr_expect_eq(c.throttle, 0x3ull, "the reasons of both reads");
    const unsigned long long slow[] = {0x4, 0x8, 0x20, 0x40, 0x80};
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++) {
        b = reading(1410, slow[i]);
        gv_clocks_from(&a, &b, &c);
        cr_expect(c.throttled, "reason 0x%llx marks the time", slow[i]);
        cr_expect_eq(c.sm_mhz_before, 1980u);
        cr_expect_eq(c.sm_mhz_after, 1410u);
    }
    b.ok = false;
    snprintf(b.why, sizeof b.why, "NVML not available (libnvidia-ml.so.1)");
    gv_clocks_from(&a, &b, &c);
    cr_expect(!c.ok && !c.throttled);
    cr_expect_str_eq(c.why, "NVML not available (libnvidia-ml.so.1)");
}

Test(power, throttle_names)
{
    char buf[128];
    cr_expect_str_eq(gv_throttle_names(0x4 | 0x40, buf, sizeof buf), "sw power cap, hw thermal");
    cr_expect_str_eq(gv_throttle_names(0x1, buf, sizeof buf), "", "idle is not named");
}

/* A timed vadd case with the given clocks, as the struct and as its JSON. */
static void timed_case(gv_bench_case_result *r, const gv_clocks *clocks)
{
    gv_bench_case bc;
    memset(&bc, 0, sizeof bc);
    gv_case c = gv_test_case("vadd", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                             (gv_shape){1, {1 << 20}}, 3);
    bc.c = c;
    gv_result_init(&bc.sanity, &c);
    bc.timed = true;
    bc.kernel_verdict = GV_PASS;
    bc.sanity.verdict = GV_PASS;
    for (int i = 0; i < 10; i++)
        gv_samples_push(&bc.t[GV_T_HOT], 0.05 * (1.0 + 0.001 * i));
    bc.clocks = *clocks;
    gv_bench_result_make(r, &bc, NULL, 0.95);
}

static void row_text(const gv_bench_case_result *r, const json_t *j, char *buf, size_t len)
{
    FILE *f = fmemopen(buf, len, "w");
    cr_assert_not_null(f);
    if (j)
        gv_bench_render_row(f, j);
    else
        gv_bench_render_row_result(f, r);
    fclose(f);
}

Test(power, a_throttled_case_is_marked_in_json_and_table)
{
    gv_power a = reading(1980, 0), b = reading(1395, 0x4);
    gv_clocks thr, calm;
    gv_clocks_from(&a, &b, &thr);
    b = reading(1980, 0x1);
    gv_clocks_from(&a, &b, &calm);
    char buf[4096];

    gv_bench_case_result r;
    timed_case(&r, &thr);
    json_t *j = gv_bench_case_json(&r);
    cr_expect(json_is_true(json_object_get(json_object_get(j, "clocks"), "throttled")));
    cr_expect_eq(gv_jnum(j, "clocks.sm_mhz_before"), 1980);
    cr_expect_eq(gv_jnum(j, "clocks.sm_mhz_after"), 1395);
    cr_expect_eq(gv_jnum(j, "clocks.throttle_reasons"), 4);
    row_text(&r, NULL, buf, sizeof buf);
    cr_expect_not_null(strstr(buf, "Warn: timed while the clocks were held down (sw power cap; "
                                   "SM 1980 -> 1395 MHz)"),
                       "%s", buf);
    row_text(NULL, j, buf, sizeof buf);
    cr_expect_not_null(strstr(buf, "Warn: timed while"), "the same from the JSON: %s", buf);
    json_decref(j);
    gv_bench_result_free(&r);

    timed_case(&r, &calm);
    j = gv_bench_case_json(&r);
    cr_expect(json_is_false(json_object_get(json_object_get(j, "clocks"), "throttled")));
    row_text(&r, NULL, buf, sizeof buf);
    cr_expect_null(strstr(buf, "Warn:"), "%s", buf);
    json_decref(j);
    gv_bench_result_free(&r);

    gv_clocks none;
    memset(&none, 0, sizeof none);
    snprintf(none.why, sizeof none.why, "not read");
    timed_case(&r, &none);
    j = gv_bench_case_json(&r);
    cr_expect(json_is_null(json_object_get(j, "clocks")));
    cr_expect_str_eq(gv_jstr(j, "clocks_why"), "not read");
    json_decref(j);
    gv_bench_result_free(&r);
}
