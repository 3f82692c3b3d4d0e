/* lowp.h: arrays stored in a low-precision format — bfloat16, binary16, OCP FP8 E4M3 and E5M2
 * (lowp.c) — on the route that judges outputs computed elsewhere (api/judge.c, gv_judge).
 * gpuval computes and judges in f32 or f64 only; a low-precision array is decoded exactly to f32
 * (every value of these formats is one), and a low-precision output is judged by the model of
 * its compute precision plus the output's rounding: the set of reals that round to the stored
 * value is an interval (half an ulp of the format each side; up to infinity where the format
 * overflows or saturates), and the output is consistent with the model when some point of that
 * interval is. The point judged is the one nearest to the reference (the projection of r onto
 * the interval): for any model whose allowed set is an interval holding r (the worst-case and
 * probabilistic bounds, the envelope), it is within the model exactly when the interval meets
 * the model's set. docs/error-models.md, "Low-precision outputs". */
#ifndef GV_API_LOWP_H
#define GV_API_LOWP_H

#include <stdbool.h>
#include <stdint.h>

#include "../../include/gpuval.h"

/* The low-precision formats, by their public dtype codes (GV_DTYPE_BF16 ...). */
typedef struct gv_lowp_info {
    int dtype;            /* GV_DTYPE_* */
    const char *name;     /* "bf16", "f16", "e4m3", "e5m2" */
    int bytes;            /* 2 or 1 */
    int p;                /* significand bits incl. the implicit one */
    int emin;             /* smallest normal 2^emin */
    double max_finite;    /* 3.3895e38, 65504, 448, 57344 */
    bool has_inf;         /* false for E4M3 (its top codes are NaN) */
    const char *overflow; /* what a value past the largest finite becomes, for the docs and rows */
} gv_lowp_info;

/* The entry of a low-precision dtype code; NULL for f32, f64 and anything else. */
const gv_lowp_info *gv_lowp_get(int dtype);
/* The name of any public dtype code ("f32", "bf16", ...), "?" for none. */
const char *gv_lowp_dtype_name(int dtype);
/* A dtype code from its name (f32, f64, bf16, f16, e4m3, e5m2); -1 for none. */
int gv_lowp_dtype_parse(const char *name);
/* Bytes per element of any public dtype code; 0 for none. */
int gv_lowp_dtype_bytes(int dtype);

/* Element i of a low-precision buffer as a double, exactly (NaN, infinities, subnormals). */
double gv_lowp_decode(const gv_lowp_info *f, const void *buf, int64_t i);
/* [*lo, *hi]: the reals that round to the stored value c under round-to-nearest-even (E4M3:
   saturating to +-448). NaN c gives NaN bounds. Both bounds are f32 values. */
void gv_lowp_preimage(const gv_lowp_info *f, double c, double *lo, double *hi);
/* dst[k] = the point of stored element k's preimage nearest ref[k] (the bounds are f32 values,
   so rounding the point to f32, as storing it to an f32 case does, keeps it inside). Where c
   or ref is NaN or ref is infinite, dst[k] is c itself: the judge's NaN/Inf placement rules
   see it unchanged. */
void gv_lowp_project(const gv_lowp_info *f, const void *buf, const double *ref, int64_t n,
                     double *dst);

/* Whether op family's outputs are judged element by element by the forward-error models that
   the output rounding adds to; NULL then, else why not (the family's rule, for the refusal). */
const char *gv_lowp_family_refused(const char *family);

#endif
