/* cli_reduce.c: the command line's rejection of bad reduce shapes (exit 2, with a message). */
#include <criterion/criterion.h>
#include <string.h>

#include "testkit.h"

Test(reduce_cli, bad_shapes_exit_2_with_a_message, .timeout = 60)
{
    char out[8192];
    int rc = gv_test_run_cli("check --op reduce.sum --size 2^43 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "n = 2^43: exit %d, output: %s", rc, out);
    cr_expect_not_null(strstr(out, "reduce.sum takes n <="), "%s", out);

    rc = gv_test_run_cli("check --op reduce.sum --size 100x100 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "two dims: exit %d, output: %s", rc, out);
    cr_expect_not_null(strstr(out, "reduce.sum takes 1 dim"), "%s", out);

    rc = gv_test_run_cli("check --op reduce.colsum --size 1000 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "one dim: exit %d, output: %s", rc, out);
    cr_expect_not_null(strstr(out, "reduce.colsum takes 2 dims"), "%s", out);

    rc = gv_test_run_cli("check --op reduce.colsum --size 100000x100000 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "1e10 elements: exit %d, output: %s", rc, out);
    cr_expect_not_null(strstr(out, "fewer than 4e9"), "%s", out);
}
