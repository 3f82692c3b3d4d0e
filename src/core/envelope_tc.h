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
   with why not into why: a mode without a tensor-core model (native, the emulations), fp8
   (its per-tensor scales and cuBLASLt's promotion are not modelled here), or an architecture
   the published models leave out. */
const gv_bfma_model *gv_env_tc_model(gv_mode mode, int sm, char *why, size_t len);

/* "sm_90" -> 90 into *sm: GV_OK, or GV_EINVAL with a usage message (an architecture no
   published model has is named with those that have one). */
int gv_env_tc_arch_parse(const char *s, int *sm, char *why, size_t len);

/* One operand tensor as the model's block reads it: rows x cols of src (f64 values of the
   f32 storage) rounded to the model's input format to nearest even (the conversion the probe
   measured for tf32 and __float2half, __float2bfloat16 do), kept as f32 values (v, for the
   f32 orders over the same operands) and split once (s). transpose: stored cols x rows (B's
   columns contiguous). finite[r]: row r (after the transpose) holds only finite values. */
typedef struct gv_env_tc_operand {
    float *v;
    gv_bfma_operand *s;
    bool *finite;
} gv_env_tc_operand;

/* GV_OK or GV_ENOMEM (nothing left allocated). */
int gv_env_tc_operand_make(const gv_bfma_model *m, const double *src, int64_t rows, int64_t cols,
                           bool transpose, gv_env_tc_operand *o);
void gv_env_tc_operand_free(gv_env_tc_operand *o);

/* The model's orders of sum over l < k of x[l] y[l] (x, y rows of k split operands, all
   finite) into res[0..GV_ENV_TC_NORD). */
void gv_env_tc_dot(const gv_bfma_model *m, const gv_bfma_operand *x, const gv_bfma_operand *y,
                   int64_t k, double *res);

#endif
