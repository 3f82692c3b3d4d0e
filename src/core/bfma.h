/* bfma.h: block fused multiply-add models of NVIDIA tensor cores (bfma.c), a C port of the
 * published per-architecture models, to replay dot products bit for bit on the CPU.
 *
 * Sources (the numbers in bfma.c's table name the file they come from):
 *   [KM25] F. A. Khattak and M. Mikaitis, "Accurate models of NVIDIA tensor cores", ACM
 *          TACO (2025), arXiv:2512.07004; their MATLAB models, BSD-2-Clause,
 *          github.com/north-numerical-computing/MATLAB-tensor-core (commit b12b5a7):
 *          models/tools/Generic_BFMA_TC.m (the parameterised block FMA), models/tools/GEMM.m
 *          (the chain of blocks), models/{V100,A100,A2,A30,Ada,L40S,H100,H200,B200,
 *          RTXPRO6000}TC.m (the parameters of each GPU).
 *   [FHMP21] M. Fasi, N. J. Higham, M. Mikaitis and S. Pranesh, "Numerical behavior of NVIDIA
 *          tensor cores", PeerJ Computer Science 7:e330 (2021): the features (exact products,
 *          truncation, alignment on the largest exponent, no normalisation inside a block).
 *
 * The model of one block (Generic_BFMA_TC.m with global alignment, the branch every NVIDIA
 * model takes): with d = c + sum_i a_i b_i over one block of n products,
 *   1. every product is exact; its exponent is e(a) + e(b), where e(x) = max(floor(log2|x|),
 *      emin of the input format), so its significand lies in [0, 4): products are not
 *      normalised;
 *   2. c (an f32 value, or an f16 value held in an f32) enters with its own exponent e(c) =
 *      max(floor(log2|c|), -126) when c != 0; zero products are left out;
 *   3. every term is aligned to E = max(product exponents, e(c), min_align_exp) and truncated
 *      (each magnitude toward zero) to align_frac_bits = 23 + extra_align_bits fraction bits
 *      below 2^E;
 *   4. the aligned terms are added exactly, and the sum is normalised and rounded once to
 *      acc_sig_bits significant bits (RZ, or RN ties-to-even where block_round says so), the
 *      output format's subnormals kept; the sum 0 is +0;
 *   5. a result at or past 2^(emax + 1) of the output format is +-Inf;
 *   6. NaN and Inf (GEMM.m's rule, applied to the products and c): NaN if any product or c is
 *      NaN (0 x Inf included) or +Inf meets -Inf, else the Inf.
 * A chain (gv_bfma_dot) feeds each block's result to the next block as its c. */
#ifndef GV_BFMA_H
#define GV_BFMA_H

#include <stdbool.h>
#include <stdint.h>

typedef enum gv_bfma_round {
    GV_BFMA_RZ = 0, /* toward zero (truncation) */
    GV_BFMA_RN = 1, /* to nearest, ties to even */
} gv_bfma_round;

/* A binary floating-point format from its parameters alone. */
typedef struct gv_bfma_format {
    const char *name; /* "binary16", "bfloat16", "tf32", "e4m3", "e5m2", "binary32" */
    int sig_bits;     /* significand bits, the implicit one included */
    int emin;         /* exponent of the smallest normal number */
    int emax;         /* exponent of the largest finite binade */
    bool subnormals;  /* subnormal numbers exist (below 2^emin, step 2^(emin - sig_bits + 1)) */
    bool inf;         /* has infinities; false: OCP E4M3, whose top code of the top binade is
                       * NaN, so its largest finite significand is 2 - 2^(2 - sig_bits) */
} gv_bfma_format;

/* One tensor core's block FMA for one input format and one output format. */
typedef struct gv_bfma_model {
    int sm;                    /* compute capability x 10: 70, 80, 86, 89, 90, 100, 120 */
    const char *gpu;           /* the GPU(s) the published model was validated on */
    const char *fmt;           /* the lookup name: "tf32", "f16", "bf16", "f16acc", "e4m3",
                                * "e5m2" */
    const char *source;        /* the MATLAB model file the parameters come from */
    gv_bfma_format in;         /* A and B */
    gv_bfma_format out;        /* C and D */
    int block;                 /* products per block (the model's fma) */
    int extra_align_bits;      /* the model's neab: bits kept below 2^-23 of the largest
                                * exponent in the alignment; negative on Ada and Hopper fp8,
                                * which keep 23 + neab = 13 */
    int align_frac_bits;       /* 23 + extra_align_bits: fraction bits of the aligned terms */
    gv_bfma_round align_round; /* rounding of the alignment shifts: RZ in every model */
    gv_bfma_round block_round; /* rounding of the block's sum to the output (frmode) */
    int acc_sig_bits;          /* significant bits of a block result: out.sig_bits, less
                                * -extra_align_bits where that is negative (GEMM.m) */
    int min_align_exp;         /* the alignment exponent is never below this (min_exp_limit) */
    bool in_subnormals;        /* subnormal inputs kept (false: flushed to 0) */
    bool out_subnormals;       /* subnormal results and c kept (false: flushed to +0) */
    bool unconfirmed;          /* the published model does not reproduce the GPU vectors
                                * published with it (B200 fp8, bfma.c): a disagreement on
                                * such a model is no verdict on the GPU */
} gv_bfma_model;

/* The model of compute capability sm (80 for sm_80) and fmt ("tf32", "f16", "bf16" with f32
 * C and D; "f16acc": f16 inputs with f16 C and D; "e4m3", "e5m2" with f32 C and D), or NULL
 * where the published models have none. */
const gv_bfma_model *gv_bfma_find(int sm, const char *fmt);

/* The i-th model of the table (NULL past its end), for listing them. */
const gv_bfma_model *gv_bfma_at(int i);

/* x rounded into format f (RN: to nearest, ties to even; RZ: toward zero), from f's
 * parameters alone. NaN stays NaN. Overflow: RZ gives the largest finite number; RN gives
 * Inf where f has one, else NaN (OCP E4M3 without saturation). Below 2^emin without
 * subnormals, the rounded value is flushed to a zero of x's sign. */
float gv_bfma_round_to(const gv_bfma_format *f, float x, gv_bfma_round mode);

/* Is x (finite, infinite or NaN) a value of format f? */
bool gv_bfma_in_format(const gv_bfma_format *f, float x);

/* One block: c + sum_{i<n} a[i] b[i] as the model computes it, 0 <= n <= m->block (fewer
 * than a block is the same as zero products padding it, as GEMM.m pads). a and b must hold
 * values of m->in and c a value of m->out (each checked with gv_bfma_in_format); any other
 * input makes the result NaN, so a caller's unrounded data can never agree by accident. */
float gv_bfma_block(const gv_bfma_model *m, const float *a, const float *b, int n, float c);

/* One output element of a product of k terms: blocks of m->block consecutive products in
 * ascending index, the last one padded with zeros, each block's result the next block's c
 * (GEMM.m's recursive summation over the tensor core invocations), starting from c.
 * Before the first block, GEMM.m's NaN/Inf rule is applied to all k products and c. k >= 0.
 * Same input contract as gv_bfma_block. */
float gv_bfma_dot(const gv_bfma_model *m, const float *a, const float *b, int k, float c);

/* ---- the same block in steps, for callers that replay many blocks over the same operands
 * (the envelope of a tensor-core mode, core/envelope_tc.c): each operand split once, each
 * block's products once, then the sum with as many different c as the caller's orders have.
 * gv_bfma_block is these three steps; so the results are its own, bit for bit. */

/* The widest block the exact sum is sized for (the table's widest is 32). */
#define GV_BFMA_MAX_BLOCK 64

/* An input as the block sees it: |x| = sig 2^(exp - (in.sig_bits - 1)); sig 0: zero (or a
 * subnormal the model flushes). */
typedef struct gv_bfma_operand {
    uint32_t sig;
    int exp;
    bool neg;
} gv_bfma_operand;

/* One block's non-zero products, exact: mag 2^(exp - 2 (in.sig_bits - 1)); emax the largest
 * exponent, at least m->min_align_exp. */
typedef struct gv_bfma_prods {
    uint64_t mag[GV_BFMA_MAX_BLOCK];
    int exp[GV_BFMA_MAX_BLOCK];
    bool neg[GV_BFMA_MAX_BLOCK];
    int terms, emax;
} gv_bfma_prods;

/* x (finite, a value of m->in) split into *o. */
void gv_bfma_split_in(const gv_bfma_model *m, float x, gv_bfma_operand *o);
/* The products of a[0..n) and b[0..n), n <= m->block, into *p. */
void gv_bfma_products(const gv_bfma_model *m, const gv_bfma_operand *a, const gv_bfma_operand *b,
                      int n, gv_bfma_prods *p);
/* c + the products of p as the block computes it (c finite, a value of m->out): the three
 * steps below. */
float gv_bfma_block_sum(const gv_bfma_model *m, const gv_bfma_prods *p, float c);
/* The exponent E the block aligns its terms to: the products' largest, or c's where larger. */
int gv_bfma_align_exp(const gv_bfma_model *m, const gv_bfma_prods *p, float c);
/* The products of p aligned to E and truncated, summed exactly (on the grid 2^(E - F)): the
 * same for every c whose E is the same, so a caller with many c can keep it. */
int64_t gv_bfma_prods_aligned(const gv_bfma_model *m, const gv_bfma_prods *p, int E);
/* c aligned to E added to prods (gv_bfma_prods_aligned(m, p, E)), the sum rounded. */
float gv_bfma_block_finish(const gv_bfma_model *m, const gv_bfma_prods *p, int64_t prods, int E,
                           float c);

#endif
