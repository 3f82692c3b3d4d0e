/* envelope.h: the envelope of the claimed arithmetic on the user's own data (envelope.c). On
 * inputs gpuval did not make, the worst-case bound cannot see a precision impostor (TF32
 * operands under an f32 label, an accumulation that rounds toward zero, f64 from 40-bit
 * operands): it is a bound for the worst data. The envelope is what the arithmetic the label
 * allows actually produces on *these* inputs: per output element, the results of the legal
 * implementations computed bit for bit on the CPU (FMA chain in k order, unfused in k order,
 * blocks of 4..256 combined in order, a pairwise tree), their range [lo, hi] (with the f64
 * reference) and a width w = max(hi - lo, ulp(r)). An output's distance is 0 inside
 * [lo - w, hi + w], else its excess over that in widths. The same is computed for the
 * impostor arithmetics, so that the verdict names the arithmetic the output matches
 * (docs/error-models.md, "The envelope of the claimed arithmetic"). Under a tensor-core mode
 * the claimed arithmetic is the mode's block-FMA model of one architecture (envelope_tc.h). */
#ifndef GV_ENVELOPE_H
#define GV_ENVELOPE_H

#include "core/envelope_types.h"
#include "core/op.h"

struct gv_problem;
struct gv_result;

/* s ("k", "pairwise", "blocked:B", "tree"; NULL, "" or "any": every legal order) into *o:
   GV_OK, or GV_EINVAL with a usage message in why (gpuval judge --order; the C API's and the
   Python package's mode suffix "+order=S", api/judge.c). */
int gv_env_order_parse(const char *s, gv_env_order *o, char *why, size_t len);
/* "k", "blocked:32", "its kernel's tree": the order as rows name it, into buf. */
const char *gv_env_order_name(const gv_env_order *o, char *buf, size_t len);

/* Whether the envelope judges r's case (given inputs, or an order declared or known: gpuval's
   own kernel's for its own outputs, gv_op.env_order; an op with an envelope kind, native
   mode, f32 or f64, or a product under a tensor-core mode with a model on r->env.arch, not
   switched off by GPUVAL_ENVELOPE=0); else why not into
   r->env.why_not. Sets r->env.used. Called by gv_judge_problem. */
bool gv_envelope_applies(struct gv_result *r);

/* Compute the envelope of p's outputs (inputs in p->in[].ref, outputs in p->out[0].data,
   the f64 reference in p->out[0].ref) into r->env (judge.c copies its numbers to r's extras). OpenMP
   over output elements; every number independent of the thread count. */
void gv_envelope_judge(const struct gv_problem *p, struct gv_result *r);

/* The FAIL reason of r's envelope, or "" where it does not fail (gv_decide's rule). */
bool gv_envelope_fails(const struct gv_result *r, char *why, size_t len);

#endif
