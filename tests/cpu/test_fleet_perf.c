/* test_fleet_perf.c: bench and tradeoffs on several GPUs, without a GPU — --device parsed and
 * refused before any work, the workers' command lines, the workers started one after another,
 * and `gpuval merge` on synthetic bench and tradeoffs runs: the SLOW flag at the node's median,
 * every number of the merged document equal to the runs', the accuracy agreement of
 * deterministic rows, and runs of different kinds refused. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/fleet_text.h"
#include "cmd/bench.h"     /* gv_bench_options */
#include "cmd/tradeoffs.h" /* gv_trade_options */
#include "fleet/workers.h"
#include "fleet/perf_workers.h"
#include "testkit.h"

/* ---- --device for bench and tradeoffs --------------------------------------------------- */

Test(perf_device, bad_specs_exit_2_before_any_work, .timeout = 60)
{
    const char *bad[] = {"x", "1,,2", "-1", "0,0", "", "1,", "all,0", "1234567"};
    const char *cmds[] = {"bench --op vadd --size 1000", "tradeoffs --op gemm.cublas"};
    char out[8192];
    for (size_t c = 0; c < 2; c++)
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            char args[256];
            snprintf(args, sizeof args, "%s --device '%s'", cmds[c], bad[i]);
            int rc = gv_test_run_cli(args, out, sizeof out);
            cr_expect_eq(rc, 2, "%s: exit %d: %s", args, rc, out);
            cr_expect_not_null(strstr(out, "gpuval: --device"), "%s: %s", args, out);
            /* the run's first line names the device: nothing began */
            cr_expect_null(strstr(out, "device: "), "%s: work began: %s", args, out);
        }
}

Test(perf_device, all_without_a_device_exits_77_and_serial_needs_a_list, .timeout = 60)
{
    char out[8192];
    if (gk_device_count() == 0) {
        int rc = gv_test_run_cli("bench --op vadd --size 2^24 --device all", out, sizeof out);
        cr_expect_eq(rc, 77, "bench: exit %d: %s", rc, out);
        cr_expect_not_null(strstr(out, "--device all: no CUDA device"), "%s", out);
        rc = gv_test_run_cli("tradeoffs --op gemm.cublas --size 1024x1024x1024 --device all", out,
                             sizeof out);
        cr_expect_eq(rc, 77, "tradeoffs: exit %d: %s", rc, out);
        cr_expect_not_null(strstr(out, "--device all: no CUDA device"), "%s", out);
    }
    int rc = gv_test_run_cli("bench --op vadd --size 1000 --device-serial", out, sizeof out);
    cr_expect_eq(rc, 2, "exit %d: %s", rc, out);
    cr_expect_not_null(strstr(out, "--device-serial orders the workers of --device LIST"), "%s",
                       out);
    rc = gv_test_run_cli("tradeoffs --op gemm.cublas --device-serial", out, sizeof out);
    cr_expect_eq(rc, 2, "exit %d: %s", rc, out);
    cr_expect_not_null(strstr(out, "--device-serial orders the workers of --device LIST"), "%s",
                       out);
}

Test(perf_device, help_says_which_order_is_the_default, .timeout = 60)
{
    char out[16384];
    const char *cmds[] = {"bench --help", "tradeoffs --help"};
    for (size_t c = 0; c < 2; c++) {
        int rc = gv_test_run_cli(cmds[c], out, sizeof out);
        cr_expect_eq(rc, 0, "%s: exit %d", cmds[c], rc);
        cr_expect_not_null(strstr(out, "--device-serial"), "%s: %s", cmds[c], out);
        cr_expect_not_null(strstr(out, "Default: all at"), "%s: %s", cmds[c], out);
        cr_expect_not_null(strstr(out, "N,M,... or all"), "%s: %s", cmds[c], out);
    }
}

/* ---- the workers ------------------------------------------------------------------------ */

static void expect_argv(char **w, const char *const *want)
{
    int i = 0;
    for (; want[i]; i++) {
        cr_assert_not_null(w[i], "argument %d missing (want '%s')", i, want[i]);
        cr_expect_str_eq(w[i], want[i], "argument %d", i);
    }
    cr_expect_null(w[i], "argument %d extra: '%s'", i, w[i] ? w[i] : "");
}

Test(perf_workers, parent_only_options_are_dropped)
{
    char *argv[] = {"bench",           "--op",   "vadd",    "--device", "all",   "--json=b.json",
                    "--device-serial", "--cap",  "0.2",     "--csv",    "c.csv", "--md=m.md",
                    "--save",          "s.json", "--force", "--hot",    "--as",  "vadd2",
                    "--size",          "2^24",   NULL};
    int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
    char **w =
        gv_fleet_worker_argv(&gv_bench_options, "/bin/gpuval", argc, argv, 1, "/tmp/b.dev1.json");
    cr_assert_not_null(w);
    const char *want[] = {"/bin/gpuval", "bench",    "--op", "vadd",   "--cap",
                          "0.2",         "--hot",    "--as", "vadd2",  "--size",
                          "2^24",        "--device", "1",    "--json", "/tmp/b.dev1.json",
                          NULL};
    expect_argv(w, want);
    gv_fleet_worker_argv_free(w);

    char *targv[] = {"tradeoffs", "--op",           "gemm.cublas", "--device=0,1", "--md",   "t.md",
                     "--size",    "1024x1024x1024", "--device-s",  "--js",         "t.json", NULL};
    argc = (int)(sizeof targv / sizeof targv[0]) - 1;
    w = gv_fleet_worker_argv(&gv_trade_options, "g", argc, targv, 0, "j");
    cr_assert_not_null(w);
    const char *twant[] = {
        "g",        "tradeoffs", "--op",   "gemm.cublas", "--size", "1024x1024x1024",
        "--device", "0",         "--json", "j",           NULL};
    expect_argv(w, twant);
    gv_fleet_worker_argv_free(w);
}

Test(perf_workers, serial_workers_run_and_a_missing_run_is_lost, .timeout = 120)
{
    /* devices 7 and 8 exist nowhere here: each worker says so (exit 2) and leaves no run */
    gv_device_plan plan = {.n = 2, .index = {7, 8}};
    char *argv[] = {"bench", "--op", "vadd", "--size", "1000", "--device", "7,8", NULL};
    char path[] = "/tmp/gv-perfw-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    fflush(stdout);
    fflush(stderr);
    int saved = dup(1), saved_err = dup(2);
    cr_assert(saved >= 0 && saved_err >= 0);
    cr_assert(dup2(fd, 1) >= 0 && dup2(fd, 2) >= 0);
    gv_error e = {.status = GV_ST_OK};
    gv_fleet_runs *runs = gv_fleet_spawn(gv_test_gpuval_bin(), &gv_bench_options, &plan, 7, argv,
                                         NULL, true, gv_fleet_load_any, &gv_fleet_text_printer, &e);
    fflush(stdout);
    fflush(stderr);
    dup2(saved, 1);
    dup2(saved_err, 2);
    close(saved);
    close(saved_err);
    close(fd);
    char out[16384];
    gv_test_slurp(path, out, sizeof out);
    unlink(path);
    cr_assert_not_null(runs);
    cr_expect_eq(runs->n, 0);
    cr_expect(runs->lost);
    cr_expect_not_null(
        strstr(out, "bench on 2 devices, one worker process each, one after another: 7 8"), "%s",
        out);
    cr_expect_not_null(strstr(out, "== device 7 (worker exit 2) =="), "%s", out);
    cr_expect_not_null(strstr(out, "gpuval: device 8 requested, "), "%s", out);
    cr_expect_not_null(strstr(out, "device 8 left no run"), "%s", out);
    gv_fleet_runs_free(runs);
}

/* ---- gpuval merge on synthetic bench and tradeoffs runs --------------------------------- */

static char dir[64]; /* scratch paths go into buffers of 128 and 256 */

static void make_dir(void)
{
    gv_test_scratch_dir(dir, sizeof dir, "perf");
}

static void remove_dir(void)
{
    gv_test_remove_dir(dir);
}

static json_t *header(const char *schema, int index)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string(schema));
    json_object_set_new(root, "fleet",
                        json_pack("{s:s, s:i, s:n, s:{s:i, s:i, s:i, s:i}, s:i, s:i}", "host",
                                  "node1", "device_index", index, "rank", "pcie", "gen", 5, "width",
                                  16, "gen_max", 5, "width_max", 16, "sm_clock_mhz", 1830 + index,
                                  "sm_clock_max_mhz", 1980));
    char uuid[64];
    snprintf(uuid, sizeof uuid, "0000000%d-0000-0000-0000-000000000000", index);
    json_object_set_new(root, "device",
                        json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i}", "name", "NVIDIA H200",
                                  "uuid", uuid, "cc_major", 9, "cc_minor", 0, "sm_count", 132,
                                  "driver_version", 13000, "runtime_version", 13000,
                                  "cublas_version", 130100));
    return root;
}

static json_t *clocks(int index)
{
    return json_pack("{s:i, s:i, s:I, s:b}", "sm_mhz_before", 1980 - index, "sm_mhz_after",
                     1900 + index, "throttle_reasons", (json_int_t)(index ? 0x4 : 0), "throttled",
                     0);
}

/* A gpuval-bench/1 run of device index: vadd f32 at 2^24 with a hot median of ms, and gemm
   f64 at 1024^3 whose hot median is 2 ms on every device. */
static void write_bench(const char *path, int index, double ms)
{
    json_t *root = header("gpuval-bench/1", index), *cases = json_array();
    const char *ops[2] = {"vadd", "gemm.cublas"}, *dtypes[2] = {"f32", "f64"};
    const char *shapes[2] = {"16777216", "1024x1024x1024"};
    double med[2] = {ms, 2.0};
    for (int i = 0; i < 2; i++) {
        char label[128];
        snprintf(label, sizeof label, "%s %s native uniform11 %s", ops[i], dtypes[i], shapes[i]);
        json_t *hot = json_pack("{s:f, s:[f, f], s:i}", "median_ms", med[i], "ci_ms", med[i] * 0.99,
                                med[i] * 1.013, "n", 40);
        json_t *e2e = json_pack("{s:f, s:[f, f]}", "median_ms", 10 * med[i], "ci_ms", 9.9 * med[i],
                                10.1 * med[i]);
        json_t *c = json_pack(
            "{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:i, s:s, s:{s:f, s:f}, s:o, "
            "s:{s:o, s:o}}",
            "case", label, "op", ops[i], "dtype", dtypes[i], "mode", "native", "dist", "uniform11",
            "shape_label", shapes[i], "shape",
            i == 0 ? json_pack("[i]", 16777216) : json_pack("[i, i, i]", 1024, 1024, 1024), "seed",
            0, "verdict", "PASS", "sanity", "accurate_bits", 23.5 + i, "normwise_rel",
            1.7e-8 * (i + 1), "clocks", clocks(index), "timings", "kernel_hot", hot, "e2e", e2e);
        json_array_append_new(cases, c);
    }
    json_object_set_new(root, "cases", cases);
    cr_assert_eq(json_dump_file(root, path, JSON_REAL_PRECISION(17)), 0, "write %s", path);
    json_decref(root);
}

/* A gpuval-tradeoffs/1 run of device index: gemm.cublas 1024^3, rows f32 native (bits given)
   and f32 tf32 (10.25 bits), hot medians ms and 0.5 * ms; deterministic as said. */
static void write_trade(const char *path, int index, double ms, double bits, bool deterministic)
{
    json_t *root = header("gpuval-tradeoffs/1", index), *rows = json_array();
    const char *modes[2] = {"native", "tf32"};
    double b[2] = {bits, 10.25}, t[2] = {ms, 0.5 * ms};
    for (int i = 0; i < 2; i++) {
        char hash[24];
        snprintf(hash, sizeof hash, "0x%016llx", (unsigned long long)(b[i] * 1000));
        json_t *row = json_pack(
            "{s:s, s:s, s:s, s:f, s:f, s:b, s:s, s:{s:f, s:f, s:f, s:i}, s:o}", "dtype", "f32",
            "mode", modes[i], "verdict", "PASS", "accurate_bits", b[i], "normwise_rel",
            pow(2.0, -b[i]), "deterministic", deterministic, "output_hash", hash, "time_ms",
            "median", t[i], "lo", 0.98 * t[i], "hi", 1.02 * t[i], "n", 30, "clocks", clocks(index));
        json_array_append_new(rows, row);
    }
    json_t *grp = json_pack("{s:s, s:[i, i, i], s:s, s:i, s:o}", "op", "gemm.cublas", "shape", 1024,
                            1024, 1024, "dist", "uniform11", "seed", 0, "rows", rows);
    json_object_set_new(root, "groups", json_pack("[o]", grp));
    cr_assert_eq(json_dump_file(root, path, JSON_REAL_PRECISION(17)), 0, "write %s", path);
    json_decref(root);
}

static int merge(const char *files, char *out, size_t len)
{
    char args[1024];
    snprintf(args, sizeof args, "merge %s --json %s/fleet.json --md %s/fleet.md", files, dir, dir);
    return gv_test_run_cli(args, out, len);
}

static json_t *merged(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/fleet.json", dir);
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    cr_assert_not_null(doc, "%s: %s", path, e.text);
    return doc;
}

/* The merged entry of case k (its "case" label) on device label. */
static const json_t *entry(const json_t *fleet, const char *case_label, const char *device)
{
    size_t i, j;
    json_t *c, *d;
    json_array_foreach(json_object_get(fleet, "cases"), i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "case")), case_label) != 0) continue;
        json_array_foreach(json_object_get(c, "devices"), j, d)
        {
            if (strcmp(json_string_value(json_object_get(d, "device")), device) == 0) return d;
        }
    }
    cr_assert_fail("no entry for %s on %s", case_label, device);
    return NULL;
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    cr_assert(json_is_number(v), "%s is not a number", key);
    return json_number_value(v);
}

TestSuite(perf_merge, .init = make_dir, .fini = remove_dir);

Test(perf_merge, bench_a_device_20_percent_slower_is_slow_5_percent_is_not, .timeout = 60)
{
    char p[3][128], files[512], out[32768];
    double ms[3] = {10.0, 10.0, 12.0}; /* median 10: +20 % */
    for (int i = 0; i < 3; i++) {
        snprintf(p[i], sizeof p[i], "%s/b.dev%d.json", dir, i);
        write_bench(p[i], i, ms[i]);
    }
    snprintf(files, sizeof files, "%s %s %s", p[0], p[1], p[2]);
    int rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 0, "SLOW is a flag, not a failure: exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "+20.0% SLOW"), "%s", out);
    const char *first = strstr(out, "SLOW");
    cr_expect(first && !strstr(first + 1, "SLOW"), "one case on one device is slow:\n%s", out);
    cr_expect_not_null(strstr(out, "dev2 is more than 10% slower than its node's median in 1 of 2"),
                       "%s", out);
    cr_expect_not_null(strstr(out, "PCIe Gen5 x16"), "%s", out);
    cr_expect_not_null(strstr(out, "2 cases on 3 runs: 1 slow flags"), "%s", out);

    /* every number of the merged document is the run's, or computed from the run's alone */
    json_t *fleet = merged();
    cr_expect_str_eq(json_string_value(json_object_get(fleet, "schema")), "gpuval-fleet-perf/1");
    cr_expect_str_eq(json_string_value(json_object_get(fleet, "kind")), "bench");
    const char *vadd = "vadd f32 native uniform11 16777216";
    for (int i = 0; i < 3; i++) {
        char label[16];
        snprintf(label, sizeof label, "dev%d", i);
        const json_t *e = entry(fleet, vadd, label);
        cr_expect_eq(num(e, "median_ms"), ms[i], "%s", label);
        const json_t *ci = json_object_get(e, "ci_ms");
        cr_expect_eq(json_number_value(json_array_get(ci, 0)), ms[i] * 0.99, "%s", label);
        cr_expect_eq(json_number_value(json_array_get(ci, 1)), ms[i] * 1.013, "%s", label);
        cr_expect_eq(num(e, "vs_node_median"), ms[i] / 10.0 - 1.0, "%s", label);
        cr_expect_eq(json_is_true(json_object_get(e, "slow")), i == 2, "%s", label);
        cr_expect_eq(num(e, "accurate_bits"), 23.5, "%s", label);
        cr_expect_eq(num(e, "normwise_rel"), 1.7e-8, "%s", label);
        const json_t *clk = json_object_get(e, "clocks");
        cr_expect_eq(num(clk, "sm_mhz_before"), 1980 - i, "%s", label);
        cr_expect_eq(num(clk, "sm_mhz_after"), 1900 + i, "%s", label);
        cr_expect_eq(num(clk, "throttle_reasons"), i ? 4 : 0, "%s", label);
        const json_t *gemm = entry(fleet, "gemm.cublas f64 native uniform11 1024x1024x1024", label);
        cr_expect_eq(num(gemm, "median_ms"), 2.0);
        cr_expect_eq(num(gemm, "vs_node_median"), 0.0);
        const json_t *dev = json_array_get(json_object_get(fleet, "devices"), (size_t)i);
        cr_expect_eq(num(json_object_get(dev, "fleet"), "sm_clock_mhz"), 1830 + i);
        cr_expect_eq(num(dev, "slow_cases"), i == 2);
    }
    size_t k;
    json_t *c;
    json_array_foreach(json_object_get(fleet, "cases"), k, c)
    {
        cr_expect_str_eq(json_string_value(json_object_get(c, "scope")), "kernel_hot");
    }
    json_decref(fleet);

    /* +5 %: under the 10 % line */
    write_bench(p[2], 2, 10.5);
    rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_null(strstr(out, "SLOW"), "%s", out);
    cr_expect_not_null(strstr(out, "+5.0%"), "%s", out);
    fleet = merged();
    cr_expect_eq(num(entry(fleet, vadd, "dev2"), "vs_node_median"), 10.5 / 10.0 - 1.0);
    cr_expect(!json_is_true(json_object_get(entry(fleet, vadd, "dev2"), "slow")));
    json_decref(fleet);
    char md[32768], path[128];
    snprintf(path, sizeof path, "%s/fleet.md", dir);
    gv_test_slurp(path, md, sizeof md);
    cr_expect_not_null(strstr(md, "+5.0%"), "%s", md);
}

Test(perf_merge, with_two_devices_the_median_is_their_mean, .timeout = 60)
{
    char p[2][128], files[512], out[32768];
    for (int i = 0; i < 2; i++)
        snprintf(p[i], sizeof p[i], "%s/b.dev%d.json", dir, i);
    snprintf(files, sizeof files, "%s %s", p[0], p[1]);
    /* 20 % slower than the other: 12 / 11 = +9.1 % over the mean, not flagged */
    write_bench(p[0], 0, 10.0);
    write_bench(p[1], 1, 12.0);
    int rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_null(strstr(out, "SLOW"), "%s", out);
    cr_expect_not_null(strstr(out, "+9.1%"), "%s", out);
    /* 25 % slower: 12.5 / 11.25 = +11.1 %, flagged */
    write_bench(p[1], 1, 12.5);
    rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "+11.1% SLOW"), "%s", out);
    json_t *fleet = merged();
    cr_expect_eq(num(entry(fleet, "vadd f32 native uniform11 16777216", "dev1"), "vs_node_median"),
                 12.5 / (0.5 * (10.0 + 12.5)) - 1.0);
    json_decref(fleet);
}

Test(perf_merge, tradeoffs_bits_agree_or_the_outlier_is_named, .timeout = 60)
{
    char p[3][128], files[512], out[32768];
    for (int i = 0; i < 3; i++)
        snprintf(p[i], sizeof p[i], "%s/t.dev%d.json", dir, i);
    write_trade(p[0], 0, 1.0, 21.75, true);
    write_trade(p[1], 1, 1.0, 21.75, true);
    snprintf(files, sizeof files, "%s %s", p[0], p[1]);
    int rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, " same\n"), "%s", out);
    cr_expect_not_null(strstr(out, "0 rows differ between devices"), "%s", out);
    json_t *fleet = merged();
    const json_t *e = entry(fleet, "gemm.cublas 1024x1024x1024 f32 native", "dev1");
    cr_expect_eq(num(e, "accurate_bits"), 21.75);
    cr_expect_eq(num(e, "normwise_rel"), pow(2.0, -21.75));
    cr_expect_eq(num(e, "median_ms"), 1.0);
    cr_expect_eq(json_number_value(json_array_get(json_object_get(e, "ci_ms"), 0)), 0.98);
    cr_expect_eq(json_number_value(json_array_get(json_object_get(e, "ci_ms"), 1)), 1.02);
    e = entry(fleet, "gemm.cublas 1024x1024x1024 f32 tf32", "dev0");
    cr_expect_eq(num(e, "median_ms"), 0.5);
    json_decref(fleet);

    /* two devices that differ: no majority, the row differs, exit 6 */
    write_trade(p[1], 1, 1.0, 21.5, true);
    rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 6, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "DIFFER (no majority)"), "%s", out);
    cr_expect_not_null(strstr(out, "1 row differs between devices"), "%s", out);

    /* three: the minority is named */
    write_trade(p[1], 1, 1.0, 21.75, true);
    write_trade(p[2], 2, 1.0, 21.5, true);
    snprintf(files, sizeof files, "%s %s %s", p[0], p[1], p[2]);
    rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 6, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "DIFFER: outlier dev2"), "%s", out);
    fleet = merged();
    cr_expect(json_is_true(
        json_object_get(entry(fleet, "gemm.cublas 1024x1024x1024 f32 native", "dev2"), "outlier")));
    cr_expect(!json_is_true(
        json_object_get(entry(fleet, "gemm.cublas 1024x1024x1024 f32 native", "dev0"), "outlier")));
    cr_expect_eq(num(json_object_get(fleet, "summary"), "exit_code"), 6);
    json_decref(fleet);

    /* an op that is not deterministic: not compared, exit 0; a slow device still flagged */
    write_trade(p[0], 0, 1.0, 21.75, false);
    write_trade(p[1], 1, 1.0, 21.5, false);
    write_trade(p[2], 2, 1.2, 21.0, false);
    rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "not compared (op not deterministic)"), "%s", out);
    cr_expect_not_null(strstr(out, "+20.0% SLOW"), "%s", out);
}

Test(perf_merge, runs_of_different_kinds_exit_2_and_write_nothing, .timeout = 60)
{
    char pb[128], pt[128], pr[128], pu[128], files[512], out[16384], path[160];
    snprintf(pb, sizeof pb, "%s/b.json", dir);
    snprintf(pt, sizeof pt, "%s/t.json", dir);
    snprintf(pr, sizeof pr, "%s/r.json", dir);
    snprintf(pu, sizeof pu, "%s/u.json", dir);
    write_bench(pb, 0, 1.0);
    write_trade(pt, 1, 1.0, 20.0, true);
    json_t *run = header("gpuval-run/1", 1);
    json_object_set_new(run, "cases", json_array());
    cr_assert_eq(json_dump_file(run, pr, 0), 0);
    json_decref(run);
    FILE *f = fopen(pu, "w");
    cr_assert_not_null(f);
    fputs("{\"schema\": \"gpuval-other/1\", \"cases\": []}", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/fleet.json", dir);
    const char *pairs[3][2] = {{pb, pt}, {pt, pr}, {pr, pb}};
    for (int i = 0; i < 3; i++) {
        snprintf(files, sizeof files, "%s %s", pairs[i][0], pairs[i][1]);
        int rc = merge(files, out, sizeof out);
        cr_expect_eq(rc, 2, "%s: exit %d\n%s", files, rc, out);
        cr_expect_not_null(strstr(out, "merge takes runs of one kind"), "%s", out);
        cr_expect_neq(access(path, F_OK), 0, "nothing written");
    }
    int rc = merge(pu, out, sizeof out);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "is not a gpuval-run/1, gpuval-bench/1, gpuval-tradeoffs/1 or "
                                   "gpuval-probe/1"),
                       "%s", out);
    cr_expect_neq(access(path, F_OK), 0, "nothing written");
}
