/* run.h: one case end to end for a correctness run — inputs, oracle, device, compare,
 * verdict. Never times anything beyond wall-clock bookkeeping. */
#ifndef GV_RUN_H
#define GV_RUN_H

#include <pthread.h>
#include <stdbool.h>

#include "op.h"

/* Record an extra named number in r (ignored past GV_MAX_EXTRA). */
void gv_result_extra(struct gv_result *r, const char *name, double value);
/* Record a measurement with its bound; why (printf-style) explains a failure in the row. */
void gv_result_check(struct gv_result *r, const char *name, double value, double bound,
                     const char *why_fmt, ...) __attribute__((format(printf, 5, 6)));

/* Inputs: fill tensor in[i] with dist for the case's (seed, tensor i): ref gets the values
 * rounded to dtype, data the dtype copy. */
void gv_fill(gv_problem *p, int i, gv_dist dist);
/* Round in[i].ref to the dtype in place and write data from it (for structured inputs). */
void gv_store_rounded(gv_problem *p, int i);

/* The reason of a case whose oracle (or gauge, or input builder) hook failed with the gv_err
 * rc: "STAGE: " + the oracle's own message when it recorded one since go_clear_error()
 * ("go_gemm: argument 5 (lda) is invalid", oracle/go.h), else gv_strerror(rc). */
void gv_oracle_reason(int rc, const char *stage, char *why, size_t len);

/* Build the host problem for a case (layout, allocation, inputs). */
int gv_problem_init(gv_problem *p, const gv_case *c);
void gv_problem_free(gv_problem *p);
/* The device launch of p's case: its dtype, mode, dims, tensor counts and names, workspace and
   aux data into L, and p's input and output buffers into io (both zeroed first). */
void gv_problem_launch(const gv_problem *p, gk_launch *L, gk_host_io *io);
/* The f64 reference and the error model's gauge: op->oracle, then op->gauge if any. */
int gv_reference(gv_problem *p);
/* The error models' gauges alone (op->gauge, then op->pgauge), after the oracle: kept apart
 * so timed runs time the CPU's computation without the models' bookkeeping. */
int gv_error_gauges(gv_problem *p);

/* Bytes of device memory the case needs (tensors + workspace). */
int64_t gv_device_bytes(const gv_problem *p); /* INT64_MAX when more than that */
/* Host bytes a case's problem takes (f64 and dtype copies, reference and gauge). */
double gv_host_bytes(const gv_layout *l, gv_dtype t);

/* Start a result for a case: the case, tiers, the op's error model (u, depth, ratio bound),
 * its expected tier, flops and bytes; verdict PASS, no metrics yet. gv_judge reads these. */
void gv_result_init(gv_result *r, const gv_case *c, const gv_tiers *tiers);

/* Judge the outputs already in p->out[].data against p->out[].ref: fills r, which
 * gv_result_init must have started. Used by gv_run_case and by tests that plant results by
 * hand. */
void gv_judge(const gv_problem *p, gv_result *r);

/* The one verdict rule, from what r holds (metrics, checks, guard report, models), in this
 * precedence: guard (a red zone or an input written) > unwritten elements > the harness's
 * own broken contract (ERROR) > nothing to judge (SKIP) > NaN/Inf placement > the op's
 * checks (residuals against their bounds) > worst-case error model > probabilistic model >
 * exact probe > expected tier. Used by check, bench's sanity verdict and the tests. */
void gv_decide(gv_result *r);

/* The whole correctness run of one case; the verdict and reason are in r. Returns GV_OK
 * (whatever the verdict) or a negative code for a failure of the harness itself. */
int gv_run_case(const gv_case *c, const gv_tiers *tiers, gv_result *r);
/* The same, launching the op `repeat` times on the same inputs (check --repeat): the first
 * launch is judged as above, the others must give bit-identical outputs unless the op
 * declares itself nondeterministic (repeat.h). repeat 1 is gv_run_case. */
int gv_run_case_repeat(const gv_case *c, const gv_tiers *tiers, int repeat, gv_result *r);

/* Inputs given from outside (check --inputs, replay): one buffer per input tensor, in the case's
 * dtype and the layout's order and counts. They replace the generated inputs bit for bit (the
 * op's input maker still runs first, for the structure it derives from the seed). */
typedef struct gv_given_inputs {
    int n;
    const void *data[GV_MAX_TENSORS];
    int64_t count[GV_MAX_TENSORS];
} gv_given_inputs;

/* gv_run_case with given inputs (NULL: generated), and, when keep is not NULL, the case's
 * problem (inputs, the oracle's outputs, the device's outputs) handed to the caller instead of
 * freed: free it with gv_problem_free. *keep is all zeros (no tensors) when the case stopped
 * before its problem was built (a SKIP for memory, a layout error). */
int gv_run_case_io(const gv_case *c, const gv_tiers *tiers, gv_result *r,
                   const gv_given_inputs *given, gv_problem *keep);
/* Both: repeat launches (gv_run_case_repeat) on given or generated inputs, the problem kept
 * when keep is not NULL (gv_run_case_io). */
int gv_run_case_full(const gv_case *c, const gv_tiers *tiers, int repeat, gv_result *r,
                     const gv_given_inputs *given, gv_problem *keep);

/* ---- One case in steps, for running the next case's host work while this one's device run
 * goes on (isolate.c). gv_run_case_full is these steps in order:
 *   gv_case_prepare   the result started, the case's size checks, its inputs (host only)
 *   gv_case_admit     the device-memory check, just before the device run
 *   gv_case_device_start   the device run, on a thread of its own when asked
 *   gv_case_oracle    the reference (cache or oracle) on the caller's thread
 *   gv_case_device_wait    the device run's end
 *   gv_case_finish    the verdict: the device's outcome, the judge, the problem freed
 * A step after one that decided the verdict (a SKIP, an ERROR) does nothing. The struct must
 * not move while its device run is pending: the device thread holds its address. */
typedef void (*gv_device_note)(int index, bool ended, void *ctx);
typedef struct gv_case_run {
    int index;                /* the caller's number for the case, passed to on_device */
    gv_device_note on_device; /* when set: called on the device thread at its start and end */
    void *on_device_ctx;
    gv_result *r;
    int repeat;
    gv_problem p;
    gk_launch L;
    gk_host_io io;
    bool have_problem;   /* p holds buffers */
    bool runnable;       /* inputs made and nothing decided: the device run and oracle follow */
    bool oracle_failed;  /* the verdict is the oracle's ERROR */
    bool device_pending; /* started, not yet waited for */
    bool device_thread;  /* running on `thread` */
    bool device_done;
    int device_rc;
    double device_ms;
    char device_error[256]; /* gk_last_error() as the device run left it */
    pthread_t thread;
} gv_case_run;

/* cr's index and on_device are kept; everything else is reset. */
void gv_case_prepare(gv_case_run *cr, const gv_case *c, const gv_tiers *tiers, int repeat,
                     gv_result *r, const gv_given_inputs *given);
/* false when the case will not run on the device (decided earlier, or too little free device
   memory now: a SKIP with the numbers). */
bool gv_case_admit(gv_case_run *cr);
void gv_case_device_start(gv_case_run *cr, bool own_thread);
void gv_case_oracle(gv_case_run *cr);
void gv_case_device_wait(gv_case_run *cr);
/* The device run ended in an error that may have lost the CUDA context (not OK, a guard
   violation, too little memory or an unsupported mode): no other case may start on it. */
bool gv_case_device_broke(const gv_case_run *cr);
/* keep as in gv_run_case_io. */
void gv_case_finish(gv_case_run *cr, gv_problem *keep);
/* GPUVAL_PIPELINE=1 (and not GPUVAL_SERIAL_CASE=1): a check overlaps the next case's host
   work with this case's device run (isolate.c). Off by default: on the H100 host measured it
   was first slower, then the same within the spread (docs/DESIGN.md). */
bool gv_pipeline_wanted(void);
/* GPUVAL_SERIAL_CASE=1: every step on one thread, one case at a time (to measure what the
   overlaps save, or for a debugger). */
bool gv_serial_wanted(void);

#endif
