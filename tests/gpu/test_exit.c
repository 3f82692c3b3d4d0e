/* test_exit.c: gpuval's exit codes from the command itself, on a device: 1 when a case
 * FAILs (a planted bug), 3 when a case is an ERROR (a fault injected at the launch,
 * GPUVAL_INJECT_FAULT=launch), 0 for a clean run. The binary comes from GPUVAL, set by
 * tests/meson.build. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int gpuval(const char *env, const char *args)
{
    const char *bin = getenv("GPUVAL");
    cr_assert_not_null(bin, "GPUVAL names the gpuval binary");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s '%s' %s -q </dev/null >/dev/null 2>&1", env, bin, args);
    int st = system(cmd);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(gpu_exit, clean_run_exits_0, .timeout = 120)
{
    cr_expect_eq(gpuval("", "check --op vadd --size 1001"), 0);
}

Test(gpu_exit, planted_bug_exits_1, .timeout = 120)
{
    cr_expect_eq(gpuval("", "check --op vadd.f32round --dtype f64 --size 1001"), 1);
    cr_expect_eq(gpuval("", "check --op vadd.pastend --size 1001"), 1);
    cr_expect_eq(gpuval("", "check --op gemm.cublas.tf32native --size 64x1024x64 --dist uniform11"),
                 1);
}

Test(gpu_exit, injected_fault_exits_3, .timeout = 120)
{
    cr_expect_eq(gpuval("GPUVAL_INJECT_FAULT=launch", "check --op vadd --size 1001"), 3);
}
