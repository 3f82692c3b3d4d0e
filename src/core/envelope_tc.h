/* envelope_tc.h: the envelope of a tensor-core mode on the user's own data (envelope_tc.c):
 * what the mode's block-FMA model (core/bfma.h, the parameters of one architecture) computes
 * on these very inputs, in each block order the model allows, for envelope.c to judge the
 * outputs by their distance to it (docs/error-models.md, "Tensor-core modes"). */
#ifndef GV_ENVELOPE_TC_H
#define GV_ENVELOPE_TC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/bfma.h"
#include "core/gv.h"

/* The architecture the models are taken from when none is given: compute capability 9.0
   (H100, H200), the one gpuval's expectations were measured on (probe/sm_90.expect). */
#define GV_ENV_TC_ARCH_DEFAULT 90

/* The model orders of one element: the chain over every block in k order (GEMM.m), then
   split-K with 2, 4, 8, 16, 32 and 64 contiguous slices, each slice a chain of its own from
   c = 0 starting at a block boundary, the slices' partials added in the output format in
   slice order (cuBLAS's split-K reduce; its tensor-core kernels split K as its f32 ones do,
   envelope_orders.h). */
#define GV_ENV_TC_NORD 7

/* The model of mode `mode` on compute capability sm (0: GV_ENV_TC_ARCH_DEFAULT), or NULL
   with why not into why: a mode without a tensor-core model (native, the emulations, and of
   the scaled fp8 modes fp8blk and fp8e5m2: their block scales and e5m2 operand are not
   modelled here; fp8row is fp8's model with per-line scales), an architecture the published
   models leave out, or fp8 where its promotion interval is not known (gv_env_tc_promotion). */
const gv_bfma_model *gv_env_tc_model(gv_mode mode, int sm, char *why, size_t len);

/* Products summed in the tensor core's own accumulator before the partial sum is promoted
   into an f32 accumulator, under mode on sm: 128 for fp8 on sm_90 (probe/sm_90.expect,
   "promotion", measured on an H100: cuBLASLt's fp8 kernels without fast accumulation); 0
   where nothing is promoted (the other modes: their accumulator is f32 or f16 throughout) or
   where it is not known (fp8 elsewhere). */
int gv_env_tc_promotion(gv_mode mode, int sm);

/* "sm_90" -> 90 into *sm: GV_OK, or GV_EINVAL with a usage message (an architecture no
   published model has is named with those that have one). */
int gv_env_tc_arch_parse(const char *s, int *sm, char *why, size_t len);

/* One operand tensor as the model's block reads it: rows x cols of src (f64 values of the
   f32 storage) rounded to the model's input format to nearest even (the conversion the probe
   measured for tf32 and __float2half, __float2bfloat16 do), kept as f32 values (v, for the
   f32 orders over the same operands) and split once (s). transpose: stored cols x rows (B's
   columns contiguous). finite[r]: row r (after the transpose) holds only finite values.
   Scaled (fp8, per tensor): each value is first multiplied in f32 by s = 448 / amax, amax
   the largest |x| of the tensor (s = 1 where amax is 0, Inf or NaN), and rounded with
   saturation at +-448, as kernels/gemm.cu's quant_kernel does (__nv_cvt_float_to_fp8,
   __NV_SATFINITE) and src/ops/gemm_fp8.c's per-tensor recipe; descale = 1 / s in f32, what
   the product is multiplied by (1 where not scaled). */
typedef struct gv_env_tc_operand {
    float *v;
    gv_bfma_operand *s;
    bool *finite;
    float descale;
    float *descales; /* per line (GV_ENV_TC_PER_LINE): line r's descale; NULL: descale */
} gv_env_tc_operand;

/* How an operand is scaled before its rounding into an fp8 format: not at all; per tensor
   (fp8: one amax); per line, a row of A or a column of B (fp8row, cuBLASLt's OUTER_VEC_32F:
   s_r = 448 / amax of line r, the same recipe over each line, as src/ops/gemm_fp8.c's
   GK_FP8_OUTER groups) */
enum { GV_ENV_TC_UNSCALED = 0, GV_ENV_TC_PER_TENSOR = 1, GV_ENV_TC_PER_LINE = 2 };

/* GV_OK or GV_ENOMEM (nothing left allocated). scaling: GV_ENV_TC_*. */
int gv_env_tc_operand_make(const gv_bfma_model *m, const double *src, int64_t rows, int64_t cols,
                           bool transpose, int scaling, gv_env_tc_operand *o);

/* The descale of line r of o (1 where not scaled). */
static inline float gv_env_tc_descale(const gv_env_tc_operand *o, int64_t r)
{
    return o->descales ? o->descales[r] : o->descale;
}
void gv_env_tc_operand_free(gv_env_tc_operand *o);

/* The model's orders of sum over l < k of x[l] y[l] (x, y rows of k split operands, all
   finite) into res[0..GV_ENV_TC_NORD). */
void gv_env_tc_dot(const gv_bfma_model *m, const gv_bfma_operand *x, const gv_bfma_operand *y,
                   int64_t k, double *res);

/* The same with promotion every `promote` products (a multiple of m->block): each chunk of
   `promote` products a chain of blocks from c = 0 in the model's accumulator, its result
   added into an f32 accumulator (acc += chunk, from +0); split-K over whole chunks as
   gv_env_tc_dot's (S = 1, 2, .., 64 contiguous slices, each its own f32 accumulator, the
   partials added in slice order) into res[0..GV_ENV_TC_NORD). */
void gv_env_tc_dot_promoted(const gv_bfma_model *m, const gv_bfma_operand *x,
                            const gv_bfma_operand *y, int64_t k, int64_t promote, double *res);

#endif
