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
 * (docs/error-models.md, "The envelope of the claimed arithmetic"). */
#ifndef GV_ENVELOPE_H
#define GV_ENVELOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The shape an op declares for the envelope (gv_op.envelope): which outputs are which sums. */
typedef enum gv_env_kind {
    GV_ENV_NONE = 0,
    GV_ENV_PRODUCT = 1, /* out[0] (m x n) = in[0] (m x k) . in[1] (k x n), row-major (m,k,n) */
    GV_ENV_COLSUM = 2,  /* out[0][j] = sum over rows i of in[0][i][j]: in[0] rows x cols,
                           cols = out[0]'s count (1: one sum of every element) */
} gv_env_kind;

/* An output farther than this many widths beyond [lo - w, hi + w] FAILs: derived in
   docs/error-models.md (the slack of w on each side, then two more widths). */
#define GV_ENV_BOUND 2.0
/* The width is at least this many standard deviations of one order's rounding error on these
   inputs, u sqrt(sum s_l^2 / 3) over the in-order chain's partial sums and rounded products
   s_l (an RN rounding errs uniformly within half an ulp, and an ulp is at most 2u|s|). */
#define GV_ENV_SIGMAS 2.0
/* The modelled arithmetics of one case: the claimed one first, then its impostors. */
#define GV_ENV_MAX_ARITH 4

typedef struct gv_envelope {
    bool judged;      /* computed, and the rule judges this case */
    char why_not[96]; /* "" when judged: why not (generated inputs, a mode, the knob) */
    const char *claimed; /* "f32 in any order" */
    int64_t n;        /* elements with a finite output and a finite envelope */
    double d_max;     /* the largest distance, in widths */
    int64_t worst;    /* its flat index; -1 none */
    int64_t worst_i, worst_j; /* its (row, column) in the output (a sum's: 0, j) */
    double worst_value, nearest; /* the output there and the nearest legal result */
    int64_t outside;  /* elements farther than GV_ENV_BOUND */
    /* the signed excess beyond [lo, hi] in widths: z = sum e / sqrt(sum e^2), plainly signed
       and signed by r (negative: toward zero), as the bias rule's (metrics.h) */
    double z, z_sr;
    int64_t bias_n;
    int n_arith;
    struct {
        const char *name; /* "tf32 operands" */
        const char *key;  /* "tf32": the extra's name is envelope_match_KEY */
        double share;     /* elements within its own envelope, of n */
        double mean_excess; /* the mean excess beyond its own [lo, hi], in its widths */
        bool agrees;      /* bit for bit the claimed arithmetic's results on every element */
    } arith[GV_ENV_MAX_ARITH];
    int best; /* the arithmetic with the largest share, then the least mean excess (the
                 claimed one where both tie, and wherever it holds every element) */
    int best_any; /* the same without the claimed one's preference (a lean's reason) */
    char note[200];  /* what the row says beside the verdict */
    double ms;       /* wall time of the computation */
} gv_envelope;

struct gv_problem;
struct gv_result;

/* Whether the envelope judges r's case (given inputs, an op with an envelope kind, native
   mode, f32 or f64, not switched off by GPUVAL_ENVELOPE=0); else why not into r->env.why_not.
   Called by gv_judge_problem. */
bool gv_envelope_applies(struct gv_result *r);

/* Compute the envelope of p's outputs (inputs in p->in[].ref, outputs in p->out[0].data,
   the f64 reference in p->out[0].ref) into r->env, and its numbers into r's extras. OpenMP
   over output elements; every number independent of the thread count. */
void gv_envelope_judge(const struct gv_problem *p, struct gv_result *r);

/* The FAIL reason of r's envelope, or "" where it does not fail (gv_decide's rule). */
bool gv_envelope_fails(const struct gv_result *r, char *why, size_t len);

#endif
