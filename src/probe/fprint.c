/* fprint.c: the probes of a GEMM's arithmetic (fprint.h). Each feature is one GEMM call whose
 * diagonal holds the probe dot products; docs/probe.md gives each construction and the sources
 * of the method (Fasi, Higham, Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor
 * cores", PeerJ CS 2021; Xie et al., FPRev, USENIX ATC 2025). */
#include "probe/fprint.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/gemm.h" /* the scaled fp8 modes' scale groups */

static const char *const feature_names[] = {
#define GV_FP_NAME_(e, name, help) name,
    GV_FP_FEATURES(GV_FP_NAME_)
#undef GV_FP_NAME_
};

const char *gv_fp_feature_name(int f)
{
    return f >= 0 && f < GV_FP_NFEATURES ? feature_names[f] : "?";
}

int gv_fp_feature_parse(const char *s)
{
    for (int f = 0; f < GV_FP_NFEATURES; f++)
        if (strcmp(s, feature_names[f]) == 0) return f;
    return -1;
}

/* A format of the mode table (abi/gv_abi.h: GV_FORMATS) as the probes' gv_fp_format;
   GV_FMT_OWN is the storage dtype's own (binary32, binary64: emax = 1 - emin). */
static gv_fp_format format_of(int fmt, gv_dtype t)
{
    if (fmt == GV_FMT_OWN) {
        const gv_dtype_info *d = gv_dtype_get(t);
        return (gv_fp_format){d->mantissa_bits, d->min_exp, 1 - d->min_exp};
    }
    const gv_format_info *f = gv_format_get(fmt);
    return (gv_fp_format){f->p, f->emin, f->emax};
}

/* The anchor of a scaled format: scale_to / 14 is the op's scale (448 / 14 = 32 for fp8). */
#define SCALE_ANCHOR 14

static int scaled_arith_of(gv_dtype t, gv_mode m, gv_fp_arith *a);

int gv_fp_arith_of(gv_dtype t, gv_mode m, gv_fp_arith *a)
{
    memset(a, 0, sizeof *a);
    a->dtype = t;
    a->mode = m;
    if ((int)t < 0 || t >= GV_NDTYPES || (int)m < 0 || m >= GV_NMODES) return GV_EUNSUPPORTED;
    const gv_mode_info *mi = gv_mode_get(m);
    if (gv_mode_scaled(m)) return scaled_arith_of(t, m, a);
    if (!(mi->dtypes & (1u << t)) || mi->probe_in == GV_FMT_NONE) return GV_EUNSUPPORTED;
    a->in = format_of(mi->probe_in, t);
    a->out = format_of(mi->probe_out, t);
    double scale_to = gv_format_get(mi->probe_in)->scale_to;
    if (scale_to > 0) {
        /* the op scales each operand by scale_to / amax (kernels/gemm.cu): an anchor of
           SCALE_ANCHOR in an extra row and column fixes amax, so the scale is exact */
        a->anchor = SCALE_ANCHOR;
        a->scale = scale_to / SCALE_ANCHOR;
    }
    a->op_emax = a->in.emax;
    a->op_emin = a->in.emin;
    if (a->anchor > 0) {
        a->op_emax = (int)floor(log2(a->anchor));
        a->op_emin = a->in.emin - (int)log2(a->scale);
    }
    a->group_a = a->group_b = -1;
    a->in_b = a->in;
    a->scale_b = a->scale;
    return GV_OK;
}

/* The scaled fp8 modes: their row in the mode table names no format (their check judges the
   accumulation against an oracle that quantises as the kernel does), so the probe takes the
   formats and the groups the label claims from abi/gemm.h's recipe: A in E4M3 (OCP FP8 1.0:
   4 bits, emin -6, 448), B in E4M3 or E5M2 (3 bits, emin -14, 57344), f32 output, each group
   scaled to 448 (57344) / amax. */
static int scaled_arith_of(gv_dtype t, gv_mode m, gv_fp_arith *a)
{
    gk_fp8_recipe r;
    if (!gk_fp8_recipe_of(m, GK_FP8_HONEST, &r) || !(gv_mode_get(m)->dtypes & (1u << t)))
        return GV_EUNSUPPORTED;
    memset(a, 0, sizeof *a);
    a->dtype = t;
    a->mode = m;
    const gv_format_info *e4 = gv_format_get(GV_FMT_E4M3);
    a->in = (gv_fp_format){e4->p, e4->emin, e4->emax};
    a->out = format_of(GV_FMT_OWN, t);
    a->anchor = SCALE_ANCHOR;
    a->scale = e4->scale_to / SCALE_ANCHOR;
    a->op_emax = (int)floor(log2(a->anchor));
    a->op_emin = a->in.emin - (int)log2(a->scale);
    a->group_a = r.group_a;
    a->group_b = r.group_b;
    a->in_b = r.e5m2_b ? (gv_fp_format){3, -14, 15} : a->in;
    a->scale_b = (r.e5m2_b ? 57344.0 : e4->scale_to) / SCALE_ANCHOR;
    return GV_OK;
}

static double p2(int e)
{
    return ldexp(1.0, e);
}

/* v rounded to nearest (ties to even) at p significand bits, unbounded exponent. */
static double round_sig(double v, int p)
{
    if (v == 0 || !isfinite(v)) return v;
    int e;
    double f = frexp(v, &e); /* v = f 2^e, 0.5 <= |f| < 1 */
    return ldexp(nearbyint(ldexp(f, p)), e - p);
}

/* ---- probe sets: vectors on the diagonal of one GEMM -------------------------------------- */

typedef struct pset {
    int n, k;
    double *a, *b, *out;
} pset;

typedef struct ctx {
    const gv_fp_arith *ar;
    gv_fp_gemm_fn gemm;
    void *gctx;
    gv_fp_print *fp;
    char *why;
    size_t len;
    int rc;
} ctx;

static int pset_init(pset *s, int n, int k)
{
    s->n = n;
    s->k = k;
    s->a = calloc((size_t)n * k, sizeof *s->a);
    s->b = calloc((size_t)n * k, sizeof *s->b);
    s->out = calloc((size_t)n, sizeof *s->out);
    return s->a && s->b && s->out ? GV_OK : GV_ENOMEM;
}

static void pset_free(pset *s)
{
    free(s->a);
    free(s->b);
    free(s->out);
    memset(s, 0, sizeof *s);
}

static void put(pset *s, int i, int l, double a, double b)
{
    s->a[(size_t)i * s->k + l] = a;
    s->b[(size_t)i * s->k + l] = b;
}

/* A (m x k) and B (k x n) with fp8's anchor row and column appended where the arithmetic has
   one; runs them and gives C (m x n, the caller's rows and columns only, row stride n). */
static int64_t padded(int64_t d)
{
    int64_t p = d < GV_FP_MIN_DIM ? GV_FP_MIN_DIM : d;
    return (p + 15) / 16 * 16;
}

/* Blockwise scales (fp8blk): positions BLK_A and BLK_B of every 128-block of K hold the
   anchors of A's 1 x 128 and B's 128 x 128 blocks (every group then has amax 14 and the scale
   448 / 14 = 32, as plain fp8's one scale is), so a probe may not use them. */
#define BLK_A (GK_FP8_BLOCK_K - 2)
#define BLK_B (GK_FP8_BLOCK_K - 1)

static bool hole(const gv_fp_arith *ar, int64_t l)
{
    return (ar->group_a == GK_FP8_BLOCK || ar->group_b == GK_FP8_BLOCK) &&
           l % GK_FP8_BLOCK_K >= BLK_A;
}

static int run_full(ctx *c, int64_t m, int64_t k, int64_t n, const double *A, const double *B,
                    double *C)
{
    if (c->rc) return c->rc;
    const gv_fp_arith *ar = c->ar;
    double anchor = ar->anchor;
    bool block = ar->group_a == GK_FP8_BLOCK || ar->group_b == GK_FP8_BLOCK;
    bool outer = !block && (ar->group_a == GK_FP8_OUTER || ar->group_b == GK_FP8_OUTER);
    bool row = anchor > 0 && !block && !outer; /* one scale per tensor: an extra row and column */
    for (int64_t l = 0; block && l < k; l++) {
        if (!hole(ar, l)) continue;
        for (int64_t i = 0; i < m; i++)
            if (A[i * k + l] != 0) return GV_EUNSUPPORTED; /* a probe on an anchor's place */
        for (int64_t j = 0; j < n; j++)
            if (B[l * n + j] != 0) return GV_EUNSUPPORTED;
    }
    /* every call at least GV_FP_MIN_DIM in each dim, a multiple of 16 (fp8's kernels need it),
       zeros around: the library picks the kernels it picks for real products, not a small-
       matrix path; the zeros add nothing to any dot product */
    int64_t M = padded(m + row), N = padded(n + row), K = padded(k + 2 * outer);
    if (block) K = gk_fp8_cdiv(K, GK_FP8_BLOCK_K) * GK_FP8_BLOCK_K;
    double *a = calloc((size_t)(M * K), sizeof *a), *b = calloc((size_t)(K * N), sizeof *b),
           *cc = calloc((size_t)(M * N), sizeof *cc);
    int rc = GV_ENOMEM;
    if (a && b && cc) {
        for (int64_t i = 0; i < m; i++)
            memcpy(a + i * K, A + i * k, sizeof *a * (size_t)k);
        for (int64_t l = 0; l < k; l++)
            memcpy(b + l * N, B + l * n, sizeof *b * (size_t)n);
        if (row) {
            a[m * K] = anchor; /* A[m][0] */
            b[n] = anchor;     /* B[0][n] */
        }
        /* an anchor in every row of A and every column of B, in a position of K where the
           other operand is 0: per row and column past the probe's k; per block in each block */
        for (int64_t l0 = 0; (outer || block) && l0 < K; l0 += block ? GK_FP8_BLOCK_K : K) {
            int64_t la = block ? l0 + BLK_A : k, lb = block ? l0 + BLK_B : k + 1;
            for (int64_t i = 0; i < M; i++)
                a[i * K + la] = anchor;
            for (int64_t j = 0; j < N; j++)
                b[lb * N + j] = anchor;
        }
        rc = c->gemm(c->gctx, M, K, N, a, b, cc, c->why, c->len);
        if (rc == GV_OK)
            for (int64_t i = 0; i < m; i++)
                memcpy(C + i * n, cc + i * N, sizeof *C * (size_t)n);
    } else {
        snprintf(c->why, c->len, "no host memory for a %lldx%lldx%lld probe", (long long)m,
                 (long long)k, (long long)n);
    }
    free(a);
    free(b);
    free(cc);
    c->fp->calls++;
    c->fp->elements += (double)m;
    c->rc = rc;
    return rc;
}

/* Runs the set: out[i] = C[i][i] of A = the vectors as rows, B = the vectors as columns. */
static int pset_run(ctx *c, pset *s)
{
    int n = s->n, k = s->k;
    double *A = calloc((size_t)n * k, sizeof *A), *B = calloc((size_t)n * k, sizeof *B),
           *C = calloc((size_t)n * n, sizeof *C);
    int rc = GV_ENOMEM;
    if (A && B && C) {
        memcpy(A, s->a, sizeof *A * (size_t)n * k);
        for (int i = 0; i < n; i++)
            for (int l = 0; l < k; l++)
                B[(size_t)l * n + i] = s->b[(size_t)i * k + l];
        rc = run_full(c, n, k, n, A, B, C);
        if (rc == GV_OK)
            for (int i = 0; i < n; i++)
                s->out[i] = C[(size_t)i * n + i];
    } else if (!c->rc) {
        snprintf(c->why, c->len, "no host memory for a probe set of %d vectors", n);
        c->rc = rc;
    }
    free(A);
    free(B);
    free(C);
    return rc == GV_EUNSUPPORTED ? rc : c->rc; /* refused, not failed: the feature stays n/a */
}

static void setv(gv_fp_value *v, double num, const char *detail_fmt, const char *text_fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void setv(gv_fp_value *v, double num, const char *detail, const char *text_fmt, ...)
{
    va_list ap;
    va_start(ap, text_fmt);
    vsnprintf(v->text, sizeof v->text, text_fmt, ap);
    va_end(ap);
    v->num = num;
    snprintf(v->detail, sizeof v->detail, "%s", detail ? detail : "");
}

/* Splits 2^x into two operand powers a 2^ea, b 2^eb within the operands' exponents; false
   where they cannot carry it. */
static bool split(const gv_fp_arith *ar, int x, int *ea, int *eb)
{
    *ea = (int)ceil(x / 2.0);
    *eb = x - *ea;
    return *ea >= ar->op_emin && *eb >= ar->op_emin && *ea <= ar->op_emax && *eb <= ar->op_emax;
}

/* The big and small operand exponents of the alignment probes: big products 2^(2 eb), small
   2^(2 es), far enough apart that a small one is lost beside a big one within any block (the
   published blocks align to at least 23 fraction bits plus up to 3 extra, whatever the output:
   f16 accumulation included), both normal in the output, the big one's double too. */
static bool big_small_apart(const gv_fp_arith *ar, int apart, int *eb, int *es)
{
    int b = ar->op_emax;
    if ((ar->out.emax - 1) / 2 < b) b = (ar->out.emax - 1) / 2;
    if (b > 7) b = 7;
    int need = (ar->out.p > 24 ? ar->out.p : 24) + apart;
    int s = b - (need + 1) / 2;
    if (s < ar->op_emin) s = ar->op_emin;
    if (2 * s < ar->out.emin) s = (ar->out.emin + 1) / 2;
    *eb = b;
    *es = s;
    return 2 * (b - s) >= need;
}

static bool big_small(const gv_fp_arith *ar, int *eb, int *es)
{
    return big_small_apart(ar, 4, eb, es);
}

const char *gv_fp_classify_rounding(double up, double neg, double tie, double tie_odd)
{
    if (up == 1 && neg == 1) {
        if (tie == 0 && tie_odd == 2) return "RNE";
        if (tie == 1 && tie_odd == 2) return "RNA";
        return "other";
    }
    if (up == 0 && neg == 0 && tie == 0 && tie_odd == 1) return "RZ";
    if (up == 1 && neg == 0 && tie == 1 && tie_odd == 2) return "RU";
    if (up == 0 && neg == 1 && tie == 0 && tie_odd == 1) return "RD";
    return "other";
}

/* ---- the features ------------------------------------------------------------------------- */

static int storage_p(const gv_fp_arith *ar)
{
    return ar->dtype == GV_F64 ? 53 : 24;
}

static void in_bits(ctx *c)
{
    const gv_fp_arith *ar = c->ar;
    int tmax = storage_p(ar) - 1;
    pset s;
    if (pset_init(&s, 2 * tmax, 1)) return;
    for (int t = 1; t <= tmax; t++) {
        put(&s, t - 1, 0, 1 + p2(-t), 1);
        put(&s, tmax + t - 1, 0, 1, 1 + p2(-t));
    }
    if (pset_run(c, &s) == GV_OK)
        for (int side = 0; side < 2; side++) {
            int bits = tmax + 1;
            for (int t = 1; t <= tmax; t++)
                if (s.out[side * tmax + t - 1] != 1 + p2(-t)) {
                    bits = t;
                    break;
                }
            char d[160];
            snprintf(d, sizeof d, "1 + 2^-t kept up to t = %d (x 1 on the other side)", bits - 1);
            setv(&c->fp->f[side ? GV_FP_IN_BITS_B : GV_FP_IN_BITS_A], bits, d, "%d", bits);
        }
    pset_free(&s);
}

static void in_round(ctx *c)
{
    const gv_fp_arith *ar = c->ar;
    int W[2] = {(int)c->fp->f[GV_FP_IN_BITS_A].num, (int)c->fp->f[GV_FP_IN_BITS_B].num};
    pset s;
    if (pset_init(&s, 8, 1)) return;
    for (int side = 0; side < 2; side++) {
        int w = W[side] >= 2 && W[side] < storage_p(ar) ? W[side] : 2;
        double u = p2(-(w - 1)), x[4] = {1 + 0.75 * u, -(1 + 0.75 * u), 1 + 0.5 * u, 1 + 1.5 * u};
        for (int i = 0; i < 4; i++)
            put(&s, side * 4 + i, 0, side ? 1 : x[i], side ? x[i] : 1);
    }
    if (pset_run(c, &s) == GV_OK)
        for (int side = 0; side < 2; side++) {
            gv_fp_value *v = &c->fp->f[side ? GV_FP_IN_ROUND_B : GV_FP_IN_ROUND_A];
            if (!(W[side] >= 2) || W[side] >= storage_p(ar)) {
                setv(v, NAN, "the operands reach the arithmetic at the storage precision", "none");
                continue;
            }
            double u = p2(-(W[side] - 1)), *o = s.out + side * 4;
            double d[4] = {(o[0] - 1) / u, (-o[1] - 1) / u, (o[2] - 1) / u, (o[3] - 1) / u};
            char det[160];
            snprintf(det, sizeof det,
                     "1+0.75u -> 1+%gu, -(1+0.75u) -> -(1+%gu), 1+0.5u -> 1+%gu, 1+1.5u -> 1+%gu "
                     "(u = 2^-%d)",
                     d[0], d[1], d[2], d[3], W[side] - 1);
            setv(v, NAN, det, "%s", gv_fp_classify_rounding(d[0], d[1], d[2], d[3]));
        }
    pset_free(&s);
}

#define BLOCK_K_PRODUCTS 64

static void products(ctx *c)
{
    const gv_fp_arith *ar = c->ar;
    int wa = (int)c->fp->f[GV_FP_IN_BITS_A].num, wb = (int)c->fp->f[GV_FP_IN_BITS_B].num;
    int w = wa < wb ? wa : wb, po = ar->out.p;
    gv_fp_value *v = &c->fp->f[GV_FP_PRODUCTS];
    if (!(w >= 2)) return;
    pset s;
    char det[160];
    if (w < storage_p(ar) && 2 * w - 1 <= po) {
        double x = 1 + p2(-(w - 1)), exact = x * x; /* 2w - 1 bits: exact in a double */
        if (pset_init(&s, 1, 1)) return;
        put(&s, 0, 0, x, x);
        if (pset_run(c, &s) == GV_OK) {
            snprintf(det, sizeof det, "x = 1 + 2^-%d: x x = %.17g, the exact product %.17g", w - 1,
                     s.out[0], exact);
            setv(v, NAN, det, "%s", s.out[0] == exact ? "exact" : "rounded");
        }
        pset_free(&s);
        return;
    }
    /* The operands are as wide as the output: the low part of x x survives only a fused
       multiply-add that meets -fl(x x) in its accumulator. The call adds in its own order and
       may split k over several accumulators, so -fl(x x) sits at 0 and x x at every j (and the
       other way round): one of them shares an accumulator if any does. */
    int wx = w < po ? w : po;
    double x = 1 + p2(-(wx - 1)), r = round_sig(x * x, po), lo = fma(x, x, -r);
    int K = BLOCK_K_PRODUCTS;
    if (pset_init(&s, 2 * (K - 1), K)) return;
    for (int j = 1; j < K; j++) {
        put(&s, 2 * (j - 1), 0, -1, r);
        put(&s, 2 * (j - 1), j, x, x);
        put(&s, 2 * (j - 1) + 1, 0, x, x);
        put(&s, 2 * (j - 1) + 1, j, -1, r);
    }
    if (pset_run(c, &s) == GV_OK) {
        int low = 0, zero = 0, first = -1;
        for (int i = 0; i < 2 * (K - 1); i++) {
            if (s.out[i] == lo) {
                if (!low++) first = i;
            } else if (s.out[i] == 0) {
                zero++;
            }
        }
        snprintf(det, sizeof det,
                 "x = 1 + 2^-%d, -fl(x x) and x x %d to %d apart: the low part %.3g survives in %d "
                 "of %d%s",
                 wx - 1, 1, K - 1, lo, low, 2 * (K - 1), low ? "" : "");
        if (first >= 0)
            snprintf(det + strlen(det), sizeof det - strlen(det), " (first %d apart)",
                     first / 2 + 1);
        setv(v, NAN, det, "%s", low ? "exact" : zero == 2 * (K - 1) ? "rounded" : "other");
    }
    pset_free(&s);
}

#define BLOCK_K 128

static void block(ctx *c)
{
    int eb, es;
    gv_fp_value *v = &c->fp->f[GV_FP_BLOCK];
    if (!big_small(c->ar, &eb, &es)) {
        setv(v, NAN, "the format's range cannot separate a big and a small product", "n/a");
        return;
    }
    /* blockwise scales: the positions below the first anchor of K (BLK_A) */
    int bk = hole(c->ar, BLOCK_K - 1) ? BLK_A : BLOCK_K;
    pset s;
    if (pset_init(&s, bk - 2, bk)) return;
    for (int j = 1; j <= bk - 2; j++) {
        put(&s, j - 1, 0, p2(eb), p2(eb));
        put(&s, j - 1, j, -p2(eb), p2(eb));
        put(&s, j - 1, j + 1, p2(es), p2(es));
    }
    if (pset_run(c, &s) == GV_OK) {
        double small = p2(2 * es);
        int first = 0, kept = 0, other = 0;
        bool kept_at[BLOCK_K] = {false};
        for (int j = 1; j <= bk - 2; j++) {
            double o = s.out[j - 1];
            if (o == small) {
                kept_at[j + 1] = true;
                kept++;
                if (!first) first = j + 1;
            } else if (o != 0) {
                other++;
            }
        }
        char det[160];
        snprintf(det, sizeof det,
                 "+M at 0, -M at j, m at j+1 (M/m = 2^%d): m survives at %d of %d positions, "
                 "first %d",
                 2 * (eb - es), kept, bk - 2, first);
        /* the first positions where m survived, for an irregular pattern */
        int shown = 0;
        for (int q = 2; q < bk && shown < 8; q++)
            if (kept_at[q]) {
                snprintf(det + strlen(det), sizeof det - strlen(det), "%s%d", shown ? "," : "; at ",
                         q);
                shown++;
            }
        if (other) {
            setv(v, NAN, det, "irregular");
        } else if (kept == bk - 2) {
            setv(v, 1, det, "1");
        } else if (kept == 0) {
            setv(v, NAN, det, "none");
        } else {
            bool regular = true;
            for (int q = 2; q < bk; q++)
                if (kept_at[q] != (q % first == 0)) regular = false;
            if (regular)
                setv(v, first, det, "%d", first);
            else
                setv(v, NAN, det, "irregular");
        }
    }
    pset_free(&s);
}

static void extra_bits(ctx *c)
{
    const gv_fp_arith *ar = c->ar;
    gv_fp_value *v = &c->fp->f[GV_FP_EXTRA_BITS];
    double b = c->fp->f[GV_FP_BLOCK].num;
    int eb, es;
    if (!(b >= 2) || !big_small(ar, &eb, &es)) {
        setv(v, NAN, "no block of two or more products to align", "n/a");
        return;
    }
    int B = (int)b, T = (int)floor(log2(B - 1.0)), ta[8], tb[8], n = 0;
    for (int t = 1; t <= T && t <= 8; t++) {
        if (!split(ar, 2 * eb - (ar->out.p - 1) - t, &ta[n], &tb[n])) break;
        n++;
    }
    if (!n) {
        setv(v, NAN, "the operands' range cannot reach below the output's last bit", "n/a");
        return;
    }
    pset s;
    if (pset_init(&s, n, B)) return;
    for (int i = 0; i < n; i++) {
        put(&s, i, 0, p2(eb), p2(eb));
        for (int l = 1; l < B; l++)
            put(&s, i, l, p2(ta[i]), p2(tb[i]));
    }
    if (pset_run(c, &s) == GV_OK) {
        int kept = 0;
        while (kept < n && s.out[kept] > p2(2 * eb))
            kept++;
        char det[160];
        snprintf(det, sizeof det,
                 "M and %d terms 2^-t ulp(M) in one block: they count for t = 1..%d of 1..%d",
                 B - 1, kept, n);
        if (kept == n)
            setv(v, kept, det, ">=%d", kept);
        else
            setv(v, kept, det, "%d", kept);
    }
    pset_free(&s);
}

/* The rounding of a block's sum: base terms (values on the diagonal, each split into two
   operands) plus 0.75 u, the negative, 0.5 u and u + 0.5 u, at the base's output ulp u. */
static void round_probe(ctx *c, int f, int nbase)
{
    const gv_fp_arith *ar = c->ar;
    gv_fp_value *v = &c->fp->f[f];
    int eb, es;
    if (!big_small(ar, &eb, &es)) {
        setv(v, NAN, "the format's range is too narrow", "n/a");
        return;
    }
    double big = p2(2 * eb), base = big * nbase;
    /* rounded at the accumulator's width where it is narrower than the output (fp8's 14
       bits inside a tensor core; acc_bits is measured first) */
    double acc = c->fp->f[GV_FP_ACC_BITS].num;
    int pr = isfinite(acc) && acc >= 2 && acc < ar->out.p ? (int)acc : ar->out.p;
    int ue = 2 * eb + (nbase == 2) - (pr - 1); /* u = ulp(base) = 2^ue */
    int a3, b3, ah, bh, au, bu;
    /* 0.75 u = 3 2^(ue-2); 0.5 u = 2^(ue-1); u */
    if (!split(ar, ue - 2, &a3, &b3) || !split(ar, ue - 1, &ah, &bh) || !split(ar, ue, &au, &bu)) {
        setv(v, NAN, "the operands' range cannot reach the output's last bit", "n/a");
        return;
    }
    pset s;
    int k = nbase + 2;
    if (pset_init(&s, 4, k)) return;
    for (int i = 0; i < 4; i++)
        for (int l = 0; l < nbase; l++)
            put(&s, i, l, i == 1 ? -p2(eb) : p2(eb), p2(eb));
    put(&s, 0, nbase, 3 * p2(a3), p2(b3));
    put(&s, 1, nbase, -3 * p2(a3), p2(b3));
    put(&s, 2, nbase, p2(ah), p2(bh));
    put(&s, 3, nbase, p2(au), p2(bu));
    put(&s, 3, nbase + 1, p2(ah), p2(bh));
    if (pset_run(c, &s) == GV_OK) {
        double u = p2(ue), d[4] = {(s.out[0] - base) / u, (-s.out[1] - base) / u,
                                   (s.out[2] - base) / u, (s.out[3] - base) / u};
        char det[160];
        snprintf(det, sizeof det,
                 "%s + 0.75u -> +%gu, negated -> %gu, + 0.5u -> +%gu, + 1.5u -> +%gu (u at %d "
                 "bits)",
                 nbase == 2 ? "M + M (a carry)" : "M", d[0], d[1], d[2], d[3], pr);
        setv(v, NAN, det, "%s", gv_fp_classify_rounding(d[0], d[1], d[2], d[3]));
    }
    pset_free(&s);
}

static void acc_bits(ctx *c)
{
    const gv_fp_arith *ar = c->ar;
    gv_fp_value *va = &c->fp->f[GV_FP_ACC_BITS], *vp = &c->fp->f[GV_FP_PROMOTION];
    int eb, es;
    if (!big_small(ar, &eb, &es)) {
        setv(va, NAN, "the format's range is too narrow", "n/a");
        setv(vp, NAN, "the format's range is too narrow", "n/a");
        return;
    }
    int K = ar->out.p - 4 < 10 ? 1 << (ar->out.p - 4) : 1024, lk = (int)log2(K);
    int t0 = lk + 2, t1 = ar->out.p + 4, ts[64], n = 0;
    for (int t = t0; t <= t1 && n < 64; t++) {
        int ea = eb - (t + 1) / 2, eb2 = eb - t / 2;
        if (ea < ar->op_emin || eb2 < ar->op_emin) break;
        ts[n++] = t;
    }
    if (n < 2) {
        setv(va, NAN, "the operands' range cannot reach below the accumulator", "n/a");
        setv(vp, NAN, "the operands' range cannot reach below the accumulator", "n/a");
        return;
    }
    pset s;
    if (pset_init(&s, n, K)) return;
    int terms = 0; /* K - 1, less the anchors' places under blockwise scales */
    for (int l = 1; l < K; l++)
        terms += !hole(ar, l);
    for (int i = 0; i < n; i++) {
        put(&s, i, 0, p2(eb), p2(eb));
        for (int l = 1; l < K; l++)
            if (!hole(ar, l)) put(&s, i, l, p2(eb - (ts[i] + 1) / 2), p2(eb - ts[i] / 2));
    }
    if (pset_run(c, &s) == GV_OK) {
        double big = p2(2 * eb);
        int loss = -1;
        double cnt[64];
        for (int i = 0; i < n; i++) {
            cnt[i] = (s.out[i] - big) / p2(2 * eb - ts[i]);
            if (loss < 0 && cnt[i] != terms) loss = i;
        }
        char det[160];
        if (loss < 0) {
            snprintf(det, sizeof det, "M + %d terms 2^-t M: all kept up to t = %d", terms,
                     ts[n - 1]);
            setv(va, ts[n - 1] + 1, det, ">=%d", ts[n - 1] + 1);
            setv(vp, NAN, det, "n/a");
        } else {
            snprintf(det, sizeof det,
                     "M + %d terms 2^-t M: all kept up to t = %d, %.0f kept at t = %d", terms,
                     ts[loss] - 1, cnt[loss], ts[loss]);
            setv(va, ts[loss], det, "%d", ts[loss]);
            /* past the first loss and below the output's own width: how many still count */
            int from = loss + 2, to = -1;
            for (int i = from; i < n; i++)
                if (ts[i] <= ar->out.p - 1) to = i;
            if (from > to) {
                setv(vp, NAN, "the accumulator is as wide as the output", "n/a");
            } else {
                bool same = true;
                for (int i = from; i <= to; i++)
                    if (cnt[i] != cnt[from]) same = false;
                char d2[160];
                /* the terms lost are those M's partial sum met: the promotion interval is the
                   position of the first term kept (K - kept where no anchor holds a place) */
                int lost = terms - (int)cnt[from], at = 0;
                for (int l = 1, q = 0; l < K && !at; l++)
                    if (!hole(ar, l) && q++ == lost) at = l;
                snprintf(d2, sizeof d2, "%.0f of %d terms 2^-t M kept for t = %d..%d", cnt[from],
                         terms, ts[from], ts[to]);
                if (terms != K - 1 && at)
                    snprintf(d2 + strlen(d2), sizeof d2 - strlen(d2),
                             ", the first at position %d (anchors hold 2 of each 128)", at);
                if (!same)
                    setv(vp, NAN, d2, "irregular");
                else if (cnt[from] == 0)
                    setv(vp, NAN, d2, "none");
                else
                    setv(vp, at, d2, "%d", at);
            }
        }
    }
    pset_free(&s);
}

#define ORDER_K 32

static void order(ctx *c)
{
    gv_fp_value *v = &c->fp->f[GV_FP_ORDER];
    double b = c->fp->f[GV_FP_BLOCK].num;
    int eb, es;
    if (!(b >= 1)) {
        setv(v, NAN, "no regular block size to predict an order from", "n/a");
        return;
    }
    /* the ORDER_K - 2 small terms together stay below half an ulp of M, even in an FMA chain
       that meets them before M: log2(ORDER_K) + 2 binades beyond the accumulator */
    if (!big_small_apart(c->ar, 7, &eb, &es)) {
        setv(v, NAN, "the format's range cannot keep +-M and 30 small terms apart", "n/a");
        return;
    }
    int B = (int)b, n = ORDER_K * (ORDER_K - 1) / 2;
    pset s;
    if (pset_init(&s, n, ORDER_K)) return;
    int q = 0;
    for (int i = 0; i < ORDER_K; i++)
        for (int j = i + 1; j < ORDER_K; j++, q++)
            for (int l = 0; l < ORDER_K; l++)
                put(&s, q, l,
                    l == i   ? p2(eb)
                    : l == j ? -p2(eb)
                             : p2(es),
                    l == i || l == j ? p2(eb) : p2(es));
    if (pset_run(c, &s) == GV_OK) {
        int differ = 0, fi = -1, fj = -1;
        double fr = 0, fp = 0;
        q = 0;
        for (int i = 0; i < ORDER_K; i++)
            for (int j = i + 1; j < ORDER_K; j++, q++) {
                double r = s.out[q] / p2(2 * es);
                int pred = ORDER_K - (j / B + 1) * B;
                if (pred < 0) pred = 0;
                if (r != pred) {
                    if (!differ++) {
                        fi = i;
                        fj = j;
                        fr = r;
                        fp = pred;
                    }
                }
            }
        char det[160];
        if (!differ) {
            snprintf(
                det, sizeof det,
                "+M at i, -M at j, m elsewhere (K = %d, all %d pairs): the m counted are those "
                "after j's block of %d, in k order",
                ORDER_K, n, B);
            setv(v, NAN, det, "sequential");
        } else {
            snprintf(det, sizeof det,
                     "%d of %d pairs differ from k order in blocks of %d; first (%d, %d): %g m "
                     "counted, %g expected",
                     differ, n, B, fi, fj, fr, fp);
            setv(v, differ, det, "other");
        }
    }
    pset_free(&s);
}

static void subnormals(ctx *c)
{
    const gv_fp_arith *ar = c->ar;
    gv_fp_value *vi = &c->fp->f[GV_FP_SUBNORMAL_IN], *vo = &c->fp->f[GV_FP_SUBNORMAL_OUT];
    /* in: 2^(emin - 1) times 2^j, j bringing the product into the output's normal range */
    int sub = ar->op_emin - 1, j = ar->out.emin - sub + 1;
    if (j < 1) j = 1;
    bool in_ok = j <= ar->op_emax;
    /* out: 2^(out.emin - 1) and 2^(out.emin - 3) as products of two normal operands */
    int xo[2] = {ar->out.emin - 1, ar->out.emin - 3}, oa[2], ob[2];
    bool out_ok = split(ar, xo[0], &oa[0], &ob[0]) && split(ar, xo[1], &oa[1], &ob[1]);
    pset s;
    if (pset_init(&s, 4, 1)) return;
    put(&s, 0, 0, p2(sub), in_ok ? p2(j) : 0);
    put(&s, 1, 0, in_ok ? p2(j) : 0, p2(sub));
    for (int i = 0; i < 2; i++)
        put(&s, 2 + i, 0, out_ok ? p2(oa[i]) : 0, out_ok ? p2(ob[i]) : 0);
    if (pset_run(c, &s) == GV_OK) {
        char det[160];
        if (!in_ok) {
            setv(vi, NAN, "the operands cannot lift a subnormal into the output's range", "n/a");
        } else {
            double want = p2(sub + j);
            int kept = (s.out[0] == want) + (s.out[1] == want),
                zero = (s.out[0] == 0) + (s.out[1] == 0);
            snprintf(det, sizeof det, "2^%d x 2^%d (A, then B): %.3g, %.3g (exact %.3g)", sub, j,
                     s.out[0], s.out[1], want);
            setv(vi, NAN, det, "%s", kept == 2 ? "kept" : zero == 2 ? "flushed" : "other");
        }
        if (!out_ok) {
            setv(vo, NAN, "no two normal operands multiply to a subnormal output", "n/a");
        } else {
            int kept = 0, zero = 0;
            for (int i = 0; i < 2; i++) {
                kept += s.out[2 + i] == p2(xo[i]);
                zero += s.out[2 + i] == 0;
            }
            snprintf(det, sizeof det, "2^%d and 2^%d as products: %.3g, %.3g", xo[0], xo[1],
                     s.out[2], s.out[3]);
            setv(vo, NAN, det, "%s", kept == 2 ? "kept" : zero == 2 ? "flushed" : "other");
        }
    }
    pset_free(&s);
}

static void row_bits(ctx *c)
{
    const gv_fp_arith *ar = c->ar;
    gv_fp_value *v = &c->fp->f[GV_FP_ROW_BITS], *vf = &c->fp->f[GV_FP_FIXED_POINT];
    int tmax = storage_p(ar) + 30;
    if (tmax > -ar->op_emin) tmax = -ar->op_emin;
    pset s;
    if (pset_init(&s, tmax, 2)) return;
    for (int t = 1; t <= tmax; t++) {
        put(&s, t - 1, 0, 1, 0);
        put(&s, t - 1, 1, p2(-t), 1);
    }
    if (pset_run(c, &s) == GV_OK) {
        int kept = 0;
        while (kept < tmax && s.out[kept] == p2(-(kept + 1)))
            kept++;
        char det[160];
        snprintf(det, sizeof det, "row [1, 2^-t] times [0, 1]: 2^-t survives for t = 1..%d of %d",
                 kept, tmax);
        if (kept == tmax) {
            setv(v, NAN, det, "all");
            setv(vf, NAN, det, "no");
        } else {
            setv(v, kept, det, "%d", kept);
            setv(vf, kept, det, "yes");
        }
    }
    pset_free(&s);
}

/* A small counter-based generator, so every run probes the same operands. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A random operand of w significand bits, exponent in [e0, e1], sign as asked. */
static double rnd_op(uint64_t *st, int w, int e0, int e1, bool negative)
{
    uint64_t r = mix((*st)++);
    double m = 1 + ldexp((double)(r % (1ull << (w - 1))), -(w - 1));
    int e = e0 + (int)((r >> 40) % (uint64_t)(e1 - e0 + 1));
    return (negative ? -1 : 1) * ldexp(m, e);
}

#define MONO_ROWS 128 /* pairs of rows */
#define MONO_COLS 32

static void monotonic_determinism(ctx *c)
{
    const gv_fp_arith *ar = c->ar;
    gv_fp_value *vm = &c->fp->f[GV_FP_MONOTONIC], *vd = &c->fp->f[GV_FP_DETERMINISTIC];
    int w = ar->in.p, K = 16, eb, es;
    if (!big_small(ar, &eb, &es)) eb = ar->op_emax < 0 ? ar->op_emax : 0;
    int e1 = eb, e0 = eb - 8 > ar->op_emin ? eb - 8 : ar->op_emin;
    int m = 2 * MONO_ROWS, n = MONO_COLS;
    double *A = calloc((size_t)m * K, sizeof *A), *B = calloc((size_t)K * n, sizeof *B),
           *C = calloc((size_t)m * n, sizeof *C), *C2 = calloc((size_t)m * n, sizeof *C2);
    if (!A || !B || !C || !C2) goto out;
    uint64_t st = 12345;
    for (int i = 0; i < MONO_ROWS; i++) {
        for (int l = 0; l < K; l++)
            A[(size_t)(2 * i) * K + l] = rnd_op(&st, w, e0, e1, mix(st * 7) & 1);
        memcpy(A + (size_t)(2 * i + 1) * K, A + (size_t)(2 * i) * K, sizeof *A * (size_t)K);
        int l = (int)(mix(st++) % (uint64_t)K);
        double x = A[(size_t)(2 * i) * K + l];
        int e;
        frexp(x, &e);
        /* one operand ulp toward +inf: x + 2^(e - w) where |x| in [2^(e-1), 2^e) */
        double up = x + ldexp(1.0, e - w);
        if (x < 0 && -up < ldexp(1.0, e - 2)) up = x + ldexp(1.0, e - 1 - w);
        if (fabs(up) > ldexp(1.0, ar->op_emax) * (2 - ldexp(1.0, -(w - 1)))) up = x; /* no room */
        A[(size_t)(2 * i + 1) * K + l] = up;
    }
    for (int l = 0; l < K; l++)
        for (int j = 0; j < n; j++)
            B[(size_t)l * n + j] = rnd_op(&st, w, e0, e1, false);
    if (run_full(c, m, K, n, A, B, C) != GV_OK) goto out;
    int bad = 0, first_i = -1;
    for (int i = 0; i < MONO_ROWS; i++)
        for (int j = 0; j < n; j++)
            if (!(C[(size_t)(2 * i) * n + j] <= C[(size_t)(2 * i + 1) * n + j])) {
                if (!bad++) first_i = i;
            }
    char det[160];
    snprintf(det, sizeof det,
             "%d pairs of rows, one operand of the second one ulp larger, %d positive columns: "
             "%d of %d results smaller%s",
             MONO_ROWS, n, bad, MONO_ROWS * n, bad ? " (first in pair " : "");
    if (bad) snprintf(det + strlen(det), sizeof det - strlen(det), "%d)", first_i);
    setv(vm, bad, det, "%s", bad ? "no" : "yes");
    int calls = 5, diff = 0;
    for (int r = 1; r < calls; r++) {
        if (run_full(c, m, K, n, A, B, C2) != GV_OK) goto out;
        if (memcmp(C, C2, sizeof *C * (size_t)m * n) != 0) diff++;
    }
    snprintf(det, sizeof det, "%d calls of the same %dx%dx%d product: %d differ from the first",
             calls, m, K, n, diff);
    setv(vd, diff, det, "%s", diff ? "no" : "yes");
out:
    free(A);
    free(B);
    free(C);
    free(C2);
}

/* The correctly rounded share: a CR_M x CR_K x CR_N product of random operands in [1, 2) with
   all 53 bits (one binade: the narrowest span a row can have), every output compared with the
   exact dot product rounded to nearest even. Native DGEMM adds CR_K products with one rounding
   each and returns the correctly rounded result for few outputs; a fixed-point emulation of
   enough bits sums the slices' products exactly in integers and rounds once. So the share tells
   an emulation from native DGEMM behind its label where every other feature cannot: cuBLAS's
   automatic emulation chooses its width from the operands' exponent span, and on the other
   probes' spans (2^-60 beside 1) it runs natively (docs/probe.md). f64 outputs only: the
   emulations it judges are f64's. */
#define CR_M 128
#define CR_N 128
#define CR_K 1024

typedef unsigned __int128 u128;

/* x 2^e rounded to nearest even at 53 bits (x > 0, e such that no underflow or overflow). */
static double u128_ldexp_rne(u128 x, int e)
{
    assert(x > 0); /* sums of products of operands in [1, 2) */
    int len = 0;
    for (u128 t = x; t; t >>= 1)
        len++;
    if (len <= 53) return ldexp((double)(uint64_t)x, e);
    int sh = len - 53;
    u128 q = x >> sh, rem = x - (q << sh), half = (u128)1 << (sh - 1);
    if (rem > half || (rem == half && (q & 1))) q++; /* a carry to 2^53 is still exact */
    return ldexp((double)(uint64_t)q, e + sh);
}

static void cr_share(ctx *c)
{
    const gv_fp_arith *ar = c->ar;
    gv_fp_value *v = &c->fp->f[GV_FP_CR_SHARE];
    if (ar->out.p != 53 || ar->in.p != 53) {
        setv(v, NAN, "measured where the operands and the output are f64", "n/a");
        return;
    }
    const int fb = 52; /* an operand is an integer times 2^-52 */
    double *A = malloc(sizeof *A * CR_M * CR_K), *B = malloc(sizeof *B * CR_K * CR_N),
           *C = malloc(sizeof *C * CR_M * CR_N);
    uint64_t *ia = malloc(sizeof *ia * CR_M * CR_K), *ib = malloc(sizeof *ib * CR_K * CR_N);
    if (!A || !B || !C || !ia || !ib) {
        if (!c->rc) {
            snprintf(c->why, c->len, "no host memory for the correctly-rounded probe");
            c->rc = GV_ENOMEM;
        }
        goto out;
    }
    uint64_t st = 777;
    for (int i = 0; i < CR_M * CR_K; i++) {
        A[i] = rnd_op(&st, 53, 0, 0, false);
        ia[i] = (uint64_t)ldexp(A[i], fb);
    }
    for (int i = 0; i < CR_K * CR_N; i++) {
        B[i] = rnd_op(&st, 53, 0, 0, false);
        ib[i] = (uint64_t)ldexp(B[i], fb);
    }
    if (run_full(c, CR_M, CR_K, CR_N, A, B, C) != GV_OK) goto out;
    int cr = 0, near = 0, bad = 0;
    for (int i = 0; i < CR_M; i++) {
        u128 sum[CR_N] = {0}; /* each < 2^(106 + 10): exact */
        for (int l = 0; l < CR_K; l++) {
            u128 x = ia[(size_t)i * CR_K + l];
            for (int j = 0; j < CR_N; j++)
                sum[j] += x * ib[(size_t)l * CR_N + j];
        }
        for (int j = 0; j < CR_N; j++) {
            double r = u128_ldexp_rne(sum[j], -2 * fb), got = C[(size_t)i * CR_N + j];
            if (!isfinite(got)) bad++;
            cr += got == r;
            near += fabs(got - r) <= nextafter(r, INFINITY) - r;
        }
    }
    int all = CR_M * CR_N;
    double share = 100.0 * cr / all;
    char det[160];
    snprintf(det, sizeof det,
             "%dx%dx%d, operands in [1, 2) with 53 bits: %d of %d outputs correctly rounded, "
             "%d within one ulp%s",
             CR_M, CR_K, CR_N, cr, all, near, bad ? ", some not finite" : "");
    setv(v, share, det, "%.1f", share);
out:
    free(A);
    free(B);
    free(C);
    free(ia);
    free(ib);
}

/* Which elements of one operand share a scale (side 0: A, 1: B), in one 128 x 256 x 256 call
   of no anchors but its own. x is 1.25 once scaled by to / 14 (to: 448 for E4M3, 57344 for
   E5M2) and 2^g is past the format's range below its smallest subnormal 2^sub (g = 2 - sub),
   so scaled by 2^-g less it rounds to 0; every group's amax is 14 2^e, every scale a power of
   two, every kept value exact. Three probes, each read through a selector of 14 on the other
   side (for A: row i of A, column i of B; for B the same transposed, its first probe in
   column 128, a 128-column block of its own):
     v0 = [14 2^g]                      scaled: 14 2^g x 14; unscaled it saturates: to x 14
     v1 = [14, x]                       x kept where the scale is v1's (row, column, block);
                                        lost to the tensor's scale, set by v0
     v2 = [14, 0 ... | 14 2^-g, x 2^-g] the second part in the next 128-block of K: kept only
                                        where that block has a scale of its own
   none: v0 saturated; tensor: v1 lost; row (column): v1 kept, v2 lost; block: both kept. */
static void scale_probe(ctx *c, int side)
{
    const gv_fp_arith *ar = c->ar;
    gv_fp_value *v = &c->fp->f[side ? GV_FP_SCALE_B : GV_FP_SCALE_A];
    if (!(ar->anchor > 0)) {
        setv(v, NAN, "the mode converts its operands as they are, unscaled", "n/a");
        return;
    }
    if (c->rc) return;
    const gv_fp_format *f = side ? &ar->in_b : &ar->in;
    double to = (side ? ar->scale_b : ar->scale) * SCALE_ANCHOR, w = SCALE_ANCHOR;
    int g = 2 - (f->emin - (f->p - 1));
    assert(g > 0 && f->p >= 3); /* 1.25 = 1.01b must be exact in the format */
    double x = 1.25 * w / to;
    const int64_t M = 128, K = 2 * GK_FP8_BLOCK_K, N = 256;
    double *P = calloc((size_t)(M * K), sizeof *P), *Q = calloc((size_t)(K * N), sizeof *Q),
           *C = calloc((size_t)(M * N), sizeof *C);
    if (!P || !Q || !C) {
        snprintf(c->why, c->len, "no host memory for the scale probe");
        c->rc = GV_ENOMEM;
        goto out;
    }
    /* values of probe q at position l of K, and its selector; A = values (rows) for side 0 */
    int64_t col[3] = {0, 1, 2};
    if (side) col[0] = 128;
#define VAL(q, l) (*(side ? &Q[(int64_t)(l)*N + col[q]] : &P[(int64_t)(q)*K + (l)]))
#define SEL(q, l) (*(side ? &P[(int64_t)(q)*K + (l)] : &Q[(int64_t)(l)*N + col[q]]))
    VAL(0, 0) = w * p2(g);
    SEL(0, 0) = w;
    VAL(1, 0) = w;
    VAL(1, 1) = x;
    SEL(1, 1) = w;
    VAL(2, 0) = w;
    VAL(2, GK_FP8_BLOCK_K + 1) = w * p2(-g);
    VAL(2, GK_FP8_BLOCK_K + 2) = x * p2(-g);
    SEL(2, GK_FP8_BLOCK_K + 2) = w;
#undef VAL
#undef SEL
    int rc = c->gemm(c->gctx, M, K, N, P, Q, C, c->why, c->len);
    c->fp->calls++;
    c->fp->elements += 3;
    if (rc != GV_OK) {
        c->rc = rc;
        goto out;
    }
    double r0 = C[col[0]], r1 = C[N + col[1]], r2 = C[2 * N + col[2]];
    bool big = r0 == w * p2(g) * w, sat = r0 == to * w, k1 = r1 == x * w, k2 = r2 == x * p2(-g) * w,
         z2 = r2 == 0;
    const char *name = sat                    ? "none"
                       : !big                 ? "other"
                       : !k1 && r1 == 0 && z2 ? "tensor"
                       : k1 && z2             ? (side ? "column" : "row")
                       : k1 && k2             ? "block"
                                              : "other";
    char det[160];
    snprintf(det, sizeof det,
             "[14*2^%d] -> %s, [14, x] -> x %s, [14 | 14*2^-%d, x*2^-%d] next block -> %s", g,
             big   ? "scaled"
             : sat ? "saturated (unscaled)"
                   : "?",
             k1 ? "kept" : "lost", g, g,
             k2   ? "kept"
             : z2 ? "0"
                  : "?");
    setv(v, NAN, det, "%s", name);
out:
    free(P);
    free(Q);
    free(C);
}

int gv_fp_measure(const gv_fp_arith *a, gv_fp_gemm_fn gemm, void *gctx, gv_fp_print *fp, char *why,
                  size_t len)
{
    memset(fp, 0, sizeof *fp);
    for (int f = 0; f < GV_FP_NFEATURES; f++)
        setv(&fp->f[f], NAN, "not measured", "n/a");
    ctx c = {a, gemm, gctx, fp, why, len, GV_OK};
    in_bits(&c);
    in_round(&c);
    products(&c);
    block(&c);
    extra_bits(&c);
    acc_bits(&c);
    round_probe(&c, GV_FP_BLOCK_ROUND, 1);
    round_probe(&c, GV_FP_CARRY_ROUND, 2);
    order(&c);
    subnormals(&c);
    row_bits(&c);
    monotonic_determinism(&c);
    cr_share(&c);
    scale_probe(&c, 0);
    scale_probe(&c, 1);
    return c.rc;
}
