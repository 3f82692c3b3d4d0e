/* stencil.h: the stencil family's contract shared by the kernel (kernels/stencil.cu), the op
 * descriptors and oracle calls (src/ops/stencil.c) and the tests: the periodic diffusion
 * coefficient (seed 003; the explicit scheme is stable for 4 c <= 1) and the fixed scheme's
 * 1/4, and the diffusion kernels' tiling, from which the ops count the bytes a run moves. */
#ifndef GV_ABI_STENCIL_H
#define GV_ABI_STENCIL_H

#define GV_DIFFUSION_PERIODIC_COEFF 0.1
#define GV_DIFFUSION_FIXED_COEFF    0.25

/* The fused diffusion kernel (kernels/stencil.cu) takes up to GV_DIFFUSION_FUSED_S steps a
 * launch: a run of n >= 2 steps takes ceil(n / S) launches, S the largest of 8, 4 and 2 not
 * above n (gv_diffusion_fused_s), every launch of the run the same S, the last one perhaps
 * running fewer steps; a single step is one launch of the streamed kernel. */
#define GV_DIFFUSION_FUSED_S 8
static inline int gv_diffusion_fused_s(long long steps)
{
    return steps >= GV_DIFFUSION_FUSED_S ? GV_DIFFUSION_FUSED_S : steps >= 4 ? 4 : 2;
}
static inline long long gv_diffusion_launches(long long steps)
{
    const long long s = gv_diffusion_fused_s(steps);
    return steps <= 1 ? 1 : (steps + s - 1) / s;
}

/* The fused kernel's tiling. A block stages a region of GV_DIFFUSION_FUSED_WX(esize) columns
 * (a warp's 32 lanes of one 16-byte vector each: 128 f32, 64 f64) by GV_DIFFUSION_FUSED_RY
 * rows: its output tile, WX - 2H by RY - 2H points, and a halo GV_DIFFUSION_FUSED_HALO(S)
 * wide on every side (a point after S steps depends on the points up to S away). The tiles
 * cover the grid from its first row and column, ceil(n / tile) of them along each axis. */
#define GV_DIFFUSION_FUSED_RY        64
#define GV_DIFFUSION_FUSED_WX(esize) (32 * (16 / (esize)))
#define GV_DIFFUSION_FUSED_HALO(s)   (s)

/* The streamed kernel (one step): a warp takes 32 lanes of a vector each (16 bytes where nx
 * is a multiple of it, else one element) down a strip of GV_DIFFUSION_STREAM_ROWS rows. */
#define GV_DIFFUSION_STREAM_ROWS 32

/* Along one axis of n cells, the region cells that the tiles load: ceil(n / f) tiles of f
 * cells (f = r - 2 h), each region r cells from the tile's start - h. Wrapped (periodic)
 * every region cell is a grid cell; otherwise a region is cut to the grid [0, n), at its
 * start (the first ceil(h / f) tiles) and at its end (the last few). Each tile's region
 * overlaps the grid, so its cut length is r less both overhangs. */
static inline long long gv_stencil_axis_cells(long long n, long long r, long long h, int wrapped)
{
    const long long f = r - 2 * h, tiles = (n + f - 1) / f;
    long long cells = tiles * r, t;
    if (wrapped) return cells;
    for (t = 0; t < tiles && t * f < h; t++)
        cells -= h - t * f;
    for (t = tiles - 1; t >= 0 && t * f + f + h > n; t--)
        cells -= t * f + f + h - n;
    return cells;
}

/* The grid cells one fused launch of s steps (8, 4 or 2) loads from global memory on an
 * ny x nx grid of esize-byte elements: every block's region, wrapped (periodic) or cut to the
 * grid (fixed edges: the cells outside are set to 0 without a load). The sum over the blocks
 * is the product of the two axes' sums; a grid taller than 65535 tile rows loops over them
 * in the kernel, which loads the same cells. Each launch also stores the grid once. */
static inline long long gv_diffusion_fused_cells(long long ny, long long nx, int esize, int s,
                                                 int periodic)
{
    const long long h = GV_DIFFUSION_FUSED_HALO(s);
    return gv_stencil_axis_cells(ny, GV_DIFFUSION_FUSED_RY, h, periodic) *
           gv_stencil_axis_cells(nx, GV_DIFFUSION_FUSED_WX(esize), h, periodic);
}

/* The grid cells one streamed step loads: each strip reads its rows and the row above and
 * below it (nx cells each; fixed edges: none outside the grid), ny + 2 strips rows in all
 * (fixed: 2 fewer), and on each grid row each warp's lanes 0 and last read one cell left and
 * right of the warp's columns (fixed edges: not at the grid's first and last column). */
static inline long long gv_diffusion_stream_cells(long long ny, long long nx, int esize,
                                                  int periodic)
{
    const long long v = nx % (16 / esize) == 0 ? 16 / esize : 1;
    const long long warps = ((nx + v - 1) / v + 31) / 32;
    const long long strips = (ny + GV_DIFFUSION_STREAM_ROWS - 1) / GV_DIFFUSION_STREAM_ROWS;
    const long long rows = ny + 2 * strips - (periodic ? 0 : 2);
    return rows * nx + ny * 2 * (periodic ? warps : warps - 1);
}

#endif
