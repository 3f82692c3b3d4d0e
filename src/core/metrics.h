/* metrics.h: the tolerance oracle. Judges a device result (f32 or f64 storage) against the
 * f64 oracle element by element: allclose tiers, the op's error model (gauge and depth),
 * NaN/Inf positions, poisoned (unwritten) elements, and the metrics a result reports.
 * Host C only; no CUDA. */
#ifndef GV_COMPARE_H
#define GV_COMPARE_H

#include <stdint.h>
#include <string.h>

#include "core/gv.h"

#define GV_MAX_TIERS           4
#define GV_DEFAULT_RATIO_BOUND 16.0

typedef struct gv_tiers {
    int n;
    double t[GV_MAX_TIERS]; /* e.g. {1e-8, 1e-4}: |c - r| <= t (1 + |r|) */
} gv_tiers;

extern const gv_tiers gv_default_tiers;

/* The error model of one comparison.
 * Worst case (never false): per-element gauge g >= |r|, depth d and unit roundoff u;
 *   ratio = max_i |c_i - r_i| / (u g_i d). A NULL gauge means g_i = |r_i|.
 * Probabilistic (docs/error-models.md, after Higham and Mary, SISC 2019): for dot-product
 *   ops on independently drawn inputs, R_i = |c_i - r_i| / (w G_i) with the op's
 *   G_i = |r_i| + sqrt(sum_k (a_k b_k)^2) (pgauge) and the effective unit
 *   w = 2 u_in + u sqrt(d) (gv_prob_unit). NULL pgauge: the model is off for this output.
 * Exact: the result is exactly representable in any evaluation order (an exact probe):
 *   every element that differs from the oracle is counted as inexact. */
typedef struct gv_error_model {
    const double *gauge;
    double depth;
    double u;
    const double *pgauge;
    double pw;
    bool exact;
    /* the exact reference's remainder (reference.h): ref + ref_lo is the exact result, and
       errors are measured against it; NULL: ref is the f64 oracle's and errors against it */
    const double *ref_lo;
    /* The absolute underflow term (Higham ASNA, sec. 2.1, with gradual underflow): a product or
       quotient rounded into the subnormal range errs by up to eta = half the dtype's subnormal
       spacing besides u |x| (sums of subnormals are exact), so the worst-case bound is
       u g d + eta d and the probabilistic one w G + eta d. Held as 2 eta, the subnormal
       spacing (gv_underflow_eta: f64's eta, 2^-1075, is no double). 0: no term. */
    double eta;
    /* how many of an output's operations may underflow, each by eta: the products and
       quotients it is made of in any order (the op's underflow_terms: the m k products of a
       column sum of a product), at least the depth; 0 reads as depth */
    double eta_terms;
    /* IEEE 754 fixes the sign of a zero result of this op whatever the order (one correctly
       rounded operation an output: -0 + -0 = -0): a zero of the wrong sign is counted */
    bool zero_sign;
} gv_error_model;

/* The underflow term of dtype t as the model holds it: its subnormal spacing s, twice eta, the
   most a product or a quotient rounded into the subnormal range errs by beyond u |x|. Held
   doubled because f64's eta, 2^-1075, is not a double (it rounds to 0); gv_compare takes
   eta n = s (n / 2), and s for n = 1 (gv_error_model). */
static inline double gv_underflow_eta(gv_dtype t)
{
    return gv_dtype_subnormal_min(t);
}

/* The probabilistic model's thresholds: FAIL when max R > GV_PROB_MAX_BOUND, or when at
 * least GV_PROB_RMS_MIN_N elements are judged and RMS(R) > GV_PROB_RMS_BOUND. */
#define GV_PROB_MAX_BOUND 8.0
#define GV_PROB_RMS_BOUND 1.0
#define GV_PROB_RMS_MIN_N 64

/* The bias rule (docs/error-models.md, "Bias"): each finite pair with r != 0 gives a normalised
 * signed error e_i, the signed R_i = (c_i - r_i) / (w G_i) where the probabilistic model is on,
 * else (c_i - r_i) in ulps of r_i at the mode's precision. z = sum e / sqrt(sum e^2) and
 * z_sr = sum sign(r) e / sqrt(sum e^2); for independent errors symmetric about zero each obeys
 * P(|z| > t) <= 2 exp(-t^2 / 2) whatever n and the sizes of the e_i (Hoeffding, conditionally on
 * |e_i|). Where the rule judges (gv_result's bias.judged), FAIL when at least GV_BIAS_MIN_N
 * elements are in the sums and |z| or |z_sr| is over GV_BIAS_Z_BOUND: 2 exp(-18) ~ 3e-8 each. */
#define GV_BIAS_Z_BOUND 6.0
#define GV_BIAS_MIN_N   256

/* w = 2 u_in + u sqrt(d): u_in the unit roundoff the inputs are rounded to inside the op
 * (0 when they are used as stored), u the accumulation's, d its depth. The factor 2 covers
 * two rounded operands per product, rounded to nearest or truncated. */
double gv_prob_unit(double u, double depth, double u_in);

/* A sum of squares that neither overflows nor underflows: Blue's algorithm as LAPACK 3.10's
 * dnrm2 has it (Anderson, "Algorithm 978: Safe scaling in the Level 1 BLAS", TOMS 2017). Each
 * |x| goes to one of three accumulators: above GV_SSQ_TBIG scaled down by GV_SSQ_SBIG, below
 * GV_SSQ_TSML scaled up by GV_SSQ_SSML, the rest squared as it is. The scales are powers of two,
 * so scaling is exact, and the thresholds keep every scaled square inside the normal range:
 * values near f64's maximum (the `huge` dist) no longer square to inf, nor subnormals (`tiny`)
 * to subnormals or zero (slow on x86 as well as wrong). Where every term is in the middle range
 * the sum is the plain one, bit for bit: metrics compared across runs keep their values. */
typedef struct gv_ssq {
    double sml, med, big; /* sum (x ssml)^2, sum x^2, sum (x sbig)^2 */
} gv_ssq;

#define GV_SSQ_TSML 0x1p-511 /* 2^ceil((emin - 1) / 2): below it x^2 may be subnormal */
#define GV_SSQ_TBIG 0x1p+486 /* 2^floor((emax - p + 1) / 2): above it a sum of x^2 may overflow */
#define GV_SSQ_SSML 0x1p+537 /* 2^-floor((emin - p) / 2) */
#define GV_SSQ_SBIG 0x1p-538 /* 2^-ceil((emax + p - 1) / 2) */

/* Add x^2 (ax = |x|, finite or +inf). Two well-predicted compares a term: no division. */
static inline __attribute__((always_inline)) void gv_ssq_add(gv_ssq *s, double ax)
{
    if (ax > GV_SSQ_TBIG) {
        double y = ax * GV_SSQ_SBIG;
        s->big += y * y;
    } else if (ax < GV_SSQ_TSML) {
        /* ax GV_SSQ_SSML (2^537), exact: without the assist a subnormal ax costs */
        uint64_t b;
        memcpy(&b, &ax, sizeof b);
        double y = (b >> 52) == 0 ? (double)(int64_t)b * 0x1p-537 : ax * GV_SSQ_SSML;
        s->sml += y * y;
    } else {
        s->med += ax * ax;
    }
}

/* a += b, component by component (the metrics of several outputs or chunks). */
static inline void gv_ssq_merge(gv_ssq *a, const gv_ssq *b)
{
    a->sml += b->sml;
    a->med += b->med;
    a->big += b->big;
}

/* The 2-norm sqrt(sum x^2) as root 2^*k (root finite unless a term was infinite), so that a
   norm past f64's range is still held: *k is 538 (big terms), -537 (small terms only) or 0,
   and root = sqrt(med) exactly where every term was in the middle range. */
double gv_ssq_root(const gv_ssq *s, int *k);

/* ||a|| / ||b|| from two sums: sqrt(a.med) / sqrt(b.med) bit for bit where both are middle
   only. 0 when both norms are 0, +inf when only b's is; otherwise a finite number (a ratio past
   DBL_MAX reads DBL_MAX, a nonzero one below the subnormals the least subnormal: its accurate
   bits are 0 or 1074 either way) unless a held an infinite term. */
double gv_ssq_ratio(const gv_ssq *a, const gv_ssq *b);

/* x / ||s||, for the z of the bias rule: x / sqrt(s.med) bit for bit where s is middle only;
   0 when ||s|| is 0. */
double gv_ssq_div(double x, const gv_ssq *s);

/* ulp quantiles come from a histogram of log2(ulps), GV_ULP_BINS_PER_OCTAVE bins to an
 * octave from 2^GV_ULP_LOG2_MIN; bin 0 also holds every element exact to below that. */
#define GV_ULP_BINS_PER_OCTAVE 8
#define GV_ULP_LOG2_MIN        (-16)
#define GV_ULP_NBINS           (8 * 80)

typedef struct gv_metrics {
    int64_t n;           /* elements compared */
    double max_abs;      /* max |c - r| over finite pairs */
    double max_rel;      /* max |c - r| / |r| over r != 0 */
    double normwise_rel; /* ||c - r||_2 / ||r||_2 over finite pairs */
    double bits;         /* accurate bits: -log2(normwise_rel), measured (never capped at the
                            mode's width; +inf when no error was seen, 0 at or past 100 %) */
    int precision_bits;  /* the width the mode claims: the ulps are counted in it */
    double max_ulp;      /* max |c - r| in ulps of r at the mode's precision */
    double ratio;        /* error-model ratio (see gv_error_model) */
    int64_t mismatches[GV_MAX_TIERS]; /* elements outside each tier */
    int64_t nonfinite_mismatches;     /* NaN/Inf where the oracle has none, or vice versa */
    int64_t first_nonfinite_index;    /* -1 if none */
    /* of those: a NaN or an infinity where the result, rounded to the dtype's range, is finite
       (an intermediate that overflowed, an invalid operation), and a finite value where the
       result is NaN or infinite (a NaN or an infinity dropped); each with its first index */
    int64_t nonfinite_spurious, first_spurious_index;
    int64_t nonfinite_lost, first_lost_index;
    /* outputs whose correctly rounded result is a subnormal of the dtype (not zero) and that
       the device returned as zero: flushed (FTZ); the first one */
    int64_t subnormal_ref, flushed, first_flushed_index;
    /* of the outputs whose result is a subnormal, those the device returned as a subnormal
       (non-zero, below the dtype's smallest normal): flush-to-zero never returns one, so zeros
       beside them lost range some other way (an intermediate that overflowed) */
    int64_t subnormal_kept;
    /* outputs returned as zero, beyond the worst-case model, where the result is far above
       the subnormals (2^(p+8) smallest normals times the depth: more than subnormal operands
       read as zero could have made), and the first: flush-to-zero never does that, so zeros
       beside flushed subnormals then mean a loss of range (an intermediate that under- or
       overflowed) */
    int64_t zero_normal, first_zero_normal_index;
    /* zero_sign models: zeros of the wrong sign, and the first */
    int64_t zero_sign_wrong, first_zero_sign_index;
    int64_t poisoned;                 /* elements the device never wrote */
    int64_t first_poisoned_index;     /* -1 if none */
    int64_t worst_index;              /* element with the largest |c - r| / (1 + |r|); -1 if none */
    double worst_value, worst_ref;
    /* probabilistic model (NaN-free elements with a pgauge): max R, sums for RMS and bias.
       prob_sq and rel_sq stay plain sums: R and |c - r| / G are ratios to the error's own
       scale (about 1 where the model holds, and the same on tiny or huge data), so a square
       underflows only for a term under 2^-511 of the bound, which cannot move the RMS, and
       overflows only for a term past 2^511, where max R FAILs already and an RMS of +inf
       (written "inf") is the right reading */
    int64_t prob_n;
    double prob_max, prob_sq, prob_signed;
    int64_t prob_worst_index;
    /* sum of (|c - r| / G)^2 for the effective input precision; see gv_metrics_finish */
    double rel_sq;
    /* exact probe: elements that differ from the oracle */
    int64_t inexact, first_inexact_index;
    /* against an exact reference (ref_lo given): elements judged, and those the device
       rounded correctly (its value is the exact result rounded to nearest in f64) */
    int64_t cr_n, cr;
    /* bias (GV_BIAS_Z_BOUND): elements summed (finite, r != 0, e finite), sum e,
       sum sign(r) e, sum e^2 */
    int64_t bias_n;
    double bias_sum, bias_sum_sr;
    gv_ssq bias_sq; /* scaled (gv_ssq): an error in ulps of a reference near 0 reaches 2^1000 */
    /* derived by gv_metrics_finish */
    double prob_rms, prob_bias; /* RMS(R); mean signed (c - r) / (w G) */
    double eff_bits;            /* -log2 RMS(|c - r| / G): the input precision this error means */
    double cr_frac;             /* cr / cr_n; NaN without an exact reference */
    double bias_mean, bias_mean_sr; /* mean e and mean sign(r) e (0 when bias_n is 0) */
    double bias_z, bias_z_sr;       /* their z: the sums over sqrt(bias_sq) (0 when it is 0) */
    double ulp_p50, ulp_p99;        /* ulp quantiles (upper bin edges); max_ulp is exact */
    int64_t ulp_hist[GV_ULP_NBINS];
    /* sums kept so that metrics of several outputs can be merged: ||c - r||^2 and ||r||^2,
       scaled (gv_ssq), so that outputs near the overflow threshold or in the subnormals give a
       normwise error, never inf / inf */
    gv_ssq sq_err, sq_ref;
} gv_metrics;

/* Whether fl(num / den) can exceed cur, for num >= 0 and den > 0: false only where num is
 * below t = fl(fl(cur den) (1 - 2^-20)). With t normal (>= 2^-1000), t < cur den, so num / den
 * < cur and its rounding is at most cur (rounding is monotone and cur a double); with t
 * infinite, cur den is above every finite num. A NaN or a negative cur, or a t that may have
 * lost its relative accuracy, says true: the quotient is computed. The maxima judged this way
 * skip the division for the elements that cannot raise them, the same maxima always. */
static inline bool gv_quot_may_exceed(double num, double den, double cur)
{
    double t = cur * den * (1.0 - 0x1p-20);
    return !(num < t && t >= 0x1p-1000);
}

/* Compare n device values `got` (dtype t; poison = all bytes GV_POISON_BYTE) with the f64
 * reference `ref`, rounded to the dtype's range first (a finite f64 result past the dtype's
 * overflow threshold is the infinity IEEE rounding gives) (plus em->ref_lo where the reference is exact). precision_bits is the
 * significand width the mode claims, used for ULPs. Fills m; never fails for n >= 0. */
void gv_compare(const void *got, gv_dtype t, const double *ref, int64_t n, const gv_tiers *tiers,
                const gv_error_model *em, int precision_bits, gv_metrics *m);

/* Fold the metrics of another output (b) into a; tiers must be the same. Derived numbers
 * (normwise, RMS, bias, quantiles) are recomputed. */
void gv_metrics_merge(gv_metrics *a, const gv_metrics *b, int ntiers);

/* Recompute the derived numbers from the sums (normwise, accurate bits, probabilistic RMS and
 * bias, effective bits, the correctly rounded fraction, ulp quantiles). */
void gv_metrics_finish(gv_metrics *m, int precision_bits);

/* True when tier k is met: no mismatches and no NaN/Inf misplacement and nothing poisoned. */
bool gv_tier_met(const gv_metrics *m, int k);

/* Element i of a buffer of dtype t as f64; is_poison tells whether its bytes are the poison. */
double gv_load(const void *buf, gv_dtype t, int64_t i, bool *is_poison);

#endif
