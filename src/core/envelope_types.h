/* envelope_types.h: the envelope's vocabulary (the kind an op declares, the result a case
 * keeps), apart from its computation (envelope.h) so that op.h can hold them without including
 * the engine. */
#ifndef GV_ENVELOPE_TYPES_H
#define GV_ENVELOPE_TYPES_H

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

/* The order an envelope judges against (gpuval judge --order, docs/cli.md). ANY: every legal
   order the envelope models, with the order-free width (the default for outputs computed
   elsewhere). Otherwise one order, declared by the user or known (gpuval's own kernel's tree,
   gv_op.env_order): its results bit for bit and the exact result are the legal values, each
   with a slack of an ulp (docs/error-models.md, "One sum, and a declared order"). */
typedef enum gv_env_order_kind {
    GV_ORDER_ANY = 0,
    GV_ORDER_K,        /* in k order: the chain (a product's FMA or unfused chain) */
    GV_ORDER_PAIRWISE, /* adjacent pairs, level by level, an odd one carried up */
    GV_ORDER_BLOCKED,  /* chains over blocks of `block` terms, the blocks' partials in order */
    GV_ORDER_TREE,     /* a sum: reduce.sum's block tree (tiles of 2048 by 256 threads x 8,
                          the tiles' sums by the same tree, level after level); a product:
                          8 and 32 interleaved FMA chains combined as a tree */
    GV_ORDER_TREE_ONEPASS, /* a sum: reduce.sum.onepass's (the same tile trees, then the tile
                              sums by groups of 2048 in group order) */
} gv_env_order_kind;

typedef struct gv_env_order {
    gv_env_order_kind kind;
    int64_t block;  /* GV_ORDER_BLOCKED: terms a block (>= 1) */
    bool kernel;    /* the order of gpuval's own kernel (not declared) */
} gv_env_order;

/* An output farther than this many widths beyond [lo - w, hi + w] FAILs: derived in
   docs/error-models.md (the slack of w on each side, then two more widths). */
#define GV_ENV_BOUND 2.0
/* The width is at least this many standard deviations of any order's rounding error on these
   inputs, u sqrt(S / 3), S = max(G^2 (k - 1), the modelled chains' sum of squared partials and
   rounded products), G = sum |term| (envelope_orders.h, any_order; an RN rounding errs
   uniformly within half an ulp, and an ulp is at most 2u|s|). */
#define GV_ENV_SIGMAS 2.0
/* The most terms (output elements times the sum's length k) one case emulates: past it, a
   fixed pseudo-random sample of the outputs is judged (envelope.c, sampled). 2^27 is a
   128x4096x256 product; a 256x4096x256 one is judged on a sample of half its elements (the
   times on an H100 host: docs/error-models.md). */
#define GV_ENV_BUDGET 134217728.0
/* The modelled arithmetics of one case: the claimed one first, then its impostors. */
#define GV_ENV_MAX_ARITH 4
/* The operand-rounding signature (docs/error-models.md, "The operand-rounding signature"): at
   most this many directions a case; a direction's regression of the outputs' errors on its
   deterministic difference D FAILs as precision where z > GV_ENV_SIG_Z (one-sided: the
   self-normalised sum of independent symmetric terms exceeds 6 with probability under
   exp(-18) = 1.5e-8) and |beta - 1| < GV_ENV_SIG_BETA (an impostor's errors are D: beta 1; a
   correct kernel's are uncorrelated with D: beta 0; the window is half way to 0 and as wide
   on the other side, so that a lean, which correlates with D on data whose D has a sign,
   is not named as a format: rounding toward zero on prefix sums gave beta 5), over at least
   GV_ENV_SIG_MIN_N elements whose D is not 0. */
#define GV_ENV_MAX_SIG   3
#define GV_ENV_SIG_Z     6.0
#define GV_ENV_SIG_BETA  0.5
#define GV_ENV_SIG_MIN_N 64
/* ... and where D stands above the rounding noise of the claimed arithmetic itself: its root
   mean square at least this many times that of the claimed arithmetic's chain's own error on
   these inputs (chain - exact). D is the difference of two chains, so part of it is that noise;
   where D is not larger (small parts of the data below the accumulator's ulp, which a chain
   drops whatever the operands' format), a correct kernel's error, of the same size as the
   chain's, can share it, and its beta is at most rms(e) / rms(D): at this bound 1/2, the
   window's edge, and only with the whole error aligned with D's noise. */
#define GV_ENV_SIG_D_SIGMA 2.0
/* ... and where D explains at least this share of the errors' energy, r2 = (sum eD)^2 /
   (sum D^2 sum e^2): an impostor's e is D plus its own order's noise, which at the bound
   above (D at least twice a chain's noise) leaves r2 >= 4/5; an error of another kind that
   merely correlates with D (an accumulation rounding toward zero on cancelling data, whose
   lean follows the partial sums D's noise part also follows) explains e only in part. */
#define GV_ENV_SIG_R2 0.5

typedef struct gv_envelope {
    bool judged;      /* computed, and the rule judges this case */
    bool asked;       /* GPUVAL_ENVELOPE was set (on or off): the row says why it did not judge */
    char why_not[96]; /* "" when judged: why not (generated inputs, a mode, the knob) */
    /* Set before the judge (gv_judge_problem keeps them): the order declared (ANY: none),
       and whether the outputs were computed elsewhere (gv_result_order_free), so that
       gpuval's own kernel's order never judges them */
    gv_env_order order;
    bool foreign;
    /* Set before the judge too: the compute capability whose tensor-core models judge a
       tensor-core mode (90 for sm_90; 0: envelope_tc.h's default); kept by gv_judge_problem */
    int arch;
    gv_env_order used; /* the order judged against (the declared, the kernel's, or ANY) */
    char claimed[72]; /* "f32 in any order", "f32 in k order" */
    int64_t n;        /* elements with a finite output and a finite envelope */
    int64_t sampled_of; /* 0: every element was judged; else the output's size, n of them a
                           sample (GV_ENV_BUDGET) */
    double d_max;     /* the largest distance, in widths */
    int64_t worst;    /* its flat index; -1 none */
    int64_t worst_i, worst_j; /* its (row, column) in the output (a sum's: 0, j) */
    double worst_value, nearest; /* the output there and the nearest legal result */
    int64_t outside;  /* elements farther than GV_ENV_BOUND */
    /* the signed excess beyond [lo, hi] in widths: z = sum e / sqrt(sum e^2), plainly signed
       and signed by r (negative: toward zero), as the bias rule's (metrics.h) */
    double z, z_sr;
    int64_t bias_n;
    /* set by the caller: the lean is not judged (outputs stored in a low-precision format
       are judged at their preimages' points nearest the reference, which sit on the
       reference's side of an envelope that lies off it: api/judge.c) */
    bool lean_unjudged;
    int n_arith;
    struct {
        const char *name; /* "tf32 operands" */
        const char *key;  /* "tf32" */
        const char *extra; /* its share's name among the result's extras: envelope_match_KEY */
        double share;     /* elements within its own envelope, of n */
        double mean_excess; /* the mean excess beyond its own [lo, hi], in its widths */
        bool agrees;      /* bit for bit the claimed arithmetic's results on every element */
        int64_t exact_as; /* a declared or known order: elements whose output is exactly one
                             of its results and no legal value of the claimed arithmetic */
    } arith[GV_ENV_MAX_ARITH];
    /* The operand-rounding signature of each direction (an operand format an impostor
       rounds to): e = output - the claimed arithmetic's exact result, D = the exact result on
       that format's operands - the same on the claimed ones, over the judged elements */
    int n_sig;
    struct {
        const char *name, *key;      /* "tf32 operands", "tf32" */
        const char *extra_beta, *extra_z; /* "envelope_sig_beta_tf32", "envelope_sig_z_tf32" */
        int arith;                   /* its arithmetic among arith[] (-1: a direction only) */
        int64_t n;                   /* elements with a finite e and D != 0 */
        double beta, z, r2;          /* sum eD / sum D^2; sum eD / sqrt(sum (eD)^2); the
                                        share of sum e^2 that beta D explains */
        double d_sigma;              /* D's root mean square over that of the claimed
                                        arithmetic's chain's own error */
        bool significant;            /* z, beta and n past their bounds */
    } sig[GV_ENV_MAX_SIG];
    int sig_best; /* the significant direction with the largest r2; -1: none */
    int best; /* the arithmetic with the largest share, then the least mean excess (the
                 claimed one where both tie, and wherever it holds every element) */
    int best_any; /* the same without the claimed one's preference (a lean's reason) */
    /* a tensor-core mode whose output format is narrower than the dtype (f16acc: binary16
       results held in f32): outputs that are no value of it, which the mode cannot return */
    int64_t off_format, first_off_format;
    const char *out_format; /* "binary16"; NULL: the dtype's own */
    char note[512];  /* what the row says beside the verdict */
    double ms;       /* wall time of the computation */
} gv_envelope;

#endif
