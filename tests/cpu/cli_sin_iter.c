/* cli_sin_iter.c: the command line's rejection of bad sin_iter shapes, dtypes and dists
 * (exit 2, with a message). */
#include <criterion/criterion.h>
#include <string.h>

#include "testkit.h"

Test(sin_iter_cli, bad_shapes_exit_2_with_a_message, .timeout = 60)
{
    char out[8192];
    int rc = gv_test_run_cli("check --op sin_iter --size 1000x2000000 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "k = 2e6: exit %d, output: %s", rc, out);
    cr_expect_not_null(strstr(out, "k <= 1000000"), "%s", out);

    rc = gv_test_run_cli("check --op sin_iter --size 1e8x1e4 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "n*k = 1e12: exit %d, output: %s", rc, out);
    cr_expect_not_null(strstr(out, "n*k"), "%s", out);

    rc = gv_test_run_cli("check --op sin_iter --size 1000 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "one dim: exit %d, output: %s", rc, out);
    cr_expect_not_null(strstr(out, "sin_iter takes 2 dims"), "%s", out);

    rc = gv_test_run_cli("check --op sin_iter --dtype f64 --mode fastmath -q", out, sizeof out);
    cr_expect_eq(rc, 2, "f64 fastmath has no case: exit %d, output: %s", rc, out);

    rc = gv_test_run_cli("check --op sin_iter --dist smallint -q", out, sizeof out);
    cr_expect_eq(rc, 2, "inputs outside [-1,1] refused: exit %d, output: %s", rc, out);
}
