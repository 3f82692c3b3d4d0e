/* fprint.h: the arithmetic fingerprint of a GEMM's precision mode (fprint.c), measured through
 * the op's own call with hand-built operands, for `gpuval probe` (src/cmd/probe.c).
 *
 * Every probe is a dot product placed on the diagonal of one GEMM: probe vector i is row i of A
 * and column i of B, and C[i][i] is its result (the other outputs are not read). The operands
 * are built from the format parameters of the arithmetic the mode claims (gv_fp_arith: the
 * operands' significand bits and exponent range after the mode's conversion, the output's, and
 * fp8's scaling), never from a table per device, so a GPU nobody has measured gets every
 * feature measured. docs/probe.md describes each construction and what it tells apart. */
#ifndef GV_FPRINT_H
#define GV_FPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"

/* A binary floating-point format: p significand bits (with the implicit one), the exponents
   of its normal numbers emin..emax. */
typedef struct gv_fp_format {
    int p, emin, emax;
} gv_fp_format;

/* The arithmetic a (dtype, mode) claims, as the probes need it. */
typedef struct gv_fp_arith {
    gv_dtype dtype; /* the storage dtype (f32 or f64): every operand must be exact in it */
    gv_mode mode;
    gv_fp_format in;  /* the operands' format after the mode's conversion (tf32: 11 bits) */
    gv_fp_format out; /* the output's: f32, f64, or f16 for f16acc */
    /* Operands are scaled by the op (fp8: 448 / amax of the tensor): an anchor of magnitude
       `anchor` in an extra row of A and column of B fixes amax, so the scale is exactly
       `scale` (448 / 14 = 32) and every probe value must stay within anchor. 0: no scaling. */
    double anchor, scale;
    /* the largest and smallest-normal exponents of an operand as the probes may use it:
       in.emax and in.emin, or for a scaled format the ones its scaled values reach */
    int op_emax, op_emin;
    /* The scaled fp8 modes (fp8e5m2, fp8row, fp8blk): the groups that share a scale as the
       label claims them (abi/gemm.h: GK_FP8_TENSOR, _OUTER, _BLOCK; -1 for every other mode,
       plain fp8's per-tensor scale included, which the extra anchor row and column fix), B's
       format where it is not A's (e5m2) and B's scale by the same anchor. Every probe call
       then carries an anchor in every group (run_full), so every scale is scale_to / 14. */
    int group_a, group_b;
    gv_fp_format in_b;
    double scale_b;
} gv_fp_arith;

/* Every probe GEMM is at least this in each dim (zeros around the probes), so that the library
   chooses the kernels it uses for real products rather than a small-matrix path. */
#define GV_FP_MIN_DIM 128

/* The probed arithmetic of (t, m), from the mode table's format columns (abi/gv_abi.h): GV_OK,
   or GV_EUNSUPPORTED where the mode has no format (modes of other ops: iterative refinement,
   fastmath) or does not apply to t. */
int gv_fp_arith_of(gv_dtype t, gv_mode m, gv_fp_arith *a);

/* C = A B: A m x k and B k x n row-major, C m x n; values as doubles, each exact in the storage
   dtype. Returns GV_OK, or an error code with why. The device runs it through the op
   (src/probe/fprint_device.c); the tests through a model of an arithmetic. */
typedef int (*gv_fp_gemm_fn)(void *ctx, int64_t m, int64_t k, int64_t n, const double *A,
                             const double *B, double *C, char *why, size_t len);

#define GV_FP_FEATURES(X)                                                                          \
    X(IN_BITS_A, "in_bits_A", "significand bits of A after the mode's conversion")                 \
    X(IN_BITS_B, "in_bits_B", "significand bits of B after the mode's conversion")                 \
    X(IN_ROUND_A, "in_round_A", "rounding of A's conversion: RNE RNA RZ RU RD, none")              \
    X(IN_ROUND_B, "in_round_B", "rounding of B's conversion")                                      \
    X(PRODUCTS, "products", "products exact (exact) or rounded before they are added (rounded)")   \
    X(BLOCK, "block", "products added in one step (1: an FMA chain; none: the whole dot)")         \
    X(EXTRA_BITS, "extra_bits", "bits kept below the output's last bit when a block aligns")       \
    X(BLOCK_ROUND, "block_round", "rounding of a block's (or an FMA's) result")                    \
    X(CARRY_ROUND, "carry_round", "rounding of a block's result that carries into a new binade")   \
    X(ACC_BITS, "acc_bits", "bits the dot keeps below its largest term (first term lost at)")      \
    X(PROMOTION, "promotion", "partial sums promoted to a wider accumulator: every N, or none")    \
    X(ORDER, "order", "accumulation order from +-M masks (FPRev): sequential, or other")           \
    X(SUBNORMAL_IN, "subnormal_in", "subnormal operands: kept or flushed")                         \
    X(SUBNORMAL_OUT, "subnormal_out", "subnormal results: kept or flushed")                        \
    X(ROW_BITS, "row_bits", "bits kept below a row's largest element (all: floating point)")       \
    X(FIXED_POINT, "fixed_point", "the row aligned to one exponent (an emulation): yes or no")     \
    X(MONOTONIC, "monotonic", "a larger operand never gives a smaller result: yes or no")          \
    X(DETERMINISTIC, "deterministic", "the same bits over repeated calls: yes or no")              \
    X(CR_SHARE, "cr_share", "% of a narrow-span f64 product's outputs correctly rounded")          \
    X(SCALE_A, "scale_A", "elements of A that share a scale: none, tensor, row, block")            \
    X(SCALE_B, "scale_B", "elements of B that share a scale: none, tensor, column, block")

typedef enum gv_fp_feature {
#define GV_FP_ENUM_(e, name, help) GV_FP_##e,
    GV_FP_FEATURES(GV_FP_ENUM_)
#undef GV_FP_ENUM_
        GV_FP_NFEATURES
} gv_fp_feature;

const char *gv_fp_feature_name(int f);
int gv_fp_feature_parse(const char *s); /* the feature, or -1 */

/* One measured feature. text is what is compared with the expectation ("11", "RNE",
   ">=2", "n/a"); num its number where it has one (NAN else); detail what was seen. */
typedef struct gv_fp_value {
    char text[32];
    double num;
    char detail[160];
} gv_fp_value;

typedef struct gv_fp_print {
    gv_fp_value f[GV_FP_NFEATURES];
    int calls;       /* GEMM calls it took */
    double elements; /* probe dot products evaluated */
} gv_fp_print;

/* Measure every feature of arithmetic a through gemm. GV_OK, or the first call's error with
   why (the features measured before it are kept, the rest "n/a"). */
int gv_fp_measure(const gv_fp_arith *a, gv_fp_gemm_fn gemm, void *ctx, gv_fp_print *fp, char *why,
                  size_t len);

/* Rounding names from four results of x = 1 + 0.75 u, -x, 1 + 0.5 u and 1 + 1.5 u converted
   (or summed) at unit u, each divided by u after subtracting the integer part: the outputs
   (in units of u above 1, or below -1 for the negative one) are classified as RNE, RNA, RZ,
   RU, RD or "other". Exposed for the tests. */
const char *gv_fp_classify_rounding(double up, double neg, double tie, double tie_odd);

#endif
