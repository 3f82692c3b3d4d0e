/* cli_solve.c: the command line's rejection of bad solve shapes (exit 2, with a message). */
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h"
#include "go.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

Test(solve_cli, bad_shapes_exit_2_with_a_message, .timeout = 60)
{
    char out[8192];
    int rc = gv_test_run_cli("check --op solve.gesv --size 1x1 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "1x1: exit %d, %s", rc, out);
    cr_expect_not_null(strstr(out, "n >= 2"), "%s", out);
    rc = gv_test_run_cli("check --op solve.posv --size 100x16 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "kappa 1e16: exit %d, %s", rc, out);
    cr_expect_not_null(strstr(out, "log10 kappa"), "%s", out);
    rc = gv_test_run_cli("check --op solve.gesv --size 100 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "one dim: exit %d, %s", rc, out);
    rc = gv_test_run_cli("check --op solve.gesv.singular --size 10x11 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "k > n: exit %d, %s", rc, out);
    cr_expect_not_null(strstr(out, "1..n"), "%s", out);
    rc = gv_test_run_cli("check --op solve.gesv --size 50000x1 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "n past cuSOLVER's int: exit %d, %s", rc, out);
    rc = gv_test_run_cli("check --op solve.gesv --dist uniform01 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "a distribution the op does not take: exit %d, %s", rc, out);
}
