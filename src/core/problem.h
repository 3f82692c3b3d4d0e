/* problem.h: a case's host problem (problem.c) — its layout and buffers, its inputs rounded to
 * the storage dtype (the oracle computes on the rounded values), the sizes it needs, the inputs
 * a user gives instead, and its device launch. */
#ifndef GV_PROBLEM_H
#define GV_PROBLEM_H

#include "core/op.h"

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
/* gv_problem_init, where an f64 case's inputs keep one buffer for the oracle's values (ref)
   and the device's copy (data): they are the same bytes, and a check's case writes neither
   after its inputs are made (the oracle and the device run only read them; given inputs are
   written into data and ref both, and must not use it). Half the host memory of an f64
   case's inputs, none of it copied. gv_problem_free frees it once. */
int gv_problem_init_shared(gv_problem *p, const gv_case *c);
void gv_problem_free(gv_problem *p);
/* The device launch of p's case: its dtype, mode, dims, tensor counts and names, workspace and
   aux data into L, and p's input and output buffers into io (both zeroed first). */
void gv_problem_launch(const gv_problem *p, gk_launch *L, gk_host_io *io);
/* Bytes of device memory the case needs (tensors + workspace). */
int64_t gv_device_bytes(const gv_problem *p); /* INT64_MAX when more than that */
/* The exact reference is asked for (and ref_lo allocated): the op has one, the case is f64 (an
 * f32 result's own rounding dwarfs the f64 oracle's), and its work is at most
 * GV_EXACT_MAX_FLOPS (the integer sums cost about what a naive triple loop does: 2^35 flops,
 * a 2048^3 product or the 1024x4096x1024 canaries, take about a second on 16 cores; the
 * 4096^3 catalogue products keep the f64 oracle). Where the inputs are off the grid the
 * oracle judges all the same (gv_problem's ref_exact). */
#define GV_EXACT_MAX_FLOPS 0x1p35
bool gv_exact_wanted(const gv_case *c);

/* Host bytes a case's problem takes (f64 and dtype copies, reference and gauge). */
double gv_host_bytes(const gv_layout *l, gv_dtype t);

/* The host's memory in bytes (MemTotal of /proc/meminfo; 0 when unknown). Total rather than
 * available: some virtual machines grow their memory as it is used. */
double gv_host_memory_bytes(void);

/* Host bytes one case takes at its peak, from its layout: every buffer gv_problem_init takes
 * (an input's f64 and dtype copies; an output's reference, dtype copy, gauge, G where the op
 * has pgauge, remainder where gv_exact_wanted), the op's oracle_scratch_bytes, and
 * GV_HOST_PROCESS_BYTES for the rest of the process (the CUDA context, the pinned staging
 * buffers, the judge's per-chunk metrics). */
#define GV_HOST_PROCESS_BYTES ((double)(1u << 30))
double gv_case_host_bytes(const gv_case *c, const gv_layout *l);
/* MemAvailable of /proc/meminfo plus the bytes this thread's buffer pool keeps; 0 when
 * unknown. */
double gv_host_available_bytes(void);
/* Free the buffers this thread's pool keeps between cases. */
void gv_pool_release(void);
/* Whether the host can hold case c (layout l): GV_OK, or GV_ENOMEM with why ("needs 94.5 GB of
 * host memory, 30.1 GB available"). Every case is measured against MemTotal (the most it could
 * ever have; see gv_host_memory_bytes); a case that needs GV_HOST_AVAILABLE_CHECK_BYTES or more
 * (the large tier's, where a wrong guess swaps tens of gigabytes or wakes the OOM killer) also
 * against what is available now, after the pool's kept buffers are given back. */
#define GV_HOST_AVAILABLE_CHECK_BYTES ((double)(16ull << 30))
int gv_host_memory_check(const gv_case *c, const gv_layout *l, char *why, size_t len);

/* Inputs given from outside (check --inputs, replay): one buffer per input tensor, in the case's
 * dtype and the layout's order and counts. They replace the generated inputs bit for bit (the
 * op's input maker still runs first, for the structure it derives from the seed). */
typedef struct gv_given_inputs {
    int n;
    const void *data[GV_MAX_TENSORS];
    int64_t count[GV_MAX_TENSORS];
    /* what the caller says they are: GIVEN (a user's arrays), DECLARED (a user's, declared
       fit for the probabilistic model), or GENERATED (the generator's own, as in a dump of a
       generated case: checked against the generator's bits, given where they differ) */
    gv_inputs inputs;
} gv_given_inputs;

/* The given inputs into p's input tensors (data bit for bit, ref its exact f64 value): GV_OK,
 * or GV_EINVAL when their number or counts do not match p's layout. */
int gv_problem_apply_given(gv_problem *p, const gv_given_inputs *given);

#endif
