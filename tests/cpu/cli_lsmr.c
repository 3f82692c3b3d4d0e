/* cli_lsmr.c: the command line's rejection of bad lsmr shapes, dists and modes (exit 2). */
#include <criterion/criterion.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h"
#include "go.h"
#include "lsmr.h"
#include "lsmr_ref.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

/* ---- the CLI -------------------------------------------------------------------------- */

Test(lsmr_cli, bad_shapes_exit_2_with_a_message, .timeout = 60)
{
    char out[8192];
    int rc = gv_test_run_cli("check --op lsmr.ridge --size 100x100 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "two dims: exit %d, %s", rc, out);
    cr_expect_not_null(strstr(out, "lsmr.ridge takes 3 dims"), "%s", out);

    rc = gv_test_run_cli("check --op lsmr.ridge --size 100x100x11 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "k = 11: exit %d, %s", rc, out);
    cr_expect_not_null(strstr(out, "not a lambda index"), "%s", out);

    rc = gv_test_run_cli("check --op lsmr.ridge --size 100000x50000x1 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "dense oracle too big: exit %d, %s", rc, out);
    cr_expect_not_null(strstr(out, "dense QR oracle"), "%s", out);

    rc = gv_test_run_cli("check --op lsmr.ridge --dist special -q", out, sizeof out);
    cr_expect_eq(rc, 2, "special values refused: exit %d, %s", rc, out);

    rc = gv_test_run_cli("check --op lsmr.ridge --mode tf32 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "no tf32 case: exit %d, %s", rc, out);
}
