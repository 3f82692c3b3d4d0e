/* test_tradeoffs.c: `gpuval tradeoffs` without a GPU. The Pareto front and the speed-ups on
 * synthetic rows with known answers, the gpuval-tradeoffs/1 document written to a file and
 * read back with jansson, its terminal table and Markdown (src/render/), and the command line:
 * --help, a bad option, no device. */
#include <jansson.h>

#include "bench/bench_json.h"
#include "io/json_util.h"
#include "core/model_floor.h"
#include "render/render.h"
#include "testkit.h"
#include "bench/trade_report.h"
#include "render/trade_text.h"

/* A row of gemm.cublas at 64^3: verdict v, bits, and a hot-scope median (ms; NaN: not
   timed). */
static gv_trade_row mkrow(gv_dtype t, gv_mode m, gv_verdict v, double bits, double ms)
{
    gv_trade_row row;
    memset(&row, 0, sizeof row);
    gv_shape s = {3, {64, 64, 64}};
    gv_case c = gv_test_case("gemm.cublas", t, m, GV_DIST_UNIFORM11, s, 7);
    gv_result_init(&row.r, &c);
    row.r.verdict = v;
    row.r.m.bits = bits;
    row.r.m.normwise_rel = isfinite(bits) ? ldexp(1.0, -(int)bits) : 0; /* inf: exact */
    row.r.m.max_rel = 2 * row.r.m.normwise_rel;
    row.r.m.ratio = 0.25;
    row.timed = !isnan(ms);
    row.t = (gv_stat){.n = 12, .median = ms, .lo = 0.9 * ms, .hi = 1.1 * ms};
    row.speedup_vs_f64 = row.speedup_vs_default = NAN;
    row.probe_width = row.probe_acc_bits = NAN; /* no probe run */
    row.pareto = -1;
    return row;
}

Test(tradeoffs, pareto_known_front)
{
    gv_trade_row rows[] = {
        mkrow(GV_F32, GV_MODE_NATIVE, GV_PASS, 20, 1.0),    /* front */
        mkrow(GV_F32, GV_MODE_TF32, GV_PASS, 10, 0.3),      /* front: fastest */
        mkrow(GV_F64, GV_MODE_NATIVE, GV_PASS, 45, 4.0),    /* front: most bits */
        mkrow(GV_F32, GV_MODE_FASTMATH, GV_PASS, 15, 1.5),  /* dominated by row 0 */
        mkrow(GV_F32, GV_MODE_NATIVE, GV_PASS, 20, 1.0),    /* a tie with row 0: both stay */
        mkrow(GV_F32, GV_MODE_NATIVE, GV_PASS, 10, 0.3001), /* same bits, slower: dominated */
        mkrow(GV_F32, GV_MODE_TF32, GV_FAIL, 50, 0.1),      /* FAIL: not a candidate */
        mkrow(GV_F64, GV_MODE_NATIVE, GV_PASS, 50, NAN),    /* not timed: not a candidate */
        mkrow(GV_F32, GV_MODE_NATIVE, GV_SKIP, NAN, NAN),   /* SKIP */
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    gv_trade_pareto(rows, n);
    const int want[] = {1, 1, 1, 0, 1, 0, -1, -1, -1};
    for (int i = 0; i < n; i++)
        cr_expect_eq(rows[i].pareto, want[i], "row %d: pareto %d, want %d", i, rows[i].pareto,
                     want[i]);
}

Test(tradeoffs, pareto_exact_result_is_infinitely_accurate)
{
    gv_trade_row rows[] = {
        mkrow(GV_F64, GV_MODE_NATIVE, GV_PASS, INFINITY, 2.0),
        mkrow(GV_F32, GV_MODE_NATIVE, GV_PASS, 24, 1.0),
        mkrow(GV_F32, GV_MODE_TF32, GV_PASS, INFINITY, 3.0), /* as exact, slower */
    };
    gv_trade_pareto(rows, 3);
    cr_expect_eq(rows[0].pareto, 1);
    cr_expect_eq(rows[1].pareto, 1);
    cr_expect_eq(rows[2].pareto, 0);
}

Test(tradeoffs, speedups_are_ratios_of_medians)
{
    int def = gv_trade_default_mode();
    gv_trade_row rows[5];
    int n = 0;
    rows[n++] = mkrow(GV_F64, GV_MODE_NATIVE, GV_PASS, 45, 4.0);
    rows[n++] = mkrow(GV_F32, GV_MODE_NATIVE, GV_PASS, 20, 1.0);
    rows[n++] = mkrow(GV_F32, GV_MODE_TF32, GV_PASS, 10, 0.25);
    rows[n++] = mkrow(GV_F32, GV_MODE_FASTMATH, GV_SKIP, NAN, NAN);
    if (def >= 0) rows[n++] = mkrow(GV_F32, (gv_mode)def, GV_PASS, 18, 0.5);
    gv_trade_speedups(rows, n);
    cr_expect_float_eq(rows[0].speedup_vs_f64, 1.0, 1e-15);
    cr_expect_float_eq(rows[1].speedup_vs_f64, 4.0, 1e-15);
    cr_expect_float_eq(rows[2].speedup_vs_f64, 16.0, 1e-15);
    cr_expect(isnan(rows[3].speedup_vs_f64), "an untimed row has no speed-up");
    cr_expect(isnan(rows[3].speedup_vs_default));
    /* f64 has no `default` row here: its own native */
    cr_expect_float_eq(rows[0].speedup_vs_default, 1.0, 1e-15);
    if (def >= 0) { /* the f32 `default` row is the baseline */
        cr_expect_float_eq(rows[1].speedup_vs_default, 0.5, 1e-15);
        cr_expect_float_eq(rows[2].speedup_vs_default, 2.0, 1e-15);
        cr_expect_float_eq(rows[4].speedup_vs_default, 1.0, 1e-15);
    } else { /* no `default` mode in the table: f32 native */
        cr_expect_float_eq(rows[1].speedup_vs_default, 1.0, 1e-15);
        cr_expect_float_eq(rows[2].speedup_vs_default, 4.0, 1e-15);
    }
}

Test(tradeoffs, speedup_without_a_timed_baseline_is_nan)
{
    gv_trade_row rows[] = {
        mkrow(GV_F64, GV_MODE_NATIVE, GV_SKIP, NAN, NAN),
        mkrow(GV_F32, GV_MODE_TF32, GV_PASS, 10, 0.25),
    };
    gv_trade_speedups(rows, 2);
    cr_expect(isnan(rows[1].speedup_vs_f64));
    cr_expect(isnan(rows[1].speedup_vs_default), "no f32 native row: no baseline");
}

/* ---- better than its model ----------------------------------------------------------------- */

Test(tradeoffs, same_bits_as_native_is_flagged_for_a_claimed_other_path)
{
    int def = gv_trade_default_mode();
    gv_trade_row rows[5];
    int n = 0;
    rows[n++] = mkrow(GV_F32, GV_MODE_NATIVE, GV_PASS, 20, 1.0);
    rows[n++] = mkrow(GV_F32, GV_MODE_BF16X9, GV_PASS, 20, 1.0);  /* same bits: flagged */
    rows[n++] = mkrow(GV_F32, GV_MODE_TF32, GV_PASS, 10, 0.3);    /* other bits */
    rows[n++] = mkrow(GV_F64, GV_MODE_FP64EMU, GV_PASS, 45, 1.0); /* no f64 native row */
    if (def >= 0) rows[n++] = mkrow(GV_F32, (gv_mode)def, GV_PASS, 20, 1.0);
    for (int i = 0; i < n; i++)
        rows[i].r.output_hash = 42;
    rows[2].r.output_hash = 43;
    snprintf(rows[0].r.math_mode, sizeof rows[0].r.math_mode, "CUBLAS_PEDANTIC_MATH");
    gv_trade_flag_models(rows, n);
    cr_expect(!rows[0].model_flag[0], "native is its own reference");
    cr_expect_not_null(strstr(rows[1].model_flag, "same bits as f32 native (CUBLAS_PEDANTIC_MATH)"),
                       "%s", rows[1].model_flag);
    cr_expect(!rows[2].model_flag[0], "%s", rows[2].model_flag);
    cr_expect(!rows[3].model_flag[0], "no native row of its dtype: nothing to compare");
    if (def >= 0) cr_expect(!rows[4].model_flag[0], "default may well be the native path");

    /* a native result equal to the oracle (an exact probe) says nothing about the path */
    rows[0].r.m.normwise_rel = 0;
    gv_trade_flag_models(rows, n);
    cr_expect(!rows[1].model_flag[0], "%s", rows[1].model_flag);
    /* and a row that did not pass is already reported as a FAIL */
    rows[0].r.m.normwise_rel = 1e-7;
    rows[1].r.verdict = GV_FAIL;
    gv_trade_flag_models(rows, n);
    cr_expect(!rows[1].model_flag[0]);
}

/* An emulation the width probe measured wider than its name is flagged with the measurement,
   not with "the library may not be using the claimed path"; a row whose probe confirmed the
   path says so in the other flags; the probe goes into the document. */
Test(tradeoffs, a_measured_width_and_a_passed_probe_are_what_the_flags_say)
{
    gv_trade_row rows[2] = {mkrow(GV_F64, GV_MODE_NATIVE, GV_PASS, 52, 1.0),
                            mkrow(GV_F64, GV_MODE_FP64EMU_32, GV_PASS, 36.6, 0.4)};
    rows[1].n_probes = 1;
    rows[1].probe_verdict = GV_PASS;
    rows[1].probe_width = 36;
    snprintf(rows[1].probe_what, sizeof rows[1].probe_what, "width 36");
    gv_trade_flag_models(rows, 2);
    cr_expect_str_eq(rows[1].model_flag,
                     "keeps 36 bits below each row's largest element (width probe), 4 more than "
                     "the 32 its name claims; judged at the claimed width");
    json_t *o = gv_trade_group_json(&(gv_trade_group){.op = gv_op_find("gemm.cublas"),
                                                      .shape = {3, {64, 64, 64}},
                                                      .rows = rows,
                                                      .n = 2});
    const json_t *r0 = json_array_get(json_object_get(o, "rows"), 0),
                 *r1 = json_array_get(json_object_get(o, "rows"), 1);
    cr_expect(json_is_null(json_object_get(r0, "probe")), "native has no probe");
    cr_expect_eq(gv_jval(gv_jget(r1, "probe.width_bits")), 36.0);
    cr_expect_str_eq(json_string_value(gv_jget(r1, "probe.verdict")), "PASS");
    cr_expect_str_eq(json_string_value(gv_jget(r1, "probe.what")), "width 36");
    json_decref(o);
    /* the same bits as native, with the probe passed: the flag says the path was shown */
    rows[1] = mkrow(GV_F32, GV_MODE_TF32, GV_PASS, 22, 0.4);
    rows[0] = mkrow(GV_F32, GV_MODE_NATIVE, GV_PASS, 22, 1.0);
    rows[0].r.output_hash = rows[1].r.output_hash = 7;
    rows[1].n_probes = 1;
    rows[1].probe_verdict = GV_PASS;
    snprintf(rows[1].probe_what, sizeof rows[1].probe_what, "tie on grid");
    gv_trade_flag_models(rows, 2);
    cr_expect_not_null(strstr(rows[1].model_flag, "its mode probe shows the path in effect (tie "
                                                  "on grid)"),
                       "%s", rows[1].model_flag);
    rows[1].n_probes = 0;
    gv_trade_flag_models(rows, 2);
    cr_expect_not_null(strstr(rows[1].model_flag, "no probe of this mode"), "%s",
                       rows[1].model_flag);
}

Test(tradeoffs, rms_below_an_eighth_of_the_input_floor_is_flagged)
{
    gv_trade_row row = mkrow(GV_F32, GV_MODE_FP8, GV_PASS, 5, 0.1);
    cr_assert(row.r.prob.on);
    row.r.prob.floor_rms = 0.16;
    row.r.m.prob_n = GV_PROB_RMS_MIN_N;
    row.r.m.prob_rms = 0.16 / GV_PROB_FLOOR_FACTOR * 1.01; /* just above: not flagged */
    gv_trade_flag_models(&row, 1);
    cr_expect(!row.model_flag[0], "%s", row.model_flag);
    row.r.m.prob_rms = 0.16 / GV_PROB_FLOOR_FACTOR * 0.99;
    gv_trade_flag_models(&row, 1);
    cr_expect_not_null(strstr(row.model_flag, "better than its model"), "%s", row.model_flag);
    cr_expect_not_null(strstr(row.model_flag, "to 4 bits"), "names e4m3's bits: %s",
                       row.model_flag);
    row.r.m.prob_n = GV_PROB_RMS_MIN_N - 1; /* too few elements for an RMS */
    gv_trade_flag_models(&row, 1);
    cr_expect(!row.model_flag[0]);
    row.r.m.prob_n = GV_PROB_RMS_MIN_N;
    row.r.prob.floor_rms = 0; /* no floor known */
    gv_trade_flag_models(&row, 1);
    cr_expect(!row.model_flag[0]);
}

/* ---- energy per call ------------------------------------------------------------------------ */

Test(tradeoffs, energy_window_arithmetic)
{
    cr_expect_eq(gv_energy_window_s(0, 1.0), 1.0, "interval unknown: the minimum");
    cr_expect_eq(gv_energy_window_s(20, 1.0), 1.0, "20 x 20 ms = 0.4 s < 1 s");
    cr_expect_float_eq(gv_energy_window_s(100, 1.0), GV_ENERGY_UPDATES * 0.1, 1e-12);
    gv_energy e;
    gv_energy_finish(&e, 1000.0, 1150.0, 3000, 1.1, 1.25, 25.0);
    cr_expect(e.ok, "%s", e.why);
    cr_expect_float_eq(e.j_per_call, 0.05, 1e-15);
    cr_expect_float_eq(e.watts, 120.0, 1e-12);
    cr_expect_eq(e.calls, 3000);
    cr_expect_eq(e.update_ms, 25.0);
    gv_energy_finish(&e, 1000.0, 999.0, 10, 1, 1, 25);
    cr_expect(!e.ok && isnan(e.j_per_call) && strstr(e.why, "backwards"), "%s", e.why);
    gv_energy_finish(&e, 1000.0, 1000.0, 10, 1, 1, 25);
    cr_expect(!e.ok && strstr(e.why, "did not move"), "%s", e.why);
    gv_energy_finish(&e, 1000.0, 1001.0, 0, 0, 1, 25);
    cr_expect(!e.ok && strstr(e.why, "no call"), "%s", e.why);
    gv_energy_finish(&e, 1000.0, NAN, 10, 1, 1, 25);
    cr_expect(!e.ok, "a NaN reading is never a measurement");
}

Test(tradeoffs, energy_in_json_table_and_its_absence_explained)
{
    gv_trade_row rows[] = {
        mkrow(GV_F32, GV_MODE_NATIVE, GV_PASS, 20, 1.0),
        mkrow(GV_F32, GV_MODE_TF32, GV_PASS, 10, 0.5),
    };
    gv_energy_finish(&rows[0].energy, 10.0, 12.5, 1000, 1.0, 1.1, 20.0);
    snprintf(rows[1].energy.why, sizeof rows[1].energy.why, "this board reports no energy counter");
    gv_trade_group g = {.op = gv_op_find("gemm.cublas"),
                        .shape = {3, {64, 64, 64}},
                        .dist = GV_DIST_UNIFORM11,
                        .rows = rows,
                        .n = 2};
    gv_trade_summary s;
    gv_trade_summarize(&g, 1, &s);
    gv_run_info info = {.command = "tradeoffs", .argv_joined = "gpuval tradeoffs"};
    json_t *doc = gv_trade_doc(&info, &g, 1, &s);
    json_t *rs = json_object_get(json_array_get(json_object_get(doc, "groups"), 0), "rows");
    json_t *r0 = json_array_get(rs, 0), *r1 = json_array_get(rs, 1);
    cr_expect_float_eq(gv_jnum(r0, "energy_j"), 2.5e-3, 1e-15);
    cr_expect_eq(gv_jnum(r0, "energy.calls"), 1000);
    cr_expect_float_eq(gv_jnum(r0, "energy.watts"), 2.5 / 1.1, 1e-12);
    cr_expect(json_is_null(json_object_get(r1, "energy_j")));
    cr_expect_str_eq(gv_jstr(r1, "energy_why"), "this board reports no energy counter");
    json_decref(doc);
    char buf[8192];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    cr_assert_not_null(f);
    gv_trade_table(f, &g);
    fclose(f);
    cr_expect_not_null(strstr(buf, "0.0025"), "J/call in the table: %s", buf);
}

/* Rows of every kind: an exact f64, a throttled tf32 row with a model flag and the probabilistic
   errors, a SKIP with a reason holding '|', a FAIL, a PASS that could not be timed. */
static void table_rows(gv_trade_row rows[5])
{
    rows[0] = mkrow(GV_F64, GV_MODE_NATIVE, GV_PASS, INFINITY, 4.0);
    rows[1] = mkrow(GV_F32, GV_MODE_TF32, GV_PASS, 10, 0.5);
    rows[2] = mkrow(GV_F32, GV_MODE_NATIVE, GV_SKIP, NAN, NAN);
    rows[3] = mkrow(GV_F32, GV_MODE_FASTMATH, GV_FAIL, 3, 0.1);
    rows[4] = mkrow(GV_F32, GV_MODE_FP8, GV_PASS, 5, NAN);
    snprintf(rows[2].r.reason, sizeof rows[2].r.reason, "mode not supported: test | pipe");
    snprintf(rows[3].r.reason, sizeof rows[3].r.reason, "max_rel too big");
    snprintf(rows[4].time_why, sizeof rows[4].time_why, "out of memory");
    rows[1].r.prob.on = true;
    rows[1].r.m.prob_max = 0.75;
    rows[1].r.m.prob_rms = 0.25;
    rows[1].r.m.prob_n = 4096;
    rows[1].power_ok = true;
    rows[1].throttled = true;
    rows[1].sm_mhz_before = 1980;
    rows[1].sm_mhz_after = 1395;
    rows[1].throttle = 4;
    gv_energy_finish(&rows[0].energy, 10.0, 12.5, 1000, 1.0, 1.1, 20.0);
    snprintf(rows[1].r.math_mode, sizeof rows[1].r.math_mode, "CUBLAS_TF32_TENSOR_OP_MATH");
    snprintf(rows[1].model_flag, sizeof rows[1].model_flag, "better than its model: test");
    gv_trade_speedups(rows, 5);
    gv_trade_pareto(rows, 5);
}

/* The terminal table is what `gpuval tradeoffs` printed before its printer moved to src/render/
   (this text was printed by bench/trade_report.c's gv_trade_table), byte for byte; and the
   table of a group read back from a run file is the same text as the run's own. */
/* The claimed width is a column of its own beside the bits measured (f64 native 53, TF32 11,
   f32 24, fp8 e4m3 4: gv_mode_precision_bits), and the correctly rounded share is "-" without
   an exact reference. */
Test(tradeoffs, the_terminal_table_shows_claimed_widths_and_is_the_same_from_a_file)
{
    static const char want[] =
        "op           size      dtype  mode      math mode                   verdict  bits  "
        "claimed  "
        "CR %  probe  arith  R_max  R_rms  median ms [lo, hi]           x vs f64  x vs default  J/call  "
        "pareto\n"
        "gemm.cublas  64x64x64  f64    native    -                           PASS      inf       "
        "53  "
        "   -      -      -      0      -                 4 [3.6, 4.4]         1             1  0.0025     "
        "yes\n"
        "gemm.cublas  64x64x64  f32    tf32      CUBLAS_TF32_TENSOR_OP_MATH  PASS     10.0       "
        "11  "
        "   -      -      -   0.75   0.25  0.5 [0.45, 0.55] !throttled         8             -       -     "
        "yes\n"
        "gemm.cublas  64x64x64  f32    native    -                           SKIP        -       "
        "24  "
        "   -      -      -      -      -                            -         -             -       -       "
        "-\n"
        "gemm.cublas  64x64x64  f32    fastmath  -                           FAIL      3.0       "
        "24  "
        "   -      -      -      -      -             0.1 [0.09, 0.11]        40             -       -       "
        "-\n"
        "gemm.cublas  64x64x64  f32    fp8       -                           PASS      5.0        "
        "4  "
        "   -      -      -      0      -                            -         -             -       -       "
        "-\n"
        "  f32 native SKIP: mode not supported: test | pipe\n"
        "  f32 fastmath FAIL: max_rel too big\n"
        "  f32 fp8 PASS: not timed: out of memory\n"
        "  Warn: f32 tf32: better than its model: test\n";
    gv_trade_row rows[5];
    table_rows(rows);
    gv_trade_group g = {.op = gv_op_find("gemm.cublas"),
                        .shape = {3, {64, 64, 64}},
                        .dist = GV_DIST_UNIFORM11,
                        .seed = 7,
                        .rows = rows,
                        .n = 5};
    char *text = NULL, *back = NULL;
    size_t len = 0, back_len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    gv_trade_table(f, &g);
    fclose(f);
    cr_expect_str_eq(text, want);

    json_t *gj = gv_trade_group_json(&g);
    char *dumped = json_dumps(gj, JSON_REAL_PRECISION(17));
    json_t *read = json_loads(dumped, 0, NULL);
    cr_assert_not_null(read);
    f = open_memstream(&back, &back_len);
    cr_assert_not_null(f);
    gv_trade_table_json(f, read);
    fclose(f);
    cr_expect_str_eq(back, text, "the table from the file differs");
    free(dumped);
    json_decref(read);
    json_decref(gj);
    free(text);
    free(back);
}

Test(tradeoffs, json_document_shape_and_numbers)
{
    gv_trade_row rows[] = {
        mkrow(GV_F64, GV_MODE_NATIVE, GV_PASS, INFINITY, 4.0),
        mkrow(GV_F32, GV_MODE_TF32, GV_PASS, 10, 0.5),
        mkrow(GV_F32, GV_MODE_NATIVE, GV_SKIP, NAN, NAN),
        mkrow(GV_F32, GV_MODE_FASTMATH, GV_FAIL, 3, 0.1),
    };
    snprintf(rows[2].r.reason, sizeof rows[2].r.reason, "mode not supported: test");
    rows[1].r.prob.on = true;
    rows[1].r.m.prob_max = 0.75;
    rows[1].r.m.prob_rms = 0.25;
    rows[1].r.m.prob_n = 4096;
    rows[3].r.prob.on = false;
    snprintf(rows[1].r.math_mode, sizeof rows[1].r.math_mode, "CUBLAS_TF32_TENSOR_OP_MATH");
    gv_trade_group g = {.op = gv_op_find("gemm.cublas"),
                        .shape = {3, {64, 64, 64}},
                        .dist = GV_DIST_UNIFORM11,
                        .seed = 7,
                        .rows = rows,
                        .n = 4};
    gv_trade_speedups(rows, 4);
    gv_trade_pareto(rows, 4);
    gv_trade_summary s;
    gv_trade_summarize(&g, 1, &s);
    cr_expect(s.rows == 4 && s.passed == 2 && s.failed == 1 && s.skipped == 1 && s.errors == 0);

    gv_run_info info = {.command = "tradeoffs", .argv_joined = "gpuval tradeoffs"};
    json_t *doc = gv_trade_doc(&info, &g, 1, &s);
    char dir[512], path[600], tmp[640];
    snprintf(dir, sizeof dir, "%s/gpuval-trade-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.json", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    cr_assert_eq(gv_trade_write_json(path, doc), GV_OK);
    json_decref(doc);
    cr_expect(access(tmp, F_OK) != 0, "the temporary file is renamed away");
    json_error_t jerr;
    json_t *back = json_load_file(path, 0, &jerr);
    cr_assert_not_null(back, "%s", jerr.text);
    cr_expect_str_eq(gv_jstr(back, "schema"), "gpuval-tradeoffs/1");
    cr_expect_str_eq(gv_jstr(back, "command"), "tradeoffs");
    cr_expect_str_eq(gv_jstr(back, "tool.name"), "gpuval");
    const char *top[] = {"argv", "created", "host", "build", "device", "groups", "summary"};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
        cr_expect_not_null(json_object_get(back, top[i]), "key %s", top[i]);
    cr_expect(json_is_null(json_object_get(back, "device")));
    json_t *g0 = json_array_get(json_object_get(back, "groups"), 0);
    cr_assert_not_null(g0);
    cr_expect_str_eq(gv_jstr(g0, "op"), "gemm.cublas");
    cr_expect_str_eq(gv_jstr(g0, "dims"), "m,k,n");
    cr_expect_str_eq(gv_jstr(g0, "dist"), "uniform11");
    cr_expect_eq(gv_jnum(g0, "seed"), 7);
    cr_expect_eq(json_array_size(json_object_get(g0, "shape")), 3);
    cr_expect_eq(gv_jat(json_object_get(g0, "shape"), 2), 64);
    json_t *rs = json_object_get(g0, "rows");
    cr_assert_eq(json_array_size(rs), 4);
    const char *keys[] = {"dtype",     "mode",           "math_mode",          "verdict",
                          "reason",    "accurate_bits",  "normwise_rel",       "max_rel",
                          "tiers_met", "ratio",          "prob_max",           "prob_rms",
                          "time_ms",   "speedup_vs_f64", "speedup_vs_default", "energy_j",
                          "pareto"};
    for (size_t r = 0; r < 4; r++)
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            cr_expect_not_null(json_object_get(json_array_get(rs, r), keys[k]), "row %zu: %s", r,
                               keys[k]);
    json_t *f64 = json_array_get(rs, 0), *tf32 = json_array_get(rs, 1),
           *skip = json_array_get(rs, 2), *fail = json_array_get(rs, 3);
    cr_expect_str_eq(gv_jstr(f64, "accurate_bits"), "inf", "non-finite as a string");
    cr_expect_str_eq(gv_jstr(tf32, "mode"), "tf32");
    cr_expect_str_eq(gv_jstr(tf32, "math_mode"), "CUBLAS_TF32_TENSOR_OP_MATH");
    cr_expect_float_eq(gv_jnum(tf32, "accurate_bits"), 10.0, 1e-12);
    cr_expect_float_eq(gv_jnum(tf32, "normwise_rel"), ldexp(1.0, -10), 1e-18);
    cr_expect_float_eq(gv_jnum(tf32, "time_ms.median"), 0.5, 1e-15);
    cr_expect_float_eq(gv_jnum(tf32, "time_ms.lo"), 0.45, 1e-15);
    cr_expect_float_eq(gv_jnum(tf32, "time_ms.hi"), 0.55, 1e-15);
    cr_expect_eq(gv_jnum(tf32, "time_ms.n"), 12);
    cr_expect_float_eq(gv_jnum(tf32, "speedup_vs_f64"), 8.0, 1e-14);
    cr_expect(json_is_null(json_object_get(tf32, "energy_j")), "energy: null until NVML");
    cr_expect_float_eq(gv_jnum(tf32, "prob_max"), 0.75, 1e-15);
    cr_expect_float_eq(gv_jnum(tf32, "prob_rms"), 0.25, 1e-15);
    cr_expect(json_is_null(json_object_get(fail, "prob_max")), "no probabilistic model");
    cr_expect(json_is_null(json_object_get(fail, "prob_rms")));
    cr_expect(json_is_true(json_object_get(f64, "pareto")));
    cr_expect(json_is_true(json_object_get(tf32, "pareto")));
    cr_expect(json_is_null(json_object_get(fail, "pareto")), "a FAIL is not a candidate");
    cr_expect_str_eq(gv_jstr(fail, "verdict"), "FAIL");
    cr_expect_str_eq(gv_jstr(skip, "verdict"), "SKIP");
    cr_expect_str_eq(gv_jstr(skip, "reason"), "mode not supported: test");
    cr_expect(json_is_null(json_object_get(skip, "time_ms")));
    cr_expect(json_is_null(json_object_get(skip, "accurate_bits")));
    cr_expect(json_is_null(json_object_get(skip, "speedup_vs_default")));
    cr_expect_eq(json_array_size(json_object_get(skip, "tiers_met")), 0);
    cr_expect_eq(gv_jnum(back, "summary.rows"), 4);
    cr_expect_eq(gv_jnum(back, "summary.passed"), 2);
    cr_expect_eq(gv_jnum(back, "summary.failed"), 1);
    cr_expect_eq(gv_jnum(back, "summary.skipped"), 1);
    cr_expect_eq(gv_jnum(back, "summary.errors"), 0);
    json_decref(back);

    /* the Markdown (the printer of `gpuval report --md` too): one table per group, the pareto
       column, the SKIP's reason, the counts */
    snprintf(path, sizeof path, "%s/t.md", dir);
    doc = gv_trade_doc(&info, &g, 1, &s);
    cr_assert_eq(gv_render_write(path, doc, false), 0);
    json_decref(doc);
    char md[8192];
    gv_test_slurp(path, md, sizeof md);
    cr_expect_not_null(strstr(md, "## gpuval tradeoffs: no device\n"), "%s", md);
    cr_expect_not_null(strstr(md, "### gemm.cublas 64x64x64 (uniform11, seed 7)\n"), "%s", md);
    cr_expect_not_null(strstr(md, "| op "));
    cr_expect_not_null(strstr(md, "| pareto |"));
    cr_expect_not_null(strstr(md, "| tf32 | CUBLAS_TF32_TENSOR_OP_MATH | PASS | 10.0 | 9.77e-04 |"),
                       "%s", md);
    cr_expect_not_null(strstr(md, "\n- f32 native SKIP: mode not supported: test\n"), "%s", md);
    cr_expect_not_null(strstr(md, "\n4 rows: 2 passed, 1 failed, 1 skipped, 0 errors\n"), "%s", md);
    unlink(path);
    snprintf(path, sizeof path, "%s/t.json", dir);
    unlink(path);
    rmdir(dir);
}

/* ---- the command line ---------------------------------------------------------------------- */

static char out[65536];

Test(tradeoffs, help_explains_every_column_and_exits_0)
{
    cr_expect_eq(gv_test_run_cli("tradeoffs --help", out, sizeof out), 0);
    const char *cols[] = {"math mode", "verdict",      "bits",   "R_max", "median ms",
                          "x vs f64",  "x vs default", "J/call", "pareto"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        cr_expect_not_null(strstr(out, cols[i]), "--help explains %s", cols[i]);
    cr_expect_eq(gv_test_run_cli("help tradeoffs", out, sizeof out), 0);
    cr_expect_eq(gv_test_run_cli("--help", out, sizeof out), 0);
    cr_expect_not_null(strstr(out, "tradeoffs"), "the main help names the command");
}

Test(tradeoffs, bad_usage_exits_2)
{
    cr_expect_eq(gv_test_run_cli("tradeoffs --bogus", out, sizeof out), 2);
    cr_expect_eq(gv_test_run_cli("tradeoffs --dist nosuch", out, sizeof out), 2);
    cr_expect_eq(gv_test_run_cli("tradeoffs --op gemm.cublas --size 1x2", out, sizeof out), 2);
    cr_expect_eq(gv_test_run_cli("tradeoffs --op no.such.op", out, sizeof out), 2);
    cr_expect_eq(gv_test_run_cli("tradeoffs --json /", out, sizeof out), 2, "a directory");
}

Test(tradeoffs, without_device_exits_77_with_skip_rows)
{
    if (gv_test_run_cli("info", out, sizeof out) != 77)
        cr_skip_test("a CUDA device is present: tradeoffs would run");
    char dir[512], args[1400], path[600];
    snprintf(dir, sizeof dir, "%s/gpuval-trade-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.json", dir);
    snprintf(args, sizeof args, "tradeoffs --op gemm.cublas --size 64x64x64 --json '%s'", path);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 77, "%s", out);
    cr_expect_not_null(strstr(out, "no CUDA device"));
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    cr_assert_not_null(doc, "%s", jerr.text);
    json_t *rs = json_object_get(json_array_get(json_object_get(doc, "groups"), 0), "rows");
    cr_expect_geq(json_array_size(rs), 2, "f32 and f64 rows at least");
    for (size_t i = 0; i < json_array_size(rs); i++)
        cr_expect_str_eq(gv_jstr(json_array_get(rs, i), "verdict"), "SKIP");
    json_decref(doc);
    unlink(path);
    rmdir(dir);
}

/* What the writer puts in a run file is what the report draws from: an fp64emu sweep written
   by gv_trade_doc renders its curve (the emulated mantissa bits are in each sweep row), and the
   plot's legend names only the dtypes it shows. */
Test(tradeoffs, the_written_sweep_renders_as_a_curve)
{
    gv_trade_row rows[] = {
        mkrow(GV_F64, GV_MODE_NATIVE, GV_PASS, 49, 0.4),
        mkrow(GV_F64, GV_MODE_FP64EMU_32, GV_PASS, 32, 0.5),
        mkrow(GV_F64, GV_MODE_FP64EMU_40, GV_PASS, 40, 0.6),
        mkrow(GV_F64, GV_MODE_FP64EMU, GV_PASS, 50, 0.8),
    };
    gv_trade_group g = {.op = gv_op_find("gemm.cublas"),
                        .shape = {3, {64, 64, 64}},
                        .dist = GV_DIST_UNIFORM11,
                        .seed = 7,
                        .rows = rows,
                        .n = 4};
    gv_trade_speedups(rows, 4);
    gv_trade_pareto(rows, 4);
    gv_trade_summary s;
    gv_trade_summarize(&g, 1, &s);
    gv_run_info info = {.command = "tradeoffs", .argv_joined = "gpuval tradeoffs"};
    json_t *doc = gv_trade_doc(&info, &g, 1, &s);
    json_t *rs = json_object_get(json_array_get(json_object_get(doc, "groups"), 0), "rows");
    cr_expect(json_is_null(json_object_get(json_array_get(rs, 0), "mantissa_bits")));
    cr_expect_eq(gv_jnum(json_array_get(rs, 1), "mantissa_bits"), 32);
    cr_expect_eq(gv_jnum(json_array_get(rs, 2), "mantissa_bits"), 40);
    cr_expect(json_is_null(json_object_get(json_array_get(rs, 3), "mantissa_bits")),
              "the library's own choice has no mantissa count");
    char *html = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&html, &len);
    cr_assert_not_null(f);
    gv_render_html(f, doc);
    fclose(f);
    cr_expect(strstr(html, "fp64 emulation: accurate bits against mantissa bits") != NULL,
              "no sweep curve in the page");
    cr_expect(strstr(html, ">f64</text>") != NULL, "the legend names f64");
    cr_expect(strstr(html, ">f32</text>") == NULL && strstr(html, ">bf16</text>") == NULL,
              "the legend names dtypes the plot does not show");
    free(html);
    json_decref(doc);
}
