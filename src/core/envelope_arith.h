/* envelope_arith.h: the arithmetics the envelope models (envelope_arith.c): the claimed
 * precision's and the impostors it is told apart from, each a row of one table, and the list
 * of them a case's dtype, mode and op kind call for. Internal to the envelope (envelope.c);
 * the order parsing of envelope.h lives beside the table. */
#ifndef GV_ENVELOPE_ARITH_H
#define GV_ENVELOPE_ARITH_H

#include <stdbool.h>

#include "core/envelope_types.h"
#include "core/op.h"

/* The arithmetics an envelope models. Operand rounding (bits > 0) rounds each input to that
   many significant bits, to nearest even, before the claimed precision's orders run; rz runs
   them rounding toward zero. A tensor-core arithmetic (tc, a mode with a block-FMA model:
   envelope_tc.h) rounds the operands into the model's input format and runs the model's block
   orders, and where f32_orders also the f32 orders over the same operands (a TF32 product
   on CUDA cores, or on an architecture whose block is another: the same operands, each
   order legal); its results are rounded to acc_bits (0: the dtype's) with normals from
   2^acc_emin. */
typedef struct gv_env_arith {
    const char *name, *key, *extra; /* "tf32 operands", "tf32", "envelope_match_tf32" */
    int bits;                       /* operands rounded to this many bits; 0: as given */
    bool rz;                        /* every operation rounds toward zero */
    gv_mode tc;                     /* the tensor-core mode modelled; GV_MODE_NATIVE: none */
    bool f32_orders;
    int acc_bits, acc_emin;
    /* fp8: how the operands are scaled (GV_ENV_TC_UNSCALED, _PER_TENSOR, or _PER_LINE: per
       row of A and column of B, fp8row; gv_env_tc_operand), the sums promoted to f32 at the
       architecture's interval (gv_env_tc_promotion; false: never, cuBLASLt's fast
       accumulation), and sigma_bits the precision of the width's sigma (0: acc_bits'): the
       promoted sums are f32's, the block results 14 bits (acc_bits: an ulp of them) */
    int scaling;
    bool promoted;
    int sigma_bits;
    /* its operand-rounding signature's extras (envelope_sig_beta_KEY, envelope_sig_z_KEY);
       NULL: no direction (the same operands as the claimed arithmetic's, or scaled ones) */
    const char *sig_beta, *sig_z;
    bool trunc; /* operands rounded toward zero to `bits` (a direction only, gv_env_sigs) */
} gv_env_arith;

/* The arithmetics of a case into ar[0..return): the claimed one first, then its impostors.
   A tensor-core mode (a product in f32 whose model gv_envelope_applies found for sm): its
   model, the impostor formats sm has a model of, then plain f32. Native: f32 or f64 in any
   order; for an f32 product tf32 and bf16 operands, for an f64 one 40-bit operands; then
   accumulation rounding toward zero. At most GV_ENV_MAX_ARITH. */
int gv_env_ariths(gv_mode mode, int sm, bool f32, bool product, const gv_env_arith **ar);

/* The operand-rounding signature's directions of a product whose arithmetics are ar[0..na)
   into sig[0..return) (at most GV_ENV_MAX_SIG), of[s] the arithmetic whose operands direction
   s takes (-1: its own, rounded as sig[s] says). Native f32: TF32 and bf16 operands to
   nearest, TF32 operands truncated; native f64: 40-bit operands; a tensor-core claim without
   scales: each impostor model without scales. None for a sum. */
int gv_env_sigs(const gv_env_arith *const *ar, int na, bool product, const gv_env_arith **sig,
                int *of);

#endif
