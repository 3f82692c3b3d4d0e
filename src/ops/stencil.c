/* stencil.c: op descriptors for the 5-point stencils of seed 002 (Numba, shared-memory tiles,
 * fixed edges) and seed 003 (PyTorch roll, periodic edges): diffusion fused in time (up to 8
 * steps a launch; one step streamed through registers) and, for comparison, one launch per
 * step; and their planted bugs.
 * Error model: docs/error-models.md, section stencil. */
#include <float.h>

#include "../../abi/stencil.h"
#include "ops/opkit.h"

extern const gk_op gk_stencil_laplace, gk_diffusion_fixed, gk_diffusion_periodic,
    gk_diffusion_fixed_edge, gk_diffusion_periodic_clamp, gk_diffusion_fixed_perstep,
    gk_diffusion_periodic_perstep, gk_diffusion_periodic_shorthalo;

/* Seed 003's dt * D: dt = 0.1, D = 1. kernels/stencil.cu uses the same constant. */
#define DIFFUSION_PERIODIC_COEFF GV_DIFFUSION_PERIODIC_COEFF
/* Local error constants c1 (docs/error-models.md, section stencil). */
#define FIXED_STEP_C1    4.0
#define PERIODIC_STEP_C1 3.0

static int64_t grid_points(const gv_case *c)
{
    return c->shape.d[0] * c->shape.d[1];
}
static int64_t steps_of(const gv_case *c)
{
    return c->shape.nd > 2 ? c->shape.d[2] : 1;
}

/* The grid as an ny x nx array, in and out, whatever the steps. */
static int stencil_tensor_shape(const gv_case *c, const gv_layout *l, bool output, int i,
                                int64_t *shape)
{
    (void)l, (void)output, (void)i;
    shape[0] = c->shape.d[0];
    shape[1] = c->shape.d[1];
    return 2;
}

static int stencil_layout(const gv_case *c, gv_layout *l)
{
    int64_t n = grid_points(c);
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"f", n};
    l->out[0] = (gv_tensor_spec){c->shape.nd > 2 ? "field" : "lapl", n};
    /* N > 1 steps ping-pong between the output and one scratch grid */
    l->workspace_bytes = steps_of(c) > 1 ? n * (int64_t)gv_dtype_size(c->dtype) : 0;
    return GV_OK;
}

static int stencil_check_shape(const gv_shape *s, char *why, size_t len)
{
    /* 2^32 points leaves room for the large tier's grids past 2^31; its f64 copies (the
       input's, the reference, the gauge, a scratch grid: 40 bytes a point in f32) are checked
       against the host's memory case by case (problem.h, gv_host_memory_check) */
    if ((double)s->d[0] * (double)s->d[1] > 4294967296.0) {
        snprintf(why, len,
                 "grid %lldx%lld too large: at most 2^32 points (the oracle keeps "
                 "several f64 copies)",
                 (long long)s->d[0], (long long)s->d[1]);
        return GV_EINVAL;
    }
    if (s->d[0] > 2147483647 || s->d[1] > 2147483647) {
        snprintf(why, len, "grid %lldx%lld: each dim below 2^31 (the kernels' int dims)",
                 (long long)s->d[0], (long long)s->d[1]);
        return GV_EINVAL;
    }
    if (s->nd > 2 && s->d[2] > 100000) {
        snprintf(why, len, "%lld steps: at most 100000 (each is a full CPU oracle sweep)",
                 (long long)s->d[2]);
        return GV_EINVAL;
    }
    return GV_OK;
}

static double laplace_flops(const gv_case *c)
{
    return 5.0 * (double)grid_points(c);
}
static double diffusion_flops(const gv_case *c)
{
    return 7.0 * (double)grid_points(c) * (double)steps_of(c);
}

/* Each sweep reads the grid and writes it once: one launch a step. */
static double stencil_bytes(const gv_case *c)
{
    return 2.0 * (double)grid_points(c) * (double)steps_of(c) * gv_esize(c);
}

/* The fused kernel's traffic, halos included: each launch loads every block's region (its
   tile plus a halo S wide, abi/stencil.h) and stores the grid once; a single step is one
   launch of the streamed kernel, which loads the grid plus a row above and below each strip
   and a column left and right of each warp. A halo cell that several blocks load is counted
   once for each (the L2 cache may serve all but the first), so the %copy is that of the loads
   and stores the kernel issues to global memory. The factors quoted are those of a
   2000 x 2000 f32 grid in launches of 8 steps (tests/cpu/cli_stencil.c checks them). */
#define FUSED_BYTES_MODEL(edges, factor)                                                           \
    "ceil(steps/S) launches, S = 8, 4 or 2 (the most <= steps), each reading every block's "       \
    "region (tile + halo S wide" edges "; 2000x2000 f32, S = 8: " factor "x the grid) and "        \
    "writing the grid once; 1 step: + 2 rows a 32-row strip, 2 columns a warp"
#define FIXED_BYTES_MODEL    FUSED_BYTES_MODEL(", cut to the grid", "1.51")
#define PERIODIC_BYTES_MODEL FUSED_BYTES_MODEL(", wrapped", "1.55")

static double fused_bytes(const gv_case *c, int periodic)
{
    const int64_t ny = c->shape.d[0], nx = c->shape.d[1], steps = steps_of(c);
    const int esize = (int)gv_esize(c);
    if (steps <= 1) /* the streamed kernel */
        return ((double)gv_diffusion_stream_cells(ny, nx, esize, periodic) + (double)ny * nx) *
               esize;
    const double cells =
        (double)gv_diffusion_fused_cells(ny, nx, esize, gv_diffusion_fused_s(steps), periodic);
    return (double)gv_diffusion_launches(steps) * (cells + (double)ny * nx) * esize;
}
static double fixed_fused_bytes(const gv_case *c)
{
    return fused_bytes(c, 0);
}
/* (the planted diffusion.periodic.shorthalo too: the bytes its correct kernel would move) */
static double periodic_fused_bytes(const gv_case *c)
{
    return fused_bytes(c, 1);
}

static double laplace_depth(const gv_case *c)
{
    (void)c;
    return 4.0;
}
static double fixed_depth(const gv_case *c)
{
    return FIXED_STEP_C1 * (double)steps_of(c);
}
static double periodic_depth(const gv_case *c)
{
    return PERIODIC_STEP_C1 * (double)steps_of(c);
}

/* The oracle's and the gauge's scratch (oracle/stencil.c): one f64 grid, the steps' other
   buffer or the gauge's (never both at once: the gauge runs after the oracle). */
static double diffusion_scratch_bytes(const gv_case *c)
{
    return 8.0 * (double)grid_points(c);
}

/* The large tier's grid: 32768 x 65537 = 2^31 + 32768 points, so that the last row's last
   32768 points lie past 2^31 (and a row of odd length takes the scalar paths). */
#define STENCIL_LARGE_GRID "32768x65537"

static int stencil_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    return GV_OK;
}

/* The underflow allowance lambda / u of the diffusion gauges (docs/error-models.md,
   section stencil). */
static void add_underflow_floor(gv_problem *p)
{
    double lambda = gv_dtype_normal_min(p->c.dtype);
    double floor_g = lambda / gv_unit_roundoff(p->c.dtype, p->c.mode);
    gv_tensor *t = &p->out[0];
    for (int64_t i = 0; i < t->count; i++)
        t->gauge[i] += floor_g;
}

static int laplace_oracle(gv_problem *p)
{
    int64_t ny = p->c.shape.d[0], nx = p->c.shape.d[1];
    return gv_oracle_rc(go_stencil_laplace(ny, nx, p->in[0].ref, nx, p->out[0].ref, nx));
}

static int laplace_gauge(gv_problem *p)
{
    int64_t ny = p->c.shape.d[0], nx = p->c.shape.d[1];
    return gv_oracle_rc(go_stencil_laplace_gauge(ny, nx, p->in[0].ref, nx, p->out[0].gauge, nx));
}

static int fixed_oracle(gv_problem *p)
{
    int64_t ny = p->c.shape.d[0], nx = p->c.shape.d[1], steps = p->c.shape.d[2];
    return gv_oracle_rc(go_diffusion_fixed(ny, nx, steps, p->in[0].ref, nx, p->out[0].ref, nx));
}

static int fixed_gauge(gv_problem *p)
{
    int64_t ny = p->c.shape.d[0], nx = p->c.shape.d[1], steps = p->c.shape.d[2];
    int rc = go_diffusion_fixed_gauge(ny, nx, steps, p->in[0].ref, nx, p->out[0].gauge, nx);
    if (!rc) add_underflow_floor(p);
    return gv_oracle_rc(rc);
}

static int periodic_oracle(gv_problem *p)
{
    int64_t ny = p->c.shape.d[0], nx = p->c.shape.d[1], steps = p->c.shape.d[2];
    const double coeff = DIFFUSION_PERIODIC_COEFF;
    return gv_oracle_rc(
        go_diffusion_periodic(ny, nx, steps, coeff, p->in[0].ref, nx, p->out[0].ref, nx));
}

static int periodic_gauge(gv_problem *p)
{
    int64_t ny = p->c.shape.d[0], nx = p->c.shape.d[1], steps = p->c.shape.d[2];
    const double coeff = DIFFUSION_PERIODIC_COEFF;
    int rc =
        go_diffusion_periodic_gauge(ny, nx, steps, coeff, p->in[0].ref, nx, p->out[0].gauge, nx);
    if (!rc) add_underflow_floor(p);
    return gv_oracle_rc(rc);
}

/* Finite distributions only: the special one's NaN and Inf spread over whole
 * neighbourhoods, where Inf - Inf becomes NaN depending on the order of the sums. Inputs
 * default to uniform [-1, 1): neighbours of both signs cancel, which a field of positive
 * values never makes the kernels do; the gauges are built from |f|, so the model holds as it
 * is, and the planted variants keep their parents' default. */
#define STENCIL_BASE                                                                               \
    .family = "stencil", .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE),                \
    .dists = GV_FINITE_DISTS, .default_dist = GV_DIST_UNIFORM11,                                   \
    .check_shape = stencil_check_shape, .layout = stencil_layout, .make_inputs = stencil_inputs,   \
    .tensor_shape = stencil_tensor_shape
/* one launch a step (stencil.laplace: one step; the per-step and planted variants) */
#define STEP_BYTES_MODEL "the grid read and written once a step (one launch a step)"
#define STENCIL_COMMON   STENCIL_BASE, .bytes = stencil_bytes, .bytes_model = STEP_BYTES_MODEL
/* the ops run by the fused kernel (kernels/stencil.cu, fused_run) */
#define STENCIL_FUSED_FIXED                                                                        \
    STENCIL_BASE, .bytes = fixed_fused_bytes, .bytes_model = FIXED_BYTES_MODEL
#define STENCIL_FUSED_PERIODIC                                                                     \
    STENCIL_BASE, .bytes = periodic_fused_bytes, .bytes_model = PERIODIC_BYTES_MODEL

#define FIXED_MODEL                                                                                \
    "gauge (I+A)M^(N-1)|f0| + lambda/u (M = 0.25A), depth 4N: <= 4u(|f|+sum|nbrs|) a step "        \
    "(Higham ASNA sec. 4.2), propagated by M >= 0 (docs/error-models.md)"
#define PERIODIC_MODEL                                                                             \
    "gauge (I+A)M^(N-1)|f0| + lambda/u (M = 0.6I+0.1A), depth 3N: <= 3u(|f|+sum|nbrs|) a step "    \
    "(Higham ASNA sec. 4.2), propagated by M >= 0 (docs/error-models.md)"

static const gv_op stencil_laplace = {
    .name = "stencil.laplace",
    .summary = "5-point Laplacian 4f - sum of existing neighbours, fixed edges (seed 002)",
    .dims = "ny,nx",
    .in_dims = "ny,nx",
    .out_dims = "ny,nx",
    .shapes = "640x640,511x1025,2000x2000,1999x2003,4096x4096",
    .test_shapes = "1x1,1x97,97x1,8x32,37x53,300x257,511x1025,2000x2000,1999x2003",
    .large_shapes = STENCIL_LARGE_GRID, /* the one-step tiled kernel */
    .flops = laplace_flops,
    .oracle = laplace_oracle,
    .gauge = laplace_gauge,
    .depth = laplace_depth,
    .error_model = "gauge 4|f|+sum|nbrs|, depth 4: 5-term sum, 4f exact (Higham ASNA sec. 4.2) "
                   "(docs/error-models.md)",
    .device = GV_KERNEL(gk_stencil_laplace),
    STENCIL_COMMON,
};

static const gv_op diffusion_fixed = {
    .name = "diffusion.fixed",
    .summary = "N steps f -= 0.25 lapl(f), fixed edges (seed 002), up to 8 steps a launch in "
               "shared memory",
    .dims = "ny,nx,steps",
    .in_dims = "ny,nx",
    .out_dims = "ny,nx",
    .shapes = "640x640x1,640x640x10,640x640x100,640x640x1000,511x1025x100,1999x2003x10,"
              "2000x2000x1,2000x2000x100",
    .test_shapes = "1x1x1,1x97x5,97x1x5,2x3x7,37x53x1,37x53x50,300x257x20,256x256x1,"
                   "256x256x10,256x256x100,256x256x1000,511x1025x10,1999x2003x3",
    .large_shapes = STENCIL_LARGE_GRID "x8", /* one fused launch of 8 steps */
    .oracle_scratch_bytes = diffusion_scratch_bytes,
    .flops = diffusion_flops,
    .oracle = fixed_oracle,
    .gauge = fixed_gauge,
    .depth = fixed_depth,
    .error_model = FIXED_MODEL,
    .device = GV_KERNEL(gk_diffusion_fixed),
    STENCIL_FUSED_FIXED,
};

static const gv_op diffusion_periodic = {
    .name = "diffusion.periodic",
    .summary = "N steps f += 0.1 (sum of 4 rolled - 4f), periodic edges (seed 003's roll), up "
               "to 8 steps a launch in shared memory",
    .dims = "ny,nx,steps",
    .in_dims = "ny,nx",
    .out_dims = "ny,nx",
    .shapes = "640x640x1,640x640x10,640x640x100,640x640x1000,511x1025x100,1999x2003x10,"
              "2000x2000x100",
    .test_shapes = "1x1x3,1x97x5,97x1x5,2x3x7,37x53x1,37x53x50,300x257x20,256x256x1,"
                   "256x256x10,256x256x100,256x256x1000,511x1025x10,1999x2003x3",
    .large_shapes = STENCIL_LARGE_GRID "x1", /* one step: the streamed kernel */
    .oracle_scratch_bytes = diffusion_scratch_bytes,
    .flops = diffusion_flops,
    .oracle = periodic_oracle,
    .gauge = periodic_gauge,
    .depth = periodic_depth,
    .error_model = PERIODIC_MODEL,
    .device = GV_KERNEL(gk_diffusion_periodic),
    STENCIL_FUSED_PERIODIC,
};

/* The one-step kernel that the fused one replaced, kept to compare with: bit-identical
   results (tests/gpu/test_stencil_fused.c), one launch per step. */
static const gv_op diffusion_fixed_perstep = {
    .name = "diffusion.fixed.perstep",
    .summary = "diffusion.fixed with one launch per step (shared-memory tiles, ping-pong buffers)",
    .dims = "ny,nx,steps",
    .in_dims = "ny,nx",
    .out_dims = "ny,nx",
    .shapes = "640x640x100,2000x2000x1,2000x2000x100",
    .test_shapes = "1x1x1,1x97x5,97x1x5,37x53x50,300x257x20,1999x2003x3",
    .oracle_scratch_bytes = diffusion_scratch_bytes,
    .flops = diffusion_flops,
    .oracle = fixed_oracle,
    .gauge = fixed_gauge,
    .depth = fixed_depth,
    .error_model = FIXED_MODEL,
    .device = GV_KERNEL(gk_diffusion_fixed_perstep),
    STENCIL_COMMON,
};

static const gv_op diffusion_periodic_perstep = {
    .name = "diffusion.periodic.perstep",
    .summary = "diffusion.periodic with one launch per step (shared-memory tiles, ping-pong "
               "buffers)",
    .dims = "ny,nx,steps",
    .in_dims = "ny,nx",
    .out_dims = "ny,nx",
    .shapes = "640x640x100,2000x2000x100",
    .test_shapes = "1x1x3,1x97x5,97x1x5,37x53x50,300x257x20,1999x2003x3",
    .oracle_scratch_bytes = diffusion_scratch_bytes,
    .flops = diffusion_flops,
    .oracle = periodic_oracle,
    .gauge = periodic_gauge,
    .depth = periodic_depth,
    .error_model = PERIODIC_MODEL,
    .device = GV_KERNEL(gk_diffusion_periodic_perstep),
    STENCIL_COMMON,
};

static const gv_op diffusion_fixed_edge = {
    .name = "diffusion.fixed.edge",
    .summary = "planted bug: the last column subtracts the first column (periodic wrap) as "
               "its missing right neighbour",
    .planted_bug = "wrong stencil edge: last column reads the wrap-around neighbour",
    .dims = "ny,nx,steps",
    .in_dims = "ny,nx",
    .out_dims = "ny,nx",
    .shapes = "37x53x50",
    .test_shapes = "1x1x1,37x53x1,37x53x50,300x257x20",
    .flops = diffusion_flops,
    .oracle = fixed_oracle,
    .gauge = fixed_gauge,
    .depth = fixed_depth,
    .error_model = "as diffusion.fixed",
    .device = GV_KERNEL(gk_diffusion_fixed_edge),
    STENCIL_COMMON,
};

static const gv_op diffusion_periodic_clamp = {
    .name = "diffusion.periodic.clamp",
    .summary = "planted bug: the last column's right neighbour is clamped to itself instead "
               "of wrapping to the first column",
    .planted_bug = "wrong stencil edge: last column clamps instead of wrapping",
    .dims = "ny,nx,steps",
    .in_dims = "ny,nx",
    .out_dims = "ny,nx",
    .shapes = "37x53x50",
    .test_shapes = "37x53x1,37x53x50,300x257x20",
    .flops = diffusion_flops,
    .oracle = periodic_oracle,
    .gauge = periodic_gauge,
    .depth = periodic_depth,
    .error_model = "as diffusion.periodic",
    .device = GV_KERNEL(gk_diffusion_periodic_clamp),
    STENCIL_COMMON,
};

/* The fast kernels' own bug, a halo one cell short: a fused launch of 8 steps stages a halo
   7 wide, so the first and last rows of every tile miss the last step; a single step (the
   streamed kernel) does not load the columns just outside each warp's. */
static const gv_op diffusion_periodic_shorthalo = {
    .name = "diffusion.periodic.shorthalo",
    .summary = "planted bug: the fused kernel's halo is one cell narrower than the steps it "
               "fuses",
    .planted_bug = "a halo one cell short: tile edges a step behind after a fused launch",
    .dims = "ny,nx,steps",
    .in_dims = "ny,nx",
    .out_dims = "ny,nx",
    .shapes = "300x257x20",
    .test_shapes = "37x53x50,300x257x20,1x97x8,300x256x1,1x97x1",
    .flops = diffusion_flops,
    .oracle = periodic_oracle,
    .gauge = periodic_gauge,
    .depth = periodic_depth,
    .error_model = "as diffusion.periodic",
    .device = GV_KERNEL(gk_diffusion_periodic_shorthalo),
    STENCIL_FUSED_PERIODIC,
};

const gv_op *const gv_family_stencil[] = {&stencil_laplace,
                                          &diffusion_fixed,
                                          &diffusion_periodic,
                                          &diffusion_fixed_perstep,
                                          &diffusion_periodic_perstep,
                                          &diffusion_fixed_edge,
                                          &diffusion_periodic_clamp,
                                          &diffusion_periodic_shorthalo,
                                          NULL};
