/* test_faults.c: fault isolation and determinism on a device, through the gpuval binary
 * (GPUVAL). A kernel that stores through a wild pointer (vadd.illegal) must be an ERROR
 * naming cudaErrorIllegalAddress, one that spins (vadd.hang) an ERROR at --case-timeout, one
 * whose 16-byte vector loads assume aligned operands (vadd.aligned16, on operands 4 and 8 bytes
 * off) an ERROR naming cudaErrorMisalignedAddress while vadd.offset's checked kernel passes, and
 * the guard bugs that run after them in the same run must still be judged (FAIL with their
 * guard message); the bias bugs (vadd.rz, vadd.ulp) FAIL for bias. Under --repeat 3,
 * reduce.sum.racy (atomicAdd in arrival order, declared deterministic) must FAIL as not
 * deterministic while reduce.sum passes; reduce.sum.onepass (a last-block sum in a fixed order)
 * passes its repeat canary bit for bit, and the planted race reduce.sum.nofence's canary is
 * judged (how often it FAILs: race_rate.sh). Skipped under compute-sanitizer
 * (GPUVAL_UNDER_SANITIZER set by ci/gpu-run): an illegal address is what memcheck reports, on
 * purpose here. */
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
        "check --planted --op 'vadd,vadd.offset,vadd.f32round,vadd.r*,vadd.ulp,vadd.illegal,"
        "vadd.hang,vadd.aligned16,vadd.pastend,vadd.prestart,vadd.clobber,vadd.slow' --dtype f32 "
        "--size 1001 --case-timeout 10",
        out, sizeof out);
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

/* The rows of op in out, one a line, into rows; how many. */
static int rows_of(const char *out, const char *op, char *rows, size_t len)
{
    size_t n = strlen(op), used = 0;
    int count = 0;
    rows[0] = '\0';
    for (const char *l = out; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, op, n) != 0 || l[n] != ' ') continue;
        const char *e = strchr(l, '\n');
        int w =
            snprintf(rows + used, len - used, "%.*s\n", (int)(e ? (size_t)(e - l) : strlen(l)), l);
        if (w > 0 && used + (size_t)w < len) used += (size_t)w;
        count++;
    }
    return count;
}

/* reduce.sum.onepass sums the blocks' partials in a fixed order whoever finishes last: its
   repeat canaries (2^21 elements, 1024 blocks, 10 launches) are in its catalogue and PASS
   bit-identical; so do 50 launches of the same case, f32 and f64. Certain: a deterministic
   kernel with its fences can differ only through a bug. */
Test(gpu_faults, onepass_repeat_canary_passes_bit_identical, .timeout = 600)
{
    static char out[1 << 16];
    char rows[1 << 14];
    int rc = gv_test_run_cli("check --test-sizes --op reduce.sum.onepass", out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d:\n%s", rc, out);
    int n = rows_of(out, "reduce.sum.onepass", rows, sizeof rows);
    cr_expect_eq(n, 2 * 8, "7 test sizes and the repeat canary, f32 and f64:\n%s", out);
    const char *canary[] = {"reduce.sum.onepass       f32", "reduce.sum.onepass       f64"};
    for (int i = 0; i < 2; i++) {
        const char *row = strstr(rows, canary[i]);
        bool found = false;
        for (; row; row = strstr(row + 1, canary[i])) {
            const char *e = strchr(row, '\n');
            if (!strstr(row, "2097152") || (e && strstr(row, "2097152") > e)) continue;
            found = true;
            cr_expect(strstr(row, " PASS") && strstr(row, "[10 launches, bit-identical]") &&
                          (!e || strstr(row, "[10 launches") < e),
                      "%s", rows);
        }
        cr_expect(found, "no repeat canary row for %s:\n%s", canary[i], rows);
    }
    rc = gv_test_run_cli("check --op reduce.sum.onepass --dist uniform01 --size 2097152 "
                         "--repeat 50",
                         out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_expect_eq(rows_of(out, "reduce.sum.onepass", rows, sizeof rows), 2, "%s", out);
    cr_expect(strstr(rows, "[50 launches, bit-identical]") != NULL, "%s", rows);
}

/* reduce.sum.nofence: the same kernel without its fences. Its race shows only when a block's
   partial is still on its way when the last block reads it, so one run may PASS: what is
   certain is that its repeat canary runs (32 launches) and is judged, PASS or FAIL, never an
   ERROR, and that a FAIL is for a difference between launches or a poisoned partial read (a
   NaN where the sum is finite, or the poison's own bits), never for accuracy. How often it is
   caught: tests/gpu/race_rate.sh (meson test --setup long
   --suite gpu-long). */
Test(gpu_faults, nofence_repeat_canary_is_judged, .timeout = 600)
{
    skip_under_sanitizer();
    static char out[1 << 16];
    char rows[1 << 14];
    int rc = gv_test_run_cli("check --op reduce.sum.nofence --dist uniform01 --size 2097152", out,
                             sizeof out);
    cr_expect(rc == 0 || rc == 1, "exit %d:\n%s", rc, out);
    cr_assert_eq(rows_of(out, "reduce.sum.nofence", rows, sizeof rows), 2, "%s", out);
    for (const char *row = rows; *row; row = strchr(row, '\n') + 1) {
        const char *e = strchr(row, '\n');
        bool pass = strstr(row, " PASS") && strstr(row, "[32 launches, bit-identical]") &&
                    strstr(row, "[32 launches") < e;
        bool caught = strstr(row, " FAIL (") && strstr(row, " FAIL (") < e &&
                      (strstr(row, "(not deterministic") || strstr(row, " NaN/Inf not where") ||
                       strstr(row, " unwritten elements"));
        cr_expect(pass || caught, "neither a clean PASS nor a race caught:\n%.*s", (int)(e - row),
                  row);
        cr_log_info("%.*s", (int)(e - row), row);
    }
}
