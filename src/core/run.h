/* run.h: one case end to end for a correctness run (run.c) — inputs (problem.h), reference
 * (reference.h), device, verdict (judge.h). Never times anything beyond wall-clock bookkeeping. */
#ifndef GV_RUN_H
#define GV_RUN_H

#include <pthread.h>
#include <stdbool.h>

#include "core/op.h"
#include "core/problem.h"

/* The whole correctness run of one case; the verdict and reason are in r. Returns GV_OK
 * (whatever the verdict) or a negative code for a failure of the harness itself. */
int gv_run_case(const gv_case *c, gv_result *r);

/* gv_run_case with given inputs (NULL: generated), and, when keep is not NULL, the case's
 * problem (inputs, the oracle's outputs, the device's outputs) handed to the caller instead of
 * freed: free it with gv_problem_free. *keep is all zeros (no tensors) when the case stopped
 * before its problem was built (a SKIP for memory, a layout error). */
int gv_run_case_io(const gv_case *c, gv_result *r, const gv_given_inputs *given, gv_problem *keep);

/* Given inputs over the generated ones of p (built by gv_problem_init), and what they are
 * into r (gv_result_set_inputs, inputs.h): the caller's word, except that a claim of
 * GENERATED holds only where the bits are the generator's. The step of gv_case_prepare that
 * check --inputs and replay take; GV_OK, or GV_EINVAL when the buffers do not match p's
 * layout. */
int gv_problem_given(gv_problem *p, const gv_given_inputs *given, gv_result *r);

/* The reference of p (the oracle cache, else the oracle) with its time and the cache's counts
   in r; a failure is r's ERROR with the oracle's reason. Returns the reference's status. */
int gv_problem_oracle(gv_problem *p, gv_result *r);

/* ---- One case in steps (the runner, runner.c, reports between them). gv_run_case_io is these
 * steps in order:
 *   gv_case_prepare   the result started, the case's size checks, its inputs (host only)
 *   gv_case_admit     the device-memory check, just before the device run
 *   gv_case_device_start   the device run, on a thread of its own when asked
 *   gv_case_oracle    the reference (cache or oracle) on the caller's thread
 *   gv_case_device_wait    the device run's end
 *   gv_case_finish    the verdict: the device's outcome, the judge, the problem freed
 * A step after one that decided the verdict (a SKIP, an ERROR) does nothing. The struct must
 * not move while its device run is pending: the device thread holds its address. */
typedef struct gv_case_run {
    gv_result *r;
    int repeat;
    gv_problem p;
    gk_launch L;
    gk_host_io io;
    bool have_problem;   /* p holds buffers */
    bool runnable;       /* inputs made and nothing decided: the device run and oracle follow */
    bool oracle_failed;  /* the verdict is the oracle's ERROR */
    /* the judgement may come from the memo (judge_memo.h; set by gv_case_prepare, cleared by a
       caller that keeps the problem: a kept case needs its reference) */
    bool memo_first;
    /* the reference is in the cache and was not read beside the device run: the outputs'
       judgement may be in the memo, and then the reference is never read (gv_case_finish) */
    bool oracle_later;
    bool device_pending; /* started, not yet waited for */
    bool device_thread;  /* running on `thread` */
    bool device_done;
    int device_rc;
    double device_ms;
    char device_error[256]; /* gk_last_error() as the device run left it */
    pthread_t thread;
} gv_case_run;

/* cr is reset first. repeat: the launches the caller asks for, raised for a repeat canary
   (gv_case_repeats, repeat.h). */
void gv_case_prepare(gv_case_run *cr, const gv_case *c, int repeat, gv_result *r,
                     const gv_given_inputs *given);
/* false when the case will not run on the device (decided earlier, or too little free device
   memory now: a SKIP with the numbers). */
bool gv_case_admit(gv_case_run *cr);
void gv_case_device_start(gv_case_run *cr, bool own_thread);
void gv_case_oracle(gv_case_run *cr);
void gv_case_device_wait(gv_case_run *cr);
/* keep as in gv_run_case_io. */
void gv_case_finish(gv_case_run *cr, gv_problem *keep);
#endif
