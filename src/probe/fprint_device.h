/* fprint_device.h: the probes' GEMM through an op's device entry (fprint_device.c): the same
 * gk_run, cuBLAS call and math mode a case of that op, dtype and mode makes. */
#ifndef GV_FPRINT_DEVICE_H
#define GV_FPRINT_DEVICE_H

#include "core/op.h"
#include "probe/fprint.h"

typedef struct gv_fp_device {
    const gv_op *op; /* a gemm-family op: C = A B, A m x k, B k x n, row-major */
    gv_dtype dtype;
    gv_mode mode;
    char math_mode[96]; /* what the op said it set, from the last call */
    int unsupported;    /* the last call was GV_EUNSUPPORTED (a SKIP, not an error) */
} gv_fp_device;

/* gv_fp_gemm_fn over ctx = a gv_fp_device. Every operand must be exact in the dtype (an
   internal error otherwise: a probe's construction is wrong). */
int gv_fp_device_gemm(void *ctx, int64_t m, int64_t k, int64_t n, const double *A, const double *B,
                      double *C, char *why, size_t len);

/* Whether op can be probed: a plain product C = A B (dims m,k,n, inputs A and B). */
bool gv_fp_op_probeable(const gv_op *op);

#endif
