/* metrics.c: the tolerance oracle — element-wise judgement of a device result against the
 * f64 reference (see metrics.h and DESIGN.md, "Compare"). All arithmetic in f64. */
#include "core/metrics.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const gv_tiers gv_default_tiers = {2, {1e-8, 1e-4}};

double gv_load(const void *buf, gv_dtype t, int64_t i, bool *is_poison)
{
    size_t es = gv_dtype_size(t);
    const unsigned char *bytes = (const unsigned char *)buf + (size_t)i * es;
    bool poison = true;
    for (size_t k = 0; k < es; k++)
        poison = poison && bytes[k] == GV_POISON_BYTE;
    *is_poison = poison;
    return gv_dtype_load(t, buf, i);
}

double gv_prob_unit(double u, double depth, double u_in)
{
    return 2.0 * u_in + u * sqrt(depth > 1.0 ? depth : 1.0);
}

static int ulp_bin(double ulps)
{
    if (!(ulps > 0)) return 0;
    double b = (log2(ulps) - GV_ULP_LOG2_MIN) * GV_ULP_BINS_PER_OCTAVE;
    if (b < 0) return 0;
    if (b >= GV_ULP_NBINS - 1) return GV_ULP_NBINS - 1;
    return (int)ceil(b);
}

/* Upper edge of bin b in ulps (bin 0: everything at or below 2^GV_ULP_LOG2_MIN, exact too). */
static double ulp_bin_edge(int b)
{
    return exp2((double)b / GV_ULP_BINS_PER_OCTAVE + GV_ULP_LOG2_MIN);
}

static double ulp_quantile(const gv_metrics *m, double q)
{
    int64_t total = 0;
    for (int b = 0; b < GV_ULP_NBINS; b++)
        total += m->ulp_hist[b];
    if (total == 0) return 0.0;
    int64_t want = (int64_t)ceil(q * (double)total), seen = 0;
    if (want < 1) want = 1;
    for (int b = 0; b < GV_ULP_NBINS; b++) {
        seen += m->ulp_hist[b];
        if (seen >= want) {
            double edge = b == 0 ? 0.0 : ulp_bin_edge(b);
            return edge < m->max_ulp ? edge : m->max_ulp;
        }
    }
    return m->max_ulp;
}

double gv_ssq_root(const gv_ssq *s, int *k)
{
    /* Blue's combination (LAPACK 3.10 dnrm2): the big terms dominate wherever there is one (the
       middle ones folded in at the big scale, the small ones below its rounding); small and
       middle terms meet as ymax sqrt(1 + (ymin / ymax)^2) */
    if (s->big > 0 || isnan(s->big)) {
        *k = 538;
        return sqrt(s->big + (s->med * GV_SSQ_SBIG) * GV_SSQ_SBIG);
    }
    if (s->sml > 0) {
        if (!(s->med > 0)) {
            *k = -537;
            return sqrt(s->sml);
        }
        double ymed = sqrt(s->med), ysml = sqrt(s->sml) / GV_SSQ_SSML;
        double ymax = ysml > ymed ? ysml : ymed, ymin = ysml > ymed ? ymed : ysml;
        *k = 0;
        return ymax * sqrt(1.0 + (ymin / ymax) * (ymin / ymax));
    }
    *k = 0;
    return sqrt(s->med);
}

double gv_ssq_ratio(const gv_ssq *a, const gv_ssq *b)
{
    int ka, kb;
    double ra = gv_ssq_root(a, &ka), rb = gv_ssq_root(b, &kb);
    if (!(rb > 0)) return ra > 0 ? INFINITY : 0.0;
    if (!(ra > 0)) return 0.0;
    if (!isfinite(ra)) return ra;
    /* ra / rb is within f64's range (each root is a normal number's square root scaled into
       range); 2^(ka - kb) may carry it past either end */
    double q = ldexp(ra / rb, ka - kb);
    if (isinf(q)) return DBL_MAX;
    if (q == 0) return DBL_TRUE_MIN;
    return q;
}

double gv_ssq_div(double x, const gv_ssq *s)
{
    int k;
    double root = gv_ssq_root(s, &k);
    if (!(root > 0)) return 0.0;
    return k == 0 ? x / root : ldexp(x, -k) / root;
}

void gv_metrics_finish(gv_metrics *m, int precision_bits)
{
    m->precision_bits = precision_bits;
    /* 0 when both norms are 0, +inf when only the reference's is, else finite (gv_ssq_ratio) */
    m->normwise_rel = gv_ssq_ratio(&m->sq_err, &m->sq_ref);
    /* measured: no cap at the claimed width (a correctly rounded f64 result judged against an
       exact reference reads about 53.5); +inf where no error was seen at all */
    m->bits = m->normwise_rel > 0 ? -log2(m->normwise_rel) : INFINITY;
    if (m->bits < 0) m->bits = 0;
    m->cr_frac = m->cr_n > 0 ? (double)m->cr / (double)m->cr_n : NAN;
    m->prob_rms = m->prob_n ? sqrt(m->prob_sq / (double)m->prob_n) : 0.0;
    m->prob_bias = m->prob_n ? m->prob_signed / (double)m->prob_n : 0.0;
    double rel_rms = m->prob_n ? sqrt(m->rel_sq / (double)m->prob_n) : 0.0;
    m->eff_bits = rel_rms > 0 ? -log2(rel_rms) : (m->prob_n ? INFINITY : 0.0);
    m->bias_mean = m->bias_n ? m->bias_sum / (double)m->bias_n : 0.0;
    m->bias_mean_sr = m->bias_n ? m->bias_sum_sr / (double)m->bias_n : 0.0;
    /* no error at all (exact outputs): z is 0 */
    m->bias_z = gv_ssq_div(m->bias_sum, &m->bias_sq);
    m->bias_z_sr = gv_ssq_div(m->bias_sum_sr, &m->bias_sq);
    m->ulp_p50 = ulp_quantile(m, 0.50);
    m->ulp_p99 = ulp_quantile(m, 0.99);
}

/* One unit in the last place of r at a significand width of p bits; for r = 0 (or below
 * the normal range, min_exp the dtype's) the spacing of the smallest normal binade. With
 * |r| = f 2^e, f in [0.5, 1) (frexp's e, here from r's bits; r finite), it is 2^(e - p), built
 * from bits where that is a normal double. */
static inline double ulp_at_bits(double r, int p, int min_exp)
{
    uint64_t b;
    memcpy(&b, &r, sizeof b);
    int biased = (int)((b >> 52) & 0x7FF);
    int e = biased - 1022;                               /* frexp's exponent of a normal r */
    if (biased == 0 || e - 1 < min_exp) e = min_exp + 1; /* zero or subnormal: as ulp_at */
    int k = e - p;
    if (k < -1022 || k > 1023) return ldexp(1.0, k);
    uint64_t u = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* 2^x for x in [-1022, 1023], built from its bits */
static inline double pow2(int x)
{
    uint64_t u = (uint64_t)(x + 1023) << 52;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* err / ulp_at_bits(r, p, min_exp), the ulp a power of two 2^k: where 2^-k is a normal
 * double, err * 2^-k, the same real number rounded the same way (a product and a quotient are
 * both correctly rounded), without the division. */
static inline double ulps_at_bits(double err, double r, int p, int min_exp)
{
    uint64_t b;
    memcpy(&b, &r, sizeof b);
    int biased = (int)((b >> 52) & 0x7FF);
    int e = biased - 1022;
    if (biased == 0 || e - 1 < min_exp) e = min_exp + 1;
    int k = e - p;
    if (k < -1022 && k >= -1074 && err >= 0) {
        /* the ulp 2^k is subnormal (f64 results near the underflow threshold, the tiny dist):
           err 2^-k without dividing by it, in two exact steps, err's subnormal significand
           taken as an integer (multiplying or dividing a subnormal costs an assist of about a
           hundred cycles on x86). The same real number rounded the same way: err 2^-k is exact
           or past the range, an infinity both ways. */
        uint64_t eb;
        memcpy(&eb, &err, sizeof eb);
        if ((eb >> 52) == 0) return (double)(int64_t)eb * pow2(-1074 - k); /* m 2^-1074 2^-k */
        return err * pow2(-k - 100) * 0x1p+100;
    }
    if (k < -1022 || k > 1022) return err / ulp_at_bits(r, p, min_exp);
    uint64_t u = (uint64_t)(-k + 1023) << 52;
    double inv;
    memcpy(&inv, &u, sizeof inv);
    return err * inv;
}

/* ulp_bin without log2 for ulps in [2^GV_ULP_LOG2_MIN, 2^63): with ulps = m 2^k, m in [1, 2),
 * the bin is ceil(8 (k - GV_ULP_LOG2_MIN) + 8 log2 m), which counts the edges 2^(j/8) that m
 * passes. Within a relative 1e-9 of an edge (where log2's rounding could decide) and outside
 * that range, ulp_bin itself: the same bin always. */
static const double bin_edge[GV_ULP_BINS_PER_OCTAVE + 1] = {
    1.0,
    1.0905077326652576592,
    1.1892071150027210667,
    1.2968395546510096659,
    1.4142135623730950488,
    1.5422108254079408236,
    1.6817928305074290860,
    1.8340080864093424635,
    2.0,
};

/* The significand's top 8 fraction bits split [1, 2) into 256 buckets; in a bucket with no
   edge (nor within 2e-9 of one) every m passes the same edges. */
enum { BUCKETS = 256, BUCKET_SHIFT = 44 };
typedef struct bin_buckets {
    signed char passed[BUCKETS]; /* edges passed by every m of the bucket; -1: look closer */
} bin_buckets;

static void bin_buckets_init(bin_buckets *t)
{
    for (int b = 0; b < BUCKETS; b++) {
        double lo = 1.0 + (double)b / BUCKETS, hi = 1.0 + (double)(b + 1) / BUCKETS;
        int passed = 0;
        bool near = false;
        for (int j = 0; j <= GV_ULP_BINS_PER_OCTAVE; j++) {
            double e = bin_edge[j], margin = 2e-9 * e;
            if (e - margin < hi && e + margin >= lo) near = true;
            passed += e < lo;
        }
        t->passed[b] = near ? -1 : (signed char)passed;
    }
}

static inline __attribute__((always_inline)) int ulp_bin_fast(double ulps, const bin_buckets *t)
{
    uint64_t b;
    memcpy(&b, &ulps, sizeof b);
    int k = (int)((b >> 52) & 0x7FF) - 1023;
    if (!(ulps > 0) || k < GV_ULP_LOG2_MIN) return 0; /* log2 below the first edge */
    if (k >= 63) return ulp_bin(ulps);
    int passed = t->passed[(b >> BUCKET_SHIFT) & (BUCKETS - 1)];
    if (passed >= 0) return (k - GV_ULP_LOG2_MIN) * GV_ULP_BINS_PER_OCTAVE + passed;
    uint64_t mb = (b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
    double m;
    memcpy(&m, &mb, sizeof m);
    if (m == 1.0) return (k - GV_ULP_LOG2_MIN) * GV_ULP_BINS_PER_OCTAVE; /* log2 exact */
    int above = 0;
    for (int j = 0; j < GV_ULP_BINS_PER_OCTAVE; j++) {
        if (fabs(m - bin_edge[j]) <= 1e-9 * bin_edge[j]) return ulp_bin(ulps);
        above += m > bin_edge[j];
    }
    if (bin_edge[GV_ULP_BINS_PER_OCTAVE] - m <= 2e-9) return ulp_bin(ulps);
    return (k - GV_ULP_LOG2_MIN) * GV_ULP_BINS_PER_OCTAVE + above;
}

/* Element i of got as f64, and whether all its bytes are the poison byte: gv_load for one
 * dtype, t a constant where compare_range is specialised. */
static inline double load_poison(const void *got, gv_dtype t, int64_t i, bool *poison)
{
    if (t == GV_F32) {
        uint32_t bits;
        memcpy(&bits, (const char *)got + (size_t)i * 4, 4);
        *poison = bits == 0x01010101u * GV_POISON_BYTE;
        float f;
        memcpy(&f, &bits, 4);
        return (double)f;
    }
    if (t == GV_F64) {
        uint64_t bits;
        memcpy(&bits, (const char *)got + (size_t)i * 8, 8);
        *poison = bits == 0x0101010101010101ull * GV_POISON_BYTE;
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    return gv_load(got, t, i, poison);
}

/* The counts of metrics over m->n elements, as compare_range_t makes them and
   gv_metrics_merge keeps them: a poisoned element and a misplaced NaN/Inf are each counted
   once and never judged against a tier, so every tier's mismatches, the poisoned and the
   non-finite ones together are at most n; every index names one of the n elements (-1:
   none), and a first index is set exactly when its count is not zero. gv_tier_met and the
   verdict's messages read these. Once per chunk of a million elements or per merge. */
static void metrics_assert_counts(const gv_metrics *m, int ntiers)
{
    assert(ntiers >= 0 && ntiers <= GV_MAX_TIERS);
    assert(m->n >= 0 && m->poisoned >= 0 && m->nonfinite_mismatches >= 0);
    int64_t unjudged = m->poisoned + m->nonfinite_mismatches;
    assert(unjudged <= m->n);
    for (int k = 0; k < ntiers; k++)
        assert(m->mismatches[k] >= 0 && m->mismatches[k] + unjudged <= m->n);
    assert(m->prob_n >= 0 && m->prob_n + unjudged <= m->n);
    assert(m->inexact >= 0 && m->inexact <= m->n);
    assert(m->bias_n >= 0 && m->bias_n + unjudged <= m->n); /* finite pairs only */
    int64_t binned = 0;
    for (int b = 0; b < GV_ULP_NBINS; b++)
        binned += m->ulp_hist[b];
    assert(binned >= 0 && binned + unjudged <= m->n); /* finite pairs only */
    const int64_t index[] = {
        m->first_poisoned_index, m->first_nonfinite_index, m->worst_index,
        m->prob_worst_index,     m->first_inexact_index,   m->first_spurious_index,
        m->first_lost_index,     m->first_flushed_index,   m->first_zero_sign_index};
    for (size_t i = 0; i < sizeof index / sizeof index[0]; i++)
        assert(index[i] >= -1 && index[i] < m->n);
    assert((m->first_poisoned_index >= 0) == (m->poisoned > 0));
    assert((m->first_nonfinite_index >= 0) == (m->nonfinite_mismatches > 0));
    assert(m->nonfinite_spurious >= 0 && m->nonfinite_lost >= 0 &&
           m->nonfinite_spurious + m->nonfinite_lost <= m->nonfinite_mismatches);
    assert((m->first_spurious_index >= 0) == (m->nonfinite_spurious > 0));
    assert((m->first_lost_index >= 0) == (m->nonfinite_lost > 0));
    assert(m->flushed >= 0 && m->flushed <= m->subnormal_ref && m->subnormal_ref <= m->n);
    assert((m->first_flushed_index >= 0) == (m->flushed > 0));
    assert(m->zero_sign_wrong >= 0 && m->zero_sign_wrong <= m->n);
    assert((m->first_zero_sign_index >= 0) == (m->zero_sign_wrong > 0));
    assert((m->first_inexact_index >= 0) == (m->inexact > 0));
}

#define RANGE_INLINE static inline __attribute__((always_inline))

/* What one range's loop reads of the dtype and the error model: constants of the loop (with
   the dtype a constant, folded where compare_range_t is specialised). */
typedef struct range_consts {
    int min_exp;
    /* the dtype's largest finite number and its smallest normal: past the one the reference
       is rounded to the dtype's range, below the other a result is subnormal */
    double max_finite, normal_min;
    bool exact, zero_sign;
    const double *pgauge, *gauge, *ref_lo;
    double pw, eu, edepth;
    double eta_d;      /* the underflow term of both models */
    double ieee_eta_d; /* what IEEE gradual underflow allows, whatever the mode allows */
    /* a zero output where the result is at least this large is not flush-to-zero's, not even
       of subnormal operands read as zero (daz), which can sum to at most about depth
       smallest normals: 2^(p+8) smallest normals times the depth leaves that far behind */
    double zero_normal_min;
} range_consts;

RANGE_INLINE range_consts range_consts_make(gv_dtype t, const gv_error_model *em)
{
    range_consts k;
    k.min_exp = gv_dtype_min_exp(t);
    /* (2 - 2^(1-p)) 2^emax with emax = 1 - emin */
    k.max_finite = ldexp(2.0 - ldexp(1.0, 1 - gv_dtype_mantissa_bits(t)), 1 - k.min_exp);
    k.normal_min = gv_dtype_normal_min(t);
    k.exact = em && em->exact;
    k.pgauge = em ? em->pgauge : NULL;
    k.gauge = em ? em->gauge : NULL;
    k.ref_lo = em ? em->ref_lo : NULL;
    k.pw = em ? em->pw : 0.0;
    k.eu = em ? em->u : 0.0;
    k.edepth = em ? em->depth : 0.0;
    k.zero_normal_min =
        ldexp(k.normal_min, gv_dtype_mantissa_bits(t) + 8) * (k.edepth > 1.0 ? k.edepth : 1.0);
    /* eta per operation of the depth */
    double eta_n = em && em->eta_terms > k.edepth ? em->eta_terms : k.edepth;
    if (!(eta_n >= 1.0)) eta_n = 1.0;
    /* eta n = (2 eta) (n / 2), at least 2 eta: half of f64's subnormal spacing is no double */
    const double half_n = eta_n / 2 > 1.0 ? eta_n / 2 : 1.0;
    k.eta_d = em ? em->eta * half_n : 0.0;
    /* past it, a zero where the result is subnormal was flushed */
    k.ieee_eta_d = gv_underflow_eta(t) * half_n;
    k.zero_sign = em && em->zero_sign;
    return k;
}

/* The running sums, maxima and counts of one range, in a local written to m at the end
   (range_acc_store): through m they would be stored and loaded back every element (the
   inputs could alias them), one chain of memory round trips per sum. The same operations in
   the same order: the same bits. */
typedef struct range_acc {
    gv_ssq sq_err, sq_ref, bias_sq;
    double max_abs, max_rel, max_ulp, ratio;
    double prob_max, prob_sq, prob_signed, rel_sq;
    double bias_sum, bias_sum_sr;
    double worst_value, worst_ref, worst_scaled;
    int64_t bias_n, poisoned, first_poisoned, nonfinite, first_nonfinite;
    int64_t inexact, first_inexact, prob_n, prob_worst, worst_index;
    int64_t spurious, first_spurious, lost, first_lost;
    int64_t subnormal_ref, flushed, first_flushed, zsign, first_zsign, subnormal_kept;
    int64_t zero_normal, first_zero_normal;
    int64_t cr_n, cr;
} range_acc;

/* A pair of which one is NaN or infinite: NaN must meet NaN, and an infinity the same
   infinity. */
RANGE_INLINE void acc_nonfinite(range_acc *a, int64_t i, double c, double r)
{
    bool same = (isnan(r) && isnan(c)) || (isinf(r) && c == r);
    if (same) return;
    if (a->nonfinite++ == 0) a->first_nonfinite = i;
    if (isfinite(r) && a->spurious++ == 0) a->first_spurious = i;
    if (isfinite(c) && a->lost++ == 0) a->first_lost = i;
}

/* A finite pair's error (diff = c - r, against the exact result where ref_lo knows it) into
   the norms, the maxima and the exact counts; its size in ulps of the precision returned. */
RANGE_INLINE double acc_error(range_acc *a, const range_consts *k, int precision_bits, int64_t i,
                              double c, double r, double diff)
{
    double err = fabs(diff), ar = fabs(r);
    if (k->ref_lo) {
        a->cr_n++;
        a->cr += c == r; /* r is the exact result rounded to nearest */
    }
    if (err <= GV_SSQ_TBIG) {
        gv_ssq_add(&a->sq_err, err);
    } else {
        /* c - r may have overflowed (c and r finite, of opposite signs, near the dtype's
           maximum): the difference of the scaled values is the scaled difference, finite */
        double ds = c * GV_SSQ_SBIG - r * GV_SSQ_SBIG;
        if (k->ref_lo) ds -= k->ref_lo[i] * GV_SSQ_SBIG;
        a->sq_err.big += ds * ds;
    }
    gv_ssq_add(&a->sq_ref, ar);
    if (err > a->max_abs) a->max_abs = err;
    if (ar > 0 && gv_quot_may_exceed(err, ar, a->max_rel) && err / ar > a->max_rel)
        a->max_rel = err / ar;
    double ulps = err == 0 ? 0.0 : ulps_at_bits(err, r, precision_bits, k->min_exp);
    if (ulps > a->max_ulp) a->max_ulp = ulps;
    if (k->exact && c != r && a->inexact++ == 0) a->first_inexact = i;
    return ulps;
}

/* The probabilistic model's R of element i (gauge G = pgauge[i]) into its maximum and sums;
   the signed R returned, the bias's normalised error where this model judges. */
RANGE_INLINE double acc_prob(range_acc *a, const range_consts *k, int64_t i, double diff,
                             double err)
{
    double G = k->pgauge[i];
    /* a NaN G (never computed) or a G of 0 under an error: no model covers it. The
       denominator only where there is an error to divide: near the underflow G is subnormal,
       and each product or quotient with it costs a slow assist on x86 for a value an exact
       element never uses (the same numbers either way) */
    double R = isnan(G) ? INFINITY : 0.0, signed_R = 0.0;
    if (err != 0) {
        double pden = k->pw * G + k->eta_d;
        if (!isnan(G)) R = pden > 0 && k->pw > 0 ? err / pden : INFINITY;
        /* (c - r) / pden is +-R: c - r and err differ in sign only, and so do quotients */
        signed_R = pden > 0 && k->pw > 0 ? (diff < 0 ? -R : R) : diff / pden;
    }
    a->prob_n++;
    if (R > a->prob_max || a->prob_worst < 0) {
        if (R > a->prob_max) a->prob_max = R;
        if (R >= a->prob_max) a->prob_worst = i;
    }
    a->prob_sq += R * R;
    a->prob_signed += signed_R;
    if (G > 0 && err != 0) a->rel_sq += (err / G) * (err / G); /* else it adds +0 */
    return signed_R;
}

/* The bias's normalised error (metrics.h) of a pair into its sums. */
RANGE_INLINE void acc_bias(range_acc *a, double r, double ar, double bias_e)
{
    if (!(ar > 0 && isfinite(bias_e))) return; /* r = 0 has no sign; an infinite R no measure */
    a->bias_n++;
    a->bias_sum += bias_e;
    a->bias_sum_sr += r > 0 ? bias_e : -bias_e;
    gv_ssq_add(&a->bias_sq, fabs(bias_e));
}

/* A subnormal result (in the dtype t) returned as zero beyond what the worst-case model
   allows it: flushed (FTZ), not rounded; and one returned as a subnormal, kept. A normal
   result returned as zero beyond the model is counted apart: flush-to-zero leaves normal
   results alone, so zeros there mean an intermediate under- or overflowed. */
RANGE_INLINE void acc_subnormal(range_acc *a, const range_consts *k, gv_dtype t, int64_t i,
                                double c, double r, double ar, double err, double g)
{
    if (c == 0 && ar >= k->zero_normal_min && err > k->eu * g * k->edepth + k->ieee_eta_d &&
        a->zero_normal++ == 0)
        a->first_zero_normal = i; /* a zero where the result is normal: no flush-to-zero */
    if (!(ar < k->normal_min && gv_dtype_round(t, r) != 0)) return;
    a->subnormal_ref++;
    if (c == 0 && err > k->eu * g * k->edepth + k->ieee_eta_d && a->flushed++ == 0)
        a->first_flushed = i;
    if (c != 0 && fabs(c) < k->normal_min) a->subnormal_kept++;
}

/* The worst-case model's ratio err / (u g d + eta) into its maximum. */
RANGE_INLINE void acc_ratio(range_acc *a, const range_consts *k, double err, double g)
{
    double denom = k->eu * g * k->edepth + k->eta_d;
    if (!(denom > 0))
        a->ratio = INFINITY > a->ratio ? INFINITY : a->ratio;
    else if (gv_quot_may_exceed(err, denom, a->ratio) && err / denom > a->ratio)
        a->ratio = err / denom;
}

/* The worst element by err / (1 + |r|), the quotient computed only where it may be larger. */
RANGE_INLINE void acc_worst(range_acc *a, int64_t i, double c, double r, double err, double ar)
{
    if ((err == 0 && a->worst_scaled >= 0) || !gv_quot_may_exceed(err, 1.0 + ar, a->worst_scaled))
        return;
    double scaled = err / (1.0 + ar);
    if (scaled > a->worst_scaled) {
        a->worst_scaled = scaled;
        a->worst_index = i;
        a->worst_value = c;
        a->worst_ref = r;
    }
}

/* The range's sums, the tiers' mismatches and the histogram's four copies into m. */
static void range_acc_store(const range_acc *a, const int64_t *mismatches, int ntiers,
                            int64_t hist[4][GV_ULP_NBINS], gv_metrics *m)
{
    m->sq_err = a->sq_err, m->sq_ref = a->sq_ref, m->max_abs = a->max_abs;
    m->max_rel = a->max_rel, m->max_ulp = a->max_ulp, m->ratio = a->ratio;
    m->prob_n = a->prob_n, m->prob_max = a->prob_max, m->prob_sq = a->prob_sq;
    m->prob_signed = a->prob_signed, m->rel_sq = a->rel_sq, m->prob_worst_index = a->prob_worst;
    m->poisoned = a->poisoned, m->first_poisoned_index = a->first_poisoned;
    m->nonfinite_mismatches = a->nonfinite, m->first_nonfinite_index = a->first_nonfinite;
    m->nonfinite_spurious = a->spurious, m->first_spurious_index = a->first_spurious;
    m->nonfinite_lost = a->lost, m->first_lost_index = a->first_lost;
    m->subnormal_ref = a->subnormal_ref, m->flushed = a->flushed;
    m->first_flushed_index = a->first_flushed, m->subnormal_kept = a->subnormal_kept;
    m->zero_normal = a->zero_normal, m->first_zero_normal_index = a->first_zero_normal;
    m->zero_sign_wrong = a->zsign, m->first_zero_sign_index = a->first_zsign;
    m->inexact = a->inexact, m->first_inexact_index = a->first_inexact;
    m->cr_n = a->cr_n, m->cr = a->cr;
    m->bias_n = a->bias_n, m->bias_sum = a->bias_sum, m->bias_sum_sr = a->bias_sum_sr;
    m->bias_sq = a->bias_sq;
    m->worst_index = a->worst_index, m->worst_value = a->worst_value, m->worst_ref = a->worst_ref;
    for (int k = 0; k < ntiers; k++)
        m->mismatches[k] = mismatches[k];
    for (int b = 0; b < GV_ULP_NBINS; b++)
        m->ulp_hist[b] = hist[0][b] + hist[1][b] + hist[2][b] + hist[3][b];
}

/* One range, in order: gv_compare's whole arithmetic. Inlined into one copy per dtype, so the
   loads and the ulp's exponent range are constants of the loop. */
RANGE_INLINE void compare_range_t(const void *got, gv_dtype t, const double *ref, int64_t n,
                                  const gv_tiers *tiers, const gv_error_model *em,
                                  int precision_bits, gv_metrics *m)
{
    memset(m, 0, sizeof *m);
    m->n = n;
    m->precision_bits = precision_bits;
    const range_consts k = range_consts_make(t, em);
    bin_buckets buckets;
    bin_buckets_init(&buckets);
    const int ntiers = tiers->n;
    range_acc a = {.worst_scaled = -1.0,
                   .first_poisoned = -1,
                   .first_nonfinite = -1,
                   .first_inexact = -1,
                   .prob_worst = -1,
                   .worst_index = -1,
                   .first_spurious = -1,
                   .first_lost = -1,
                   .first_flushed = -1,
                   .first_zero_normal = -1,
                   .first_zsign = -1};
    int64_t mismatches[GV_MAX_TIERS] = {0};
    /* The histogram counts go to four copies in turn, summed at the end, so that a run of
       elements in one bin does not wait on its own previous increment. */
    int64_t hist[4][GV_ULP_NBINS];
    memset(hist, 0, sizeof hist);
    for (int64_t i = 0; i < n; i++) {
        bool poison;
        double c = load_poison(got, t, i, &poison);
        double r = ref[i];
        if (poison) {
            if (a.poisoned++ == 0) a.first_poisoned = i;
            continue;
        }
        /* IEEE rounds a result past the dtype's range to an infinity: so does the reference */
        if (fabs(r) > k.max_finite) r = gv_dtype_round(t, r);
        if (!isfinite(r) || !isfinite(c)) {
            acc_nonfinite(&a, i, c, r);
            continue;
        }
        if (k.zero_sign && c == 0 && gv_dtype_round(t, r) == 0 && signbit(c) != signbit(r) &&
            a.zsign++ == 0)
            a.first_zsign = i;
        /* against the exact result where it is known: (c - r) is exact where c and r are
           close (Sterbenz), and ref_lo is at most half an ulp of r */
        double diff = k.ref_lo ? (c - r) - k.ref_lo[i] : c - r;
        double err = fabs(diff), ar = fabs(r);
        double ulps = acc_error(&a, &k, precision_bits, i, c, r, diff);
        hist[i & 3][ulp_bin_fast(ulps, &buckets)]++;
        /* the bias's normalised error (metrics.h): signed ulps, or the signed R */
        double bias_e = k.pgauge ? acc_prob(&a, &k, i, diff, err) : diff < 0 ? -ulps : ulps;
        acc_bias(&a, r, ar, bias_e);
        for (int j = 0; j < ntiers; j++)
            if (!(err <= tiers->t[j] * (1.0 + ar))) mismatches[j]++;
        double g = k.gauge ? k.gauge[i] : ar;
        acc_subnormal(&a, &k, t, i, c, r, ar, err, g);
        if (em && err > 0) acc_ratio(&a, &k, err, g);
        acc_worst(&a, i, c, r, err, ar);
    }
    range_acc_store(&a, mismatches, ntiers, hist, m);
    gv_metrics_finish(m, precision_bits);
    metrics_assert_counts(m, ntiers);
}

static void compare_range(const void *got, gv_dtype t, const double *ref, int64_t n,
                          const gv_tiers *tiers, const gv_error_model *em, int precision_bits,
                          gv_metrics *m)
{
    if (t == GV_F32)
        compare_range_t(got, GV_F32, ref, n, tiers, em, precision_bits, m);
    else if (t == GV_F64)
        compare_range_t(got, GV_F64, ref, n, tiers, em, precision_bits, m);
    else
        compare_range_t(got, t, ref, n, tiers, em, precision_bits, m);
}

void gv_compare(const void *got, gv_dtype t, const double *ref, int64_t n, const gv_tiers *tiers,
                const gv_error_model *em, int precision_bits, gv_metrics *m)
{
    /* Fixed chunks, judged on all cores, merged in order: the metrics do not depend on the
       thread count. Up to one chunk, the single serial pass. 2^16 elements a chunk (it was
       2^20): a million-element output (a 1000^2 product) then spreads over 16 cores instead
       of one, which matters where every element costs microseconds (results in the
       subnormals, each operation on them a microcode assist on x86: 0.8 s for a 1000x999x1001
       f64 product of the tiny dist on an H100's host). Merging a chunk is a few thousand
       operations (the ulp histogram), nothing beside 2^16 elements. */
    enum { CHUNK = 1 << 16 };
    assert(n >= 0 && tiers->n >= 0 && tiers->n <= GV_MAX_TIERS); /* mismatches[] holds them */
    int64_t nchunks = (n + CHUNK - 1) / CHUNK;
    gv_metrics *part = nchunks > 1 ? malloc(sizeof *part * (size_t)nchunks) : NULL;
    if (!part) {
        compare_range(got, t, ref, n, tiers, em, precision_bits, m);
        return;
    }
    size_t es = gv_dtype_size(t);
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t off = c * CHUNK, len = n - off < CHUNK ? n - off : CHUNK;
        gv_error_model sub;
        if (em) {
            sub = *em;
            if (sub.gauge) sub.gauge += off;
            if (sub.pgauge) sub.pgauge += off;
            if (sub.ref_lo) sub.ref_lo += off;
        }
        compare_range((const char *)got + (size_t)off * es, t, ref + off, len, tiers,
                      em ? &sub : NULL, precision_bits, &part[c]);
    }
    *m = part[0];
    for (int64_t c = 1; c < nchunks; c++)
        gv_metrics_merge(m, &part[c], tiers->n);
    free(part);
}

void gv_metrics_merge(gv_metrics *a, const gv_metrics *b, int ntiers)
{
    if (b) {
        if (b->max_abs > a->max_abs) a->max_abs = b->max_abs;
        if (b->max_rel > a->max_rel) a->max_rel = b->max_rel;
        if (b->max_ulp > a->max_ulp) a->max_ulp = b->max_ulp;
        if (b->ratio > a->ratio) a->ratio = b->ratio;
        for (int k = 0; k < ntiers; k++)
            a->mismatches[k] += b->mismatches[k];
        if (a->first_nonfinite_index < 0 && b->first_nonfinite_index >= 0)
            a->first_nonfinite_index = a->n + b->first_nonfinite_index;
        if (a->first_poisoned_index < 0 && b->first_poisoned_index >= 0)
            a->first_poisoned_index = a->n + b->first_poisoned_index;
        a->nonfinite_mismatches += b->nonfinite_mismatches;
        /* the first index of each count, moved by a's n, where a has none yet */
        const struct {
            int64_t *ai, *an;
            int64_t bi, bn;
        } firsts[] = {
            {&a->first_spurious_index, &a->nonfinite_spurious, b->first_spurious_index,
             b->nonfinite_spurious},
            {&a->first_lost_index, &a->nonfinite_lost, b->first_lost_index, b->nonfinite_lost},
            {&a->first_flushed_index, &a->flushed, b->first_flushed_index, b->flushed},
            {&a->first_zero_normal_index, &a->zero_normal, b->first_zero_normal_index,
             b->zero_normal},
            {&a->first_zero_sign_index, &a->zero_sign_wrong, b->first_zero_sign_index,
             b->zero_sign_wrong},
        };
        for (size_t f = 0; f < sizeof firsts / sizeof firsts[0]; f++) {
            if (*firsts[f].ai < 0 && firsts[f].bi >= 0) *firsts[f].ai = a->n + firsts[f].bi;
            *firsts[f].an += firsts[f].bn;
        }
        a->subnormal_ref += b->subnormal_ref;
        a->subnormal_kept += b->subnormal_kept;
        a->poisoned += b->poisoned;
        if (b->worst_index >= 0 &&
            (a->worst_index < 0 ||
             fabs(b->worst_value - b->worst_ref) / (1 + fabs(b->worst_ref)) >
                 fabs(a->worst_value - a->worst_ref) / (1 + fabs(a->worst_ref)))) {
            a->worst_index = a->n + b->worst_index;
            a->worst_value = b->worst_value;
            a->worst_ref = b->worst_ref;
        }
        if (b->prob_worst_index >= 0 && (a->prob_worst_index < 0 || b->prob_max > a->prob_max)) {
            a->prob_max = b->prob_max;
            a->prob_worst_index = a->n + b->prob_worst_index;
        }
        a->prob_n += b->prob_n;
        a->prob_sq += b->prob_sq;
        a->prob_signed += b->prob_signed;
        a->rel_sq += b->rel_sq;
        if (a->first_inexact_index < 0 && b->first_inexact_index >= 0)
            a->first_inexact_index = a->n + b->first_inexact_index;
        a->inexact += b->inexact;
        a->cr_n += b->cr_n;
        a->cr += b->cr;
        a->bias_n += b->bias_n;
        a->bias_sum += b->bias_sum;
        a->bias_sum_sr += b->bias_sum_sr;
        gv_ssq_merge(&a->bias_sq, &b->bias_sq);
        for (int i = 0; i < GV_ULP_NBINS; i++)
            a->ulp_hist[i] += b->ulp_hist[i];
        gv_ssq_merge(&a->sq_err, &b->sq_err);
        gv_ssq_merge(&a->sq_ref, &b->sq_ref);
        a->n += b->n;
        metrics_assert_counts(a, ntiers); /* b's counts moved by a's n: still within a's */
    }
    gv_metrics_finish(a, a->precision_bits > 0 ? a->precision_bits : 53);
}

bool gv_tier_met(const gv_metrics *m, int k)
{
    return m->mismatches[k] == 0 && m->nonfinite_mismatches == 0 && m->poisoned == 0;
}
