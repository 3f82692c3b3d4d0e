/* test_judge.c (tests/gpu): a device's outputs judged by `gpuval judge` reach check's verdict.
 * gemm.cublas.tf32native (TF32 behind a pedantic, f32-native label) FAILs in check and is dumped
 * with its inputs and the GPU's output; judge, given those files and the case's distribution and
 * seed, judges the very generated case and FAILs it too; claimed as TF32 (--mode tf32, as
 * given data) the same output passes, which is what it is. (As given data claimed f32-native
 * it passes too: the worst-case bound at k = 1024 hides TF32, docs/error-models.md, "Data
 * gpuval did not make"; only the generated case's probabilistic model catches it.) The binary comes
 * from GPUVAL (tests/meson.build). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cpu/testkit.h" /* gv_test_run_cli: gpuval ARGS, output and exit code */

Test(gpu_judge, dumped_gpu_output_judged_as_check_judged_it, .timeout = 300)
{
    char dir[256], args[4096], cmd[600];
    static char out[1 << 16];
    snprintf(dir, sizeof dir, "/tmp/gv_gpu_judge_%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    const char *name = "gemm.cublas.tf32native-f32-native-uniform11-64x1024x64-s0";
    snprintf(args, sizeof args,
             "check --op gemm.cublas.tf32native --size 64x1024x64 --dist uniform11 "
             "--dump-failures '%s'",
             dir);
    cr_assert_eq(gv_test_run_cli(args, out, sizeof out), 1, "%s: %s", args, out);
    char in[2048], gpu[1024];
    snprintf(in, sizeof in, "%s/%s/in_A.npy,%s/%s/in_B.npy", dir, name, dir, name);
    snprintf(gpu, sizeof gpu, "%s/%s/out_C.gpu.npy", dir, name);
    cr_assert_eq(access(gpu, R_OK), 0, "%s was not written: %s", gpu, out);

    /* the generated case, as check ran it */
    snprintf(args, sizeof args,
             "judge --op gemm.cublas.tf32native --inputs '%s' --outputs '%s' --dist uniform11 "
             "--seed 0",
             in, gpu);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 1, "%s: %s", args, out);
    cr_expect_not_null(strstr(out, "FAIL"), "%s", out);
    cr_expect_not_null(strstr(out, "64x1024x64"), "%s", out);

    /* claimed as what it is, TF32 */
    snprintf(args, sizeof args, "judge --op gemm.cublas --mode tf32 --inputs '%s' --outputs '%s'",
             in, gpu);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s: %s", args, out);
    cr_expect_not_null(strstr(out, "PASS"), "%s", out);
    cr_expect_eq(system(cmd), 0);
}
