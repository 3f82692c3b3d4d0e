/* gemm_regblock.cuh: the register-blocked FFMA GEMM of gemm.regblock (kernels/gemm.cu) as a
 * template over its tiling, so that the op and the tuning program (tools/gemm_tune.cu) run the
 * same code. C(m x n) = A(m x k) B(k x n), row-major.
 *
 * The structure of the well-known SIMT designs (CUTLASS's SIMT sgemm; the "how to optimize a
 * CUDA matmul" worklog's warp-tiled kernel):
 *  - a block of THREADS threads computes a BM x BN tile of C, walking K in BK slices;
 *  - its warps are laid out (BM / WM) x (BN / WN), each owning a WM x WN warp tile; the 32
 *    lanes of a warp are laid out LR x LC (LR = WM / TM, LC = WN / TN), and a lane owns a
 *    TM x TN thread tile made of (TM / 4) x (TN / 4) sub-tiles of 4 x 4: sub-tile (i, j) sits
 *    at rows i * 4 LR + 4 tr, columns j * 4 LC + 4 tc of the warp tile. A warp's lanes read
 *    LR (A) and LC (B) distinct 4-vectors from shared memory a step, the rest broadcast;
 *  - A's slice is stored transposed (k-major, As[k][m], padded by 4 so that the transposing
 *    stores of a warp collide less), B's as it is (Bs[k][n]);
 *  - STAGES == 0 (regblock_gemm_kernel): two shared buffers; the next slice is loaded from
 *    global memory into registers before the current one is used, then stored into the other
 *    buffer; one barrier per slice. STAGES > 0 (regblock_async_kernel): a ring of STAGES
 *    buffers filled by cp.async, STAGES - 1 slices in flight, no registers spent on staging;
 *  - 4-vector global loads and stores (one float4, or two double2) when k and n are multiples
 *    of 4 and A, B, C are 16-byte aligned: a 4-vector is then wholly inside or wholly outside
 *    the matrix. Otherwise every element is guarded on its own. Out-of-range elements load as
 *    0 and are never stored;
 *  - GROUP > 0: blocks are numbered in groups of GROUP tile rows (column-major inside a
 *    group), so that the blocks resident at one time share their A and B panels in L2.
 * Each C element is one FMA chain over k in order (acc = fma(a, b, acc)): the gamma_k model of
 * gemm holds as for any order. DropTail (the planted bug gemm.regblock.droptail) stops the K
 * loop at the last full slice, dropping the last k % BK terms. */
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int THREADS_, int MINB_,
          int GROUP_, int STAGES_ = 0>
struct rb_cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_;
    static constexpr int THREADS = THREADS_, MINB = MINB_, GROUP = GROUP_, STAGES = STAGES_;
    static constexpr int APAD = 4;
    static constexpr int LR = WM / TM, LC = WN / TN; /* lanes of a warp down and across */
    static constexpr int WARPS_N = BN / WN;
    static constexpr int AVEC = BK / 4, BVEC = BN / 4; /* 4-vectors in a row of each slice */
    static constexpr int A_IT = BM * AVEC / THREADS, B_IT = BK * BVEC / THREADS;
    static constexpr int A_STEP = THREADS / AVEC, B_STEP = THREADS / BVEC; /* rows per pass */
    static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 sub-tiles");
    static_assert(WM % TM == 0 && WN % TN == 0 && LR * LC == 32, "32 lanes fill a warp tile");
    static_assert(BM % WM == 0 && BN % WN == 0 && (BM / WM) * (BN / WN) * 32 == THREADS,
                  "the warps fill the block tile");
    static_assert(BK % 4 == 0 && THREADS % AVEC == 0 && THREADS % BVEC == 0 &&
                      BM * AVEC % THREADS == 0 && BK * BVEC % THREADS == 0,
                  "the slices split evenly into 4-vectors over the threads");
    static_assert(STAGES == 0 || (STAGES >= 2 && THREADS % BK == 0 && BM * BK % THREADS == 0),
                  "the cp.async kernel copies A one element a thread, BK threads a row");
    static constexpr int A_EL = STAGES ? BM * BK / THREADS : 0; /* cp.async: A elements */
    static constexpr int A_EL_STEP = THREADS / BK;              /* rows between them */
    template <typename T> static constexpr size_t smem_bytes()
    {
        return sizeof(T) * (STAGES ? STAGES : 2) * BK * ((BM + APAD) + BN);
    }
};

template <typename T> struct rb_vec4 {
    T v[4];
};

/* Four consecutive T from 16-byte aligned p (a float4 or two double2). */
__device__ __forceinline__ rb_vec4<float> rb_load4(const float *p)
{
    float4 x = *reinterpret_cast<const float4 *>(p);
    return {{x.x, x.y, x.z, x.w}};
}
__device__ __forceinline__ rb_vec4<double> rb_load4(const double *p)
{
    double2 x = reinterpret_cast<const double2 *>(p)[0];
    double2 y = reinterpret_cast<const double2 *>(p)[1];
    return {{x.x, x.y, y.x, y.y}};
}
__device__ __forceinline__ void rb_store4(float *p, const float *v)
{
    *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
__device__ __forceinline__ void rb_store4(double *p, const double *v)
{
    reinterpret_cast<double2 *>(p)[0] = make_double2(v[0], v[1]);
    reinterpret_cast<double2 *>(p)[1] = make_double2(v[2], v[3]);
}

/* The 4 elements p[0..3] of one row of a matrix; element q exists when row_ok and
   c + q < cols. Zero where it does not. Vec: cols % 4 == 0, c % 4 == 0 and p 16-byte
   aligned, so the four exist together or not at all. */
template <typename T, bool Vec>
__device__ __forceinline__ rb_vec4<T> rb_fetch4(const T *__restrict__ p, bool row_ok, int64_t c,
                                                int64_t cols)
{
    rb_vec4<T> x = {{T(0), T(0), T(0), T(0)}};
    if (!row_ok) return x;
    if (Vec) {
        if (c < cols) x = rb_load4(p);
    } else {
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (c + q < cols) x.v[q] = p[q];
    }
    return x;
}

/* The block's tile of C: blockIdx as it is, or renumbered in groups of GROUP tile rows. */
template <typename Cfg>
__device__ __forceinline__ void rb_tile_origin(int64_t tiles_m, int64_t *bx, int64_t *by)
{
    *bx = blockIdx.x;
    *by = blockIdx.y;
    if (Cfg::GROUP > 0 && (int64_t)gridDim.y >= tiles_m) { /* the grid covers every tile */
        const int64_t id = (int64_t)blockIdx.y * gridDim.x + blockIdx.x;
        const int64_t per = (int64_t)Cfg::GROUP * gridDim.x;
        const int64_t first = id / per * Cfg::GROUP, r = id % per;
        const int64_t rows = tiles_m - first < Cfg::GROUP ? tiles_m - first : Cfg::GROUP;
        *by = first + r % rows;
        *bx = r / rows;
    }
}

/* One K slice from shared memory into the thread tile: as = the slice's As + the lane's first
   row, bs = its Bs + the lane's first column. Each acc[i][j] gets its FMAs in k order. */
template <typename T, typename Cfg>
__device__ __forceinline__ void rb_slice(const T *as, const T *bs, T (&acc)[Cfg::TM][Cfg::TN])
{
    constexpr int TM = Cfg::TM, TN = Cfg::TN, LDA = Cfg::BM + Cfg::APAD;
#pragma unroll
    for (int q = 0; q < Cfg::BK; q++) {
        T a[TM], b[TN];
#pragma unroll
        for (int i = 0; i < TM / 4; i++) {
            rb_vec4<T> x = rb_load4(as + q * LDA + i * 4 * Cfg::LR);
#pragma unroll
            for (int u = 0; u < 4; u++)
                a[i * 4 + u] = x.v[u];
        }
#pragma unroll
        for (int j = 0; j < TN / 4; j++) {
            rb_vec4<T> x = rb_load4(bs + q * Cfg::BN + j * 4 * Cfg::LC);
#pragma unroll
            for (int u = 0; u < 4; u++)
                b[j * 4 + u] = x.v[u];
        }
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TN; j++)
                acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
}

/* The thread tile into C; r0, c0: the lane's first row and column. Nothing outside m x n. */
template <typename T, typename Cfg, bool Vec>
__device__ __forceinline__ void rb_store_tile(T *__restrict__ C, const T (&acc)[Cfg::TM][Cfg::TN],
                                              int64_t r0, int64_t c0, int64_t m, int64_t n)
{
#pragma unroll
    for (int i = 0; i < Cfg::TM; i++) {
        const int64_t r = r0 + (i / 4) * 4 * Cfg::LR + (i % 4);
        if (r >= m) continue;
#pragma unroll
        for (int j = 0; j < Cfg::TN / 4; j++) {
            const int64_t c = c0 + j * 4 * Cfg::LC;
            T *p = C + r * n + c;
            if (Vec) {
                if (c < n) rb_store4(p, &acc[i][j * 4]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++)
                    if (c + q < n) p[q] = acc[i][j * 4 + q];
            }
        }
    }
}

template <typename T, typename Cfg, bool Vec, bool DropTail>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINB)
    regblock_gemm_kernel(const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ C,
                         int64_t m, int64_t k, int64_t n)
{
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN;
    constexpr int LDA = BM + Cfg::APAD;
    constexpr int A_IT = Cfg::A_IT, B_IT = Cfg::B_IT, A_STEP = Cfg::A_STEP, B_STEP = Cfg::B_STEP;
    extern __shared__ __align__(16) unsigned char rb_smem[];
    T *const As = reinterpret_cast<T *>(rb_smem); /* [2][BK][LDA] */
    T *const Bs = As + 2 * BK * LDA;              /* [2][BK][BN] */
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / Cfg::WARPS_N) * Cfg::WM, wn0 = (warp % Cfg::WARPS_N) * Cfg::WN;
    const int tr = lane / Cfg::LC, tc = lane % Cfg::LC; /* the lane in the warp tile */
    /* global-load assignment: the A slice BM x BK as BM rows of AVEC vectors, the B slice
       BK x BN as BK rows of BVEC vectors; pass p of a thread takes rows + p * STEP */
    const int a_r = tid / Cfg::AVEC, a_k = (tid % Cfg::AVEC) * 4;
    const int b_k = tid / Cfg::BVEC, b_c = (tid % Cfg::BVEC) * 4;
    const int64_t tiles_m = (m + BM - 1) / BM;
    const int64_t ktiles = DropTail ? k / BK : (k + BK - 1) / BK;

    int64_t bx, by0;
    rb_tile_origin<Cfg>(tiles_m, &bx, &by0);
    const int64_t col0 = bx * BN;

    for (int64_t by = by0; by < tiles_m; by += gridDim.y) {
        const int64_t row0 = by * BM;
        T acc[TM][TN];
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TN; j++)
                acc[i][j] = T(0);

        /* this thread's A vectors (rows row0 + a_r + p A_STEP) and B vectors (rows
           b_k + p B_STEP of the slice, column col0 + b_c), advanced a slice at a time */
        const T *pa = A + (row0 + a_r) * k + a_k;
        const T *pb = B + (int64_t)b_k * n + col0 + b_c;
        bool a_ok[A_IT]; /* the rows exist */
#pragma unroll
        for (int p = 0; p < A_IT; p++)
            a_ok[p] = row0 + a_r + p * A_STEP < m;
        rb_vec4<T> ra[A_IT], rb[B_IT];
        if (ktiles > 0) {
#pragma unroll
            for (int p = 0; p < A_IT; p++) {
                ra[p] = rb_fetch4<T, Vec>(pa + (int64_t)p * A_STEP * k, a_ok[p], a_k, k);
#pragma unroll
                for (int q = 0; q < 4; q++)
                    As[(a_k + q) * LDA + a_r + p * A_STEP] = ra[p].v[q];
            }
#pragma unroll
            for (int p = 0; p < B_IT; p++) {
                rb[p] = rb_fetch4<T, Vec>(pb + (int64_t)p * B_STEP * n, b_k + p * B_STEP < k,
                                          col0 + b_c, n);
                rb_store4(&Bs[(b_k + p * B_STEP) * BN + b_c], rb[p].v);
            }
        }
        __syncthreads();

        for (int64_t t = 0; t < ktiles; t++) {
            const int cur = (int)(t & 1);
            const bool more = t + 1 < ktiles;
            if (more) { /* issue the next slice's loads now; they land while we compute */
                const int64_t kk = (t + 1) * BK;
                pa += BK;
                pb += (int64_t)BK * n;
#pragma unroll
                for (int p = 0; p < A_IT; p++)
                    ra[p] = rb_fetch4<T, Vec>(pa + (int64_t)p * A_STEP * k, a_ok[p], kk + a_k, k);
#pragma unroll
                for (int p = 0; p < B_IT; p++)
                    rb[p] = rb_fetch4<T, Vec>(pb + (int64_t)p * B_STEP * n,
                                              kk + b_k + p * B_STEP < k, col0 + b_c, n);
            }
            const T *as = As + cur * BK * LDA + wm0 + tr * 4;
            const T *bs = Bs + cur * BK * BN + wn0 + tc * 4;
            rb_slice<T, Cfg>(as, bs, acc);
            if (more) {
                T *an = As + (cur ^ 1) * BK * LDA;
                T *bn = Bs + (cur ^ 1) * BK * BN;
#pragma unroll
                for (int p = 0; p < A_IT; p++)
#pragma unroll
                    for (int q = 0; q < 4; q++)
                        an[(a_k + q) * LDA + a_r + p * A_STEP] = ra[p].v[q];
#pragma unroll
                for (int p = 0; p < B_IT; p++)
                    rb_store4(&bn[(b_k + p * B_STEP) * BN + b_c], rb[p].v);
            }
            __syncthreads();
        }

        rb_store_tile<T, Cfg, Vec>(C, acc, row0 + wm0 + tr * 4, col0 + wn0 + tc * 4, m, n);
        /* the next tile row's first stores into buffer 0 must wait for every warp to have
           left this tile's last reads: the barrier at the end of the K loop covers it, and
           with ktiles == 0 nothing was read */
    }
}

/* cp.async (sm_80 and later): N bytes from global g to shared s without passing through
   registers; ok false writes N zero bytes and reads nothing (g must still be a valid address).
   Compiled for an older architecture (compute_75's PTX, which the driver may JIT for any GPU)
   the same copies are made synchronously through registers, so the cp.async kernel is correct
   wherever its code runs; the host still launches it only where the loaded code has cp.async
   (rb_async_ok), since the register-staged kernel is the faster one there. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define RB_CP_ASYNC 0
#else
#define RB_CP_ASYNC 1
#endif
template <int N> __device__ __forceinline__ void rb_cp_async(void *s, const void *g, bool ok)
{
#if RB_CP_ASYNC
    const unsigned sa = (unsigned)__cvta_generic_to_shared(s);
    const int src = ok ? N : 0;
    if constexpr (N == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sa), "l"(g), "r"(src)
                     : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(sa), "l"(g), "n"(N),
                     "r"(src)
                     : "memory");
#else
    static_assert(N == 4 || N == 8 || N == 16, "a float, a double or 16 bytes");
    if constexpr (N == 16)
        *(uint4 *)s = ok ? *(const uint4 *)g : make_uint4(0, 0, 0, 0);
    else if constexpr (N == 8)
        *(unsigned long long *)s = ok ? *(const unsigned long long *)g : 0ull;
    else
        *(unsigned *)s = ok ? *(const unsigned *)g : 0u;
#endif
}
__device__ __forceinline__ void rb_cp_commit()
{
#if RB_CP_ASYNC
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N> __device__ __forceinline__ void rb_cp_wait()
{
#if RB_CP_ASYNC
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* The same tiling with a STAGES-deep ring of shared buffers filled by cp.async: slice t + STAGES
 * - 1 is in flight while slice t is used, and no register holds a loaded value on its way to
 * shared memory. A is copied one element at a time into its transposed place (BK consecutive
 * threads take the BK elements of one row: whole 32-byte sectors from global memory, and
 * distinct banks in shared memory); B in 16-byte pieces when Vec, else one element at a time.
 * Out-of-range elements are written as 0 by the copy itself. */
template <typename T, typename Cfg, bool Vec, bool DropTail>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MINB)
    regblock_async_kernel(const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ C,
                          int64_t m, int64_t k, int64_t n)
{
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, S = Cfg::STAGES;
    constexpr int LDA = BM + Cfg::APAD, B_IT = Cfg::B_IT, B_STEP = Cfg::B_STEP;
    extern __shared__ __align__(16) unsigned char rb_smem[];
    T *const As = reinterpret_cast<T *>(rb_smem); /* [S][BK][LDA] */
    T *const Bs = As + S * BK * LDA;              /* [S][BK][BN] */
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / Cfg::WARPS_N) * Cfg::WM, wn0 = (warp % Cfg::WARPS_N) * Cfg::WN;
    const int tr = lane / Cfg::LC, tc = lane % Cfg::LC;
    /* A: element (a_r + p A_EL_STEP, a_k) of the slice; B: vector (b_k + p B_STEP, b_c) */
    const int a_r = tid / BK, a_k = tid % BK;
    const int b_k = tid / Cfg::BVEC, b_c = (tid % Cfg::BVEC) * 4;
    const int64_t tiles_m = (m + BM - 1) / BM;
    const int64_t ktiles = DropTail ? k / BK : (k + BK - 1) / BK;

    int64_t bx, by0;
    rb_tile_origin<Cfg>(tiles_m, &bx, &by0);
    const int64_t col0 = bx * BN;

    for (int64_t by = by0; by < tiles_m; by += gridDim.y) {
        const int64_t row0 = by * BM;
        T acc[Cfg::TM][Cfg::TN];
#pragma unroll
        for (int i = 0; i < Cfg::TM; i++)
#pragma unroll
            for (int j = 0; j < Cfg::TN; j++)
                acc[i][j] = T(0);

        const T *pa = A + (row0 + a_r) * k + a_k; /* element (a_r, a_k) of slice 0 */
        const T *pb = B + (int64_t)b_k * n + col0 + b_c;
        /* slice t into ring buffer t % S */
        auto load = [&](int64_t t) {
            const int64_t kk = t * BK;
            T *as = As + (int)(t % S) * BK * LDA + a_k * LDA + a_r;
            T *bs = Bs + (int)(t % S) * BK * BN + b_k * BN + b_c;
            const bool k_ok = kk + a_k < k;
#pragma unroll
            for (int p = 0; p < Cfg::A_EL; p++) {
                const bool ok = k_ok && row0 + a_r + p * Cfg::A_EL_STEP < m;
                const T *g = pa + (int64_t)p * Cfg::A_EL_STEP * k + kk;
                rb_cp_async<sizeof(T)>(as + p * Cfg::A_EL_STEP, ok ? g : A, ok);
            }
#pragma unroll
            for (int p = 0; p < B_IT; p++) {
                const bool row_ok = kk + b_k + p * B_STEP < k;
                const T *g = pb + (kk + p * B_STEP) * n;
                T *d = bs + p * B_STEP * BN;
                if (Vec) {
                    const bool ok = row_ok && col0 + b_c < n;
#pragma unroll
                    for (int h = 0; h < (int)sizeof(T) / 4; h++) /* 16 bytes at a time */
                        rb_cp_async<16>(d + h * (16 / sizeof(T)), ok ? g + h * (16 / sizeof(T)) : B,
                                        ok);
                } else {
#pragma unroll
                    for (int q = 0; q < 4; q++) {
                        const bool ok = row_ok && col0 + b_c + q < n;
                        rb_cp_async<sizeof(T)>(d + q, ok ? g + q : B, ok);
                    }
                }
            }
        };

#pragma unroll
        for (int s = 0; s < S - 1; s++) {
            if (s < ktiles) load(s);
            rb_cp_commit();
        }
        for (int64_t t = 0; t < ktiles; t++) {
            rb_cp_wait<S - 2>(); /* slice t has landed (this thread's part) */
            __syncthreads();     /* everyone's part; and everyone has left slice t - 1 */
            if (t + S - 1 < ktiles) load(t + S - 1); /* into the buffer slice t - 1 used */
            rb_cp_commit();
            const int cur = (int)(t % S);
            rb_slice<T, Cfg>(As + cur * BK * LDA + wm0 + tr * 4, Bs + cur * BK * BN + wn0 + tc * 4,
                             acc);
        }
        rb_store_tile<T, Cfg, Vec>(C, acc, row0 + wm0 + tr * 4, col0 + wn0 + tc * 4, m, n);
        /* every copy issued has been waited for (none is issued past the last slice); the
           next tile row's first copies must wait for every warp to leave the last slices */
        __syncthreads();
    }
}

/* True when the 4-vector path may be taken: k and n multiples of 4, A, B, C 16-byte aligned. */
static inline bool rb_vec_ok(int64_t k, int64_t n, const void *A, const void *B, const void *C)
{
    return k % 4 == 0 && n % 4 == 0 && ((uintptr_t)A & 15) == 0 && ((uintptr_t)B & 15) == 0 &&
           ((uintptr_t)C & 15) == 0;
}

/* The kernel of a configuration: the cp.async one when STAGES > 0. */
template <typename T, typename Cfg, bool DropTail>
static auto rb_kernel(bool vec) -> void (*)(const T *, const T *, T *, int64_t, int64_t, int64_t)
{
    if constexpr (Cfg::STAGES > 0)
        return vec ? regblock_async_kernel<T, Cfg, true, DropTail>
                   : regblock_async_kernel<T, Cfg, false, DropTail>;
    else
        return vec ? regblock_gemm_kernel<T, Cfg, true, DropTail>
                   : regblock_gemm_kernel<T, Cfg, false, DropTail>;
}

/* Launch one instance on stream s: the 4-vector kernel when vec, else the guarded one. */
template <typename T, typename Cfg, bool DropTail>
static cudaError_t rb_launch(const T *A, const T *B, T *C, int64_t m, int64_t k, int64_t n,
                             bool vec, cudaStream_t s)
{
    const int64_t tiles_m = (m + Cfg::BM - 1) / Cfg::BM, tiles_n = (n + Cfg::BN - 1) / Cfg::BN;
    if (tiles_m == 0 || tiles_n == 0) return cudaSuccess;
    const dim3 grid((unsigned)tiles_n, (unsigned)(tiles_m < 65535 ? tiles_m : 65535));
    const size_t smem = Cfg::template smem_bytes<T>();
    void (*kern)(const T *, const T *, T *, int64_t, int64_t, int64_t) =
        rb_kernel<T, Cfg, DropTail>(vec);
    if (smem > 48 * 1024) {
        cudaError_t e =
            cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return e;
    }
    kern<<<grid, Cfg::THREADS, smem, s>>>(A, B, C, m, k, n);
    return cudaGetLastError();
}
