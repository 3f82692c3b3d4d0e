/* model_floor.h: what a mode that rounds its inputs cannot do better than (model_floor.c).
 * A path that really rounds gemm's operands to p bits carries their rounding error whatever
 * its accumulation does; the RMS of the probabilistic model's R it must show at least is
 * estimated here from the inputs themselves, so `gpuval tradeoffs` can flag a mode far
 * below it (docs/error-models.md, "Better than its model"). Host C only. */
#ifndef GV_MODEL_FLOOR_H
#define GV_MODEL_FLOOR_H

#include <stdint.h>

#include "core/op.h"

/* A row is flagged when its RMS R lies below floor / GV_PROB_FLOOR_FACTOR (with at least
   GV_PROB_RMS_MIN_N elements judged). */
#define GV_PROB_FLOOR_FACTOR 8.0

/* x rounded to p significant bits, to nearest (ties to even), no exponent range. */
double gv_round_bits(double x, int p);

/* The x^2-weighted mean square relative rounding error of n values rounded to p bits:
   sum (RN_p(x) - x)^2 / sum x^2 (0 when every x is 0 or on the grid; non-finite x skipped). */
double gv_rounding_msq(const double *x, int64_t n, int p);

/* The RMS R that rounding gemm's two operands to the mode's input bits alone gives on p's
   inputs: sqrt(mean_i (s_A + s_B) (G_i - |r_i|)^2 / (w G_i)^2) over outputs with finite
   reference and positive gauge, s_X = gv_rounding_msq of operand X. G_i - |r_i| is
   sqrt(sum_k (a_ik b_kj)^2), the probabilistic gauge of the gemm family. 0 where no floor is
   known: the model off, a mode that keeps the inputs as stored, an op outside gemm. */
double gv_prob_floor(const gv_problem *p, const gv_result *r);

#endif
