/* judge_memo.h: a judgement kept beside the references in the oracle cache (cache.h), so that
 * an output judged once is not judged again (judge_memo.c).
 *
 * The judge is a pure function of the case, its inputs, its reference and the bytes the device
 * wrote, under the host code that judges them. A check of code whose outputs did not change
 * (the kernels not touched since the last run, or touched without changing a bit) judges the
 * same bits again, and on large cases that is the run's largest host cost. The memo keys a
 * judgement on all of it: the case, a hash of its inputs, a hash of every output byte, the
 * math mode the kernel reported, the hash of every host source the judgement depends on
 * (src/core, src/ops, oracle, abi and the headers of kernels: GV_JUDGE_SRC_HASH, at every build) and the
 * oracle cache's version (the libraries that make the reference). A kernel that changes one
 * bit of one output misses and is judged in full; so is every case after any change to the
 * judge, the models or the oracles. Only generated inputs, one launch (no --repeat), outputs
 * that came back without a guard violation; never given data (judge, --inputs).
 * GPUVAL_NO_JUDGE_CACHE=1 or `check --no-cache` turns it off; check turns it on. */
#ifndef GV_JUDGE_MEMO_H
#define GV_JUDGE_MEMO_H

#include <stdbool.h>

#include "core/op.h"

/* gv_result.judge_memo */
enum { GV_JUDGE_MEMO_OFF = 0, GV_JUDGE_MEMO_HIT, GV_JUDGE_MEMO_STORED, GV_JUDGE_MEMO_MISS };

/* The word for r->judge_memo in a run's record: "off", "hit", "stored", "miss". */
const char *gv_judge_memo_name(int judge_memo);

/* Let this process's cases use the memo (check does); off by default. */
void gv_judge_memo_enable(bool on);

/* Whether a case whose result r is (before its judge) may take its judgement from the memo,
   as far as the case tells before its outputs exist: the memo on, generated inputs, one
   launch (repeat), no ftz or daz claimed. */
bool gv_judge_memo_may(const gv_result *r, int repeat);

/* The stored judgement of p's outputs into r (everything the judge writes; the run's own
   timings, cache counts and device bytes stay r's): GV_JUDGE_MEMO_HIT; MISS where none is
   kept (r untouched); OFF where the memo does not apply. p's inputs hash must be known
   (gv_cached_reference or gv_reference_kept made it). */
int gv_judge_memo_take(const gv_problem *p, gv_result *r, int repeat);

/* After gv_judge_problem: its judgement r stored for p's outputs where the memo applies
   (r->judge_memo STORED; MISS where it could not be written; OFF where it does not apply). */
void gv_judge_memo_store(const gv_problem *p, gv_result *r, int repeat);

/* gv_judge_memo_take, else gv_judge_problem and gv_judge_memo_store. */
void gv_judge_or_memo(const gv_problem *p, gv_result *r, int repeat);

#endif
