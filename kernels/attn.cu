/* attn.cu: scaled dot-product attention as torch.nn.functional.scaled_dot_product_attention
 * computes it without dropout: for Q, K, V of b x h x s x d (row-major, contiguous),
 * out = softmax(Q K^T / sqrt(d) [+ causal mask]) V, the causal mask keeping key j <= query i
 * (is_causal=True: the lower triangle). One block a (batch x head, query row)
 * (abi/attn.h): the query row into shared memory; each thread a strided set of keys, its score
 * a d-term FMA chain times 1/sqrt(d) (rounded in the dtype); the row's largest score (exact)
 * and the sum of exp(score - max) (mathfn.cuh's gk_exp; the block tree of block_reduce.cuh);
 * then each thread a strided set of the output's d columns, sum_j exp_j v_jc over the keys in
 * order, divided by the sum. Deterministic: a fixed order, no atomics.
 * Planted bugs (each must FAIL): attn.sdpa.noscale (no 1/sqrt(d)), attn.sdpa.nomax (no max
 * subtraction: exp overflows on large scores), attn.sdpa.causal.offbyone (the mask keeps key
 * i + 1 too), attn.sdpa.vt (V read transposed, v[c s + j] for v[j d + c]). */
#include "../abi/attn.h"
#include "gk_cuda.h"
#include "block_reduce.cuh"
#include "mathfn.cuh"

enum attn_bug { BUG_NONE, BUG_NOSCALE, BUG_NOMAX, BUG_OFFBYONE, BUG_VT };

template <typename T, bool Causal, int Bug>
__global__ void attn_kernel(const T *__restrict__ q, const T *__restrict__ k,
                            const T *__restrict__ v, T *__restrict__ y, int64_t rows, int64_t s,
                            int64_t d)
{
    extern __shared__ __align__(16) unsigned char attn_smem[];
    T *sc = (T *)attn_smem, *qr = sc + s;
    __shared__ T red[33];
    const T scale = Bug == BUG_NOSCALE ? T(1) : T(1) / sqrt(T(d));
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const int64_t bh = row / s, i = row % s;
        const T *kb = k + bh * s * d, *vb = v + bh * s * d;
        /* keys 0 .. keys-1 (causal: j <= i; the planted bug: j <= i + 1) */
        int64_t keys = s;
        if (Causal) keys = Bug == BUG_OFFBYONE ? (i + 2 < s ? i + 2 : s) : i + 1;
        __syncthreads(); /* the previous row's readers of sc and qr are done */
        for (int64_t l = threadIdx.x; l < d; l += blockDim.x)
            qr[l] = q[row * d + l];
        __syncthreads();
        T mx = T(-INFINITY);
        for (int64_t j = threadIdx.x; j < keys; j += blockDim.x) {
            T acc = T(0);
            for (int64_t l = 0; l < d; l++)
                acc = fma(qr[l], kb[j * d + l], acc);
            sc[j] = acc * scale;
            mx = fmax(mx, sc[j]);
        }
        mx = block_reduce<T, true>(mx, red);
        if (Bug == BUG_NOMAX) mx = T(0);
        T sum = T(0);
        for (int64_t j = threadIdx.x; j < keys; j += blockDim.x) {
            sc[j] = gk_exp<T, GK_MATH_NATIVE>(sc[j] - mx);
            sum += sc[j];
        }
        sum = block_reduce<T, false>(sum, red); /* its barriers publish sc */
        for (int64_t c = threadIdx.x; c < d; c += blockDim.x) {
            T acc = T(0);
            for (int64_t j = 0; j < keys; j++)
                acc = fma(sc[j], Bug == BUG_VT ? vb[c * s + j] : vb[j * d + c], acc);
            y[row * d + c] = acc / sum;
        }
    }
}

template <typename T, bool Causal, int Bug> static int attn_t(gk_launch *L)
{
    const int64_t b = L->dims[0], h = L->dims[1], s = L->dims[2], d = L->dims[3];
    snprintf(L->math_mode, sizeof L->math_mode, "one block a query row");
    const int64_t rows = b * h * s;
    if (rows == 0 || d == 0) return GV_OK;
    const unsigned blocks = (unsigned)(rows < (1 << 20) ? rows : (1 << 20));
    const size_t shared = (size_t)gk_attn_shared_bytes(s, d, sizeof(T));
    attn_kernel<T, Causal, Bug><<<blocks, GK_ATTN_THREADS, shared, gk_stream(L)>>>(
        (const T *)L->in[0], (const T *)L->in[1], (const T *)L->in[2], (T *)L->out[0], rows, s, d);
    GK_LAUNCHED("attn_kernel");
    return GV_OK;
}

template <bool Causal, int Bug> static int attn_launch(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto x) { return attn_t<decltype(x), Causal, Bug>(L); });
}

extern "C" const gk_op gk_attn_sdpa = {NULL, attn_launch<false, BUG_NONE>, NULL};
extern "C" const gk_op gk_attn_sdpa_causal = {NULL, attn_launch<true, BUG_NONE>, NULL};
extern "C" const gk_op gk_attn_sdpa_noscale = {NULL, attn_launch<false, BUG_NOSCALE>, NULL};
extern "C" const gk_op gk_attn_sdpa_nomax = {NULL, attn_launch<false, BUG_NOMAX>, NULL};
extern "C" const gk_op gk_attn_sdpa_causal_offbyone = {NULL, attn_launch<true, BUG_OFFBYONE>, NULL};
extern "C" const gk_op gk_attn_sdpa_vt = {NULL, attn_launch<false, BUG_VT>, NULL};
