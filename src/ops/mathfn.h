/* mathfn.h: the documented error bounds of the mathfn family's functions and the ulp distance
 * they are stated in (src/ops/mathfn.c), for the family's error model and measure hook and for
 * the tests that check them. Error model: docs/error-models.md, section mathfn. */
#ifndef GV_OPS_MATHFN_H
#define GV_OPS_MATHFN_H

#include "core/op.h"

typedef enum gv_mathfn_fn { GV_MATHFN_SIN, GV_MATHFN_EXP, GV_MATHFN_SIGMOID } gv_mathfn_fn;

/* What a source states for one argument: a distance in ulps from the correctly rounded
   result (ULP), an absolute error (ABS), or nothing (NONE: the function's documentation
   states no bound for that argument or result; value INFINITY). */
typedef enum gv_mathfn_bound_kind {
    GV_MATHFN_ULP,
    GV_MATHFN_ABS,
    GV_MATHFN_NONE
} gv_mathfn_bound_kind;

typedef struct gv_mathfn_bound {
    gv_mathfn_bound_kind kind;
    double value;         /* ulps (ULP) or absolute (ABS); INFINITY (NONE) */
    const char *function; /* the device function the label claims: "sinf", "__expf", ... */
    const char *source;   /* where the value comes from, short enough for a verdict's reason */
} gv_mathfn_bound;

/* The function of a mathfn op (its name's "math.F" prefix; planted variants share their
   function's); -1 for an op of another family. */
int gv_mathfn_of(const gv_op *op);

/* The bound that case c's label claims at argument x with exact result y (y decides where
   a bound holds only for normal results): the native function's for the native mode (planted
   variants included: their label is native), the intrinsic's for fastmath. */
gv_mathfn_bound gv_mathfn_bound_at(const gv_case *c, double x, double y);

/* The distance in ulps between a and b, values of dtype t: the number of representable values
   of t one passes going from one to the other (one a step; +0 and -0 are one value), which
   within one binade is |a - b| / ulp and at a power of two counts each side's own spacing,
   subnormal spacing included. INFINITY where either is NaN or infinite and they differ. */
double gv_mathfn_ulp_distance(gv_dtype t, double a, double b);

#endif
