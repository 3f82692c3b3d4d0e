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
   the mode table's rows marked cublas (abi/gv_abi.h: default math, BF16x9 f32 emulation, f64
   fixed-point emulation with library-chosen and fixed mantissa widths), which also says which
   dtypes each applies to. A constant expression: descriptors use it in initialisers. */
#define GV_CUBLAS_BIT_(e, name, bits, acc, dtypes, tier, rn, catalogue, in, out, bfma, cublas,     \
                       cc_min, cc_end, need, need_after, emulated, what)                           \
    | ((cublas) ? GV_BIT(e) : 0u)
#define GV_CUBLAS_MODES (0u GV_MODES(GV_CUBLAS_BIT_))

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

/* gemm.c: Z = A B (A = in[ia], m x k; B = in[ib], k x n; the case's shape m x k x n) from the
   operands as the case's mode converts them (the mode table's probe_in format), at the
   elements whose NaN and Inf placement the conversion may change: a row of A or column of B
   whose operand went between finite and not, an infinity beside an operand that became zero,
   and, given the plain gauge |A||B|, a sum near the output format's overflow. mark (m n bytes)
   says which, *marked how many; z (m n) is written there only. A mode without a conversion
   marks none. For the ops' mode_reference hooks (op.h). */
int gv_converted_product(const gv_problem *p, int ia, int ib, const double *gauge,
                         unsigned char *mark, double *z, int64_t *marked);

#endif
