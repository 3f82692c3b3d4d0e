/* stencil.cu: the 5-point stencils of seeds 002 and 003 on a row-major ny x nx grid.
 *  - stencil.laplace: out = 4 f - up - left - down - right, fixed edges (a neighbour outside
 *    the grid is not subtracted), as seed 002's Numba kernel.
 *  - diffusion.fixed: N steps of f <- f - 0.25 laplace(f) (seed 002).
 *  - diffusion.periodic: N steps of f <- f + 0.1 (up + down + left + right - 4 f) with
 *    wrapped neighbours (seed 003's torch.roll, dt = 0.1, D = 1).
 *    Both fuse up to 8 steps a launch (the fused kernel below); diffusion.fixed.perstep and
 *    diffusion.periodic.perstep keep one launch per step, bit-identical, to compare with.
 *  - planted bugs: diffusion.fixed.edge subtracts the first column as the last column's
 *    right neighbour (a periodic wrap where the grid has an edge); diffusion.periodic.clamp
 *    takes the last column itself as its right neighbour instead of the first column (both
 *    one launch per step); diffusion.periodic.shorthalo fuses steps with a halo one short.
 * The one-step kernel: each block stages a TY x TX tile plus a one-cell halo in shared memory (seed
 * 002's scheme; the seed's TPB = 8 square tile with threadIdx.x along rows is replaced by 32
 * columns x 8 rows so that each warp reads 32 consecutive elements of a row). Seed 002 updates the
 * field in place inside one launch, so a block may read a halo that a neighbouring block
 * has already updated: a race. Here every step reads one buffer and writes another, one
 * launch per step, and step 0 reads the input directly, which the launch never writes: a
 * repeated launch() gives the same result. */
#include "../abi/stencil.h"
#include "gk_cuda.h"

#define TX 32
#define TY 8

/* Seed 003's dt * D; src/ops/stencil.c's oracle uses the same constant. */
#define DIFFUSION_PERIODIC_COEFF GV_DIFFUSION_PERIODIC_COEFF

enum stencil_scheme { FIXED_LAPLACE = 0, FIXED_STEP = 1, PERIODIC_STEP = 2 };
enum stencil_bug { NO_BUG = 0, BUG_FIXED_WRAP = 1, BUG_PERIODIC_CLAMP = 2, BUG_SHORT_HALO = 3 };

/* Column the halo cell gj (in -1 .. nx) is loaded from, or -1 for "outside, not used". */
template <int Scheme, int Bug> __device__ __forceinline__ int halo_col(int gj, int nx)
{
    if (gj >= 0 && gj < nx) return gj;
    if (gj == nx && Bug == BUG_FIXED_WRAP) return 0;
    if (gj == nx && Bug == BUG_PERIODIC_CLAMP) return nx - 1;
    if (Scheme != PERIODIC_STEP) return -1;
    if (gj == -1) return nx - 1;
    if (gj == nx) return 0;
    return -1;
}

/* Row the halo cell gi (in -1 .. ny) is loaded from, or -1. */
template <int Scheme> __device__ __forceinline__ int halo_row(int gi, int ny)
{
    if (gi >= 0 && gi < ny) return gi;
    if (Scheme != PERIODIC_STEP) return -1;
    if (gi == -1) return ny - 1;
    if (gi == ny) return 0;
    return -1;
}

/* The new value of point (i, j) from its value f and its four neighbours as loaded: the one
 * expression of each scheme, shared by the one-step and the fused kernels, so that both
 * round the same operations in the same order. */
template <typename T, int Scheme, int Bug>
__device__ __forceinline__ T stencil_point(T f, T up, T down, T left, T right, int i, int j, int ny,
                                           int nx, T coeff)
{
    if (Scheme == PERIODIC_STEP) {
        /* seed 003: roll(+1,0) + roll(-1,0) + roll(+1,1) + roll(-1,1) - 4 grid */
        T s = up + down;
        s += left;
        s += right;
        const T lap = s - T(4) * f;
        return fma(coeff, lap, f); /* f + coeff lap in one rounding (see below) */
    }
    /* seed 002: neighbours outside the grid are not subtracted */
    T v = T(4) * f;
    if (i > 0) v -= up;
    if (j > 0) v -= left;
    if (i < ny - 1) v -= down;
    if (j < nx - 1 || Bug == BUG_FIXED_WRAP) v -= right;
    /* f - 0.25 v in one rounding. nvcc's default -fmad=true contracted the written-out
       a * b + c to this fma before; spelled out, every kernel that calls this rounds alike */
    return Scheme == FIXED_LAPLACE ? v : fma(-T(GV_DIFFUSION_FIXED_COEFF), v, f);
}

/* One sweep src -> dst. The grid covers the column tiles in x; tile rows are walked with a
 * block-uniform stride so that any ny fits in the grid's y limit. */
template <typename T, int Scheme, int Bug>
__global__ void __launch_bounds__(TX *TY)
    stencil_sweep_kernel(const T *__restrict__ src, T *__restrict__ dst, int ny, int nx, T coeff)
{
    __shared__ T tile[TY + 2][TX + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int j0 = blockIdx.x * TX;
    const int j = j0 + tx;
    const int tiles_y = (ny + TY - 1) / TY;
    for (int by = blockIdx.y; by < tiles_y; by += gridDim.y) {
        const int i0 = by * TY;
        /* Cooperative load of the (TY + 2) x (TX + 2) cells, halo and corners included;
           cells outside the grid (fixed edges) are filled with 0 and never read. */
        for (int k = ty * TX + tx; k < (TY + 2) * (TX + 2); k += TX * TY) {
            const int r = k / (TX + 2), c = k % (TX + 2);
            const int gi = halo_row<Scheme>(i0 - 1 + r, ny);
            const int gj = halo_col<Scheme, Bug>(j0 - 1 + c, nx);
            tile[r][c] = (gi >= 0 && gj >= 0) ? src[(int64_t)gi * nx + gj] : T(0);
        }
        __syncthreads();
        const int i = i0 + ty;
        if (i < ny && j < nx)
            dst[(int64_t)i * nx + j] = stencil_point<T, Scheme, Bug>(
                tile[ty + 1][tx + 1], tile[ty][tx + 1], tile[ty + 2][tx + 1], tile[ty + 1][tx],
                tile[ty + 1][tx + 2], i, j, ny, nx, coeff);
        __syncthreads(); /* the tile is reloaded for the next tile row */
    }
}

template <typename T, int Scheme, int Bug>
static int sweep(const T *src, T *dst, int ny, int nx, cudaStream_t s)
{
    dim3 block(TX, TY);
    int64_t tiles_y = (ny + TY - 1) / TY;
    dim3 grid((unsigned)((nx + TX - 1) / TX), (unsigned)(tiles_y < 65535 ? tiles_y : 65535));
    stencil_sweep_kernel<T, Scheme, Bug>
        <<<grid, block, 0, s>>>(src, dst, ny, nx, T(DIFFUSION_PERIODIC_COEFF));
    GK_LAUNCHED("stencil_sweep_kernel");
    return GV_OK;
}

/* dims: ny, nx[, steps]. The steps alternate between the output and the workspace so that
 * the last lands in the output; step 0 reads the input. */
template <typename T, int Scheme, int Bug> static int stencil_run_t(gk_launch *L)
{
    const int ny = (int)L->dims[0], nx = (int)L->dims[1];
    const int64_t steps = L->nd > 2 ? L->dims[2] : 1;
    snprintf(L->math_mode, sizeof L->math_mode, "hand-written, shared-memory tiles");
    if (L->dims[0] > 2147483647 || L->dims[1] > 2147483647 || steps < 1)
        return gk_fail_internal("grid dims must be below 2^31 and steps at least 1");
    if (steps > 1 &&
        (L->workspace == NULL || L->workspace_bytes < (int64_t)ny * nx * (int64_t)sizeof(T)))
        return gk_fail_internal("diffusion needs a workspace of one grid");
    T *out = (T *)L->out[0], *work = (T *)L->workspace;
    const T *src = (const T *)L->in[0];
    for (int64_t k = 0; k < steps; k++) {
        T *dst = (steps - 1 - k) % 2 == 0 ? out : work;
        int rc = sweep<T, Scheme, Bug>(src, dst, ny, nx, gk_stream(L));
        if (rc) return rc;
        src = dst;
    }
    return GV_OK;
}

/* ---- diffusion fused in time ----
 * One launch takes up to S steps (temporal blocking). A block owns an FO x FO tile of the
 * output and stages the (FO + 2S) x (FO + 2S) region around it in shared memory (the halo
 * S wide: a point's value after s steps depends on the points up to s away). It then runs
 * the steps in shared memory between two buffers: step s updates the region's cells
 * [s, W - s) in both directions, whose neighbours step s - 1 wrote (or the load), so the
 * valid region shrinks by one cell a step and after S steps is the tile itself; the cells
 * outside the tile are computed by both neighbouring blocks (the overlap recomputed).
 * Periodic edges: every cell of the region is a grid cell (indices wrapped modulo the
 * grid, whatever its size), so its value is the grid's. Fixed edges: cells outside the
 * grid are loaded as 0 and never updated or used (stencil_point does not subtract a
 * neighbour outside the grid). Each point is updated by stencil_point, the one-step
 * kernel's expression: the results are bit-identical to one launch per step
 * (tests/gpu/test_stencil_fused.c). The launches of a run are few (steps / S), so their
 * gaps are a small part of the time; the grid's global traffic falls by a factor S. */
#define FO      64 /* the output tile, FO x FO */
#define FUSED_S 8  /* the most steps a launch fuses */

template <typename T, int S, int Scheme, int Bug>
__global__ void __launch_bounds__(TX *TY)
    stencil_fused_kernel(const T *__restrict__ src, T *__restrict__ dst, int ny, int nx, int nsteps,
                         T coeff)
{
    constexpr int W = FO + 2 * S;
    extern __shared__ __align__(16) unsigned char fused_smem[];
    T *const buf0 = reinterpret_cast<T *>(fused_smem);
    T *const buf1 = buf0 + W * W;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int j0 = (int)blockIdx.x * FO - S; /* grid column of the region's column 0 */
    const int tiles_y = (ny + FO - 1) / FO;
    /* the planted short halo: step s leaves the ring s of the region as it was, which the
       last of S steps needs; the buffers start at 0 so that what it reads is defined */
    const int short_by = Bug == BUG_SHORT_HALO ? 1 : 0;
    for (int by = blockIdx.y; by < tiles_y; by += gridDim.y) {
        const int i0 = by * FO - S; /* grid row of the region's row 0 */
        if (Bug == BUG_SHORT_HALO)
            for (int k = ty * TX + tx; k < W * W; k += TX * TY)
                buf1[k] = T(0);
        for (int r = ty; r < W; r += TY) {
            int gi = i0 + r;
            if (Scheme == PERIODIC_STEP) gi = ((gi % ny) + ny) % ny;
            const bool row_in = gi >= 0 && gi < ny;
            for (int c = tx; c < W; c += TX) {
                int gj = j0 + c;
                if (Scheme == PERIODIC_STEP) gj = ((gj % nx) + nx) % nx;
                buf0[r * W + c] = row_in && gj >= 0 && gj < nx ? src[(int64_t)gi * nx + gj] : T(0);
            }
        }
        __syncthreads();
        T *cur = buf0, *nxt = buf1;
        for (int s = 1; s <= nsteps; s++) {
            /* a warp takes 32 columns of a band of consecutive rows and walks down it, the
               point and the one above carried in registers: 3 shared loads a point, not 5 */
            const int lo = s + short_by, hi = W - s - short_by;
            const int band = (hi - lo + TY - 1) / TY;
            const int r0 = lo + ty * band, r1 = min(r0 + band, hi);
            for (int c = lo + tx; c < hi && r0 < r1; c += TX) {
                const int gj = j0 + c;
                if (Scheme != PERIODIC_STEP && (gj < 0 || gj >= nx)) continue;
                T up = cur[(r0 - 1) * W + c], f = cur[r0 * W + c];
                for (int r = r0; r < r1; r++) {
                    const T down = cur[(r + 1) * W + c];
                    const int gi = i0 + r;
                    if (Scheme == PERIODIC_STEP || (gi >= 0 && gi < ny))
                        nxt[r * W + c] = stencil_point<T, Scheme, NO_BUG>(
                            f, up, down, cur[r * W + c - 1], cur[r * W + c + 1], gi, gj, ny, nx,
                            coeff);
                    up = f;
                    f = down;
                }
            }
            __syncthreads();
            T *t = cur;
            cur = nxt;
            nxt = t;
        }
        for (int r = S + ty; r < S + FO; r += TY) {
            const int gi = i0 + r;
            if (gi >= ny) break;
            for (int c = S + tx; c < S + FO; c += TX) {
                const int gj = j0 + c;
                if (gj < nx) dst[(int64_t)gi * nx + gj] = cur[r * W + c];
            }
        }
        __syncthreads(); /* the buffers are reloaded for the next tile row */
    }
}

/* nsteps (1 .. S) steps src -> dst in one launch. */
template <typename T, int S, int Scheme, int Bug>
static int fused_launch(const T *src, T *dst, int ny, int nx, int nsteps, cudaStream_t st)
{
    constexpr int W = FO + 2 * S;
    const size_t smem = 2 * (size_t)W * W * sizeof(T);
    auto kernel = stencil_fused_kernel<T, S, Scheme, Bug>;
    GK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    dim3 block(TX, TY);
    int64_t tiles_y = (ny + FO - 1) / FO;
    dim3 grid((unsigned)((nx + FO - 1) / FO), (unsigned)(tiles_y < 65535 ? tiles_y : 65535));
    kernel<<<grid, block, smem, st>>>(src, dst, ny, nx, nsteps, T(DIFFUSION_PERIODIC_COEFF));
    GK_LAUNCHED("stencil_fused_kernel");
    return GV_OK;
}

/* The steps in launches of up to S each (S the largest of 8, 4, 2, 1 not above the run's
 * steps, so that a short run does not carry a wide halo), alternating between the output
 * and the workspace so that the last lands in the output; the first reads the input. */
template <typename T, int S, int Scheme, int Bug> static int fused_run_s(gk_launch *L)
{
    const int ny = (int)L->dims[0], nx = (int)L->dims[1];
    const int64_t steps = L->nd > 2 ? L->dims[2] : 1;
    const int64_t launches = (steps + S - 1) / S;
    if (launches > 1 &&
        (L->workspace == NULL || L->workspace_bytes < (int64_t)ny * nx * (int64_t)sizeof(T)))
        return gk_fail_internal("diffusion needs a workspace of one grid");
    T *out = (T *)L->out[0], *work = (T *)L->workspace;
    const T *src = (const T *)L->in[0];
    for (int64_t k = 0; k < launches; k++) {
        T *dst = (launches - 1 - k) % 2 == 0 ? out : work;
        const int n = (int)(steps - k * S < S ? steps - k * S : S);
        int rc = fused_launch<T, S, Scheme, Bug>(src, dst, ny, nx, n, gk_stream(L));
        if (rc) return rc;
        src = dst;
    }
    return GV_OK;
}

template <typename T, int Scheme, int Bug> static int fused_run_t(gk_launch *L)
{
    const int64_t steps = L->nd > 2 ? L->dims[2] : 1;
    snprintf(L->math_mode, sizeof L->math_mode, "hand-written, %d steps a launch",
             (int)(steps >= FUSED_S ? FUSED_S
                   : steps >= 4     ? 4
                   : steps >= 2     ? 2
                                    : 1));
    if (L->dims[0] > 2147483647 || L->dims[1] > 2147483647 || steps < 1)
        return gk_fail_internal("grid dims must be below 2^31 and steps at least 1");
    if (steps >= FUSED_S) return fused_run_s<T, FUSED_S, Scheme, Bug>(L);
    if (steps >= 4) return fused_run_s<T, 4, Scheme, Bug>(L);
    if (steps >= 2) return fused_run_s<T, 2, Scheme, Bug>(L);
    return fused_run_s<T, 1, Scheme, Bug>(L);
}

template <int Scheme, int Bug> static int fused_run(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto x) { return fused_run_t<decltype(x), Scheme, Bug>(L); });
}

template <int Scheme, int Bug> static int stencil_run(gk_launch *L)
{
    return gk_by_dtype(L->dtype,
                       [&](auto x) { return stencil_run_t<decltype(x), Scheme, Bug>(L); });
}

extern "C" const gk_op gk_stencil_laplace = {NULL, stencil_run<FIXED_LAPLACE, NO_BUG>, NULL};
extern "C" const gk_op gk_diffusion_fixed = {NULL, fused_run<FIXED_STEP, NO_BUG>, NULL};
extern "C" const gk_op gk_diffusion_periodic = {NULL, fused_run<PERIODIC_STEP, NO_BUG>, NULL};
extern "C" const gk_op gk_diffusion_fixed_perstep = {NULL, stencil_run<FIXED_STEP, NO_BUG>, NULL};
extern "C" const gk_op gk_diffusion_periodic_perstep = {NULL, stencil_run<PERIODIC_STEP, NO_BUG>,
                                                        NULL};
extern "C" const gk_op gk_diffusion_periodic_shorthalo = {
    NULL, fused_run<PERIODIC_STEP, BUG_SHORT_HALO>, NULL};
extern "C" const gk_op gk_diffusion_fixed_edge = {NULL, stencil_run<FIXED_STEP, BUG_FIXED_WRAP>,
                                                  NULL};
extern "C" const gk_op gk_diffusion_periodic_clamp = {
    NULL, stencil_run<PERIODIC_STEP, BUG_PERIODIC_CLAMP>, NULL};
