/* replay.h: random dot products through a tensor-core mode against the C port of the published
 * block-FMA model of the device's architecture (replay.c, bfma.h), bit for bit. */
#ifndef GV_REPLAY_H
#define GV_REPLAY_H

#include "core/bfma.h"
#include "probe/fprint.h"

/* The model's lookup name for a mode on f32 cases ("tf32", "f16", "bf16", "f16acc", "e4m3"),
   or NULL where the mode is no tensor-core block FMA. */
const char *gv_replay_format(gv_mode m);

typedef struct gv_replay_result {
    int k;                         /* products per dot */
    int promote;                   /* the promotion interval the model was given (0: none) */
    int64_t dots;                  /* compared */
    int64_t agree;                 /* bit for bit */
    double first_got, first_model; /* the first disagreement */
    int64_t first_index;
    const char *model; /* which model of the row's architecture; NULL: its block-FMA port */
} gv_replay_result;

/* About `dots` random dot products of length k (a square product of ceil(sqrt(dots)) rows and
   columns), operands random values of the model's input format over a few binades, signs
   mixed, through gemm (arithmetic a: fp8's scaling is undone), each output compared with
   gv_bfma_dot. promote > 0: the library promotes partial sums every `promote` products (the
   probe's promotion feature, fp8 with fast accumulation off): each chunk's dot from 0 in the
   model, the chunks added in f32 (round to nearest) in order. GV_OK or the gemm's error. */
int gv_replay_run(const gv_fp_arith *a, const gv_bfma_model *m, gv_fp_gemm_fn gemm, void *ctx,
                  int k, int promote, int64_t dots, uint64_t seed, gv_replay_result *r, char *why,
                  size_t len);

/* ---- the scaled fp8 modes (fp8e5m2, fp8row, fp8blk) ----------------------------------------- */

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
