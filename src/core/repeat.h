/* repeat.h: determinism, for check --repeat (implemented in repeat.c). A case is launched
 * again on the same inputs and its outputs compared with the first launch's bit for bit. An
 * op that declares itself deterministic (gv_op.nondeterministic NULL) FAILs on any
 * difference, naming the element; every op records the spread under "extra". */
#ifndef GV_REPEAT_H
#define GV_REPEAT_H

#include "core/op.h"

/* After the first launch of p was judged into r (its outputs in p->out[].data): launch the op
 * repeat - 1 more times through L (as gv_run_case filled it) and record the differences:
 * extras "repeats", "repeat_differing" (most elements that differed in one repeat),
 * "repeat_max_abs_diff" and "repeat_max_ulp_diff" (ulps of the storage dtype), and for a
 * deterministic op the check "repeat_identical" (differing elements, bound 0); then decides
 * r again. A repeat that fails to run makes r an ERROR naming the repeat. */
void gv_repeat_judge(const gv_problem *p, gk_launch *L, gv_result *r, int repeat);

/* The differences of one repeat from the first launch, over all outputs. */
typedef struct gv_repeat_diff {
    int64_t differing;   /* elements whose bytes differ (-0 and +0 do; two NaNs may) */
    int64_t first_index; /* the first of them, in output first_output */
    int first_output;
    double first_a, first_b; /* its values: first launch, this repeat */
    double max_abs, max_ulp; /* the largest |a - b| (Inf where one is NaN), in ulps of b's dtype */
} gv_repeat_diff;

/* Fold output i of a repeat (again: count elements of the case's dtype) into d, which starts
 * zeroed; p->out[i].data holds the first launch's. */
void gv_repeat_diff_output(const gv_problem *p, int i, const void *again, gv_repeat_diff *d);

/* Record repeats in r and decide it again: the extras, and for a deterministic op the check
 * "repeat_identical". first: the first repeat that differed (number first_repeat, 0 if none);
 * worst: the most differing elements and the largest differences over all repeats. */
void gv_repeat_record(const gv_problem *p, gv_result *r, int repeat, int first_repeat,
                      const gv_repeat_diff *first, const gv_repeat_diff *worst);

#endif
