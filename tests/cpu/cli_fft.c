/* cli_fft.c: the command line with the fft ops: bad shapes exit 2, list shows each direction. */
#include <criterion/criterion.h>
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

#define PI_L 3.141592653589793238462643383279502884L

/* ---- descriptors and the error model ----------------------------------------------------- */

static const char *const op_names[] = {"fft.c2c.fwd", "fft.c2c.inv", "fft.r2c.fwd", "fft.c2r.inv"};

/* ---- the command line ------------------------------------------------------------------ */

Test(oracle_fft, cli_rejects_bad_fft_shapes_with_exit_2)
{
    static char out[65536];
    cr_expect_eq(gv_test_run_cli("check --op fft.c2c.fwd --size 1000", out, sizeof out), 2, "%s",
                 out);
    cr_expect_not_null(strstr(out, "n,batch"), "the message names the dims: %s", out);
    cr_expect_eq(gv_test_run_cli("check --op fft.r2c.fwd --size 1x4", out, sizeof out), 2, "%s",
                 out);
    cr_expect_not_null(strstr(out, "at least 2"), "%s", out);
    cr_expect_eq(gv_test_run_cli("check --op fft.c2r.inv --size 2^28x1", out, sizeof out), 2, "%s",
                 out);
    cr_expect_not_null(strstr(out, "2^27"), "%s", out);
    cr_expect_eq(
        gv_test_run_cli("check --op fft.c2c.inv --dist special --size 64x2", out, sizeof out), 2,
        "%s", out);
}

Test(oracle_fft, cli_list_shows_each_direction)
{
    static char out[65536];
    cr_assert_eq(gv_test_run_cli("list", out, sizeof out), 0, "%s", out);
    for (size_t o = 0; o < 4; o++)
        cr_expect_not_null(strstr(out, op_names[o]), "%s listed", op_names[o]);
    cr_expect_not_null(strstr(out, "forward"));
    cr_expect_not_null(strstr(out, "inverse"));
    cr_expect_null(strstr(out, "wrongsign"), "planted bugs only with --all");
    cr_assert_eq(gv_test_run_cli("list --all", out, sizeof out), 0);
    cr_expect_not_null(strstr(out, "fft.c2c.fwd.wrongsign"));
}
