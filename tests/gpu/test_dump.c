/* test_dump.c (tests/gpu): check --inputs, --dump-failures and replay on a device. A planted
 * bug (vadd.pastend: a store past the end of c; gemm.cublas.tf32native: TF32 behind a pedantic
 * label) FAILs and is dumped; replay reruns the dump on the same input bits and must reach the
 * same verdict with bit-identical GPU outputs. Inputs from fixtures/ reach the device bit for
 * bit. The binary comes from GPUVAL, the source tree from GPUVAL_SRCDIR (tests/meson.build). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/npy.h"
#include "../cpu/testkit.h" /* gv_test_run_cli: gpuval ARGS, output and exit code */

static void fresh_dir(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/tmp/gv_gpu_dump_%d_%s", (int)getpid(), name);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", buf);
    cr_assert_eq(system(cmd), 0);
}

/* Dump the failing case of check_args, replay it: the same verdict, bit-identical outputs. */
static void dump_and_replay(const char *check_args, const char *case_name, const char *output)
{
    char dir[256], args[4096], out[16384];
    fresh_dir(dir, sizeof dir, case_name);
    snprintf(args, sizeof args, "check %s --dump-failures '%s'", check_args, dir);
    cr_assert_eq(gv_test_run_cli(args, out, sizeof out), 1, "%s: %s", args, out);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/case.json", dir, case_name);
    cr_assert_eq(access(path, R_OK), 0, "%s was not written: %s", path, out);
    snprintf(args, sizeof args, "replay '%s/%s'", dir, case_name);
    int rc = gv_test_run_cli(args, out, sizeof out);
    cr_expect_eq(rc, 0, "%s: %s", args, out);
    cr_expect(strstr(out, "verdict: FAIL, dumped FAIL: the same") != NULL, "%s", out);
    char want[128];
    snprintf(want, sizeof want, "output %s: bit-identical to the dump", output);
    cr_expect(strstr(out, want) != NULL, "%s", out);
    /* a second dump into the same place is refused without --force */
    snprintf(args, sizeof args, "check %s --dump-failures '%s'", check_args, dir);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    cr_expect(strstr(out, "exists") != NULL, "%s", out);
}

Test(gpu_dump, planted_guard_bug_dumps_and_replays_bit_identical, .timeout = 300)
{
    dump_and_replay("--op vadd.pastend --dtype f32 --size 1001",
                    "vadd.pastend-f32-native-uniform11-1001-s0", "c");
}

Test(gpu_dump, planted_tf32_bug_dumps_and_replays_bit_identical, .timeout = 300)
{
    dump_and_replay("--op gemm.cublas.tf32native --size 64x1024x64 --dist uniform11",
                    "gemm.cublas.tf32native-f32-native-uniform11-64x1024x64-s0", "C");
}

Test(gpu_dump, fixture_inputs_pass_and_reach_the_device_bit_for_bit, .timeout = 300)
{
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src);
    char args[4096], out[16384], dir[256], path[1024];
    snprintf(args, sizeof args,
             "check --op vadd --inputs '%s/fixtures/vadd_f32_a.npy,%s/fixtures/vadd_f32_b.npy'",
             src, src);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
    snprintf(args, sizeof args,
             "check --op gemm.cublas --mode native --inputs "
             "'%s/fixtures/gemm_f64_A.npy,%s/fixtures/gemm_f64_B.npy'",
             src, src);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
    /* the planted bug on the fixture's inputs: the dumped inputs are the fixture's bits */
    fresh_dir(dir, sizeof dir, "fx");
    snprintf(args, sizeof args,
             "check --op vadd.pastend --inputs '%s/fixtures/vadd_f32_a.npy,%s/fixtures/"
             "vadd_f32_b.npy' --dump-failures '%s'",
             src, src, dir);
    cr_assert_eq(gv_test_run_cli(args, out, sizeof out), 1, "%s", out);
    gv_npy dumped, fixture;
    char err[512];
    snprintf(path, sizeof path, "%s/vadd.pastend-f32-native-uniform11-33-s0/in_b.npy", dir);
    cr_assert_eq(gv_npy_read(path, &dumped, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/fixtures/vadd_f32_b.npy", src);
    cr_assert_eq(gv_npy_read(path, &fixture, err, sizeof err), 0, "%s", err);
    cr_expect_eq(dumped.count, fixture.count);
    cr_expect(memcmp(dumped.data, fixture.data, (size_t)fixture.count * 4) == 0);
    gv_npy_free(&dumped);
    gv_npy_free(&fixture);
    snprintf(args, sizeof args, "replay '%s/vadd.pastend-f32-native-uniform11-33-s0'", dir);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
}
