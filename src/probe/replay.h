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

#endif
