/* inputs.h: what the provenance of a case's inputs (gv_inputs, gv.h) lets the judge claim
 * (inputs.c). The probabilistic model and the exact probes rest on inputs whose statistics
 * gpuval knows; on data it did not make, the worst-case model and the tiers it guarantees
 * judge, and R is measured and reported only (docs/error-models.md, "Data gpuval did not
 * make"). */
#ifndef GV_INPUTS_H
#define GV_INPUTS_H

#include <stdbool.h>

#include "core/op.h"
#include "core/problem.h"

/* Why a probabilistic model is reported and not judged: the row and the JSON say it. */
#define GV_PROB_NOT_VALID "inputs not gpuval's: the probabilistic model is not valid for them"

/* True when the models that need the inputs' statistics may judge: the inputs are gpuval's
   generator's, or given and declared fit for the probabilistic model. */
bool gv_inputs_known(gv_inputs in);

/* Where r's case's inputs came from, and what that lets the models claim (gv_result_init
   sets GENERATED; the run sets what its caller said): an op whose inputs a user's hook makes
   has given inputs whatever `in` says; on given inputs the probabilistic model is reported
   only (prob.reported_only) and no case is an exact probe. */
void gv_result_set_inputs(gv_result *r, gv_inputs in);

/* The expected tier on inputs gpuval did not make: kept only where the first-order
   worst-case bound, (gamma_d(u) + gamma_do(2^-53)) g_i with d_o the oracle's own depth, is
   within t (1 + |r_i|) for every output, so that no correct kernel can miss it; else
   dropped with a note in r->tier_note. The op's own reasons for a tier (expected_tier_why)
   speak of its generated inputs: they never keep one. gv_judge_problem calls it in place of the
   probabilistic model's test when !gv_inputs_known. */
void gv_tier_on_given(const gv_problem *p, gv_result *r);

/* True when the given buffers hold, bit for bit, the inputs the op's generator made into p
   (a caller's claim that given inputs are generated ones, checked). */
bool gv_given_match(const gv_problem *p, const gv_given_inputs *given);

#endif
