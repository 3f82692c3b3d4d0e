/* blockscaled.h: Blackwell's block-scaled formats (blockscaled.c) for `gpuval probe`: the OCP
 * microscaling formats MXFP8 (E4M3, E5M2), MXFP6 (E2M3, E3M2) and MXFP4 (E2M1), each with one
 * UE8M0 scale per 32 elements, and NVFP4 (E2M1, one UE4M3 scale per 16 elements and one f32
 * scale per tensor): the formats' encode and decode, the quantiser each recipe defines, the
 * published model of the block-scaled product, and the probe features that read a device's
 * quantiser and block-scaled MMA, judged against the published values.
 *
 * Sources:
 *  [OCPMX]  OCP Microscaling Formats (MX) Specification v1.0 (2023): the element formats, E8M0,
 *           blocks of 32, the shared scale X = floor(log2(amax)) - emax_elem, elements
 *           converted with roundTiesToEven and clamped to the element's largest normal.
 *  [NVFP4]  NVIDIA's NVFP4 recipe (cuBLAS 12.8+ CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
 *           Transformer Engine's NVFP4 quantiser): E2M1 elements, one E4M3 scale per 16 rounded
 *           to nearest, one f32 scale per tensor (amax / (6 x 448)).
 *  [MMASim] Xie, Wang, Yang, Yang, "MMA-Sim: Bit-Accurate Reference Model of Tensor Cores and
 *           Matrix Cores", arXiv:2511.10909 (2025), and its simulator (github.com/microsoft/
 *           MMA-Sim, mmasim/simulator/nv.py and functions.py): Blackwell's block-scaled MMA
 *           aligns C and its terms to their largest exponent, truncates each to n fraction
 *           bits, adds, and truncates the sum to f32 (RZ). kind::mxf8f6f4 (FP8, FP6; K = 32,
 *           one scale per instruction): each product is a term, 25 fraction bits.
 *           kind::mxf4 and mxf4nvf4 (FP4; K = 64): each group of 16 products is summed
 *           exactly and scaled, a term whose exponent is its scales' own, 35 fraction bits.
 *
 * Nothing here runs on a device yet: the features are measured through two callbacks (the
 * quantiser, the MMA), which the CPU tests give simulated arithmetics (the published model
 * and planted impostors), and which a device layer would give the op's own kernels. On an
 * architecture without block-scaled MMAs (anything before 10.0: sm_90 included) every feature
 * is a SKIP that says so and no callback is called (gv_bs_measure). */
#ifndef GV_BLOCKSCALED_H
#define GV_BLOCKSCALED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/expect.h" /* gv_fp_value, gv_fp_verdict, gv_fp_judge */

/* The element and scale formats: name, exponent and mantissa bits, bias, largest finite value,
   signed. E4M3 keeps S.1111.111 as NaN (largest 448), E5M2 has IEEE's Inf and NaN (57344),
   the FP6 and FP4 formats have no Inf or NaN; UE8M0 is 2^(code - 127) with 0xFF NaN; UE4M3 is
   E4M3 without its sign. */
#define GV_BS_FORMATS(X)                                                                           \
    X(GV_BS_E4M3, "e4m3", 4, 3, 7, 448.0, true)                                                    \
    X(GV_BS_E5M2, "e5m2", 5, 2, 15, 57344.0, true)                                                 \
    X(GV_BS_E2M3, "e2m3", 2, 3, 1, 7.5, true)                                                      \
    X(GV_BS_E3M2, "e3m2", 3, 2, 3, 28.0, true)                                                     \
    X(GV_BS_E2M1, "e2m1", 2, 1, 1, 6.0, true)                                                      \
    X(GV_BS_UE8M0, "ue8m0", 8, 0, 127, 0x1p127, false)                                             \
    X(GV_BS_UE4M3, "ue4m3", 4, 3, 7, 448.0, false)

typedef enum gv_bs_format {
#define GV_BS_FMT_ENUM_(e, name, eb, mb, bias, maxv, sgn) e,
    GV_BS_FORMATS(GV_BS_FMT_ENUM_)
#undef GV_BS_FMT_ENUM_
        GV_BS_NFORMATS
} gv_bs_format;

typedef struct gv_bs_format_info {
    const char *name;
    int ebits, mbits, bias;
    double maxval;
    bool sign;
} gv_bs_format_info;

const gv_bs_format_info *gv_bs_format_get(gv_bs_format f);
/* The value of code (NaN for a NaN code). */
double gv_bs_decode(gv_bs_format f, unsigned code);
/* x to the nearest code, ties to the even code; beyond the largest finite value (and Inf)
   clamped to it ([OCPMX] 6.3; satfinite for FP8); NaN to a NaN code where the format has one.
   FP6 and FP4 have no NaN code: a NaN never reaches them, the quantiser carries a block's NaN
   in its scale ([OCPMX] 6.3), and encoding one is a broken contract (an assert; the zero code
   where asserts are off). rz: truncate toward zero instead (a planted conversion). For UE8M0,
   x must be a power of two (the scale the quantiser computed) or 0, which encodes 2^-127. */
unsigned gv_bs_encode(gv_bs_format f, double x, bool rz);
/* x rounded to the format (gv_bs_decode of gv_bs_encode); NaN stays NaN in every format. */
double gv_bs_round(gv_bs_format f, double x, bool rz);

/* The block-scaled kinds: element format, scale format, elements per scale, and whether a per-
   tensor f32 scale comes on top. */
#define GV_BS_KINDS(X)                                                                             \
    X(GV_BS_MXFP8_E4M3, "mxfp8e4m3", GV_BS_E4M3, GV_BS_UE8M0, 32, false)                           \
    X(GV_BS_MXFP8_E5M2, "mxfp8e5m2", GV_BS_E5M2, GV_BS_UE8M0, 32, false)                           \
    X(GV_BS_MXFP6_E2M3, "mxfp6e2m3", GV_BS_E2M3, GV_BS_UE8M0, 32, false)                           \
    X(GV_BS_MXFP6_E3M2, "mxfp6e3m2", GV_BS_E3M2, GV_BS_UE8M0, 32, false)                           \
    X(GV_BS_MXFP4, "mxfp4", GV_BS_E2M1, GV_BS_UE8M0, 32, false)                                    \
    X(GV_BS_NVFP4, "nvfp4", GV_BS_E2M1, GV_BS_UE4M3, 16, true)

typedef enum gv_bs_kind {
#define GV_BS_KIND_ENUM_(e, name, el, sc, blk, ts) e,
    GV_BS_KINDS(GV_BS_KIND_ENUM_)
#undef GV_BS_KIND_ENUM_
        GV_BS_NKINDS
} gv_bs_kind;

typedef struct gv_bs_kind_info {
    const char *name;
    gv_bs_format elem, scale;
    int block;
    bool tensor_scale;
} gv_bs_kind_info;

const gv_bs_kind_info *gv_bs_kind_get(gv_bs_kind k);

/* Whether compute capability sm (90 for 9.0) has block-scaled MMAs of kind k: 10.x (tcgen05's
   kind::mxf8f6f4 and kind::mxf4nvf4) and 12.x (mma.sync's block_scale); false with why
   ("no such hardware: ...") elsewhere. */
bool gv_bs_has(gv_bs_kind k, int sm, char *why, size_t len);

/* ---- the quantiser and the product, as the probes call them --------------------------------- */

/* Quantise n values x (a multiple of the kind's block; one row of A or column of B along K)
   as the op's quantiser does: elem[l] the element's value (exact in the element format),
   scale[l / block] each block's scale value (exact in the scale format), *tensor the per-
   tensor scale (1 where the kind has none). The value it stands for is elem x scale x tensor. */
typedef int (*gv_bs_quant_fn)(void *ctx, gv_bs_kind k, int64_t n, const double *x, double *elem,
                              double *scale, double *tensor);

/* One block-scaled dot product as the MMA computes it, into an f32 result: sum over l of
   a[l] sa[l / block] b[l] sb[l / block], times ta tb. a, b: element values; sa, sb: the
   label's scale per block (k / block of them); ta, tb: the per-tensor scales. */
typedef int (*gv_bs_mma_fn)(void *ctx, gv_bs_kind k, int64_t n, const double *a, const double *sa,
                            const double *b, const double *sb, double ta, double tb, double *out);

/* ---- the reference arithmetic: [OCPMX]/[NVFP4] quantiser, [MMASim] product ------------------ */

/* How a simulated quantiser and MMA behave. gv_bs_model_of gives the published one; every other
   setting is a planted impostor for the tests. */
typedef enum { GV_BS_XFLOOR, GV_BS_XCEIL, GV_BS_XNEAREST } gv_bs_xround;
typedef enum { GV_BS_USE_BLOCK, GV_BS_USE_NONE, GV_BS_USE_FIRST } gv_bs_scale_use;

typedef struct gv_bs_model {
    /* quantiser */
    int q_block;           /* elements that share a scale */
    bool q_tensor;         /* one scale for the whole vector (from its amax), not per block */
    gv_bs_xround q_xround; /* UE8M0: how log2(amax) becomes an exponent ([OCPMX]: floor) */
    bool q_scale_rz;       /* UE4M3: the scale truncated, not rounded to nearest */
    bool q_elem_rz;        /* elements truncated, not rounded to nearest even */
    /* product */
    int mma_block;             /* elements per scale as the MMA reads the scales */
    gv_bs_scale_use mma_scale; /* scales applied per block, ignored, or block 0's for all */
    int inst_k;                /* products of one MMA instruction: one alignment, C as a term */
    int group;                 /* products summed exactly into one term (1: each product one) */
    int frac_bits;             /* fraction bits each term keeps below the largest exponent */
    bool acc_rn;               /* the sum exact and rounded to nearest, not truncated */
} gv_bs_model;

/* The published model of kind k: [OCPMX] or [NVFP4] for the quantiser, [MMASim]'s B200 for
   the product: FP8 and FP6 as kind::mxf8f6f4 (K 32, every product a term, 25 fraction bits),
   FP4 (MXFP4 and NVFP4) as kind::mxf4 / mxf4nvf4 (K 64, groups of 16, 35 fraction bits). */
gv_bs_model gv_bs_model_of(gv_bs_kind k);

/* The simulated quantiser and MMA of a gv_bs_model (ctx: a const gv_bs_model *), callbacks
   of the types above. */
int gv_bs_model_quant(void *ctx, gv_bs_kind k, int64_t n, const double *x, double *elem,
                      double *scale, double *tensor);
int gv_bs_model_mma(void *ctx, gv_bs_kind k, int64_t n, const double *a, const double *sa,
                    const double *b, const double *sb, double ta, double tb, double *out);

/* ---- the features --------------------------------------------------------------------------- */

#define GV_BS_FEATURES(X)                                                                          \
    X(Q_BLOCK, "q_block", "elements the quantiser gives one scale")                                \
    X(Q_SCALE_GROUP, "q_scale_group", "block: each block its own scale; tensor: one for all")      \
    X(Q_SCALE_ROUND, "q_scale_round", "how amax becomes a scale: floor ceil nearest, RNE RZ")      \
    X(Q_ELEM_ROUND, "q_elem_round", "rounding of the elements' conversion: RNE RZ ...")            \
    X(SCALE_APPLY, "scale_apply", "scales the MMA applies: block, tensor (block 0's), none")       \
    X(SCALE_BLOCK, "scale_block", "elements per scale as the MMA reads the scales")                \
    X(GROUP, "group", "products summed exactly before they reach the accumulator")                 \
    X(ACC_FRAC_BITS, "acc_frac_bits", "fraction bits the accumulator keeps when it aligns")        \
    X(ACC_ROUND, "acc_round", "rounding of the accumulator: RZ RNE ...")

typedef enum gv_bs_feature {
#define GV_BS_FEAT_ENUM_(e, name, help) GV_BS_##e,
    GV_BS_FEATURES(GV_BS_FEAT_ENUM_)
#undef GV_BS_FEAT_ENUM_
        GV_BS_NFEATURES
} gv_bs_feature;

const char *gv_bs_feature_name(int f);

/* One kind's features on one device: each value measured (gv_fp_value: text, number, detail),
   its expectation and verdict. skip: the kind does not exist on the device (why in skip_why),
   and nothing was measured. */
typedef struct gv_bs_print {
    gv_bs_kind kind;
    bool skip;
    char skip_why[160];
    gv_fp_value f[GV_BS_NFEATURES];
    const char *expect[GV_BS_NFEATURES]; /* the expected value ("?": none) */
    const char *source[GV_BS_NFEATURES];
    gv_fp_verdict verdict[GV_BS_NFEATURES];
    int calls;
} gv_bs_print;

/* Measure every feature of kind k through quant and mma (one ctx for both). GV_OK; the first
   callback's error; GV_EUNSUPPORTED where the kind does not exist on compute capability sm
   (bp->skip, why in skip_why, no callback called). */
int gv_bs_measure(gv_bs_kind k, int sm, gv_bs_quant_fn quant, gv_bs_mma_fn mma, void *ctx,
                  gv_bs_print *bp);

/* Judge bp against the published values for compute capability sm: PASS, FAIL, NEW (no source
   for the value); the expectation and its source are written into bp. A skipped print stays
   skipped (no verdicts). Returns the number of FAILs. */
int gv_bs_judge(int sm, gv_bs_print *bp);

/* The expected value of feature f of kind k on sm ("?" where no source gives one), and its
   source. */
const char *gv_bs_expected(gv_bs_kind k, int sm, int f, const char **source);

#endif
