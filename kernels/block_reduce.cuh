/* block_reduce.cuh: the sum or the largest value of one value a thread over a block (at most
 * 1024 threads, a multiple of 32): an xor butterfly across each warp's lanes, then the same
 * across the warps' results in warp 0. log2(blockDim.x) levels of additions: the depth
 * abi/softmax.h's gk_softmax_sum_depth counts for the row-wise kernels that use it
 * (kernels/softmax.cu, kernels/loss.cu). */
#ifndef GK_BLOCK_REDUCE_CUH
#define GK_BLOCK_REDUCE_CUH

/* The block's sum (Max false) or largest value (Max true) of v, the same in every thread.
   sh holds 33 values; the first barrier keeps a previous call's readers ahead of the writes. */
template <typename T, bool Max> __device__ T block_reduce(T v, T *sh)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        T o = __shfl_xor_sync(0xffffffffu, v, off);
        v = Max ? fmax(v, o) : v + o;
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    __syncthreads();
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        /* lanes past the warps hold the identity: adding 0 is exact, so only log2(warps)
           levels round */
        T w = lane < warps ? sh[lane] : (Max ? T(-INFINITY) : T(0));
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            T o = __shfl_xor_sync(0xffffffffu, w, off);
            w = Max ? fmax(w, o) : w + o;
        }
        if (lane == 0) sh[32] = w;
    }
    __syncthreads();
    return sh[32];
}

#endif
