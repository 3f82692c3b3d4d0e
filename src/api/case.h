/* case.h: one case from names (case.c), the first step of the public judge and inputs API
 * (judge.h, inputs.h) and of `gpuval judge` and `gpuval inputs`. No device is used. */
#ifndef GV_API_CASE_H
#define GV_API_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/op.h"

/* Write the printf-style message into err (len bytes; nothing when err is NULL or len 0) and
   return rc: the one way an api function hands back an error code with its reason. */
int gv_api_error(char *err, size_t len, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* An op by its name or its family's ("gemm": the family's first op); NULL if none. */
const gv_op *gv_judge_find_op(const char *name);

/* One case from names, checked: op (gv_judge_find_op), dtype (GV_DTYPE_*), mode (NULL:
   native), size (one shape in the op's dims), dist (NULL: the op's default), seed; and its
   layout into l. GV_OK, or GV_EINVAL with the reason in err. */
int gv_judge_case_make(const char *op, int dtype, const char *mode, const char *size,
                       const char *dist, uint64_t seed, gv_case *c, gv_layout *l, char *err,
                       size_t errlen);

/* The shape (C order) of input i (output when `output`) of case c with layout l: nd. */
int gv_judge_tensor_shape(const gv_case *c, const gv_layout *l, bool output, int i,
                          int64_t shape[GV_MAX_DIMS]);

#endif
