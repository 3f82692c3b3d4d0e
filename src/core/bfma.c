/* bfma.c: the block FMA models of NVIDIA tensor cores (bfma.h): the table of per-GPU
 * parameters, the rounding of a value into a format, one block and a chain of blocks. The
 * arithmetic is exact: every aligned term is an integer on the grid 2^(E - align_frac_bits),
 * below 2^30 in magnitude, and a block of at most 64 of them sums exactly in an int64_t. */
#include "core/bfma.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- formats: IEEE 754-2019 binary16/binary32; bfloat16 and TF32 (the NVIDIA A100 Tensor
 * Core GPU Architecture whitepaper: 8 exponent bits as binary32, 7 and 10 fraction bits); E4M3
 * and E5M2 (OCP 8-bit Floating Point Specification (OFP8) rev. 1.0: bias 7 and 15; E4M3 has no
 * infinity and its S.1111.111 is NaN, so its largest value is 448). The models derive emin as
 * 1 - (2^(exponent bits - 1) - 1) (Generic_BFMA_TC.m), the same numbers. ----------------- */
/* clang-format off */
#define F_BINARY32 {"binary32", 24, -126, 127, true, true}
#define F_BINARY16 {"binary16", 11, -14, 15, true, true}
#define F_BFLOAT16 {"bfloat16", 8, -126, 127, true, true}
#define F_TF32     {"tf32", 11, -126, 127, true, true}
#define F_E4M3     {"e4m3", 4, -6, 8, true, false}
#define F_E5M2     {"e5m2", 3, -14, 15, true, true}
/* clang-format on */

/* One row of the table: the model's fma, neab, frmode and min_exp_limit. armode is 'rz' in
 * every NVIDIA model and only used off the global-alignment path; stkbitenabled = 0,
 * late_partial_sum = 0, odd_even_grouping = 0, pair_wise_sum = 0, denorm_prd = 1,
 * c_min_exp_limit = 0, prd_limit = 0, correct_rounding = 0, in_subnormals = 1 and
 * out_subnormals = 1 in every NVIDIA model, which is what bfma.c implements. */
#define MODELX(SM, GPU, FMT, SRC, IN, OUT, FMA, NEAB, FRMODE, MINEXP, UNCONFIRMED)                 \
    {                                                                                              \
        .sm = (SM), .gpu = (GPU), .fmt = (FMT), .source = (SRC), .in = F_##IN, .out = F_##OUT,     \
        .block = (FMA), .extra_align_bits = (NEAB), .align_frac_bits = 23 + (NEAB),                \
        .align_round = GV_BFMA_RZ, .block_round = (FRMODE),                                        \
        .acc_sig_bits = ((NEAB) < 0 ? (NEAB) : 0) + OUT_SIG_##OUT, .min_align_exp = (MINEXP),      \
        .in_subnormals = true, .out_subnormals = true, .unconfirmed = (UNCONFIRMED)                \
    }
#define MODEL(SM, GPU, FMT, SRC, IN, OUT, FMA, NEAB, FRMODE, MINEXP)                               \
    MODELX(SM, GPU, FMT, SRC, IN, OUT, FMA, NEAB, FRMODE, MINEXP, false)
/* A model the repository's own GPU vectors do not confirm (below) */
#define MODEL_UNCONFIRMED(SM, GPU, FMT, SRC, IN, OUT, FMA, NEAB, FRMODE, MINEXP)                   \
    MODELX(SM, GPU, FMT, SRC, IN, OUT, FMA, NEAB, FRMODE, MINEXP, true)
#define OUT_SIG_BINARY32 24
#define OUT_SIG_BINARY16 11

#define RZ GV_BFMA_RZ
#define RN GV_BFMA_RN

/* Every number below is read off the file named in the row (commit b12b5a7). Defaults of a
 * file: fma, neab = 1st/2nd def_params lines; frmode 'rz'; min_exp_limit as set there; the
 * per-format branches at the end of the file override them:
 *   V100TC.m:  fma 4, neab 0, min_exp_limit -1024; f16 output: frmode 'rne', -19.
 *   A100TC.m:  fma 8, neab 1, -132; f16 output: 'rne', -20; tf32: fma 4.
 *              A2TC.m and A30TC.m call A100TC (README: "Ampere (A100, A2, A30, A40)").
 *   AdaTC.m, L40STC.m: fma 8, neab 1, -132; f16 output: 'rne', -20; tf32: fma 4;
 *              fp8: fma 16, neab -10 (GEMM.m then drops 10 bits of the output's fraction).
 *   H100TC.m:  fma 16, neab 2, -133; f16 output: 'rne', -21; tf32: fma 8;
 *              fp8: fma 32, neab -10. H200TC.m calls H100TC.
 *   B200TC.m:  fma 16, neab 2, -133; f16 output: 'rne', -21; tf32: fma 8; fp8: fma 32
 *              (neab stays 2). RTXPRO6000TC.m calls B200TC.
 * Replayed on the repository's GPU vectors (model_validation/, 5000 a set), this port agrees
 * with every one of V100 f16 (f32 and f16 output), A100 and A2 tf32/f16/f16acc/bf16, Ada and
 * L40S tf32/f16/f16acc/bf16/e4m3/e5m2, H100 and H200 tf32/f16/f16acc/bf16/e4m3/e5m2 (fp8
 * with c = 0, as measured), B200 tf32/f16/f16acc/bf16; but B200TC.m's fp8 parameters agree
 * with only 3207 of the 5000 B200 e4m3 vectors and 3236 of the e5m2 ones (the model is one
 * unit low on the rest: Validate_TC_models.m lists B200 fp8, but the published parameters do
 * not reproduce it). Those rows are marked unconfirmed; RTX PRO 6000 shares them. */
static const gv_bfma_model MODELS[] = {
    MODEL(70, "V100", "f16", "V100TC.m", BINARY16, BINARY32, 4, 0, RZ, -1024),
    MODEL(70, "V100", "f16acc", "V100TC.m", BINARY16, BINARY16, 4, 0, RN, -19),

    MODEL(80, "A100, A30", "tf32", "A100TC.m", TF32, BINARY32, 4, 1, RZ, -132),
    MODEL(80, "A100, A30", "f16", "A100TC.m", BINARY16, BINARY32, 8, 1, RZ, -132),
    MODEL(80, "A100, A30", "bf16", "A100TC.m", BFLOAT16, BINARY32, 8, 1, RZ, -132),
    MODEL(80, "A100, A30", "f16acc", "A100TC.m", BINARY16, BINARY16, 8, 1, RN, -20),

    MODEL(86, "A2, A40", "tf32", "A2TC.m -> A100TC.m", TF32, BINARY32, 4, 1, RZ, -132),
    MODEL(86, "A2, A40", "f16", "A2TC.m -> A100TC.m", BINARY16, BINARY32, 8, 1, RZ, -132),
    MODEL(86, "A2, A40", "bf16", "A2TC.m -> A100TC.m", BFLOAT16, BINARY32, 8, 1, RZ, -132),
    MODEL(86, "A2, A40", "f16acc", "A2TC.m -> A100TC.m", BINARY16, BINARY16, 8, 1, RN, -20),

    MODEL(89, "L40S, RTX 1000 Ada", "tf32", "AdaTC.m", TF32, BINARY32, 4, 1, RZ, -132),
    MODEL(89, "L40S, RTX 1000 Ada", "f16", "AdaTC.m", BINARY16, BINARY32, 8, 1, RZ, -132),
    MODEL(89, "L40S, RTX 1000 Ada", "bf16", "AdaTC.m", BFLOAT16, BINARY32, 8, 1, RZ, -132),
    MODEL(89, "L40S, RTX 1000 Ada", "f16acc", "AdaTC.m", BINARY16, BINARY16, 8, 1, RN, -20),
    MODEL(89, "L40S, RTX 1000 Ada", "e4m3", "AdaTC.m", E4M3, BINARY32, 16, -10, RZ, -132),
    MODEL(89, "L40S, RTX 1000 Ada", "e5m2", "AdaTC.m", E5M2, BINARY32, 16, -10, RZ, -132),

    MODEL(90, "H100, H200", "tf32", "H100TC.m", TF32, BINARY32, 8, 2, RZ, -133),
    MODEL(90, "H100, H200", "f16", "H100TC.m", BINARY16, BINARY32, 16, 2, RZ, -133),
    MODEL(90, "H100, H200", "bf16", "H100TC.m", BFLOAT16, BINARY32, 16, 2, RZ, -133),
    MODEL(90, "H100, H200", "f16acc", "H100TC.m", BINARY16, BINARY16, 16, 2, RN, -21),
    MODEL(90, "H100, H200", "e4m3", "H100TC.m", E4M3, BINARY32, 32, -10, RZ, -133),
    MODEL(90, "H100, H200", "e5m2", "H100TC.m", E5M2, BINARY32, 32, -10, RZ, -133),

    MODEL(100, "B200", "tf32", "B200TC.m", TF32, BINARY32, 8, 2, RZ, -133),
    MODEL(100, "B200", "f16", "B200TC.m", BINARY16, BINARY32, 16, 2, RZ, -133),
    MODEL(100, "B200", "bf16", "B200TC.m", BFLOAT16, BINARY32, 16, 2, RZ, -133),
    MODEL(100, "B200", "f16acc", "B200TC.m", BINARY16, BINARY16, 16, 2, RN, -21),
    MODEL_UNCONFIRMED(100, "B200", "e4m3", "B200TC.m", E4M3, BINARY32, 32, 2, RZ, -133),
    MODEL_UNCONFIRMED(100, "B200", "e5m2", "B200TC.m", E5M2, BINARY32, 32, 2, RZ, -133),

    MODEL(120, "RTX PRO 6000", "tf32", "RTXPRO6000TC.m -> B200TC.m", TF32, BINARY32, 8, 2, RZ,
          -133),
    MODEL(120, "RTX PRO 6000", "f16", "RTXPRO6000TC.m -> B200TC.m", BINARY16, BINARY32, 16, 2, RZ,
          -133),
    MODEL(120, "RTX PRO 6000", "bf16", "RTXPRO6000TC.m -> B200TC.m", BFLOAT16, BINARY32, 16, 2, RZ,
          -133),
    MODEL(120, "RTX PRO 6000", "f16acc", "RTXPRO6000TC.m -> B200TC.m", BINARY16, BINARY16, 16, 2,
          RN, -21),
    MODEL_UNCONFIRMED(120, "RTX PRO 6000", "e4m3", "RTXPRO6000TC.m -> B200TC.m", E4M3, BINARY32, 32,
                      2, RZ, -133),
    MODEL_UNCONFIRMED(120, "RTX PRO 6000", "e5m2", "RTXPRO6000TC.m -> B200TC.m", E5M2, BINARY32, 32,
                      2, RZ, -133),
};
enum { N_MODELS = sizeof MODELS / sizeof MODELS[0] };

/* The widest block the exact sum below is sized for (the table's widest is 32). */
enum { MAX_BLOCK = GV_BFMA_MAX_BLOCK };

const gv_bfma_model *gv_bfma_find(int sm, const char *fmt)
{
    if (!fmt) return NULL;
    for (int i = 0; i < N_MODELS; i++)
        if (MODELS[i].sm == sm && strcmp(MODELS[i].fmt, fmt) == 0) return &MODELS[i];
    return NULL;
}

const gv_bfma_model *gv_bfma_at(int i)
{
    return i >= 0 && i < N_MODELS ? &MODELS[i] : NULL;
}

/* ---- formats ------------------------------------------------------------------------------ */

/* The largest finite value of f: (2 - 2^(1-p)) 2^emax, or with E4M3's NaN at the top code,
 * (2 - 2^(2-p)) 2^emax. */
static double max_finite(const gv_bfma_format *f)
{
    int drop = f->inf ? 1 : 2;
    return ldexp(2.0 - ldexp(1.0, drop - f->sig_bits), f->emax);
}

float gv_bfma_round_to(const gv_bfma_format *f, float x, gv_bfma_round mode)
{
    if (isnan(x)) return x;
    if (isinf(x)) return f->inf ? x : NAN;
    if (x == 0.0f) return x;
    double v = x;
    /* the binade's exponent, held at emin below it: the quantum there is the subnormal step */
    int e = ilogb(v);
    if (e < f->emin) e = f->emin;
    double quantum = ldexp(1.0, e - (f->sig_bits - 1));
    double q = v / quantum; /* exact: a power-of-two scaling of an f32 value */
    double r = mode == GV_BFMA_RN ? nearbyint(q) : trunc(q);
    /* nearbyint rounds ties to even in the default rounding mode, which gpuval never changes */
    double y = r * quantum;
    double top = max_finite(f);
    if (fabs(y) > top) {
        if (mode == GV_BFMA_RZ) return (float)copysign(top, v);
        return f->inf ? (float)copysign(INFINITY, v) : NAN;
    }
    if (!f->subnormals && fabs(y) < ldexp(1.0, f->emin)) return copysignf(0.0f, x);
    return (float)y;
}

bool gv_bfma_in_format(const gv_bfma_format *f, float x)
{
    if (isnan(x)) return true;
    if (isinf(x)) return f->inf;
    float r = gv_bfma_round_to(f, x, GV_BFMA_RZ);
    return r == x; /* RZ moves every value not on f's grid, and every value past its range */
}

/* ---- one block ---------------------------------------------------------------------------- */

/* |x| = sig * 2^(exp - frac_bits), exp = max(floor(log2|x|), emin) (Generic_BFMA_TC.m's
 * a_exp), sig an integer below 2^(frac_bits + 1). x != 0, finite, on the grid. */
static void split(double x, int emin, int frac_bits, uint64_t *sig, int *exp)
{
    int e = ilogb(x);
    if (e < emin) e = emin;
    *exp = e;
    *sig = (uint64_t)ldexp(fabs(x), frac_bits - e);
}

/* 2^e as a double, exactly, for -1022 <= e <= 1023 (built from its bits: ldexp is a call, and
 * the envelope of a tensor-core mode rounds one block sum per block and order) */
static inline double pow2(int e)
{
    assert(e >= -1022 && e <= 1023);
    union {
        double d;
        uint64_t u;
    } v = {.u = (uint64_t)(e + 1023) << 52};
    return v.d;
}

/* split(c, -126, 23, ...) of a finite non-zero f32 value from its bits: the stored fraction
 * with the implicit bit, and the exponent (-126 for subnormals, whose value is frac 2^-149) */
static inline void split_f32(float c, uint64_t *sig, int *exp)
{
    union {
        float f;
        uint32_t u;
    } v = {.f = c};
    int biased = (int)((v.u >> 23) & 0xff);
    uint32_t frac = v.u & 0x7fffffu;
    *exp = biased ? biased - 127 : -126;
    *sig = biased ? (frac | 0x800000u) : frac;
}

/* floor(mag * 2^shift_left), mag < 2^32; shift_left <= 31 (asserted by the caller's ranges). */
static int64_t scale_floor(uint64_t mag, int shift_left)
{
    if (shift_left >= 0) return (int64_t)(mag << shift_left);
    int right = -shift_left;
    return right >= 64 ? 0 : (int64_t)(mag >> right);
}

/* sign * |s| * 2^q rounded to acc_sig_bits significant bits in the output format of m:
 * Generic_BFMA_TC.m's norm_helper, subnormal step, ieeeround and the Inf check. */
static float round_sum(const gv_bfma_model *m, int64_t s, int q)
{
    if (s == 0) return 0.0f; /* GlobalAlignmentSum: a zero sum is +0 */
    bool neg = s < 0;
    uint64_t mag = neg ? (uint64_t)(-s) : (uint64_t)s;
    int top_bit = 63 - __builtin_clzll(mag);
    int dexp = q + top_bit; /* floor(log2 |sum|) */
    int frac = m->acc_sig_bits - 1;
    int e = dexp < m->out.emin ? m->out.emin : dexp;
    int grid = e - frac; /* the result's quantum */
    uint64_t t;
    if (grid <= q) {
        t = mag << (q - grid); /* exact: fewer bits than the result keeps */
    } else {
        int sh = grid - q;
        uint64_t kept = sh >= 64 ? 0 : mag >> sh;
        if (m->block_round == GV_BFMA_RN) {
            /* ties to even on the exact remainder (ieeeround's guard, round and sticky) */
            uint64_t rem = sh >= 64 ? mag : mag - (kept << sh);
            uint64_t half = sh - 1 >= 64 ? UINT64_MAX : (uint64_t)1 << (sh - 1);
            if (sh - 1 < 64 && (rem > half || (rem == half && (kept & 1)))) kept++;
        }
        t = kept;
    }
    double y = (double)t * pow2(grid); /* exact: t has at most 25 bits */
    if (y >= pow2(m->out.emax + 1)) return neg ? -INFINITY : INFINITY;
    if (!m->out_subnormals && y < ldexp(1.0, m->out.emin)) return 0.0f;
    return (float)(neg ? -y : y);
}

/* GEMM.m's rule for NaN and Inf among the products a[i] b[i] and c: NaN, +-Inf, or 0 where
 * all are finite (*special false). */
static float specials(const float *a, const float *b, int n, float c, bool *special)
{
    bool nan = isnan(c), pos = c == INFINITY, neg = c == -INFINITY;
    for (int i = 0; i < n; i++) {
        if (isnan(a[i]) || isnan(b[i])) {
            nan = true;
        } else if (isinf(a[i]) || isinf(b[i])) {
            if (a[i] == 0.0f || b[i] == 0.0f)
                nan = true; /* 0 x Inf */
            else if (signbit(a[i]) != signbit(b[i]))
                neg = true;
            else
                pos = true;
        }
    }
    *special = nan || pos || neg;
    if (nan || (pos && neg)) return NAN;
    if (pos) return INFINITY;
    if (neg) return -INFINITY;
    return 0.0f;
}

static bool inputs_ok(const gv_bfma_model *m, const float *a, const float *b, int n, float c)
{
    if (!gv_bfma_in_format(&m->out, c)) return false;
    for (int i = 0; i < n; i++)
        if (!gv_bfma_in_format(&m->in, a[i]) || !gv_bfma_in_format(&m->in, b[i])) return false;
    return true;
}

void gv_bfma_split_in(const gv_bfma_model *m, float x, gv_bfma_operand *o)
{
    assert(isfinite(x));
    o->neg = signbit(x) != 0;
    o->sig = 0;
    o->exp = 0;
    if (x == 0.0f || (!m->in_subnormals && fabsf(x) < ldexp(1.0, m->in.emin))) return;
    uint64_t sig;
    int e;
    split(x, m->in.emin, m->in.sig_bits - 1, &sig, &e);
    o->sig = (uint32_t)sig;
    o->exp = e;
}

void gv_bfma_products(const gv_bfma_model *m, const gv_bfma_operand *a, const gv_bfma_operand *b,
                      int n, gv_bfma_prods *p)
{
    assert(n >= 0 && n <= m->block && n <= GV_BFMA_MAX_BLOCK);
    int terms = 0, emax = m->min_align_exp;
    for (int i = 0; i < n; i++) {
        /* the exact product, sx sy 2^(ex + ey - 2 pin): significand in [0, 4), not normalised;
           written at the next slot whatever it is, kept (the slot taken) where not zero: zero
           products are removed, without a branch on the data */
        uint64_t mag = (uint64_t)a[i].sig * b[i].sig;
        int e = a[i].exp + b[i].exp;
        p->mag[terms] = mag;
        p->exp[terms] = e;
        p->neg[terms] = a[i].neg != b[i].neg;
        int keep = mag != 0;
        e = keep ? e : emax;
        emax = e > emax ? e : emax;
        terms += keep;
    }
    p->terms = terms;
    p->emax = emax;
}

/* c as the block reads it: an output subnormal flushed to +0 where the model flushes them */
static inline float block_c(const gv_bfma_model *m, float c)
{
    if (!m->out_subnormals && fabsf(c) < ldexp(1.0, m->out.emin)) return 0.0f;
    return c;
}

int gv_bfma_align_exp(const gv_bfma_model *m, const gv_bfma_prods *p, float c)
{
    c = block_c(m, c);
    int E = p->emax; /* already at least min_align_exp */
    if (c != 0.0f) {
        uint64_t cmag;
        int cexp;
        split_f32(c, &cmag, &cexp);
        if (cexp > E) E = cexp;
    }
    return E;
}

int64_t gv_bfma_prods_aligned(const gv_bfma_model *m, const gv_bfma_prods *p, int E)
{
    const int pin = m->in.sig_bits - 1; /* fraction bits of an input significand */
    const int F = m->align_frac_bits;
    /* each magnitude truncated to the grid 2^(E - F): floor(|term| 2^(F - E)) */
    int64_t sum = 0;
    const int L = F - 2 * pin; /* the shift of a product at E itself: the largest */
    if (L >= 0 && 2 * m->in.sig_bits + L <= 62) {
        /* without branches (the shifts' signs follow the data): mag 2^L fits, so the floor is
           (mag << L) >> (E - exp), every product's exponent at most E */
        for (int i = 0; i < p->terms; i++) {
            int right = E - p->exp[i];
            assert(right >= 0);
            int64_t t = right > 62 ? 0 : (int64_t)((p->mag[i] << L) >> right);
            int64_t neg = -(int64_t)p->neg[i]; /* 0 or all ones */
            sum += (t ^ neg) - neg;
        }
        return sum;
    }
    for (int i = 0; i < p->terms; i++) {
        int64_t t = scale_floor(p->mag[i], p->exp[i] - 2 * pin + F - E);
        sum += p->neg[i] ? -t : t;
    }
    return sum;
}

float gv_bfma_block_finish(const gv_bfma_model *m, const gv_bfma_prods *p, int64_t prods, int E,
                           float c)
{
    const int F = m->align_frac_bits;
    c = block_c(m, c);
    if (p->terms == 0 && c == 0.0f) return 0.0f;
    /* c: 23 fraction bits below its exponent, max(floor(log2|c|), -126) (the binary32 view
     * Generic_BFMA_TC.m's AlignSignficand takes of c, whatever the output format) */
    int64_t sum = prods;
    if (c != 0.0f) {
        uint64_t cmag;
        int cexp;
        split_f32(c, &cmag, &cexp);
        int64_t t = scale_floor(cmag, cexp - 23 + F - E);
        sum += c < 0 ? -t : t;
    }
    return round_sum(m, sum, E - F);
}

float gv_bfma_block_sum(const gv_bfma_model *m, const gv_bfma_prods *p, float c)
{
    int E = gv_bfma_align_exp(m, p, c);
    return gv_bfma_block_finish(m, p, gv_bfma_prods_aligned(m, p, E), E, c);
}

/* The block on finite inputs already checked: the operands split, their products, the sum. */
static float block_finite(const gv_bfma_model *m, const float *a, const float *b, int n, float c)
{
    gv_bfma_operand sa[MAX_BLOCK], sb[MAX_BLOCK];
    for (int i = 0; i < n; i++) {
        gv_bfma_split_in(m, a[i], &sa[i]);
        gv_bfma_split_in(m, b[i], &sb[i]);
    }
    gv_bfma_prods p;
    gv_bfma_products(m, sa, sb, n, &p);
    return gv_bfma_block_sum(m, &p, c);
}

float gv_bfma_block(const gv_bfma_model *m, const float *a, const float *b, int n, float c)
{
    assert(m && n >= 0 && n <= m->block && m->block <= MAX_BLOCK);
    /* the ranges that keep every aligned term below 2^30 and a shift left below 31 */
    assert(m->in.sig_bits <= 11 && m->align_frac_bits <= 27 && m->acc_sig_bits <= 24);
    if (!m || n < 0 || n > m->block || n > MAX_BLOCK) return NAN;
    if (!inputs_ok(m, a, b, n, c)) return NAN;
    bool special;
    float s = specials(a, b, n, c, &special);
    if (special) return s;
    return block_finite(m, a, b, n, c);
}

float gv_bfma_dot(const gv_bfma_model *m, const float *a, const float *b, int k, float c)
{
    assert(m && k >= 0);
    if (!m || k < 0) return NAN;
    if (!inputs_ok(m, a, b, k, c)) return NAN;
    /* GEMM.m decides NaN and Inf on the whole row before any block */
    bool special;
    float s = specials(a, b, k, c, &special);
    if (special) return s;
    float d = c;
    for (int k0 = 0; k0 < k; k0 += m->block) {
        int n = k - k0 < m->block ? k - k0 : m->block;
        /* an overflow to +-Inf in a block carries on as c; GEMM.m would read an infinite c as
         * 2^128 (the bits of its binary32 view), an artefact this port does not copy */
        d = gv_bfma_block(m, a + k0, b + k0, n, d);
    }
    return d;
}
