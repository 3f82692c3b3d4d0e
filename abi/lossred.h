/* lossred.h: the constants kernels/lossred.cu and src/ops/lossred.c share for the losses
 * reduced to one value over a batch: TripletMarginLoss's defaults (margin 1; p 2; eps 1e-6,
 * which torch's pairwise_distance adds to each difference, a - p + eps, before the norm). The
 * kernel rounds eps to the case's dtype; the oracle takes it as given (f64). */
#ifndef GV_ABI_LOSSRED_H
#define GV_ABI_LOSSRED_H

#define GK_TRIPLET_EPS    1e-6
#define GK_TRIPLET_MARGIN 1.0

#endif
