/* cli_dense.c: the command line with the dense ops: bad shapes exit 2, list shows the op and
 * its error model. */
#include <criterion/criterion.h>
#include <string.h>

#include "testkit.h"

Test(dense_cli, bad_shapes_exit_2_with_a_message, .timeout = 60)
{
    char out[8192];
    int rc = gv_test_run_cli("check --op dense.sigmoid --size 64x64 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "two dims: exit %d, output: %s", rc, out);
    cr_expect_not_null(strstr(out, "dense.sigmoid takes 3 dims"), "%s", out);

    rc = gv_test_run_cli("check --op dense.sigmoid --size 2^31x2x2 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "m = 2^31: exit %d, output: %s", rc, out);
    cr_expect_not_null(strstr(out, "below 2^30"), "%s", out);

    rc = gv_test_run_cli("check --op dense.sigmoid --size 100000x100000x2 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "W of 1e10 elements: exit %d, output: %s", rc, out);
    cr_expect_not_null(strstr(out, "fewer than 4e9"), "%s", out);

    rc =
        gv_test_run_cli("check --op dense.sigmoid --dtype f64 --mode fastmath -q", out, sizeof out);
    cr_expect_eq(rc, 2, "f64 fastmath has no case: exit %d, output: %s", rc, out);

    rc = gv_test_run_cli("check --op dense.sigmoid --dist special -q", out, sizeof out);
    cr_expect_eq(rc, 2, "special values refused: exit %d, output: %s", rc, out);
}

Test(dense_cli, listed_with_its_error_model)
{
    /* (a valid shape is not run here: `check` would touch a GPU where one exists) */
    char out[16384];
    int rc = gv_test_run_cli("list -v", out, sizeof out);
    cr_expect_eq(rc, 0, "list -v: exit %d", rc);
    cr_expect_not_null(strstr(out, "dense.sigmoid "), "%s", out);
    cr_expect_not_null(strstr(out, "Higham ASNA eq. 3.13"), "%s", out);
    cr_expect_null(strstr(out, "dense.sigmoid.rowbias"), "planted bugs only with --all");
    rc = gv_test_run_cli("list --all", out, sizeof out);
    cr_expect_eq(rc, 0, "list --all: exit %d", rc);
    cr_expect_not_null(strstr(out, "dense.sigmoid.rowbias"), "%s", out);
}
