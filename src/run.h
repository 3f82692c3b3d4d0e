/* run.h: one case end to end for a correctness run — inputs, oracle, device, compare,
 * verdict. Never times anything beyond wall-clock bookkeeping. */
#ifndef GV_RUN_H
#define GV_RUN_H

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

#endif
