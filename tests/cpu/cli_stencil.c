/* cli_stencil.c: the command line's rejection of bad stencil shapes (exit 2). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

/* ---- the CLI ----------------------------------------------------------------------------- */

Test(stencil, cli_rejects_bad_shapes_with_exit_2)
{
    static const struct {
        const char *args, *says;
    } bad[] = {
        {"check --op diffusion.fixed --size 37x53", "ny,nx,steps"},
        {"check --op stencil.laplace --size 10x10x10", "ny,nx"},
        {"check --op diffusion.periodic --size 40000x40000x1", "too large"},
        {"check --op diffusion.fixed --size 10x10x200000", "steps"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char out[4096];
        int rc = gv_test_run_cli(bad[i].args, out, sizeof out);
        cr_expect_eq(rc, 2, "gpuval %s: exit %d, want 2 (%s)", bad[i].args, rc, out);
        cr_expect_not_null(strstr(out, bad[i].says), "gpuval %s says '%s', want '%s' in it",
                           bad[i].args, out, bad[i].says);
    }
}
