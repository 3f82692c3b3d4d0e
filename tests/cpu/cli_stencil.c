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
#include "render/bench_text.h"

/* ---- the CLI ----------------------------------------------------------------------------- */

Test(stencil, cli_rejects_bad_shapes_with_exit_2)
{
    static const struct {
        const char *args, *says;
    } bad[] = {
        {"check --op diffusion.fixed --size 37x53", "ny,nx,steps"},
        {"check --op stencil.laplace --size 10x10x10", "ny,nx"},
        {"check --op diffusion.periodic --size 70000x70000x1", "too large"},
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

/* The byte counts behind bench's GB/s and %copy: one launch a step moves the grid in and out
   each step; the fused kernel moves it once a launch of up to 8 steps (abi/stencil.h), and
   bench prints that model under its table. 2000 x 2000 f32 grid: 1.6e7 bytes. */
Test(cli_stencil, fused_diffusion_counts_the_grid_once_a_launch)
{
    const double grid = 2000.0 * 2000.0 * 4.0;
    const struct {
        const char *op;
        int64_t steps;
        double launches;
    } want[] = {{"diffusion.periodic", 1000, 125},         {"diffusion.fixed", 1000, 125},
                {"diffusion.periodic", 1, 1},              {"diffusion.periodic", 3, 2},
                {"diffusion.periodic", 5, 2},              {"diffusion.periodic", 9, 2},
                {"diffusion.periodic.perstep", 1000, 1000}, {"diffusion.fixed.perstep", 10, 10}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        gv_case c = gv_test_case(want[i].op, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                                 (gv_shape){3, {2000, 2000, want[i].steps}}, 0);
        cr_expect_eq(c.op->bytes(&c), 2.0 * grid * want[i].launches, "%s, %lld steps: %g bytes",
                     want[i].op, (long long)want[i].steps, c.op->bytes(&c));
        bool fused = strstr(want[i].op, "perstep") == NULL;
        cr_expect_eq(c.op->bytes_model != NULL, fused, "%s: bytes_model", want[i].op);
    }
    /* bench says so under its table, once an op */
    json_t *doc = json_pack("{s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:n}]}", "cases", "op",
                            "diffusion.periodic", "bytes_model", "M", "op", "diffusion.periodic",
                            "bytes_model", "M", "op", "vadd", "bytes_model");
    cr_assert_not_null(doc);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gv_bench_render_bytes_models(f, doc);
    fclose(f);
    cr_expect_str_eq(text, "bytes of diffusion.periodic (GB/s, %copy): M\n");
    free(text);
    json_decref(doc);
}
