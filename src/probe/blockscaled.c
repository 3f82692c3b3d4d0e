/* blockscaled.c: Blackwell's block-scaled formats (blockscaled.h): encode and decode of the OCP
 * MX element formats, E8M0 and UE4M3, the MX and NVFP4 quantisers, the published model of the
 * block-scaled product (MMA-Sim), and the probes that read a quantiser and an MMA through
 * callbacks, each feature from hand-built operands whose answer under the published model is
 * known exactly. docs/probe.md ("Block-scaled formats") gives each construction. */
#include "probe/blockscaled.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gv_bs_format_info formats[] = {
#define GV_BS_FMT_ROW_(e, name, eb, mb, bias, maxv, sgn) {name, eb, mb, bias, maxv, sgn},
    GV_BS_FORMATS(GV_BS_FMT_ROW_)
#undef GV_BS_FMT_ROW_
};

static const gv_bs_kind_info kinds[] = {
#define GV_BS_KIND_ROW_(e, name, el, sc, blk, ts) {name, el, sc, blk, ts},
    GV_BS_KINDS(GV_BS_KIND_ROW_)
#undef GV_BS_KIND_ROW_
};

static const char *const feature_names[] = {
#define GV_BS_FEAT_NAME_(e, name, help) name,
    GV_BS_FEATURES(GV_BS_FEAT_NAME_)
#undef GV_BS_FEAT_NAME_
};

const gv_bs_format_info *gv_bs_format_get(gv_bs_format f)
{
    assert(f >= 0 && f < GV_BS_NFORMATS);
    return &formats[f];
}

const gv_bs_kind_info *gv_bs_kind_get(gv_bs_kind k)
{
    assert(k >= 0 && k < GV_BS_NKINDS);
    return &kinds[k];
}

const char *gv_bs_feature_name(int f)
{
    return f >= 0 && f < GV_BS_NFEATURES ? feature_names[f] : "?";
}

/* ---- formats ----------------------------------------------------------------------------- */

/* The magnitude of code's low ebits + mbits bits; NaN for a NaN or Inf code (E4M3's
   S.1111.111, E5M2's exponent 31), so that the encoder never picks one. */
static double magnitude(const gv_bs_format_info *fi, unsigned mag)
{
    unsigned e = mag >> fi->mbits, m = mag & ((1u << fi->mbits) - 1);
    unsigned emask = (1u << fi->ebits) - 1;
    if (fi->ebits == 4 && fi->mbits == 3 && e == emask && m == 7) return NAN; /* E4M3, UE4M3 */
    if (fi->ebits == 5 && fi->mbits == 2 && e == emask) return NAN;           /* E5M2 Inf/NaN */
    double frac = (double)m / (double)(1u << fi->mbits);
    if (e == 0) return ldexp(frac, 1 - fi->bias); /* subnormal */
    return ldexp(1 + frac, (int)e - fi->bias);
}

double gv_bs_decode(gv_bs_format f, unsigned code)
{
    const gv_bs_format_info *fi = gv_bs_format_get(f);
    if (f == GV_BS_UE8M0) return code >= 255 ? NAN : ldexp(1.0, (int)code - 127);
    unsigned bits = (unsigned)(fi->ebits + fi->mbits);
    double v = magnitude(fi, code & ((1u << bits) - 1));
    return fi->sign && (code >> bits) & 1 ? -v : v;
}

unsigned gv_bs_encode(gv_bs_format f, double x, bool rz)
{
    const gv_bs_format_info *fi = gv_bs_format_get(f);
    if (f == GV_BS_UE8M0) {
        if (isnan(x)) return 255;
        if (!(x > 0)) return 0;
        int e;
        frexp(x, &e); /* a power of two: x = 2^(e - 1) */
        int c = e - 1 + 127;
        return (unsigned)(c < 0 ? 0 : c > 254 ? 254 : c);
    }
    unsigned bits = (unsigned)(fi->ebits + fi->mbits), sign = 0;
    if (isnan(x)) {
        /* E4M3's S.1111.111 and E5M2's S.11111.11; FP6 and FP4 have none, and their
           all-ones code is their largest value: a NaN there would pass as a number */
        bool has_nan = fi->ebits + fi->mbits >= 7;
        assert(has_nan && "FP6 and FP4 have no NaN: the quantiser's scale carries it");
        return has_nan ? (1u << bits) - 1 : 0;
    }
    if (x < 0 || (x == 0 && signbit(x))) {
        sign = fi->sign ? 1u << bits : 0;
        x = fi->sign ? -x : 0; /* an unsigned format clamps a negative to 0 */
    }
    if (x >= fi->maxval) x = fi->maxval;
    /* the nearest of the finite magnitudes, ties to the even code (the even significand) */
    unsigned best = 0;
    double bestd = INFINITY;
    for (unsigned c = 0; c < (1u << bits); c++) {
        double v = magnitude(fi, c);
        if (isnan(v)) continue;
        if (rz && v > x) continue;
        double d = rz ? x - v : fabs(x - v);
        if (d < bestd || (d == bestd && (c & 1) == 0)) {
            bestd = d;
            best = c;
        }
    }
    return sign | best;
}

double gv_bs_round(gv_bs_format f, double x, bool rz)
{
    if (isnan(x)) return x;
    return gv_bs_decode(f, gv_bs_encode(f, x, rz));
}

/* floor(log2(v)) of the largest finite value: the element's emax ([OCPMX]: 8 for E4M3, 15
   E5M2, 2 E2M3, 4 E3M2, 2 E2M1) */
static int emax_of(gv_bs_format f)
{
    int e;
    frexp(gv_bs_format_get(f)->maxval, &e);
    return e - 1;
}

bool gv_bs_has(gv_bs_kind k, int sm, char *why, size_t len)
{
    /* tcgen05.mma kind::mxf8f6f4 / kind::mxf4nvf4 (10.x) and mma.sync's block_scale (12.x):
       PTX ISA 8.7+, "Block Scaling for mma.sync" and tcgen05's block-scaled kinds */
    if (sm / 10 == 10 || sm / 10 == 12) return true;
    if (why)
        snprintf(why, len,
                 "no such hardware: %s block-scaled MMAs need compute capability 10.x or 12.x "
                 "(Blackwell); this device is %d.%d",
                 gv_bs_kind_get(k)->name, sm / 10, sm % 10);
    return false;
}

/* ---- the published model ------------------------------------------------------------------ */

gv_bs_model gv_bs_model_of(gv_bs_kind k)
{
    int blk = gv_bs_kind_get(k)->block;
    bool fp4 = gv_bs_kind_get(k)->elem == GV_BS_E2M1;
    return (gv_bs_model){.q_block = blk,
                         .q_tensor = false,
                         .q_xround = GV_BS_XFLOOR,
                         .q_scale_rz = false,
                         .q_elem_rz = false,
                         .mma_block = blk,
                         .mma_scale = GV_BS_USE_BLOCK,
                         .inst_k = fp4 ? 64 : 32,
                         .group = fp4 ? 16 : 1,
                         .frac_bits = fp4 ? 35 : 25,
                         .acc_rn = false};
}

static double absmax(const double *x, int64_t from, int64_t to)
{
    double m = 0;
    for (int64_t l = from; l < to; l++) {
        if (isnan(x[l])) return NAN; /* a comparison would skip it */
        if (fabs(x[l]) > m) m = fabs(x[l]);
    }
    return m;
}

/* The UE8M0 exponent of a block of amax ([OCPMX] 6.3: floor(log2(amax)) - emax_elem), or the
   planted ceil and nearest. */
static int mx_exponent(const gv_bs_model *md, double amax, int emax)
{
    if (!(amax > 0)) return -127;
    int e;
    double f = frexp(amax, &e); /* amax = f 2^e, f in [0.5, 1) */
    int fl = e - 1, x = fl;
    if (md->q_xround == GV_BS_XCEIL && f != 0.5) x = fl + 1;
    if (md->q_xround == GV_BS_XNEAREST && 2 * f >= M_SQRT2) x = fl + 1;
    x -= emax;
    return x < -127 ? -127 : x > 127 ? 127 : x;
}

int gv_bs_model_quant(void *ctx, gv_bs_kind k, int64_t n, const double *x, double *elem,
                      double *scale, double *tensor)
{
    const gv_bs_model *md = ctx;
    const gv_bs_kind_info *ki = gv_bs_kind_get(k);
    int64_t L = ki->block;
    assert(n % L == 0);
    double st = 1;
    if (ki->tensor_scale) {
        /* [NVFP4]: the per-tensor f32 scale maps the tensor's amax onto 6 x 448 */
        double amax = absmax(x, 0, n);
        st = amax > 0 ? (double)(float)(amax / (6.0 * 448.0)) : 1;
    }
    *tensor = st;
    for (int64_t b = 0; b < n / L; b++) {
        /* the window whose amax sets block b's scale: the block ([OCPMX], [NVFP4]); a planted
           quantiser reads another extent, or the whole vector */
        int64_t w0 = b * L, w1 = w0 + L, Q = md->q_block;
        if (md->q_tensor) {
            w0 = 0;
            w1 = n;
        } else if (Q > L) {
            w0 = b * L / Q * Q;
            w1 = w0 + Q < n ? w0 + Q : n;
        } else if (Q < L) {
            w1 = w0 + Q;
        }
        double amax = absmax(x, w0, w1), s;
        if (!isfinite(amax)) {
            /* [OCPMX] 6.3: a NaN (or Inf, which no MX element but E5M2 holds) in the block
               makes its scale NaN, so every value of the block decodes as NaN: never a
               number in its place */
            scale[b] = NAN;
            for (int64_t l = b * L; l < (b + 1) * L; l++)
                elem[l] = 0;
            continue;
        }
        if (ki->scale == GV_BS_UE8M0)
            s = ldexp(1.0, mx_exponent(md, amax, emax_of(ki->elem)));
        else
            s = gv_bs_round(ki->scale, amax / gv_bs_format_get(ki->elem)->maxval / st,
                            md->q_scale_rz);
        scale[b] = s;
        for (int64_t l = b * L; l < (b + 1) * L; l++)
            elem[l] = s > 0 ? gv_bs_round(ki->elem, x[l] / (s * st), md->q_elem_rz) : 0;
    }
    return GV_OK;
}

/* v at p significand bits, truncated or rounded to nearest even */
static double round_p(double v, int p, bool rn)
{
    if (v == 0 || !isfinite(v)) return v;
    int e;
    double f = frexp(v, &e);
    double s = ldexp(f, p);
    return ldexp(rn ? nearbyint(s) : trunc(s), e - p);
}

/* A value's significand and exponent as MMA-Sim splits them (extract_significand_exponent):
   1 <= |sig| < 2 above the format's smallest normal exponent emin, a smaller sig at emin
   below it; 0 has exponent -999 (never the largest). */
static void split_se(double v, int emin, double *sig, int *e)
{
    if (v == 0) {
        *sig = 0;
        *e = -999;
        return;
    }
    int x;
    double f = frexp(v, &x);
    *sig = 2 * f;
    *e = x - 1;
    if (*e < emin) {
        *sig = ldexp(*sig, *e - emin);
        *e = emin;
    }
}

/* the smallest normal exponent of a format as MMA-Sim's table has it (f32 for C) */
static int emin_of(gv_bs_format f)
{
    return f == GV_BS_UE8M0 ? -127 : 1 - gv_bs_format_get(f)->bias;
}

#define MAXTERMS 80 /* C and up to 64 products of one instruction, or its groups */

/* One instruction ([MMASim] fused_sum, nv_fused_dot_add(_with_block_scale)): C and the terms
   aligned to their largest exponent, each truncated to frac_bits fraction bits, added, the sum
   truncated to f32. The planted acc_rn adds exactly and rounds to nearest even. */
static double instruction(const gv_bs_model *md, int nt, const double *sig, const int *ex)
{
    int emax = -999;
    for (int i = 0; i < nt; i++)
        if (ex[i] > emax) emax = ex[i];
    double sum = 0;
    for (int i = 0; i < nt; i++) {
        double x = ldexp(sig[i], md->frac_bits + ex[i] - emax);
        sum += (md->acc_rn ? x : trunc(x));
    }
    return round_p(ldexp(sum, emax - md->frac_bits), 24, md->acc_rn);
}

int gv_bs_model_mma(void *ctx, gv_bs_kind k, int64_t n, const double *a, const double *sa,
                    const double *b, const double *sb, double ta, double tb, double *out)
{
    const gv_bs_model *md = ctx;
    const gv_bs_kind_info *ki = gv_bs_kind_get(k);
    int64_t L = ki->block, nscales = n / L, G = md->group, K = md->inst_k;
    assert(n % L == 0 && G >= 1 && K >= G && K % G == 0 && K / G + 1 <= MAXTERMS);
    int es = emin_of(ki->scale), ee = emin_of(ki->elem);
    double acc = 0, nan_check = 0;
    for (int64_t l = 0; l < n; l++)
        nan_check += a[l] * b[l] * sa[l / L] * sb[l / L];
    if (!isfinite(nan_check)) {
        *out = NAN; /* [MMASim]: a NaN or Inf anywhere is the fp64 sum's, never a number */
        return GV_OK;
    }
    for (int64_t i0 = 0; i0 < n; i0 += K) {
        double sig[MAXTERMS];
        int ex[MAXTERMS], nt = 0;
        split_se(acc, -126, &sig[nt], &ex[nt]);
        nt++;
        for (int64_t g0 = i0; g0 < i0 + K && g0 < n; g0 += G) {
            int64_t q = g0 / md->mma_block;
            if (q >= nscales) q = nscales - 1; /* a planted reader past the label's scales */
            double fa = 1, fb = 1;
            if (md->mma_scale == GV_BS_USE_BLOCK) {
                fa = sa[q];
                fb = sb[q];
            } else if (md->mma_scale == GV_BS_USE_FIRST) {
                fa = sa[0];
                fb = sb[0];
            }
            double s0, s1;
            int e0, e1;
            split_se(fa, es, &s0, &e0);
            split_se(fb, es, &s1, &e1);
            if (G == 1) {
                /* kind::mxf8f6f4: each product a term, at its elements' and scales' exponents */
                double s2, s3;
                int e2, e3;
                split_se(a[g0], ee, &s2, &e2);
                split_se(b[g0], ee, &s3, &e3);
                sig[nt] = s2 * s3 * s0 * s1;
                ex[nt] = s2 * s3 == 0 ? -999 : e2 + e3 + e0 + e1;
            } else {
                /* kind::mxf4: a group's products summed exactly (e2m1: a few bits each), the
                   term at its scales' exponent */
                double gsum = 0;
                for (int64_t l = g0; l < g0 + G && l < n; l++)
                    gsum += a[l] * b[l];
                sig[nt] = gsum * s0 * s1;
                ex[nt] = gsum == 0 ? -999 : e0 + e1;
            }
            nt++;
        }
        acc = instruction(md, nt, sig, ex);
    }
    *out = (double)(float)(acc * ta * tb); /* the per-tensor scales in the f32 epilogue */
    return GV_OK;
}

/* ---- the probes --------------------------------------------------------------------------- */

typedef struct bctx {
    gv_bs_kind k;
    const gv_bs_kind_info *ki;
    gv_bs_quant_fn quant;
    gv_bs_mma_fn mma;
    void *ctx;
    gv_bs_print *bp;
    int rc;
} bctx;

static void setv(gv_fp_value *v, double num, const char *text, const char *detail)
{
    snprintf(v->text, sizeof v->text, "%s", text);
    v->num = num;
    snprintf(v->detail, sizeof v->detail, "%s", detail);
}

static void setn(gv_fp_value *v, int num, const char *detail)
{
    char t[16];
    snprintf(t, sizeof t, "%d", num);
    setv(v, num, t, detail);
}

/* One dot product through the MMA, the per-tensor scales 1; NAN after an error. */
static double dot(bctx *c, int64_t n, const double *a, const double *sa, const double *b,
                  const double *sb)
{
    double out = NAN;
    if (c->rc) return NAN;
    c->bp->calls++;
    c->rc = c->mma(c->ctx, c->k, n, a, sa, b, sb, 1, 1, &out);
    return c->rc ? NAN : out;
}

typedef struct vecs {
    int64_t n;
    double *a, *b, *sa, *sb;
} vecs;

static bool vecs_init(vecs *v, int64_t n, int64_t L, double scale)
{
    v->n = n;
    v->a = calloc((size_t)n, sizeof *v->a);
    v->b = calloc((size_t)n, sizeof *v->b);
    v->sa = calloc((size_t)(n / L), sizeof *v->sa);
    v->sb = calloc((size_t)(n / L), sizeof *v->sb);
    if (!v->a || !v->b || !v->sa || !v->sb) return false;
    for (int64_t q = 0; q < n / L; q++)
        v->sa[q] = v->sb[q] = scale;
    return true;
}

static void vecs_clear(vecs *v, int64_t L, double scale)
{
    memset(v->a, 0, sizeof *v->a * (size_t)v->n);
    memset(v->b, 0, sizeof *v->b * (size_t)v->n);
    for (int64_t q = 0; q < v->n / L; q++)
        v->sa[q] = v->sb[q] = scale;
}

static void vecs_free(vecs *v)
{
    free(v->a);
    free(v->b);
    free(v->sa);
    free(v->sb);
}

/* scale_apply: block 0 holds 1 x 1 under scales 2 and 2, block 1 holds 1 x 1 under 2^3 and
   2^2: 4 + 32 = 36 where each block's scales apply, 2 where none do, 4 + 4 = 8 where block 0's
   serve the whole dot. */
static void scale_apply(bctx *c, vecs *v)
{
    int64_t L = c->ki->block;
    vecs_clear(v, L, 1);
    v->a[0] = v->b[0] = v->a[L] = v->b[L] = 1;
    v->sa[0] = v->sb[0] = 2;
    v->sa[1] = 8;
    v->sb[1] = 4;
    double o = dot(c, v->n, v->a, v->sa, v->b, v->sb);
    if (c->rc) return;
    char d[160];
    snprintf(d, sizeof d,
             "1x1 under scales 2,2 then 1x1 under 8,4: %g (36 per block, 8 block 0's "
             "for all, 2 none)",
             o);
    setv(&c->bp->f[GV_BS_SCALE_APPLY], NAN,
         o == 36  ? "block"
         : o == 8 ? "tensor"
         : o == 2 ? "none"
                  : "other",
         d);
}

/* scale_block: a single 1 x 1 at position j, block 0's scales 1, every other block's 2: the
   result is 4 from the first j the MMA reads a later block's scales at. */
static void scale_block(bctx *c, vecs *v)
{
    int64_t L = c->ki->block, first = 0;
    bool other = false;
    for (int64_t j = 1; j < v->n && !first && !c->rc; j++) {
        vecs_clear(v, L, 2);
        v->sa[0] = v->sb[0] = 1;
        v->a[j] = v->b[j] = 1;
        double o = dot(c, v->n, v->a, v->sa, v->b, v->sb);
        if (o == 4)
            first = j;
        else if (o != 1)
            other = true;
    }
    if (c->rc) return;
    char d[160];
    snprintf(d, sizeof d,
             "1x1 at j, scales 1 in block 0 and 2 after: the first j read with 2 is "
             "%lld of %lld",
             (long long)first, (long long)v->n - 1);
    gv_fp_value *f = &c->bp->f[GV_BS_SCALE_BLOCK];
    if (other)
        setv(f, NAN, "other", d);
    else if (!first)
        setv(f, NAN, "none", d);
    else
        setn(f, (int)first, d);
}

/* The accumulator probes: C = 2^ACC_E from an earlier instruction (position 0: one element 1
   under scales 2^8 and 2^8, so that its term's exponent is its value's also where the MMA
   aligns groups at their scales' exponents), the small products from position ACC_PAST on:
   past the first instruction of 32 or 64 and any group of up to 64. */
#define ACC_PAST 64
#define ACC_E    16

/* coef x 2^e at position l of v: a = coef 2^ua, b = 2^ub, the scales of l's block 2^sa and
   2^sb, the exponent carried by the scales as far as their format reaches (UE8M0 2^-127..2^127,
   UE4M3's powers of two 2^-9..2^8) and by the elements past that; false where the formats
   cannot hold it exactly. */
static bool put_product(const bctx *c, vecs *v, int64_t l, double coef, int e)
{
    int64_t L = c->ki->block;
    bool e8 = c->ki->scale == GV_BS_UE8M0;
    int smin = e8 ? -127 : -9, smax = e8 ? 127 : 8;
    int ea = (int)ceil(e / 2.0), eb = e - ea;
    int sa = ea < smin   ? smin
             : ea > smax ? smax
                         : ea,
        sb = eb < smin   ? smin
             : eb > smax ? smax
                         : eb;
    double x = ldexp(coef, ea - sa), y = ldexp(1.0, eb - sb);
    if (gv_bs_round(c->ki->elem, x, false) != x || gv_bs_round(c->ki->elem, y, false) != y)
        return false;
    v->a[l] = x;
    v->b[l] = y;
    v->sa[l / L] = ldexp(1.0, sa);
    v->sb[l / L] = ldexp(1.0, sb);
    return true;
}

/* acc_frac_bits: C = 2^E, then -2^(E - t) at ACC_PAST: the result falls below 2^E (truncated,
   one f32 ulp below) while the alignment keeps 2^-t of the largest exponent; the last such t. */
static void acc_frac_bits(bctx *c, vecs *v)
{
    int64_t L = c->ki->block;
    int tmax = 0, kept = 0;
    for (int t = 1; t <= 48 && !c->rc; t++) {
        vecs_clear(v, L, 1);
        if (!put_product(c, v, 0, 1, ACC_E) || !put_product(c, v, ACC_PAST, -1, ACC_E - t)) break;
        tmax = t;
        double o = dot(c, v->n, v->a, v->sa, v->b, v->sb);
        if (o < ldexp(1.0, ACC_E))
            kept = t;
        else
            break;
    }
    if (c->rc) return;
    char d[160];
    snprintf(d, sizeof d, "2^%d then -2^(%d-t): below 2^%d up to t = %d (looked to %d)", ACC_E,
             ACC_E, ACC_E, kept, tmax);
    gv_fp_value *f = &c->bp->f[GV_BS_ACC_FRAC_BITS];
    if (kept == tmax) {
        char t[16];
        snprintf(t, sizeof t, ">=%d", kept);
        setv(f, NAN, t, d);
    } else {
        setn(f, kept, d);
    }
}

/* group: C = 2^E, then -2^(E - F - 1) (half the alignment's last kept bit, F the measured
   acc_frac_bits) at ACC_PAST and at r. Summed exactly in one group they make a whole unit that
   the alignment keeps, and the result falls one f32 ulp below 2^E; as two terms each is
   truncated away and the result is 2^E. The first r at which they are apart, less ACC_PAST,
   is the group (1: every product a term of its own). */
static void group(bctx *c, vecs *v)
{
    int64_t L = c->ki->block;
    gv_fp_value *f = &c->bp->f[GV_BS_GROUP];
    double F = c->bp->f[GV_BS_ACC_FRAC_BITS].num;
    if (!(F >= 1)) {
        setv(f, NAN, "n/a", "no accumulator width measured to place the halves at");
        return;
    }
    double M = ldexp(1.0, ACC_E);
    int64_t first = 0;
    bool other = false, placed = true;
    for (int64_t r = ACC_PAST + 1; r < v->n && !first && !c->rc && placed; r++) {
        vecs_clear(v, L, 1);
        int e = ACC_E - (int)F - 1;
        placed = put_product(c, v, 0, 1, ACC_E) && put_product(c, v, ACC_PAST, -1, e) &&
                 put_product(c, v, r, -1, e);
        if (!placed) break;
        double o = dot(c, v->n, v->a, v->sa, v->b, v->sb);
        if (o == M)
            first = r;
        else if (!(o < M))
            other = true;
    }
    if (c->rc) return;
    char d[160];
    snprintf(d, sizeof d, "2^%d, then -2^(%d-%d-1) at %d and at r: one term up to r = %lld", ACC_E,
             ACC_E, (int)F, ACC_PAST, (long long)(first ? first - 1 : v->n - 1));
    if (!placed) {
        setv(f, NAN, "n/a", "the formats cannot hold half the alignment's last bit");
    } else if (other) {
        setv(f, NAN, "irregular", d);
    } else if (!first) {
        char t[16];
        snprintf(t, sizeof t, ">=%lld", (long long)(v->n - ACC_PAST));
        setv(f, NAN, t, d);
    } else {
        setn(f, (int)(first - ACC_PAST), d);
    }
}

/* acc_round: C = M + 0.75u, -(M + 0.75u), M + 0.5u, M + 1.5u with u = ulp(M) in f32, M = 2^E
   from an earlier instruction and the small product at ACC_PAST: the four results name the
   rounding of the instruction's sum. */
static void acc_round(bctx *c, vecs *v)
{
    int64_t L = c->ki->block;
    double M = ldexp(1.0, ACC_E), u = ldexp(1.0, ACC_E - 23), d4[4];
    const double coef[4] = {1.5, -1.5, 1, 1.5};
    const int es[4] = {ACC_E - 24, ACC_E - 24, ACC_E - 24, ACC_E - 23}, sign[4] = {1, -1, 1, 1};
    for (int i = 0; i < 4 && !c->rc; i++) {
        vecs_clear(v, L, 1);
        bool ok =
            put_product(c, v, 0, sign[i], ACC_E) && put_product(c, v, ACC_PAST, coef[i], es[i]);
        assert(ok);
        double o = dot(c, v->n, v->a, v->sa, v->b, v->sb);
        d4[i] = (sign[i] * o - M) / u;
    }
    if (c->rc) return;
    char d[160];
    snprintf(d, sizeof d,
             "M+0.75u -> M+%gu, -(M+0.75u) -> -(M+%gu), M+0.5u -> M+%gu, M+1.5u -> "
             "M+%gu (M = 2^%d, u its f32 ulp)",
             d4[0], d4[1], d4[2], d4[3], ACC_E);
    setv(&c->bp->f[GV_BS_ACC_ROUND], NAN, gv_fp_classify_rounding(d4[0], d4[1], d4[2], d4[3]), d);
}

/* ---- the quantiser's features: x quantised, each value read back as elem x scale x tensor -- */

/* NVFP4's tensor anchor: 6 x 448 in a block of its own at the end fixes the per-tensor scale
   at exactly 1, so that the block scales are the probes' own. */
#define NV_ANCHOR (6.0 * 448.0)

typedef struct qv {
    int64_t n, nx; /* the probe's values, and with the anchor block */
    double *x, *elem, *scale, tensor;
} qv;

static bool qv_init(const bctx *c, qv *q, int64_t n)
{
    q->n = n;
    q->nx = n + (c->ki->tensor_scale ? c->ki->block : 0);
    q->x = calloc((size_t)q->nx, sizeof *q->x);
    q->elem = calloc((size_t)q->nx, sizeof *q->elem);
    q->scale = calloc((size_t)(q->nx / c->ki->block), sizeof *q->scale);
    return q->x && q->elem && q->scale;
}

static void qv_free(qv *q)
{
    free(q->x);
    free(q->elem);
    free(q->scale);
}

/* Quantises q->x (the anchor appended where the kind has a tensor scale); false after an
   error. */
static bool qrun(bctx *c, qv *q)
{
    if (c->rc) return false;
    if (c->ki->tensor_scale) q->x[q->n] = NV_ANCHOR;
    c->bp->calls++;
    c->rc = c->quant(c->ctx, c->k, q->nx, q->x, q->elem, q->scale, &q->tensor);
    return c->rc == GV_OK;
}

static double qval(const bctx *c, const qv *q, int64_t l)
{
    return q->elem[l] * q->scale[l / c->ki->block] * q->tensor;
}

static void qclear(qv *q)
{
    memset(q->x, 0, sizeof *q->x * (size_t)q->nx);
}

/* A value and a big one that cannot share a scale with it: the small one is 1.5 (exact under
   the scale its own amax gives: 1.5 x 2^emax in MX, 6 x 0.25 in NVFP4), the big one beyond the
   element format's whole range above it (E5M2 spans 2^32), within UE4M3's 448 for NVFP4. */
static double big_value(const bctx *c)
{
    return c->ki->scale == GV_BS_UE8M0 ? ldexp(1.5, 40) : 6.0 * 256.0;
}
#define SMALL_VALUE 1.5

/* q_block: 1.5 at 0, the big value at j: 1.5 comes back only once j is past the extent whose
   amax sets position 0's scale; the first such j. */
static void q_block(bctx *c)
{
    int64_t L = c->ki->block, n = 4 * L, first = 0;
    qv q;
    if (qv_init(c, &q, n))
        for (int64_t j = 1; j < n && !first; j++) {
            qclear(&q);
            q.x[0] = SMALL_VALUE;
            q.x[j] = big_value(c);
            if (!qrun(c, &q)) break;
            if (qval(c, &q, 0) == SMALL_VALUE) first = j;
        }
    if (!c->rc) {
        char d[160];
        snprintf(d, sizeof d, "1.5 at 0, %g at j: 1.5 read back first at j = %lld (of %lld)",
                 big_value(c), (long long)first, (long long)n - 1);
        if (first)
            setn(&c->bp->f[GV_BS_Q_BLOCK], (int)first, d);
        else
            setv(&c->bp->f[GV_BS_Q_BLOCK], NAN, "none", d);
    }
    qv_free(&q);
}

/* q_scale_group: the big value in block 0, 1.5 alone in block 1: 1.5 comes back where block 1
   has its own scale. */
static void q_scale_group(bctx *c)
{
    int64_t L = c->ki->block;
    qv q;
    if (qv_init(c, &q, 2 * L)) {
        q.x[0] = big_value(c);
        q.x[L] = SMALL_VALUE;
        if (qrun(c, &q)) {
            double o = qval(c, &q, L);
            char d[160];
            snprintf(d, sizeof d, "%g in block 0, 1.5 in block 1: read back %g", big_value(c), o);
            setv(&c->bp->f[GV_BS_Q_SCALE_GROUP], NAN, o == SMALL_VALUE ? "block" : "tensor", d);
        }
    }
    qv_free(&q);
}

/* q_scale_round. MX: blocks of amax 1.75 x 2^emax and 1.25 x 2^emax: [OCPMX]'s floor gives
   both the scale 1, a ceiling both 2, rounding log2(amax) to nearest 2 and 1. NVFP4: blocks of
   amax 6 (1 + f u), u = 2^-3 (UE4M3's spacing at 1), f = 0.75, 0.5, 1.5: the block scale is
   1 + f u rounded, named as the element conversions are. */
static void q_scale_round(bctx *c)
{
    int64_t L = c->ki->block;
    gv_fp_value *f = &c->bp->f[GV_BS_Q_SCALE_ROUND];
    char d[160];
    qv q;
    if (!qv_init(c, &q, 3 * L)) {
        qv_free(&q);
        return;
    }
    if (c->ki->scale == GV_BS_UE8M0) {
        int emax = emax_of(c->ki->elem);
        q.x[0] = ldexp(1.75, emax);
        q.x[L] = ldexp(1.25, emax);
        if (qrun(c, &q)) {
            double s0 = q.scale[0], s1 = q.scale[1];
            snprintf(d, sizeof d, "amax 1.75 x 2^%d -> scale %g, 1.25 x 2^%d -> %g", emax, s0, emax,
                     s1);
            const char *t = s0 == 1 && s1 == 1   ? "floor"
                            : s0 == 2 && s1 == 2 ? "ceil"
                            : s0 == 2 && s1 == 1 ? "nearest"
                                                 : "other";
            setv(f, NAN, t, d);
        }
    } else {
        double u = 0.125, fr[3] = {0.75, 0.5, 1.5};
        for (int i = 0; i < 3; i++)
            q.x[i * L] = 6.0 * (1 + fr[i] * u);
        if (qrun(c, &q)) {
            double r[3];
            for (int i = 0; i < 3; i++)
                r[i] = (q.scale[i] - 1) / u;
            snprintf(d, sizeof d,
                     "amax/6 = 1+0.75u -> 1+%gu, 1+0.5u -> 1+%gu, 1+1.5u -> 1+%gu "
                     "(u = 2^-3)",
                     r[0], r[1], r[2]);
            setv(f, NAN, gv_fp_classify_rounding(r[0], r[0], r[1], r[2]), d);
        }
    }
    qv_free(&q);
}

/* q_elem_round: one block with the element's largest value (scale 1) and 1 + 0.75u, its
   negative, 1 + 0.5u and 1 + 1.5u, u the element's spacing at 1. */
static void q_elem_round(bctx *c)
{
    const gv_bs_format_info *fi = gv_bs_format_get(c->ki->elem);
    double u = ldexp(1.0, -fi->mbits),
           x[4] = {1 + 0.75 * u, -(1 + 0.75 * u), 1 + 0.5 * u, 1 + 1.5 * u};
    qv q;
    if (qv_init(c, &q, c->ki->block)) {
        q.x[0] = fi->maxval;
        for (int i = 0; i < 4; i++)
            q.x[1 + i] = x[i];
        if (qrun(c, &q)) {
            double r[4];
            for (int i = 0; i < 4; i++)
                r[i] = ((i == 1 ? -qval(c, &q, 1 + i) : qval(c, &q, 1 + i)) - 1) / u;
            char d[160];
            snprintf(d, sizeof d,
                     "1+0.75u -> 1+%gu, -(1+0.75u) -> -(1+%gu), 1+0.5u -> 1+%gu, "
                     "1+1.5u -> 1+%gu (u = 2^-%d)",
                     r[0], r[1], r[2], r[3], fi->mbits);
            setv(&c->bp->f[GV_BS_Q_ELEM_ROUND], NAN,
                 gv_fp_classify_rounding(r[0], r[1], r[2], r[3]), d);
        }
    }
    qv_free(&q);
}

int gv_bs_measure(gv_bs_kind k, int sm, gv_bs_quant_fn quant, gv_bs_mma_fn mma, void *ctx,
                  gv_bs_print *bp)
{
    memset(bp, 0, sizeof *bp);
    bp->kind = k;
    for (int f = 0; f < GV_BS_NFEATURES; f++)
        setv(&bp->f[f], NAN, "n/a", "");
    if (!gv_bs_has(k, sm, bp->skip_why, sizeof bp->skip_why)) {
        bp->skip = true;
        return GV_EUNSUPPORTED;
    }
    bctx c = {k, gv_bs_kind_get(k), quant, mma, ctx, bp, GV_OK};
    q_block(&c);
    q_scale_group(&c);
    q_scale_round(&c);
    q_elem_round(&c);
    vecs v;
    if (vecs_init(&v, 2 * ACC_PAST, c.ki->block, 1)) {
        scale_apply(&c, &v);
        scale_block(&c, &v);
        acc_frac_bits(&c, &v); /* group places its halves at the measured width */
        group(&c, &v);
        acc_round(&c, &v);
    } else if (!c.rc) {
        c.rc = GV_ENOMEM;
    }
    vecs_free(&v);
    return c.rc;
}

/* ---- the published values ------------------------------------------------------------------ */

/* Every value below is the published model's until a device of the architecture runs it. MMA-Sim
   gives the same two algorithms for B200's tcgen05.mma (10.0; 10.3 is assumed to be 10.0) and
   for RTX Blackwell's mma.sync (12.0): nv.py's TCGen05MMASim and MMASim. */
#define UNCONF "; unconfirmed: from the published model, not yet run on this architecture"

const char *gv_bs_expected(gv_bs_kind k, int sm, int f, const char **source)
{
    const gv_bs_kind_info *ki = gv_bs_kind_get(k);
    bool nv = ki->scale == GV_BS_UE4M3, fp4 = ki->elem == GV_BS_E2M1;
    *source = "";
    if (!(sm == 100 || sm == 103 || sm == 120)) return "?";
    switch (f) {
    case GV_BS_Q_BLOCK:
    case GV_BS_SCALE_BLOCK:
        *source = nv ? "[NVFP4] one UE4M3 scale per 16 (PTX scale_vec::4X)" UNCONF
                     : "[OCPMX] k = 32 (PTX scale_vec::1X)" UNCONF;
        return nv ? "16" : "32";
    case GV_BS_Q_SCALE_GROUP:
        *source =
            nv ? "[NVFP4] a scale per block of 16" UNCONF : "[OCPMX] a scale per block" UNCONF;
        return "block";
    case GV_BS_Q_SCALE_ROUND:
        *source = nv ? "[NVFP4] the block scale converted to E4M3 by RN" UNCONF
                     : "[OCPMX] 6.3: X = floor(log2(amax)) - emax_elem" UNCONF;
        return nv ? "RNE" : "floor";
    case GV_BS_Q_ELEM_ROUND:
        *source = nv ? "[NVFP4] E2M1 conversion, RN" UNCONF : "[OCPMX] 6.3: roundTiesToEven" UNCONF;
        return "RNE";
    case GV_BS_SCALE_APPLY:
        *source = "[OCPMX] each block's scale multiplies its products" UNCONF;
        return "block";
    case GV_BS_GROUP:
        *source = fp4 ? "[MMASim] kind::mxf4(nvf4): 16 products summed exactly a term" UNCONF
                      : "[MMASim] kind::mxf8f6f4: every product a term of its own" UNCONF;
        return fp4 ? "16" : "1";
    case GV_BS_ACC_FRAC_BITS:
        *source = fp4 ? "[MMASim] kind::mxf4(nvf4): 35 fraction bits" UNCONF
                      : "[MMASim] kind::mxf8f6f4: 25 fraction bits" UNCONF;
        return fp4 ? "35" : "25";
    case GV_BS_ACC_ROUND: *source = "[MMASim] terms and sum truncated (RZ)" UNCONF; return "RZ";
    default: return "?";
    }
}

int gv_bs_judge(int sm, gv_bs_print *bp)
{
    int fails = 0;
    if (bp->skip) return 0;
    for (int f = 0; f < GV_BS_NFEATURES; f++) {
        gv_fp_rule r;
        memset(&r, 0, sizeof r);
        const char *src;
        const char *want = gv_bs_expected(bp->kind, sm, f, &src);
        snprintf(r.value, sizeof r.value, "%s", want);
        bp->expect[f] = want;
        bp->source[f] = src;
        bp->verdict[f] = gv_fp_judge(&r, &bp->f[f]);
        fails += bp->verdict[f] == GV_FP_FAIL;
    }
    return fails;
}
