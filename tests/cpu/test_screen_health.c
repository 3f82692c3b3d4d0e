/* test_screen_health.c: the board beside the numbers in `gpuval screen`: the health rule
 * (gv_health_judge) on planted boards, the health and perf blocks written and read back, the
 * speed judgement against the node's other GPUs and the golden file, and the planted faults of
 * the board (GPUVAL_SCREEN_FAULT slow, ecc, xid). Every board here is synthetic: no GPU. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "render/fleet_text.h"
#include "cmd/screen.h" /* gv_screen_options */
#include "core/fault.h"
#include "core/power.h"
#include "fleet/screen_golden.h"
#include "fleet/screen_health.h"
#include "fleet/screen_judge.h"
#include "fleet/screen_out.h"
#include "render/screen_text.h"
#include "fleet/workers.h"
#include "testkit.h"

/* A healthy H100 as NVML reads it: ECC on with a few old corrected errors, no remapped row
   pending, clocks at their maximum. */
static gv_health healthy(void)
{
    gv_health h;
    memset(&h, 0, sizeof h);
    h.ok = true;
    h.have_ecc = true;
    h.ecc_vol_corrected = 2;
    h.ecc_agg_corrected = 40;
    h.have_remap = true;
    h.remap_corrected = 1;
    h.sm_clock_mhz = h.sm_clock_max_mhz = 1980;
    h.temp_c = 41;
    h.power_mw = 120000;
    h.throttle = 0x1; /* idle: not a slowdown */
    return h;
}

static bool judged(const gv_health *b, const gv_health *a, const unsigned long long *xid, int nx,
                   char *fail, char *warn)
{
    return gv_health_judge(b, a, xid, nx, fail, 512, warn, 320);
}

Test(screen_health, a_healthy_board_passes_and_each_failing_counter_fails_it_by_name)
{
    char fail[512], warn[320];
    gv_health b = healthy(), a = healthy();
    cr_expect_not(judged(&b, &a, NULL, 0, fail, warn), "%s", fail);
    cr_expect_str_empty(fail);
    cr_expect_str_empty(warn);

    a = healthy();
    a.ecc_vol_uncorrected = 1;
    a.ecc_agg_uncorrected = 1;
    cr_expect(judged(&b, &a, NULL, 0, fail, warn));
    cr_expect_not_null(strstr(fail, "1 uncorrected ECC errors since the driver loaded (after)"),
                       "%s", fail);
    cr_expect_not_null(strstr(fail, "grew by 1 during the screen"), "%s", fail);

    /* an uncorrected error from before the screen still fails: the board needs a reset */
    b = healthy(), a = healthy();
    b.ecc_vol_uncorrected = a.ecc_vol_uncorrected = 3;
    cr_expect(judged(&b, &a, NULL, 0, fail, warn));
    cr_expect_not_null(strstr(fail, "(before)"), "%s", fail);

    b = healthy(), a = healthy();
    a.remap_pending = 1;
    cr_expect(judged(&b, &a, NULL, 0, fail, warn));
    cr_expect_not_null(strstr(fail, "remapped row waits for a GPU reset"), "%s", fail);
    a = healthy();
    a.remap_failure = 1;
    cr_expect(judged(&b, &a, NULL, 0, fail, warn));
    cr_expect_not_null(strstr(fail, "row remapping failed"), "%s", fail);
    a = healthy();
    a.have_retired = true;
    a.retired_pending = 1;
    cr_expect(judged(&b, &a, NULL, 0, fail, warn));
    cr_expect_not_null(strstr(fail, "retired page"), "%s", fail);

    a = healthy();
    unsigned long long xid[2] = {48, 79};
    cr_expect(judged(&b, &a, xid, 2, fail, warn));
    cr_expect_not_null(strstr(fail, "XID 48 during the screen; XID 79"), "%s", fail);
}

Test(screen_health, corrected_errors_and_held_clocks_are_said_without_failing)
{
    char fail[512], warn[320];
    gv_health b = healthy(), a = healthy();
    a.ecc_vol_corrected += 5;
    a.throttle = 0x40 | 0x4; /* hw thermal, and the power cap that full load reaches */
    cr_expect_not(judged(&b, &a, NULL, 0, fail, warn), "%s", fail);
    cr_expect_not_null(strstr(warn, "corrected ECC errors grew by 5"), "%s", warn);
    cr_expect_not_null(strstr(warn, "clocks held down: hw thermal"), "%s", warn);
    cr_expect_null(strstr(warn, "power cap"), "%s", warn);
    /* a board NVML cannot read (no driver library, ECC off) is not failed for it */
    gv_health none;
    memset(&none, 0, sizeof none);
    snprintf(none.why, sizeof none.why, "NVML not available");
    cr_expect_not(judged(&none, &none, NULL, 0, fail, warn));
    b = healthy(), a = healthy();
    b.have_ecc = a.have_ecc = false;
    b.ecc_vol_uncorrected = a.ecc_vol_uncorrected = 7; /* not read: not there */
    cr_expect_not(judged(&b, &a, NULL, 0, fail, warn));
}

Test(screen_health, the_block_is_read_back_as_it_was_written)
{
    gv_health b = healthy(), a = healthy(), rb, ra;
    a.ecc_vol_uncorrected = 2;
    a.ecc_agg_uncorrected = 9;
    a.remap_pending = 1;
    a.have_retired = true;
    a.retired_pending = 1;
    a.throttle = 0x48;
    unsigned long long xid[GV_XID_MAX] = {13, 48}, back[GV_XID_MAX];
    json_t *o = gv_screen_health_json(&b, &a, xid, 2, "");
    char *text = json_dumps(o, 0);
    json_t *re = json_loads(text, 0, NULL);
    cr_assert_not_null(re);
    cr_expect_eq(gv_screen_health_read(re, &rb, &ra, back), 2);
    cr_expect_eq(back[0], 13);
    cr_expect_eq(back[1], 48);
    cr_expect(ra.ok && ra.have_ecc && ra.have_remap && ra.have_retired);
    cr_expect_eq(ra.ecc_vol_uncorrected, 2);
    cr_expect_eq(ra.ecc_agg_uncorrected, 9);
    cr_expect_eq(ra.remap_pending, 1);
    cr_expect_eq(ra.retired_pending, 1);
    cr_expect_eq(ra.throttle, 0x48);
    cr_expect_eq(rb.ecc_vol_corrected, b.ecc_vol_corrected);
    cr_expect_eq(rb.sm_clock_max_mhz, 1980);
    cr_expect_not(rb.have_retired);
    /* the same verdict from the document as from the boards */
    char f1[512], f2[512], w[320];
    cr_expect_eq(judged(&b, &a, xid, 2, f1, w), judged(&rb, &ra, back, 2, f2, w));
    cr_expect_str_eq(f1, f2);
    free(text);
    json_decref(re);
    json_decref(o);
    /* a board not read says why, and is read back as not read */
    gv_health none;
    memset(&none, 0, sizeof none);
    snprintf(none.why, sizeof none.why, "NVML not available (libnvidia-ml.so.1)");
    o = gv_screen_health_json(&none, &none, NULL, 0, "no device");
    cr_expect_eq(gv_screen_health_read(o, &rb, &ra, back), 0);
    cr_expect_not(ra.ok);
    cr_expect_str_eq(ra.why, "NVML not available (libnvidia-ml.so.1)");
    cr_expect_str_eq(json_string_value(json_object_get(o, "xid_watch")), "no device");
    json_decref(o);
}

Test(screen_health, the_board_faults_parse_strictly_and_leave_outputs_alone)
{
    gv_fault f;
    char err[256];
    cr_assert_eq(gv_fault_parse("1:slow", &f, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(f.kind, GV_FAULT_SLOW);
    cr_expect_eq(f.every, 3);
    cr_expect(gv_fault_of_board(&f));
    cr_assert_eq(gv_fault_parse("1:slow:10", &f, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(f.every, 10);
    cr_assert_eq(gv_fault_parse("0:ecc", &f, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(f.kind, GV_FAULT_ECC);
    cr_assert_eq(gv_fault_parse("0:xid", &f, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(f.every, 48);
    cr_assert_eq(gv_fault_parse("0:xid:79", &f, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(f.every, 79);
    float x[4] = {1, 2, 3, 4};
    cr_expect_eq(gv_fault_apply(&f, GV_F32, x, 4), 0);
    cr_expect(x[0] == 1 && x[1] == 2 && x[2] == 3 && x[3] == 4);
    cr_assert_eq(gv_fault_parse("0:mantissa", &f, err, sizeof err), GV_OK);
    cr_expect_not(gv_fault_of_board(&f));
    const char *bad[] = {"1:slow:1", "1:slow:101", "1:slow:x", "1:slow:2.5", "0:ecc:1",
                         "0:xid:0",  "0:xid:1001", "0:slow@gemm.*", "0:ecc@fft.*"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        cr_expect_eq(gv_fault_parse(bad[i], &f, err, sizeof err), GV_EINVAL, "'%s' accepted",
                     bad[i]);
        cr_expect_not_null(strstr(err, "GPUVAL_SCREEN_FAULT"), "'%s': %s", bad[i], err);
    }
}

/* ---- speed and health in the screen's judgement ------------------------------------------ */

#define H100 "NVIDIA H100 80GB HBM3"

/* A worker's run with no cases, device `index` of model `model`, its screen block carrying the
   speeds given (copy GB/s, f32 and f64 TFLOP/s) and the health of `after`. */
static json_t *board_run(int index, const char *model, double copy, double f32, double f64,
                         const gv_health *after)
{
    char uuid[64];
    snprintf(uuid, sizeof uuid, "0000000%d-aaaa-bbbb-cccc-000000000000", index);
    json_t *root = json_pack(
        "{s:s, s:s, s:{s:i}, s:{s:s, s:s, s:i, s:i, s:i}, s:[]}", "schema", "gpuval-run/1",
        "command", "screen", "fleet", "device_index", index, "device", "name", model, "uuid", uuid,
        "driver_version", 13000, "runtime_version", 13000, "cublas_version", 130100, "cases");
    double v[GV_SCREEN_NPERF] = {copy, f32, f64};
    gv_health b = healthy();
    json_t *screen = json_pack("{s:s, s:f, s:o, s:o}", "tier", "prolog/1", "seconds", 5.0, "perf",
                               gv_screen_perf_json(v, NULL), "health",
                               gv_screen_health_json(&b, after ? after : &b, NULL, 0, ""));
    json_object_set_new(root, "screen", screen);
    return root;
}

static int judge(json_t **docs, int n, const json_t *golden, gv_screen_verdict *v)
{
    const char *names[8] = {0};
    return gv_screen_judge(gv_screen_tier_find("prolog"), docs, names, n, golden, false, v);
}

static int perf_failures(const gv_screen_verdict *v, int g)
{
    int k = 0;
    for (int i = 0; i < v->n_failures; i++)
        k += v->failures[i].gpu == g && v->failures[i].unit == GV_UNIT_PERF &&
             v->failures[i].by == GV_SCREEN_BY_PERF;
    return k;
}

Test(screen_perf, healthy_peers_within_a_few_percent_are_never_named)
{
    /* eight boards spread as one node's H100s are (a few percent), none named */
    json_t *docs[8]; /* runs without cases: judged for their speed alone */
    const double spread[8] = {1.00, 0.97, 1.03, 0.95, 1.01, 0.99, 1.04, 0.96};
    for (int g = 0; g < 8; g++)
        docs[g] = board_run(g, H100, 2900 * spread[g], 50 * spread[g], 52 * spread[g], NULL);
    gv_screen_verdict v;
    judge(docs, 8, NULL, &v);
    for (int g = 0; g < 8; g++)
        cr_expect_eq(perf_failures(&v, g), 0, "GPU %d named", g);
    gv_screen_verdict_free(&v);
    for (int g = 0; g < 8; g++)
        json_decref(docs[g]);
}

Test(screen_perf, a_board_three_times_slower_is_named_among_eight_and_between_two)
{
    json_t *docs[8];
    for (int g = 0; g < 8; g++)
        docs[g] = board_run(g, H100, g == 5 ? 2900.0 / 3 : 2900, g == 5 ? 50.0 / 3 : 50,
                            g == 5 ? 52.0 / 3 : 52, NULL);
    gv_screen_verdict v;
    cr_expect_eq(judge(docs, 8, NULL, &v), 1);
    for (int g = 0; g < 8; g++)
        cr_expect_eq(perf_failures(&v, g), g == 5, "GPU %d", g);
    cr_expect_eq(v.gpus[5].unit_failures[GV_UNIT_PERF], 1);
    char line[2048];
    gv_screen_drain_line(&v, line, sizeof line);
    cr_expect_not_null(strstr(line, "GPU 5"), "%s", line);
    cr_expect_not_null(strstr(line, "copy_gbs 966.7 GB/s is 0.33 of the median of its 7 peers"),
                       "%s", line);
    /* the speeds reach the Prometheus textfile and the node document */
    char *text = NULL;
    size_t size = 0;
    FILE *pf = open_memstream(&text, &size);
    cr_assert_eq(gv_screen_write_prom(pf, &v), 0);
    fclose(pf);
    cr_expect_not_null(strstr(text, "gpuval_screen_speed{gpu=\"5\""), "%s", text);
    cr_expect_not_null(strstr(text, ",speed=\"copy_gbs\"} 966.7\n"), "%s", text);
    cr_expect_not_null(strstr(text, ",unit=\"perf\"} 1\n"), "%s", text);
    free(text);
    json_t *node = gv_screen_doc(&v, NULL);
    const json_t *g5 = json_array_get(json_object_get(node, "gpus"), 5);
    cr_expect_float_eq(json_real_value(json_object_get(json_object_get(g5, "perf"), "copy_gbs")),
                       2900.0 / 3, 1e-9);
    json_decref(node);
    gv_screen_verdict_free(&v);
    /* two boards: the slower one only (a faster board is never the fault) */
    json_t *pair[2] = {docs[4], docs[5]};
    cr_expect_eq(judge(pair, 2, NULL, &v), 1);
    cr_expect_eq(perf_failures(&v, 0), 0);
    cr_expect_eq(perf_failures(&v, 1), 1);
    gv_screen_verdict_free(&v);
    /* another model is not a peer: an A100 beside H100s is not slow for it */
    json_t *mixed[3] = {board_run(0, H100, 2900, 50, 52, NULL), board_run(1, H100, 2950, 51, 53, NULL),
                        board_run(2, "NVIDIA A100-SXM4-80GB", 1500, 19, 19, NULL)};
    judge(mixed, 3, NULL, &v); /* runs without cases: judged for their speed alone */
    cr_expect_eq(v.n_failures, 0);
    gv_screen_verdict_free(&v);
    for (int g = 0; g < 8; g++)
        json_decref(docs[g]);
    for (int g = 0; g < 3; g++)
        json_decref(mixed[g]);
}

Test(screen_perf, a_lone_board_is_judged_against_the_golden_speeds)
{
    json_t *node[2] = {board_run(0, H100, 2900, 50, 52, NULL), board_run(1, H100, 3000, 52, 54, NULL)};
    char err[512] = "";
    json_t *g = gv_screen_golden_record(NULL, node, 2, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    cr_expect_eq(gv_screen_golden_validate(g, "recorded", err, sizeof err), GV_OK, "%s", err);
    const json_t *perf = json_object_get(json_array_get(json_object_get(g, "entries"), 0), "perf");
    cr_expect_float_eq(json_real_value(json_object_get(perf, "copy_gbs")), 2950, 1e-9);
    cr_expect_float_eq(json_real_value(json_object_get(perf, "gemm_f32_tflops")), 51, 1e-9);
    gv_screen_verdict v;
    json_t *lone = board_run(3, H100, 2800, 49, 51, NULL);
    judge(&lone, 1, g, &v);
    cr_expect_eq(v.n_failures, 0);
    gv_screen_verdict_free(&v);
    json_decref(lone);
    lone = board_run(3, H100, 2800, 16, 51, NULL); /* its SIMT pipes at a third */
    cr_expect_eq(judge(&lone, 1, g, &v), 1);
    cr_assert_eq(v.n_failures, 1);
    cr_expect_not_null(strstr(v.failures[0].why, "gemm_f32_tflops 16 TFLOP/s is 0.31 of the "
                                                 "golden file's 51"),
                       "%s", v.failures[0].why);
    gv_screen_verdict_free(&v);
    json_decref(lone);
    /* a golden entry with a speed that is not one is refused by the reader */
    json_t *e = json_array_get(json_object_get(g, "entries"), 0);
    json_object_set_new(json_object_get(e, "perf"), "copy_gbs", json_real(-1));
    cr_expect_eq(gv_screen_golden_validate(g, "edited", err, sizeof err), GV_EINVAL);
    cr_expect_not_null(strstr(err, "perf \"copy_gbs\""), "%s", err);
    json_object_set_new(json_object_get(e, "perf"), "copy_gbs", json_real(2950));
    json_object_set_new(json_object_get(e, "perf"), "warp_speed", json_real(9));
    cr_expect_eq(gv_screen_golden_validate(g, "edited", err, sizeof err), GV_EINVAL);
    json_decref(g);
    json_decref(node[0]);
    json_decref(node[1]);
}

Test(screen_perf, a_failing_board_is_named_for_its_health_with_the_counter)
{
    gv_health bad = healthy();
    bad.ecc_vol_uncorrected = 1;
    bad.ecc_agg_uncorrected = 1;
    json_t *docs[2] = {board_run(0, H100, 2900, 50, 52, NULL),
                       board_run(1, H100, 2900, 50, 52, &bad)};
    gv_screen_verdict v;
    cr_expect_eq(judge(docs, 2, NULL, &v), 1);
    cr_assert_eq(v.n_failures, 1);
    cr_expect_eq(v.failures[0].gpu, 1);
    cr_expect_eq(v.failures[0].unit, GV_UNIT_HEALTH);
    cr_expect_eq(v.failures[0].by, GV_SCREEN_BY_HEALTH);
    char line[2048];
    gv_screen_drain_line(&v, line, sizeof line);
    cr_expect_not_null(strstr(line, "GPU 1"), "%s", line);
    cr_expect_not_null(strstr(line, "uncorrected ECC"), "%s", line);
    gv_screen_verdict_free(&v);
    json_decref(docs[0]);
    json_decref(docs[1]);
}

/* ---- the hard time box ------------------------------------------------------------------- */

Test(screen_time_box, a_worker_still_running_at_the_box_is_killed_and_its_gpu_left_unjudged,
     .timeout = 60)
{
    /* a "worker" that would take 30 s: the spawn, the wait and the kill a real node goes
       through, with a box of 1 s */
    char exe[] = "/tmp/gv-slow-worker-XXXXXX";
    int fd = mkstemp(exe);
    cr_assert_geq(fd, 0);
    const char *body = "#!/bin/sh\nsleep 30\n";
    cr_assert_eq(write(fd, body, strlen(body)), (ssize_t)strlen(body));
    close(fd);
    chmod(exe, 0700);
    gv_device_plan plan = {.n = 2, .index = {0, 1}, .time_box_s = 1};
    char *argv[] = {"screen", "--device", "0,1", NULL};
    char out[] = "/tmp/gv-box-out-XXXXXX";
    int ofd = mkstemp(out);
    cr_assert_geq(ofd, 0);
    fflush(stdout);
    fflush(stderr);
    int saved = dup(1), saved_err = dup(2);
    cr_assert(dup2(ofd, 1) >= 0 && dup2(ofd, 2) >= 0);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    gv_error e;
    gv_fleet_runs *runs = gv_fleet_spawn(exe, &gv_screen_options, &plan, 3, argv, NULL, false,
                                         gv_fleet_load, &gv_fleet_text_printer, &e);
    clock_gettime(CLOCK_MONOTONIC, &b);
    fflush(stdout);
    fflush(stderr);
    dup2(saved, 1);
    dup2(saved_err, 2);
    close(saved);
    close(saved_err);
    close(ofd);
    char text[8192] = "";
    FILE *f = fopen(out, "r");
    size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[got] = '\0';
    if (f) fclose(f);
    unlink(out);
    unlink(exe);
    double s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    cr_assert_not_null(runs);
    cr_expect(runs->lost);
    cr_expect_eq(runs->n, 0);
    cr_expect_lt(s, 10, "the box of 1 s held the spawn %.1f s", s);
    cr_expect_not_null(strstr(text, "device 0 left no run: its worker was still running at the "
                                    "time box of 1 s and was killed"),
                       "%s", text);
    cr_expect_not_null(strstr(text, "device 1 left no run: its worker was still running"), "%s",
                       text);
    gv_fleet_runs_free(runs);
}

Test(screen_time_box, a_bad_time_box_is_a_usage_error)
{
    char out[4096];
    cr_expect_eq(gv_test_run_cli("screen --time-box x", out, sizeof out), 2, "%s", out);
    cr_expect_not_null(strstr(out, "--time-box 'x'"), "%s", out);
    cr_expect_eq(gv_test_run_cli("screen --time-box -1", out, sizeof out), 2, "%s", out);
}
