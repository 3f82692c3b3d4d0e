/* cli_stencil.c: the command line's rejection of bad stencil shapes (exit 2), and the fused
   diffusion's byte model (the bytes behind bench's GB/s and %copy) against a brute-force count. */
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

/* ---- the fused diffusion's byte model -------------------------------------------------- */

/* The loads and stores of one launch, counted block by block and cell by cell as the kernels
   in kernels/stencil.cu issue them, without abi/stencil.h's helpers. stencil_fused_kernel: a
   block's region is 32 lanes of a 16-byte vector wide (V = 16 / esize columns a lane) and 64
   rows tall; its tile is the region less a halo S wide on every side; the tiles start at the
   grid's first row and column. Periodic: every region cell is loaded (wrapped); fixed: the
   cells inside the grid. Stores: the tile's cells inside the grid. */
static void brute_fused(int64_t ny, int64_t nx, int esize, int s, bool periodic, int64_t *loads,
                        int64_t *stores)
{
    const int64_t wx = 32 * (16 / esize), ry = 64, h = s, fx = wx - 2 * h, fy = ry - 2 * h;
    *loads = *stores = 0;
    for (int64_t by = 0; by < (ny + fy - 1) / fy; by++)
        for (int64_t bx = 0; bx < (nx + fx - 1) / fx; bx++)
            for (int64_t r = 0; r < ry; r++)
                for (int64_t c = 0; c < wx; c++) {
                    const int64_t gi = by * fy - h + r, gj = bx * fx - h + c;
                    const bool in = gi >= 0 && gi < ny && gj >= 0 && gj < nx;
                    *loads += periodic || in;
                    *stores += in && r >= h && r < h + fy && c >= h && c < h + fx;
                }
}

/* stencil_stream_kernel (one step): blocks of 4 warps side by side, a lane V columns (V =
   16 / esize where nx is a multiple of it, else 1), a strip of 32 rows. A live lane loads
   its V columns of the strip's rows and of the rows just above and below (those outside the
   grid: wrapped, or not loaded with fixed edges); on each of the strip's rows lane 0 loads
   the column left of its own, lane 31 and the lane of the grid's last column the one right
   of theirs (outside the grid: wrapped, or none); it stores its V columns of each row. */
static void brute_stream(int64_t ny, int64_t nx, int esize, bool periodic, int64_t *loads,
                         int64_t *stores)
{
    const int64_t v = nx % (16 / esize) == 0 ? 16 / esize : 1, lanes = (nx + v - 1) / v;
    *loads = *stores = 0;
    for (int64_t i0 = 0; i0 < ny; i0 += 32) {
        const int64_t i1 = i0 + 32 < ny ? i0 + 32 : ny;
        for (int64_t t = 0; t < (lanes + 127) / 128 * 128; t++) {
            const int64_t jv = t * v, lane = t % 32;
            if (jv >= nx) continue; /* not live: neither loads nor stores */
            for (int64_t i = i0 - 1; i <= i1; i++)
                *loads += (periodic || (i >= 0 && i < ny)) ? v : 0;
            const int64_t cl = jv > 0 ? jv - 1 : periodic ? nx - 1 : -1;
            const int64_t cr = jv + v < nx ? jv + v : periodic ? 0 : -1;
            for (int64_t i = i0; i < i1; i++) {
                *loads += lane == 0 && cl >= 0;
                *loads += (lane == 31 || jv + v == nx) && cr >= 0;
                *stores += v;
            }
        }
    }
}

/* The bytes of a run of `steps` steps, from the brute-force counts: a single step is one
   streamed launch; more take ceil(steps / S) fused launches, S the largest of 8, 4 and 2 not
   above steps (kernels/stencil.cu, fused_run_t), each loading and storing the same cells. */
static double brute_bytes(int64_t ny, int64_t nx, int64_t steps, int esize, bool periodic)
{
    int64_t loads, stores;
    if (steps == 1) {
        brute_stream(ny, nx, esize, periodic, &loads, &stores);
        cr_expect_eq(stores, ny * nx, "streamed %lldx%lld stores each point once", (long long)ny,
                     (long long)nx);
        return (double)(loads + stores) * esize;
    }
    const int s = steps >= 8 ? 8 : steps >= 4 ? 4 : 2;
    brute_fused(ny, nx, esize, s, periodic, &loads, &stores);
    cr_expect_eq(stores, ny * nx, "fused %lldx%lld, S = %d: the tiles store each point once",
                 (long long)ny, (long long)nx, s);
    return (double)((steps + s - 1) / s) * (double)(loads + stores) * esize;
}

/* The bytes hook of diffusion.fixed, diffusion.periodic and diffusion.periodic.shorthalo
   (counted as its correct kernel's) against the brute-force counts, on ragged grids on both
   sides of a tile's width and height (f32 tiles: 112, 120, 124 columns for S = 8, 4, 2; f64:
   48, 56, 60; rows: 48, 56, 60), grids smaller than one region, and a warp's width. */
Test(cli_stencil, fused_diffusion_bytes_count_every_region_and_halo)
{
    static const int64_t grids[][2] = {{1, 1},    {1, 97},    {97, 1},    {2, 3},    {37, 53},
                                       {48, 112}, {49, 113},  {60, 124},  {61, 125}, {97, 225},
                                       {96, 224}, {130, 129}, {300, 257}, {113, 513}};
    static const int64_t steps[] = {1, 2, 3, 4, 7, 8, 9, 100};
    static const char *const ops[] = {"diffusion.fixed", "diffusion.periodic",
                                      "diffusion.periodic.shorthalo"};
    int checked = 0;
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
        for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
            for (int t = 0; t < 2; t++)
                for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                    const int64_t ny = grids[g][0], nx = grids[g][1];
                    const gv_dtype dt = t ? GV_F64 : GV_F32;
                    const int esize = t ? 8 : 4;
                    gv_case c = gv_test_case(ops[o], dt, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                                             (gv_shape){3, {ny, nx, steps[k]}}, 0);
                    const double want = brute_bytes(ny, nx, steps[k], esize, o > 0);
                    const double got = c.op->bytes(&c);
                    cr_expect_eq(got, want, "%s %s %lldx%lldx%lld: %.17g bytes, want %.17g", ops[o],
                                 t ? "f64" : "f32", (long long)ny, (long long)nx,
                                 (long long)steps[k], got, want);
                    checked++;
                }
    cr_expect_eq(checked, 14 * 8 * 2 * 3);
    /* the halos count: a fused run moves more than the grid in and out once a launch */
    gv_case c = gv_test_case("diffusion.fixed", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                             (gv_shape){3, {300, 257, 8}}, 0);
    cr_expect_gt(c.op->bytes(&c), 2.0 * 300 * 257 * 4 * 1.2);
}

/* At 2000 x 2000 f32 in launches of 8 steps each launch reads the grid's cells 1.51 times
   (fixed edges) or 1.55 times (periodic): the factors the bytes models quote, derived here
   from the brute-force count; 1000 steps are 125 such launches. One launch a step (perstep)
   keeps the plain count, the grid in and out each step. bench prints each model under its
   table, whole. */
Test(cli_stencil, fused_diffusion_model_quotes_its_2000_squared_factor)
{
    const double grid = 2000.0 * 2000.0;
    for (int periodic = 0; periodic < 2; periodic++) {
        const char *op = periodic ? "diffusion.periodic" : "diffusion.fixed";
        int64_t loads, stores;
        brute_fused(2000, 2000, 4, 8, periodic, &loads, &stores);
        char factor[64];
        snprintf(factor, sizeof factor, "S = 8: %.2fx the grid", (double)loads / grid);
        gv_case c = gv_test_case(op, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                                 (gv_shape){3, {2000, 2000, 1000}}, 0);
        cr_assert_not_null(c.op->bytes_model, "%s: bytes_model", op);
        cr_expect_not_null(strstr(c.op->bytes_model, factor), "%s's model '%s' says '%s'", op,
                           c.op->bytes_model, factor);
        cr_expect_not_null(strstr(c.op->bytes_model, periodic ? "wrapped" : "cut to the grid"),
                           "%s's model names its edges", op);
        cr_expect_eq(c.op->bytes(&c), 125.0 * (double)(loads + stores) * 4.0, "%s 1000 steps", op);
        cr_expect(loads > 1.5 * grid && loads < 1.6 * grid, "%s: %lld loads a launch", op,
                  (long long)loads);

        /* bench's line under its table carries the whole model */
        json_t *doc = json_pack(
            "{s:[{s:s, s:s, s:f}, {s:s, s:s, s:f}, {s:s, s:n, s:f}, {s:s, s:n, s:f}, {s:s, s:n}]}",
            "cases", "op", op, "bytes_model", c.op->bytes_model, "bytes", 1.0, "op", op,
            "bytes_model", c.op->bytes_model, "bytes", 2.0, "op", "vadd", "bytes_model", "bytes",
            3.0, "op", "reduce.sum", "bytes_model", "bytes", 4.0, "op", "nobytes", "bytes_model");
        cr_assert_not_null(doc);
        char *text = NULL, want[512];
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        gv_bench_render_bytes_models(f, doc);
        fclose(f);
        /* the op's own model once, then the ops with the plain count in one line; an op
           whose case counts no bytes, none */
        snprintf(want, sizeof want, "bytes of %s (GB/s, %%copy): %s\nbytes of vadd, reduce.sum "
                 "(GB/s, %%copy): %s\n", op, c.op->bytes_model, GV_BYTES_PLAIN);
        cr_expect_str_eq(text, want);
        free(text);
        json_decref(doc);
    }
    static const struct {
        const char *op;
        int64_t steps;
    } plain[] = {{"diffusion.periodic.perstep", 1000}, {"diffusion.fixed.perstep", 10}};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        gv_case c = gv_test_case(plain[i].op, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                                 (gv_shape){3, {2000, 2000, plain[i].steps}}, 0);
        cr_expect_eq(c.op->bytes(&c), 2.0 * grid * 4.0 * (double)plain[i].steps, "%s", plain[i].op);
        cr_expect_str_eq(c.op->bytes_model ? c.op->bytes_model : "(null)",
                         "the grid read and written once a step (one launch a step)",
                         "%s: the per-step count, said", plain[i].op);
    }
}
