/* test_faults.c: fault isolation and determinism on a device, through the gpuval binary
 * (GPUVAL). A kernel that stores through a wild pointer (vadd.illegal) must be an ERROR
 * naming cudaErrorIllegalAddress, one that spins (vadd.hang) an ERROR at --case-timeout, one
 * whose 16-byte vector loads assume aligned operands (vadd.aligned16, on operands 4 and 8 bytes
 * off) an ERROR naming cudaErrorMisalignedAddress while vadd.offset's checked kernel passes, and
 * the guard bugs that run after them in the same run must still be judged (FAIL with their
 * guard message); the bias bugs (vadd.rz, vadd.ulp) FAIL for bias. Under --repeat 3,
 * reduce.sum.racy (atomicAdd in arrival order, declared deterministic) must FAIL as not
 * deterministic while reduce.sum passes. Skipped under compute-sanitizer (GPUVAL_UNDER_SANITIZER
 * set by ci/gpu-run): an illegal address is what memcheck reports, on purpose here. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../cpu/testkit.h" /* gv_test_run_cli: gpuval ARGS, output and exit code */

/* The row of op (exact name) in out, copied into row; false when absent. */
static bool row_of(const char *out, const char *op, char *row, size_t len)
{
    size_t n = strlen(op);
    for (const char *l = out; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, op, n) != 0 || l[n] != ' ') continue;
        const char *e = strchr(l, '\n');
        snprintf(row, len, "%.*s", (int)(e ? (size_t)(e - l) : strlen(l)), l);
        return true;
    }
    return false;
}

static void skip_under_sanitizer(void)
{
    if (getenv("GPUVAL_UNDER_SANITIZER"))
        cr_skip_test("planted faults are not run under a sanitizer");
}

Test(gpu_faults, illegal_address_and_hang_fail_their_own_cases, .timeout = 300)
{
    skip_under_sanitizer();
    static char out[1 << 16];
    int rc = gv_test_run_cli(
        "check --planted --op 'vadd*' --dtype f32 --size 1001 --case-timeout 10", out, sizeof out);
    cr_expect_eq(rc, 1, "exit %d (FAIL beats ERROR):\n%s", rc, out);
    char row[1024];
    cr_assert(row_of(out, "vadd", row, sizeof row), "%s", out);
    cr_expect(strstr(row, " PASS") != NULL, "%s", row);
    cr_assert(row_of(out, "vadd.illegal", row, sizeof row), "%s", out);
    cr_expect(strstr(row, " ERROR") && strstr(row, "cudaErrorIllegalAddress"), "%s", row);
    cr_assert(row_of(out, "vadd.hang", row, sizeof row), "%s", out);
    cr_expect(strstr(row, " ERROR") && strstr(row, "timed out after 10 s (--case-timeout)"), "%s",
              row);
    /* operands off 16-byte boundaries: the alignment check takes the scalar path; without it
       the vector loads fault */
    cr_assert(row_of(out, "vadd.offset", row, sizeof row), "%s", out);
    cr_expect(strstr(row, " PASS") != NULL, "%s", row);
    cr_assert(row_of(out, "vadd.aligned16", row, sizeof row), "%s", out);
    cr_expect(strstr(row, " ERROR") && strstr(row, "cudaErrorMisalignedAddress"), "%s", row);
    /* rounding toward zero and one ulp up: within an ulp, caught by the bias rule alone */
    cr_assert(row_of(out, "vadd.rz", row, sizeof row), "%s", out);
    cr_expect(strstr(row, " FAIL (bias: errors lean toward zero") != NULL, "%s", row);
    cr_assert(row_of(out, "vadd.ulp", row, sizeof row), "%s", out);
    cr_expect(strstr(row, " FAIL (bias: errors lean upward") != NULL, "%s", row);
    /* after the lost context and the kill: still run, still judged */
    const char *after[] = {"vadd.pastend", "vadd.prestart", "vadd.clobber"};
    for (int i = 0; i < 3; i++) {
        cr_assert(row_of(out, after[i], row, sizeof row), "%s missing:\n%s", after[i], out);
        cr_expect(strstr(row, " FAIL") != NULL, "%s", row);
    }
    /* vadd, vadd.offset and vadd.slow pass; the two bias bugs and the three guard bugs fail;
       the three faults are errors */
    cr_expect(strstr(out, "11 cases: 3 passed, 5 failed, 0 skipped, 3 errors") != NULL, "%s", out);
}

Test(gpu_faults, racy_sum_fails_repeat, .timeout = 300)
{
    skip_under_sanitizer();
    static char out[1 << 16];
    int rc = gv_test_run_cli("check --op reduce.sum.racy --dtype f32 --size 4194305 --repeat 3",
                             out, sizeof out);
    cr_expect_eq(rc, 1, "exit %d:\n%s", rc, out);
    cr_expect(strstr(out, " FAIL (not deterministic: repeat ") != NULL, "%s", out);
    /* the same inputs once: the race is accurate enough to pass its error model */
    rc = gv_test_run_cli("check --op reduce.sum.racy --dtype f32 --size 4194305", out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d:\n%s", rc, out);
}

Test(gpu_faults, deterministic_ops_repeat_identically, .timeout = 600)
{
    static char out[1 << 16];
    int rc = gv_test_run_cli("check --test-sizes --op 'reduce.sum' --repeat 3", out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d:\n%s", rc, out);
    rc = gv_test_run_cli("check --op gemm.cublas --size 256x512x128 --repeat 3", out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d:\n%s", rc, out);
}
