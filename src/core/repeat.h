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

/* ---- Repeat canaries (gv_op.repeat_canaries) ---------------------------------------------
 * Native cases of the catalogue that are launched several times on the same inputs and
 * judged as check --repeat judges (gv_repeat_judge), without --repeat: for the ops whose
 * blocks communicate inside one launch. A case is a repeat canary by what it is (op, native
 * mode, distribution and shape), not by how it was selected, so it is judged the same in
 * check, in the GPU suite, in a fleet worker or replayed from a run file. */
#define GV_MAX_REPEAT_CANARIES 8
#define GV_REPEAT_CANARY_MAX   64 /* most launches one canary may ask for */

/* op->repeat_canaries ("DIST:SHAPE:LAUNCHES,...") into dists, shapes and launches (at most
 * max entries): the count (0 for NULL), or GV_EINVAL with err naming the op: a malformed entry,
 * a distribution the op does not take, launches outside 2..GV_REPEAT_CANARY_MAX, more than
 * max entries (gv_select also checks each shape against the op). */
int gv_repeat_canaries_parse(const gv_op *op, gv_dist *dists, gv_shape *shapes, int *launches,
                             int max, char *err, size_t errlen);

/* The launches case c gets when the caller asks for repeat (1: one launch): more where c is
 * one of its op's repeat canaries (native mode, the canary's distribution and shape); the
 * larger of the two. A malformed list counts as none (gv_select refuses it first). */
int gv_case_repeats(const gv_case *c, int repeat);

/* The same dims, dim for dim. */
bool gv_repeat_same_shape(const gv_shape *a, const gv_shape *b);

#endif
