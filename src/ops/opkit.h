/* opkit.h: small helpers shared by the op descriptors in src/ops/ (bit masks, the common
 * flop/byte shapes, oracle-call checking). Header-only so each op file stays one idea. */
#ifndef GV_OPKIT_H
#define GV_OPKIT_H

#include <math.h>
#include <stdio.h>

#include "../../oracle/go.h"
#include "core/op.h"
#include "core/judge.h"
#include "core/problem.h"
#include "core/reference.h"

#define GV_BIT(x)      (1u << (x))
#define GV_BOTH_DTYPES (GV_BIT(GV_F32) | GV_BIT(GV_F64))
#define GV_ALL_DISTS                                                                               \
    (GV_BIT(GV_DIST_UNIFORM01) | GV_BIT(GV_DIST_UNIFORM11) | GV_BIT(GV_DIST_SMALLINT) |            \
     GV_BIT(GV_DIST_SPECIAL) | GV_BIT(GV_DIST_OFFGRID))
#define GV_FINITE_DISTS                                                                            \
    (GV_BIT(GV_DIST_UNIFORM01) | GV_BIT(GV_DIST_UNIFORM11) | GV_BIT(GV_DIST_SMALLINT) |            \
     GV_BIT(GV_DIST_OFFGRID))

/* The edge distributions (docs/error-models.md, "The edges"): the dtype's subnormals, its
   overflow threshold, and a few NaN, +-Inf and -0 among ordinary values. */
#define GV_EDGE_DISTS                                                                              \
    (GV_BIT(GV_DIST_TINY) | GV_BIT(GV_DIST_HUGE) | GV_BIT(GV_DIST_SPARSE_SPECIAL))

/* The cuBLAS math modes and emulations any op built on cuBLAS S/Dgemm can run (gk_cublas):
   default math, BF16x9 f32 emulation, f64 fixed-point emulation (library-chosen and fixed
   mantissa widths). The mode table (abi/gv_abi.h) says which dtypes each applies to. */
#define GV_CUBLAS_MODES                                                                            \
    (GV_BIT(GV_MODE_DEFAULT) | GV_BIT(GV_MODE_BF16X9) | GV_BIT(GV_MODE_FP64EMU) |                  \
     GV_BIT(GV_MODE_FP64EMU_32) | GV_BIT(GV_MODE_FP64EMU_40) | GV_BIT(GV_MODE_FP64EMU_48) |        \
     GV_BIT(GV_MODE_FP64EMU_56))

static inline double gv_esize(const gv_case *c)
{
    return (double)gv_dtype_size(c->dtype);
}

/* An oracle's return (oracle/go.h: 0, -i for a bad argument i, GO_ENOMEM) as a gv_err. The
   argument's index and name are not lost: go_last_error() holds the oracle's own message,
   "go_gemm: argument 5 (lda) is invalid", for the case's ERROR reason (gv_oracle_reason). */
static inline int gv_oracle_rc(int rc)
{
    return rc == 0 ? GV_OK : rc == GO_ENOMEM ? GV_ENOMEM : GV_EINVAL;
}

#endif
