/* stencil.cu: the 5-point stencils of seeds 002 and 003 on a row-major ny x nx grid.
 *  - stencil.laplace: out = 4 f - up - left - down - right, fixed edges (a neighbour outside
 *    the grid is not subtracted), as seed 002's Numba kernel.
 *  - diffusion.fixed: N steps of f <- f - 0.25 laplace(f) (seed 002).
 *  - diffusion.periodic: N steps of f <- f + 0.1 (up + down + left + right - 4 f) with
 *    wrapped neighbours (seed 003's torch.roll, dt = 0.1, D = 1).
 *    Both fuse up to 8 steps a launch (the fused kernel below) and stream a single step through
 *    registers (the streamed kernel below); diffusion.fixed.perstep and
 *    diffusion.periodic.perstep keep one launch per step, bit-identical, to compare with.
 *  - planted bugs: diffusion.fixed.edge subtracts the first column as the last column's
 *    right neighbour (a periodic wrap where the grid has an edge); diffusion.periodic.clamp
 *    takes the last column itself as its right neighbour instead of the first column (both
 *    one launch per step); diffusion.periodic.shorthalo runs the fast kernels with a halo one
 *    cell short.
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
    const int tiles_y = (int)(((int64_t)ny + TY - 1) / TY); /* ny + 7 passes INT_MAX near it */
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
    int64_t tiles_y = ((int64_t)ny + TY - 1) / TY;
    dim3 grid((unsigned)(((int64_t)nx + TX - 1) / TX),
              (unsigned)(tiles_y < 65535 ? tiles_y : 65535));
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

/* ---- registers and shuffles: the fast kernels' common part ----
 * A lane holds V consecutive columns of a row (one 16-byte vector: 4 f32 or 2 f64), so a
 * warp holds 32 V consecutive columns. Walking down the rows, a lane keeps the row above
 * and the point's row in registers and loads only the row below; the left and right
 * neighbours of its first and last column come from the neighbouring lanes by shuffle.
 * Every point is updated by stencil_point, so the results are those of the one-step
 * kernel bit for bit (tests/gpu/test_stencil_fused.c). */
template <typename T, int V> struct sv {
    T v[V];
};

template <typename T, int V> __device__ __forceinline__ sv<T, V> sv_load(const T *p)
{
    sv<T, V> x;
    if (V * sizeof(T) == 16) {
        const uint4 u = *reinterpret_cast<const uint4 *>(p);
        memcpy(&x, &u, 16);
    } else {
#pragma unroll
        for (int q = 0; q < V; q++)
            x.v[q] = p[q];
    }
    return x;
}

template <typename T, int V> __device__ __forceinline__ void sv_store(T *p, const sv<T, V> &x)
{
    if (V * sizeof(T) == 16) {
        uint4 u;
        memcpy(&u, &x, 16);
        *reinterpret_cast<uint4 *>(p) = u;
    } else {
#pragma unroll
        for (int q = 0; q < V; q++)
            p[q] = x.v[q];
    }
}

/* The new values of a lane's V points of row gi (grid columns gj .. gj + V - 1): f the row,
   up and dn the rows above and below, lh and rh the left neighbour of the first column and
   the right neighbour of the last. */
template <typename T, int V, int Scheme>
__device__ __forceinline__ sv<T, V> sv_points(const sv<T, V> &f, const sv<T, V> &up,
                                              const sv<T, V> &dn, T lh, T rh, int gi, int gj,
                                              int ny, int nx, T coeff)
{
    sv<T, V> o;
#pragma unroll
    for (int q = 0; q < V; q++)
        o.v[q] = stencil_point<T, Scheme, NO_BUG>(f.v[q], up.v[q], dn.v[q], q > 0 ? f.v[q - 1] : lh,
                                                  q < V - 1 ? f.v[q + 1] : rh, gi, gj + q, ny, nx,
                                                  coeff);
    return o;
}

/* ---- one step, streamed (stencil_stream_kernel) ----
 * For one step of a grid of any size: nothing to reuse between steps, so no shared memory.
 * A warp takes 32 V columns of a strip of SH rows and walks down it, loading each row once
 * (one vector a lane); the columns just left and right of the warp's are loaded by lanes 0
 * and 31 (and by the lane that holds the grid's last column). Global traffic: the grid read
 * once, plus 2 rows a strip and 2 columns a warp that the neighbouring strips also read (L2
 * hits), and written once. V > 1 needs nx % V == 0 and 16-byte aligned rows; V = 1 takes
 * any grid. Planted bug BUG_SHORT_HALO: the warp-edge columns are not loaded, so lanes 0 and
 * 31 take their own value as the missing neighbour. */
#ifndef STREAM_WARPS   /* (defined before this file only by a tuning build) */
#define STREAM_WARPS 4 /* warps of a block, side by side in x */
#define STREAM_ROWS  GV_DIFFUSION_STREAM_ROWS /* rows of a strip (abi/stencil.h) */
#endif

template <typename T, int V, int Scheme, int Bug>
__global__ void __launch_bounds__(32 * STREAM_WARPS)
    stencil_stream_kernel(const T *__restrict__ src, T *__restrict__ dst, int ny, int nx, T coeff)
{
    const int lane = threadIdx.x & 31;
    const int64_t jv64 = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * V;
    const bool live = jv64 < nx; /* lanes past the grid load zeros and store nothing, but
                                    take part in the shuffles */
    const int jv = live ? (int)jv64 : 0;
    const int i0 = (int)blockIdx.y * STREAM_ROWS;
    const int i1 = min(i0 + STREAM_ROWS, ny);
    auto row_of = [&](int i) { /* a row outside the grid: wrapped, or -1 (never used) */
                               if (i >= 0 && i < ny) return i;
                               if (Scheme != PERIODIC_STEP) return -1;
                               return i < 0 ? ny - 1 : 0;
    };
    auto load_row = [&](int i) {
        sv<T, V> x;
#pragma unroll
        for (int q = 0; q < V; q++)
            x.v[q] = T(0);
        const int r = row_of(i);
        if (live && r >= 0) x = sv_load<T, V>(src + (int64_t)r * nx + jv);
        return x;
    };
    /* the halo columns a lane loads itself: the left one for lane 0, the right one for lane
       31 and for the lane that holds column nx - 1 */
    const bool need_l = Bug != BUG_SHORT_HALO && live && lane == 0;
    const bool need_r = Bug != BUG_SHORT_HALO && live && (lane == 31 || jv + V == nx);
    const int cl = jv > 0 ? jv - 1 : (Scheme == PERIODIC_STEP ? nx - 1 : -1);
    const int cr = jv + V < nx ? jv + V : (Scheme == PERIODIC_STEP ? 0 : -1);
    sv<T, V> up = load_row(i0 - 1), f = load_row(i0);
    for (int i = i0; i < i1; i++) {
        const sv<T, V> dn = load_row(i + 1);
        T lh = __shfl_up_sync(0xffffffffu, f.v[V - 1], 1);
        T rh = __shfl_down_sync(0xffffffffu, f.v[0], 1);
        if (need_l && cl >= 0) lh = src[(int64_t)i * nx + cl];
        if (need_r && cr >= 0) rh = src[(int64_t)i * nx + cr];
        const sv<T, V> o = sv_points<T, V, Scheme>(f, up, dn, lh, rh, i, jv, ny, nx, coeff);
        if (live) sv_store<T, V>(dst + (int64_t)i * nx + jv, o);
        up = f;
        f = dn;
    }
}

template <typename T, int V, int Scheme, int Bug>
static int stream_launch(const T *src, T *dst, int ny, int nx, cudaStream_t st)
{
    const int64_t lanes = ((int64_t)nx + V - 1) / V;
    const int64_t strips = ((int64_t)ny + STREAM_ROWS - 1) / STREAM_ROWS;
    if (strips > 65535) return gk_fail_internal("stencil_stream_kernel: ny above 2097120");
    dim3 grid((unsigned)((lanes + 32 * STREAM_WARPS - 1) / (32 * STREAM_WARPS)), (unsigned)strips);
    stencil_stream_kernel<T, V, Scheme, Bug>
        <<<grid, 32 * STREAM_WARPS, 0, st>>>(src, dst, ny, nx, T(DIFFUSION_PERIODIC_COEFF));
    GK_LAUNCHED("stencil_stream_kernel");
    return GV_OK;
}

/* ---- diffusion fused in time (stencil_fused_kernel) ----
 * One launch takes up to S steps (temporal blocking). A block owns a tile of FX x FY points
 * of the output and stages the region of WX x RY cells around it (a halo S wide on every
 * side: a point's value after s steps depends on the points up to s away) in shared memory,
 * then runs the steps there between two buffers: step s updates the region's rows
 * [s, RY - s) (the rows whose neighbours step s - 1 wrote, or the load) and all its columns;
 * a column's value is right after step s when it lies in [s, WX - s), and after S steps the
 * tile, rows and columns [S, R - S), is right and is written out. The cells outside the tile
 * are computed by the neighbouring blocks as well (the overlap recomputed). Inside a step a
 * warp takes the region's 32 V columns and walks down a band of rows as the streamed kernel
 * does, so a point costs one vector load and one vector store of shared memory and two
 * shuffles a lane. Periodic edges: every cell of the region is a grid cell (indices wrapped
 * modulo the grid, whatever its size). Fixed edges: cells outside the grid are loaded as 0
 * and whatever they later hold is never used (stencil_point does not take a neighbour
 * outside the grid) nor stored. The steps of a run take steps / S launches, so launch gaps
 * are a small part of the time, and the grid's global traffic falls by about S. Planted bug
 * BUG_SHORT_HALO: the halo is S - 1 wide for S steps (the tile one cell larger on every
 * side), so the tile's first and last rows miss the last step and its edge columns take
 * neighbours that were never right. */
#ifndef FUSED_S                          /* (defined before this file only by a tuning build) */
#define FUSED_S    GV_DIFFUSION_FUSED_S  /* the most steps a launch fuses (abi/stencil.h) */
#define FUSED_RY   GV_DIFFUSION_FUSED_RY /* rows of a region (abi/stencil.h) */
#define FUSED_WARP 8                     /* warps of a block */
#endif

template <typename T, int V, int S, int Scheme, int Bug>
__global__ void __launch_bounds__(32 * FUSED_WARP)
    stencil_fused_kernel(const T *__restrict__ src, T *__restrict__ dst, int ny, int nx, int nsteps,
                         T coeff)
{
    constexpr int H = GV_DIFFUSION_FUSED_HALO(S) - (Bug == BUG_SHORT_HALO); /* the halo's width */
    constexpr int WX = 32 * V, RY = FUSED_RY, FX = WX - 2 * H, FY = RY - 2 * H;
    extern __shared__ __align__(16) unsigned char fused_smem[];
    T *const buf0 = reinterpret_cast<T *>(fused_smem);
    T *const buf1 = buf0 + RY * WX;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int j0 = (int)blockIdx.x * FX - H; /* grid column of the region's column 0 */
    const int cl = lane * V;                 /* the lane's first column in the region */
    const int tiles_y = (int)(((int64_t)ny + FY - 1) / FY);
    for (int by = blockIdx.y; by < tiles_y; by += gridDim.y) {
        const int i0 = by * FY - H; /* grid row of the region's row 0 */
        for (int r = warp; r < RY; r += FUSED_WARP) {
            int gi = i0 + r;
            if (Scheme == PERIODIC_STEP) gi = ((gi % ny) + ny) % ny;
            const bool row_in = gi >= 0 && gi < ny;
#pragma unroll
            for (int q = 0; q < V; q++) {
                const int c = lane + 32 * q;
                int gj = j0 + c;
                if (Scheme == PERIODIC_STEP) gj = ((gj % nx) + nx) % nx;
                buf0[r * WX + c] = row_in && gj >= 0 && gj < nx ? src[(int64_t)gi * nx + gj] : T(0);
            }
        }
        __syncthreads();
        T *cur = buf0, *nxt = buf1;
        for (int s = 1; s <= nsteps; s++) {
            const int lo = s, hi = RY - s;
            const int band = (hi - lo + FUSED_WARP - 1) / FUSED_WARP;
            const int r0 = lo + warp * band, r1 = min(r0 + band, hi);
            if (r0 < r1) { /* warp-uniform: the shuffles see the whole warp */
                sv<T, V> up = sv_load<T, V>(cur + (r0 - 1) * WX + cl);
                sv<T, V> f = sv_load<T, V>(cur + r0 * WX + cl);
                for (int r = r0; r < r1; r++) {
                    const sv<T, V> dn = sv_load<T, V>(cur + (r + 1) * WX + cl);
                    const T lh = __shfl_up_sync(0xffffffffu, f.v[V - 1], 1);
                    const T rh = __shfl_down_sync(0xffffffffu, f.v[0], 1);
                    sv_store<T, V>(
                        nxt + r * WX + cl,
                        sv_points<T, V, Scheme>(f, up, dn, lh, rh, i0 + r, j0 + cl, ny, nx, coeff));
                    up = f;
                    f = dn;
                }
            }
            __syncthreads();
            T *t = cur;
            cur = nxt;
            nxt = t;
        }
        for (int r = H + warp; r < H + FY; r += FUSED_WARP) {
            const int gi = i0 + r;
            if (gi >= ny) break;
#pragma unroll
            for (int q = 0; q < V; q++) {
                const int c = lane + 32 * q, gj = j0 + c;
                if (c >= H && c < H + FX && gj < nx) dst[(int64_t)gi * nx + gj] = cur[r * WX + c];
            }
        }
        __syncthreads(); /* the buffers are reloaded for the next tile row */
    }
}

/* nsteps (1 .. S) steps src -> dst in one launch. */
template <typename T, int S, int Scheme, int Bug>
static int fused_launch(const T *src, T *dst, int ny, int nx, int nsteps, cudaStream_t st)
{
    constexpr int WX = GV_DIFFUSION_FUSED_WX((int)sizeof(T)), V = WX / 32;
    constexpr int H = GV_DIFFUSION_FUSED_HALO(S) - (Bug == BUG_SHORT_HALO);
    constexpr int FX = WX - 2 * H, FY = FUSED_RY - 2 * H;
    static_assert(V * sizeof(T) == 16, "a lane's columns are one 16-byte vector");
    const size_t smem = 2 * (size_t)FUSED_RY * WX * sizeof(T);
    auto kernel = stencil_fused_kernel<T, V, S, Scheme, Bug>;
    GK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    int64_t tiles_y = ((int64_t)ny + FY - 1) / FY;
    dim3 grid((unsigned)(((int64_t)nx + FX - 1) / FX),
              (unsigned)(tiles_y < 65535 ? tiles_y : 65535));
    kernel<<<grid, 32 * FUSED_WARP, smem, st>>>(src, dst, ny, nx, nsteps,
                                                T(DIFFUSION_PERIODIC_COEFF));
    GK_LAUNCHED("stencil_fused_kernel");
    return GV_OK;
}

/* The steps in launches of up to S each (S the largest of 8, 4, 2 not above the run's
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

/* One step: the streamed kernel, with 16-byte vectors where every row starts 16-byte
   aligned (nx a multiple of the vector, and the tensors' 256-byte alignment). */
template <typename T, int Scheme, int Bug> static int stream_run_t(gk_launch *L)
{
    const int ny = (int)L->dims[0], nx = (int)L->dims[1];
    constexpr int V = 16 / sizeof(T);
    const bool vec =
        nx % V == 0 && ((uintptr_t)L->in[0] & 15) == 0 && ((uintptr_t)L->out[0] & 15) == 0;
    snprintf(L->math_mode, sizeof L->math_mode, "hand-written, streamed, %s",
             vec ? "16-byte vectors" : "scalar loads");
    const T *src = (const T *)L->in[0];
    T *dst = (T *)L->out[0];
    return vec ? stream_launch<T, V, Scheme, Bug>(src, dst, ny, nx, gk_stream(L))
               : stream_launch<T, 1, Scheme, Bug>(src, dst, ny, nx, gk_stream(L));
}

template <typename T, int Scheme, int Bug> static int fused_run_t(gk_launch *L)
{
    const int64_t steps = L->nd > 2 ? L->dims[2] : 1;
    if (L->dims[0] > 2147483647 || L->dims[1] > 2147483647 || steps < 1)
        return gk_fail_internal("grid dims must be below 2^31 and steps at least 1");
    if (steps == 1) return stream_run_t<T, Scheme, Bug>(L);
    snprintf(L->math_mode, sizeof L->math_mode, "hand-written, %d steps a launch",
             (int)(steps >= FUSED_S ? FUSED_S
                   : steps >= 4     ? 4
                                    : 2));
    if (steps >= FUSED_S) return fused_run_s<T, FUSED_S, Scheme, Bug>(L);
    if (steps >= 4) return fused_run_s<T, 4, Scheme, Bug>(L);
    return fused_run_s<T, 2, Scheme, Bug>(L);
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
