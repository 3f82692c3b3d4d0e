/* replay_scaled.h: the scaled fp8 modes' replay (replay_scaled.c): random dot products through
 * fp8e5m2, fp8row and fp8blk against the architecture's fp8 block-FMA port and a second model
 * written from the same published rules, bit for bit. */
#ifndef GV_REPLAY_SCALED_H
#define GV_REPLAY_SCALED_H

#include "probe/replay.h"

/* e4m3's model (the architecture's published fp8 block FMA) with an input format that holds
   e4m3 and e5m2 values alike (4 significand bits, 2^-14 .. 57344), for A in e4m3 against B in
   e5m2: the published e4m3 and e5m2 models differ in nothing else. */
gv_bfma_model gv_replay_fp8_any(const gv_bfma_model *e4m3);

/* The most chunks of K a scaled replay adds (k / promote). */
#define GV_REPLAY_MAX_CHUNKS 64

/* About `dots` random dot products of length k (a multiple of 128) through gemm in scaled mode
   `mode`, against two models of the architecture's fp8 tensor core (e4m3: its published
   model): r[0] the block-FMA port (gv_bfma_dot), r[1] a second model written from the same
   published rules in plain double arithmetic (replay_scaled.c), sharing no code with the
   port. Each chunk of `promote` products (0: the whole k) is summed by the model from 0 and
   added into an f32 sum (to nearest), times its 1 x 128 and 128 x 128 blocks' descales in
   fp8blk, the row's and column's (or the tensors') descales applied to the whole sum
   otherwise. The operands put an anchor in every scale group of the label (abi/gemm.h), so
   that every scale is a power of two, 2^-3 .. 2^3 apart between groups, and every other value
   is a normal fp8 value that the label's quantisation gives back exactly: the replay sees
   the accumulation and where the descales enter it. GV_OK or the gemm's error (why). */
int gv_replay_scaled_run(gv_mode mode, const gv_bfma_model *e4m3, gv_fp_gemm_fn gemm, void *ctx,
                         int k, int promote, int64_t dots, uint64_t seed, gv_replay_result r[2],
                         char *why, size_t len);

#endif
