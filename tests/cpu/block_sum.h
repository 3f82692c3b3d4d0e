/* block_sum.h: a row's block reduction in the kernels' order (kernels/block_reduce.cuh), on the
 * CPU in f32 or f64 arithmetic: gk_softmax_threads(n) threads each sum their strided terms in
 * order, then an xor butterfly across each warp's lanes, then across the warps' lane 0 values.
 * Shared by the models of softmax, the losses and the norms (model_softmax.c, model_loss.c,
 * model_loss_pair.c, model_bnorm.c). */
#ifndef GV_TEST_BLOCK_SUM_H
#define GV_TEST_BLOCK_SUM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../../abi/softmax.h"

static inline double block_sum_round(bool f32, double x)
{
    return f32 ? (double)(float)x : x;
}

/* The sum of terms[0..end) with the threads of a row of n (end < n leaves the rest out, as
   model_softmax.c's partial-sum impostor does), each add rounded to f32 where f32. */
static inline double block_sum_ordered(const double *terms, int64_t n, int64_t end, bool f32)
{
    int threads = gk_softmax_threads(n);
    double part[1024];
    for (int t = 0; t < threads; t++) {
        double acc = 0;
        for (int64_t j = t; j < end; j += threads)
            acc = block_sum_round(f32, acc + terms[j]);
        part[t] = acc;
    }
    for (int w = 0; w < threads / 32; w++) {
        double *v = part + 32 * w, nv[32];
        for (int off = 16; off > 0; off >>= 1) {
            for (int l = 0; l < 32; l++)
                nv[l] = block_sum_round(f32, v[l] + v[l ^ off]);
            memcpy(v, nv, sizeof nv);
        }
    }
    double v[32] = {0}, nv[32];
    for (int w = 0; w < threads / 32; w++)
        v[w] = part[32 * w];
    for (int off = 16; off > 0; off >>= 1) {
        for (int l = 0; l < 32; l++)
            nv[l] = block_sum_round(f32, v[l] + v[l ^ off]);
        memcpy(v, nv, sizeof nv);
    }
    return v[0];
}

#endif
