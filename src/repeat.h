/* repeat.h: determinism, for check --repeat (implemented in repeat.c). A case is launched
 * again on the same inputs and its outputs compared with the first launch's bit for bit. An
 * op that declares itself deterministic (gv_op.nondeterministic NULL) FAILs on any
 * difference, naming the element; every op records the spread under "extra". */
#ifndef GV_REPEAT_H
#define GV_REPEAT_H

#include "op.h"

/* After the first launch of p was judged into r (its outputs in p->out[].data): launch the op
 * repeat - 1 more times through L (as gv_run_case filled it) and record the differences:
 * extras "repeats", "repeat_differing" (most elements that differed in one repeat),
 * "repeat_max_abs_diff" and "repeat_max_ulp_diff" (ulps of the storage dtype), and for a
 * deterministic op the check "repeat_identical" (differing elements, bound 0); then decides
 * r again. A repeat that fails to run makes r an ERROR naming the repeat. */
void gv_repeat_judge(const gv_problem *p, gk_launch *L, gv_result *r, int repeat);

#endif
