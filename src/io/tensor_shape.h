/* tensor_shape.h: a case's tensor shapes from its op's declarations (tensor_shape.c): the op's
 * in_dims and out_dims in terms of its dims ("m,k;k,n"), or its tensor_shape hook. Apart from
 * case_io.h so that the run document's writer (run_doc.c), which case_io uses, can name where a
 * worst element lies without a circle. */
#ifndef GV_TENSOR_SHAPE_H
#define GV_TENSOR_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/op.h"

/* The shape of a case's input i (or output i) as an array: the op's tensor shapes in terms of
 * its dims (a gemm's A is m x k), where the op's family declares them, with a last dim of 2
 * for a complex tensor; else the op's tensor_shape hook; otherwise the flat count. Returns nd (at
 * most GV_NPY_MAX_DIMS, io/npy.h). */
int gv_tensor_shape(const gv_case *c, const gv_layout *l, bool output, int i, int64_t *shape);

/* Whether input i (output i when output) of op holds complex values (op.h's complex_in and
   complex_out): its shape's last dim is the (re, im) pair. */
bool gv_tensor_complex(const gv_op *op, bool output, int i);

/* Field i of a ';'-list ("m,k;k,n") into buf: "" when absent. */
void gv_dims_field(const char *list, int i, char *buf, size_t len);
/* The indices among the op's dims ("m,k,n") of a tensor's expression ("m,k") into idx[] (-1 for
 * a name that is not one of them; GV_DIM_FIXED(N) for a number N >= 1, a side the op fixes: a
 * convolution's window, "o,c,3,3"); returns how many (0: flat). */
int gv_dims_expr(const char *dims, const char *expr, int *idx);
#define GV_DIM_FIXED(n)      (-2 - (int)(n))
#define GV_DIM_IS_FIXED(i)   ((i) <= -3)
#define GV_DIM_FIXED_SIDE(i) ((int64_t)(-2 - (i)))

#endif
