/* gemm.h: the layout contract of gemm.cublas's reduced-precision modes (kernels/gemm.cu), shared
 * by the kernel and the op's layout (src/ops/gemm.c), which must agree. */
#ifndef GV_ABI_GEMM_H
#define GV_ABI_GEMM_H

#include <stdint.h>

#include "gv_abi.h"

/* The workspace of one gemm.cublas launch in mode `mode` (a gv_mode), cut into parts that
 * each start on a 256-byte boundary, in this order:
 *  - f16 / bf16:  A in 16 bits (m k), B in 16 bits (k n);
 *  - f16acc:      the same, then C in f16 (m n) before it is widened to f32;
 *  - fp8:         A in e4m3 (m k), B transposed in e4m3 (n k: cuBLASLt's fp8 kernels take
 *                 the "TN" layout), GK_GEMM_FP8_SCALE_BYTES of scales (amax of A and of B
 *                 as f32 bit patterns at byte 0, then the descale factors amax / 448 of A and
 *                 of B at bytes 256 and 512: cuBLASLt wants aligned scale pointers), then
 *                 GK_GEMM_FP8_LT_BYTES for cuBLASLt's own workspace.
 * Other modes need none. off[i] receives the byte offset of part i (may be NULL). */
#define GK_GEMM_FP8_SCALE_BYTES 768
#define GK_GEMM_FP8_LT_BYTES    (32ll << 20)
#define GK_GEMM_MAX_PARTS       4

static inline int64_t gk_gemm_round256(int64_t bytes)
{
    return (bytes + 255) / 256 * 256;
}

static inline int64_t gk_gemm_workspace_bytes(int mode, int64_t m, int64_t k, int64_t n,
                                              int64_t off[GK_GEMM_MAX_PARTS])
{
    int64_t part[GK_GEMM_MAX_PARTS] = {0, 0, 0, 0};
    int np = 0;
    switch (mode) {
    case GV_MODE_F16:
    case GV_MODE_BF16:
        part[0] = m * k * 2;
        part[1] = k * n * 2;
        np = 2;
        break;
    case GV_MODE_F16ACC:
        part[0] = m * k * 2;
        part[1] = k * n * 2;
        part[2] = m * n * 2;
        np = 3;
        break;
    case GV_MODE_FP8:
        part[0] = m * k;
        part[1] = k * n;
        part[2] = GK_GEMM_FP8_SCALE_BYTES;
        part[3] = GK_GEMM_FP8_LT_BYTES;
        np = 4;
        break;
    default: break;
    }
    int64_t total = 0;
    for (int i = 0; i < np; i++) {
        if (off) off[i] = total;
        total += gk_gemm_round256(part[i]);
    }
    return total;
}

#endif
