/* envelope.c: the envelope of the claimed arithmetic on the user's own data (envelope.h): the
 * legal results of every output element computed on the CPU, bit for bit, in the claimed
 * precision and in its impostors', and the distance of the output to them. Not part of the
 * oracle cache's version: it decides verdicts, never references. */
#include "core/envelope.h"
#include "core/envelope_arith.h"
#include "core/envelope_tc.h"

#include <assert.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/gen.h" /* GV_PAR_MIN */
#include "core/knobs.h"
#include "core/metrics.h"
#include "core/op.h"

/* The orders' kernels, once per precision. On x86-64 each is cloned for CPUs with FMA (fmaf
   then is one instruction, not a call into libm) and chosen at load time; the results are the
   same bit for bit either way (fmaf is correctly rounded in both). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ENV_CLONES __attribute__((target_clones("fma", "default")))
#else
#define ENV_CLONES
#endif
#define ENV_NDOT0 12 /* the orders before split-K's */
#define ENV_NDOT  22
/* split-K's slice counts: contiguous, round-robin over tiles of ENV_RR_TILE (envelope_orders.h) */
enum { ENV_NCONT = 6, ENV_NRR = 4, ENV_RR_TILE = 8 };
#define ENV_NSUM 11
/* Product elements computed at once (envelope_orders.h, dot_lanes): one row of A against
   ENV_W columns of B, each lane its own element. ENV_LANES asks the compiler to issue the
   lanes' same operation together (OpenMP's simd: no reassociation, each lane's order kept). */
#define ENV_W     8
#define ENV_LANES _Pragma("omp simd")
/* tiles of 2048 from which a kernel tree's first level is replayed on all cores (block_tree) */
#define ENV_TREE_PAR_TILES 64

#define ENV_T        float
#define ENV_FMA      fmaf
#define ENV_NAME(op) op##_f32
#include "core/envelope_orders.h"
#undef ENV_T
#undef ENV_FMA
#undef ENV_NAME
#define ENV_T        double
#define ENV_FMA      fma
#define ENV_NAME(op) op##_f64
#include "core/envelope_orders.h"
#undef ENV_T
#undef ENV_FMA
#undef ENV_NAME

bool gv_envelope_applies(gv_result *r)
{
    const gv_case *c = &r->c;
    const char *off = gv_knobs()->envelope;
    char *why = r->env.why_not;
    size_t len = sizeof r->env.why_not;
    why[0] = '\0';
    /* the order judged: the declared one; else gpuval's own kernel's, for its own outputs;
       else every legal order */
    r->env.used = r->env.order;
    if (r->env.used.kind == GV_ORDER_ANY && !r->env.foreign && c->op->env_order != GV_ORDER_ANY)
        r->env.used = (gv_env_order){c->op->env_order, 0, true};
    if (c->op->envelope == GV_ENV_NONE)
        snprintf(why, len, "%s has no envelope model", c->op->name);
    else if (r->inputs == GV_INPUTS_GENERATED && r->env.used.kind == GV_ORDER_ANY)
        snprintf(why, len, "generated inputs: the models of gpuval's inputs judge");
    else if (c->mode != GV_MODE_NATIVE && c->op->envelope != GV_ENV_PRODUCT)
        snprintf(why, len, "mode %s: the envelope of a sum models native arithmetic only",
                 gv_mode_name(c->mode));
    else if (c->mode != GV_MODE_NATIVE && !gv_env_tc_model(c->mode, r->env.arch, why, len))
        ; /* why: the mode has no tensor-core model here, in its own words */
    else if (c->dtype != GV_F32 && c->dtype != GV_F64)
        snprintf(why, len, "dtype %s: the envelope models f32 and f64", gv_dtype_name(c->dtype));
    else if (off && (strcmp(off, "0") == 0 || strcmp(off, "off") == 0))
        snprintf(why, len, "off (GPUVAL_ENVELOPE=%s)", off);
    else if (off && !(strcmp(off, "1") == 0 || strcmp(off, "on") == 0))
        snprintf(why, len, "GPUVAL_ENVELOPE=%.40s is neither on nor off", off);
    r->env.asked = off != NULL;
    return why[0] == '\0';
}

/* x rounded to p significant bits, to nearest with ties to even, or toward zero where trunc
   (p >= the dtype's: x). */
static double round_bits(double x, int p, bool trunc)
{
    if (x == 0.0 || !isfinite(x)) return x;
    int e;
    frexp(x, &e);
    const double t = ldexp(x, p - e);
    return ldexp(trunc ? floor(fabs(t)) * (t < 0 ? -1.0 : 1.0) : nearbyint(t), e - p);
}

/* One ulp of x in a precision of `bits` significant bits whose normals start at 2^emin: the
   spacing of its numbers around x (the subnormals' at 0). */
static double ulp_in(double x, int bits, int emin)
{
    int e = emin;
    if (x != 0.0 && isfinite(x)) {
        frexp(fabs(x), &e); /* |x| in [2^(e-1), 2^e) */
        e -= 1;
        if (e < emin) e = emin;
    }
    return ldexp(1.0, e - bits + 1);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The operands of one arithmetic in the claimed precision: A (m x k) and B transposed (n x k)
   for a product, the summed tensor transposed (cols x rows: each sum contiguous) for sums. */
typedef struct operands {
    void *a, *bt;
    bool a_borrowed;            /* a is the tensor's own f64 values (not a copy): not freed */
    const gv_bfma_model *model; /* a tensor-core arithmetic's; NULL: none */
    gv_env_tc_operand ta, tbt;  /* its operands (a and bt are their f32 values) */
    int64_t promote;            /* products a promotion to f32 (gv_env_tc_promotion); 0: none */
} operands;

static void *operand_copy(const double *src, int64_t rows, int64_t cols, bool transpose, int bits,
                          bool trunc, bool f32)
{
    size_t es = f32 ? sizeof(float) : sizeof(double);
    void *dst = malloc(es * (size_t)(rows * cols));
    if (!dst) return NULL;
#pragma omp parallel for schedule(static) if (rows * cols >= GV_PAR_MIN)
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            double v = src[i * cols + j];
            if (bits) v = round_bits(v, bits, trunc);
            int64_t at = transpose ? j * rows + i : i * cols + j;
            if (f32)
                ((float *)dst)[at] = (float)v;
            else
                ((double *)dst)[at] = v;
        }
    return dst;
}

/* The legal orders of element `at` in one arithmetic, one at a time: res[0..*nres), every
   modelled order of a sum (o ANY), or the one order o names (a sum's or a product's). A
   product's every order comes from orders_lanes. Under rz, the element's every operation
   rounds toward zero (the thread's own rounding mode, restored after). */
static void orders_of(const operands *o, bool f32, bool product, bool rz, const gv_env_order *ord,
                      int64_t at, int64_t n, int64_t k, void *tmp, double *res, int *nres,
                      double *sq)
{
    assert(!(product && ord->kind == GV_ORDER_ANY));
    int saved = 0;
    if (rz) {
        saved = fegetround();
        fesetround(FE_TOWARDZERO);
    }
    bool any = ord->kind == GV_ORDER_ANY;
    if (product) {
        int64_t i = at / n, j = at % n;
        if (f32) {
            const float *x = (const float *)o->a + i * k, *y = (const float *)o->bt + j * k;
            dot_order_f32(x, y, k, ord, tmp, res, nres);
        } else {
            const double *x = (const double *)o->a + i * k, *y = (const double *)o->bt + j * k;
            dot_order_f64(x, y, k, ord, tmp, res, nres);
        }
    } else {
        if (f32) {
            const float *x = (const float *)o->a + at * k;
            if (any)
                sum_f32(x, k, tmp, res, sq);
            else
                sum_order_f32(x, k, ord, tmp, res, nres);
        } else {
            const double *x = (const double *)o->a + at * k;
            if (any)
                sum_f64(x, k, tmp, res, sq);
            else
                sum_order_f64(x, k, ord, tmp, res, nres);
        }
        if (any) *nres = ENV_NSUM;
    }
    if (!any) *sq = 0.0; /* one order's own results, replayed: no order-free width */
    if (rz) fesetround(saved);
}

/* Every modelled order of ENV_W product elements of row i at once (columns js[0..nw), nw <=
   ENV_W; the lanes past nw repeat the last column, their results unused): res[w ENV_NDOT +
   q], sq[w]. y and tmp hold k ENV_W values each. The same numbers, element by element, as
   the elements computed one at a time (dot_lanes). */
static void orders_lanes(const operands *o, bool f32, bool rz, int64_t i, const int64_t *js, int nw,
                         int64_t k, void *y, void *tmp, double *res, double *sq)
{
    assert(nw >= 1 && nw <= ENV_W);
    for (int w = 0; w < ENV_W; w++) {
        int64_t j = js[w < nw ? w : nw - 1];
        if (f32) {
            const float *col = (const float *)o->bt + j * k;
            for (int64_t l = 0; l < k; l++)
                ((float *)y)[l * ENV_W + w] = col[l];
        } else {
            const double *col = (const double *)o->bt + j * k;
            for (int64_t l = 0; l < k; l++)
                ((double *)y)[l * ENV_W + w] = col[l];
        }
    }
    int saved = 0;
    if (rz) {
        saved = fegetround();
        fesetround(FE_TOWARDZERO);
    }
    if (f32)
        dot_lanes_f32((const float *)o->a + i * k, y, k, tmp, res, sq);
    else
        dot_lanes_f64((const double *)o->a + i * k, y, k, tmp, res, sq);
    if (rz) fesetround(saved);
}

/* The model's block orders of product element `at` in a tensor-core arithmetic
   (envelope_tc.h), then the exact result on the converted operands: res[0..GV_ENV_TC_NORD],
   true; or false where an operand is not finite after the conversion (an f16 overflow: the
   placement rules judge the element). */
static bool tc_orders_of(const operands *o, int64_t at, int64_t n, int64_t k, double *res)
{
    int64_t i = at / n, j = at % n;
    if (!o->ta.finite[i] || !o->tbt.finite[j]) return false;
    if (o->promote)
        gv_env_tc_dot_promoted(o->model, o->ta.s + i * k, o->tbt.s + j * k, k, o->promote, res);
    else
        gv_env_tc_dot(o->model, o->ta.s + i * k, o->tbt.s + j * k, k, res);
    const float da = gv_env_tc_descale(&o->ta, i), db = gv_env_tc_descale(&o->tbt, j);
    const bool scaled = da != 1.0f || db != 1.0f;
    if (scaled) {
        /* the product of the scaled operands descaled in f32, (da db) acc, as cuBLASLt is
           given the two descales (per tensor, or fp8row's of row i and column j) */
        const float dd = da * db;
        for (int v = 0; v < GV_ENV_TC_NORD; v++)
            res[v] = (double)(dd * (float)res[v]);
    }
    /* the exact result on the converted operands (to f64's rounding): the mode's own "exact
       output", where the native envelope takes the f64 reference on the operands as given,
       which a mode in effect need not come near */
    const float *x = (const float *)o->a + i * k, *y = (const float *)o->bt + j * k;
    double exact = 0.0;
    for (int64_t l = 0; l < k; l++)
        exact = fma((double)x[l], (double)y[l], exact);
    if (scaled) exact = exact * ((double)da * (double)db);
    res[GV_ENV_TC_NORD] = exact;
    return true;
}

/* Whether output element at is in the sample (keep: the largest hash kept; UINT64_MAX: all):
   splitmix64's finaliser of the index, so the sample does not line up with rows or columns. */
static bool sampled(int64_t at, uint64_t keep)
{
    if (keep == UINT64_MAX) return true;
    uint64_t z = (uint64_t)at + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (z ^ (z >> 31)) <= keep;
}

/* The distance of c to the envelope [lo, hi] of width w, in widths: 0 within a width of it. */
static double distance(double c, double lo, double hi, double w)
{
    if (c < lo - w) return (lo - w - c) / w;
    if (c > hi + w) return (c - hi - w) / w;
    return 0.0;
}

/* One case's envelope in the making: the case, its arithmetics and their operands, and what
   each element's judgement writes (indexed by the output's flat index). */
typedef struct env_job {
    const gv_problem *p;
    const gv_case *c;
    gv_envelope *env;
    const gv_env_arith *ar[GV_ENV_MAX_ARITH];
    int na, sm, bits, emin;
    operands ops[GV_ENV_MAX_ARITH];
    bool f32, product, declared;
    int64_t n_el, m, k, n;
    uint64_t keep;              /* sampled()'s */
    const gv_bfma_format *ofmt; /* a narrower output format (f16acc's binary16); NULL: none */
    double *d, *e, *near, *ex;  /* distance, signed excess, nearest legal value; ex per arith */
    unsigned char *within, *agree, *off_fmt;
    /* a declared or known order: bit a set where the output is one of arithmetic a's results
       (a > 0) and none of the claimed one's legal values */
    unsigned char *exact_as;
    /* the operand-rounding signature's directions (gv_env_sigs): sig_ops[s] their operands
       (an arithmetic's, or sig_own[s] rounded for the direction alone); per element the
       error e (sig_e) and each direction's D (sig_d, s n_el + at), NaN where not taken */
    const gv_env_arith *sig[GV_ENV_MAX_SIG];
    int ns;
    const operands *sig_ops[GV_ENV_MAX_SIG];
    operands sig_own[GV_ENV_MAX_SIG];
    double *sig_e, *sig_d, *sig_s; /* sig_s: the claimed arithmetic's chain's own error */
} env_job;

/* The shapes: m, k, n of a product; the sums' count n and length k. False: they do not fit. */
static bool job_shape(env_job *j)
{
    const gv_problem *p = j->p;
    j->n_el = p->out[0].count;
    if (j->product) {
        assert(j->c->shape.nd == 3);
        j->m = j->c->shape.d[0], j->k = j->c->shape.d[1], j->n = j->c->shape.d[2];
    } else {
        j->n = j->n_el, j->m = 1, j->k = j->n > 0 ? p->in[0].count / j->n : 0;
    }
    return j->n_el > 0 && j->k > 0 &&
           (j->product ? j->m * j->n == j->n_el && p->in[0].count == j->m * j->k &&
                             p->in[1].count == j->k * j->n
                       : j->k * j->n == p->in[0].count);
}

/* The arithmetics: the claimed one, then the impostors it is told apart from; and the
   signature's directions. */
static void job_ariths(env_job *j)
{
    j->na = gv_env_ariths(j->c->mode, j->sm, j->f32, j->product, j->ar);
    int of[GV_ENV_MAX_SIG];
    j->ns = gv_env_sigs(j->ar, j->na, j->product, j->sig, of);
    for (int s = 0; s < j->ns; s++)
        j->sig_ops[s] = of[s] >= 0 ? &j->ops[of[s]] : &j->sig_own[s];
}

/* The operands of the directions that are no arithmetic's (TF32 by truncation); false where
   memory ran out. */
static bool sig_operands(env_job *j)
{
    bool ok = true;
    for (int s = 0; s < j->ns; s++) {
        if (j->sig_ops[s] != &j->sig_own[s]) continue;
        const gv_env_arith *x = j->sig[s];
        operands *o = &j->sig_own[s];
        o->a = operand_copy(j->p->in[0].ref, j->m, j->k, false, x->bits, x->trunc, j->f32);
        o->bt = operand_copy(j->p->in[1].ref, j->k, j->n, true, x->bits, x->trunc, j->f32);
        ok = ok && o->a && o->bt;
    }
    return ok;
}

/* The operands of each arithmetic (those with the claimed operands share its copy); false
   where memory ran out. */
static bool job_operands(env_job *j)
{
    const gv_problem *p = j->p;
    bool ok = true;
    for (int a = 0; a < j->na; a++) {
        operands *o = &j->ops[a];
        const gv_env_arith *ar = j->ar[a];
        if (ar->tc != GV_MODE_NATIVE) {
            char why[96];
            o->model = gv_env_tc_model(ar->tc, j->sm, why, sizeof why);
            assert(o->model && j->product && j->f32);
            o->promote = ar->promoted ? gv_env_tc_promotion(ar->tc, j->sm) : 0;
            assert(!ar->promoted || o->promote > 0); /* gv_env_tc_model said it is known */
            ok = ok &&
                 gv_env_tc_operand_make(o->model, p->in[0].ref, j->m, j->k, false, ar->scaling,
                                        &o->ta) == GV_OK &&
                 gv_env_tc_operand_make(o->model, p->in[1].ref, j->k, j->n, true, ar->scaling,
                                        &o->tbt) == GV_OK;
            o->a = o->ta.v, o->bt = o->tbt.v;
            continue;
        }
        if (a > 0 && ar->bits == 0 && j->ar[0]->tc == GV_MODE_NATIVE) {
            *o = j->ops[0];
            continue;
        }
        if (j->product) {
            o->a = operand_copy(p->in[0].ref, j->m, j->k, false, ar->bits, false, j->f32);
            o->bt = operand_copy(p->in[1].ref, j->k, j->n, true, ar->bits, false, j->f32);
        } else if (!j->f32 && ar->bits == 0 && j->n == 1) {
            /* one f64 sum taken as given: its transposed copy would be the tensor itself
               (10^8 terms: 800 MB of fresh pages), so the orders read the tensor */
            o->a = (void *)p->in[0].ref;
            o->a_borrowed = true;
            o->bt = NULL;
        } else {
            o->a = operand_copy(p->in[0].ref, j->k, j->n, true, ar->bits, false, j->f32);
            o->bt = NULL;
        }
        ok = ok && o->a && (!j->product || o->bt);
    }
    return ok && sig_operands(j);
}

static void job_free(env_job *j)
{
    for (int a = 0; a < j->na; a++) {
        operands *o = &j->ops[a];
        if (o->model) {
            gv_env_tc_operand_free(&o->ta);
            gv_env_tc_operand_free(&o->tbt);
            continue;
        }
        if (a > 0 && o->a == j->ops[0].a) continue;
        if (!o->a_borrowed) free(o->a);
        free(o->bt);
    }
    for (int s = 0; s < j->ns; s++) {
        free(j->sig_own[s].a);
        free(j->sig_own[s].bt);
    }
    free(j->sig_e);
    free(j->sig_s);
    free(j->sig_d);
    free(j->d);
    free(j->e);
    free(j->near);
    free(j->ex);
    free(j->within);
    free(j->agree);
    free(j->off_fmt);
    free(j->exact_as);
}

/* The results of one element in every arithmetic, as judge_element reads them: res[a] the
   legal results (nres[a] of them), sq[a] the width's floor; lanes[a] where a product's every
   modelled order came from orders_lanes (NULL: computed here, one element at a time). */
typedef struct elem_orders {
    const double *lanes[GV_ENV_MAX_ARITH], *lanes_sq[GV_ENV_MAX_ARITH];
} elem_orders;

/* The legal results of output element at in arithmetic a into res, returning their count: a
   tensor-core model's block orders and its exact result first, then (where they are legal)
   the native orders, from the lanes or computed here; into *sq the width's floor. One NaN
   result where an operand is not finite after the model's conversion (the placement rules
   judge the element). */
static int arith_results(const env_job *j, int a, int64_t at, const elem_orders *eo, void *tmp,
                         double *res, double *sq)
{
    const gv_env_arith *ar = j->ar[a];
    const operands *o = &j->ops[a];
    *sq = 0.0;
    int first = 0;
    if (o->model) {
        if (!tc_orders_of(o, at, j->n, j->k, res)) {
            res[0] = NAN;
            return 1;
        }
        first = GV_ENV_TC_NORD + 1;
    }
    /* a tensor-core model's f32 orders over the same converted operands give the width's
       floor either way; they are legal results only where f32_orders says so */
    double scratch[ENV_NDOT + 4];
    const bool keep = !o->model || ar->f32_orders;
    double *to = keep ? res + first : scratch;
    int more = 0;
    if (eo->lanes[a]) {
        memcpy(to, eo->lanes[a], sizeof(double) * ENV_NDOT);
        more = ENV_NDOT;
        *sq = *eo->lanes_sq[a];
    } else {
        orders_of(o, j->f32, j->product, o->model ? false : ar->rz, &j->env->used, at, j->n, j->k,
                  tmp, to, &more, sq);
    }
    /* fp8's f32 orders run on the scaled operands: their scale is the outputs' times the
       scales (only their width's floor is taken, f32_orders being false) */
    const double dd = o->model ? (double)gv_env_tc_descale(&o->ta, at / j->n) *
                                     (double)gv_env_tc_descale(&o->tbt, at % j->n)
                               : 1.0;
    if (dd != 1.0) {
        assert(!keep);
        *sq *= dd * dd;
    }
    return first + (keep ? more : 0);
}

/* One order replayed (declared or known): whether output cv is exactly one of arithmetic a's
   results res[0..nres) and none of the claimed arithmetic's legal values (its results, kept
   in claimed by a = 0, and the exact result), into j->exact_as. */
static void note_exact_as(const env_job *j, int a, int64_t at, double cv, double ref,
                          const double *res, int nres, double *claimed, int *n_claimed)
{
    bool in_a = false;
    for (int q = 0; q < nres; q++)
        in_a = in_a || res[q] == cv;
    if (a == 0) {
        memcpy(claimed, res, sizeof(double) * (size_t)nres);
        *n_claimed = nres;
    } else if (in_a) {
        bool in_claimed = !j->ops[a].model && cv == ref;
        for (int q = 0; q < *n_claimed; q++)
            in_claimed = in_claimed || claimed[q] == cv;
        if (!in_claimed) j->exact_as[at] |= (unsigned char)(1u << a);
    }
}

/* One order: its results (the variants a kernel of it may take) are the legal values, with an
   ulp's slack, and so is the exact result (an exact output never FAILs); nothing between
   them. [*lo, *hi] and the width returned; the claimed arithmetic (a = 0) also sets the
   nearest legal value. */
static double width_declared(const env_job *j, int a, int64_t at, double cv, double ref, int abits,
                             int aemin, double *lo, double *hi)
{
    double w = *hi - *lo;
    double u = ulp_in(0.5 * (*lo + *hi), abits, aemin);
    if (!(w >= u)) w = u;
    if (a == 0) {
        double wr = ulp_in(ref, abits, aemin);
        if (!j->ops[a].model && distance(cv, ref, ref, wr) < distance(cv, *lo, *hi, w))
            *lo = *hi = ref, w = wr;
        j->near[at] = cv < *lo ? *lo : cv > *hi ? *hi : cv;
    }
    return w;
}

/* Every legal order: [*lo, *hi] (with the f64 reference where the arithmetic is native) and
   the width returned: the legal spread, at least one ulp of r (an output one ulp off every
   modelled order is still legal) and at least GV_ENV_SIGMAS standard deviations of one order's
   rounding error on these inputs (a few orders' spread can be narrow by chance: they share
   structure). The claimed arithmetic (a = 0) also sets the nearest legal value. */
static double width_free(const env_job *j, int a, int64_t at, double cv, double ref, int abits,
                         int aemin, double aunit, double sq, double *lo, double *hi)
{
    if (a == 0) {
        /* the nearest legal result, before r widens the range */
        j->near[at] = cv < *lo ? *lo : cv > *hi ? *hi : cv;
        /* the f64 reference is legal for native arithmetic; a tensor-core mode's exact result
           is among its own (on the converted operands) */
        if (!j->ops[a].model && ref < *lo) *lo = ref;
        if (!j->ops[a].model && ref > *hi) *hi = ref;
    }
    double w = *hi - *lo;
    double u = ulp_in(a == 0 ? ref : 0.5 * (*lo + *hi), abits, aemin);
    double sigma = aunit * sqrt(sq / 3.0);
    if (!(w >= u)) w = u;
    if (isfinite(sigma) && w < GV_ENV_SIGMAS * sigma) w = GV_ENV_SIGMAS * sigma;
    return w;
}

/* The FMA chain in k order of row i of o's A against column c of its B, in the claimed
   precision. */
static double sig_chain(const env_job *j, const operands *o, int64_t i, int64_t c)
{
    const int64_t k = j->k;
    if (j->f32) {
        const float *x = (const float *)o->a + i * k, *y = (const float *)o->bt + c * k;
        float acc = 0.0f;
        for (int64_t l = 0; l < k; l++)
            acc = fmaf(x[l], y[l], acc);
        return acc;
    }
    const double *x = (const double *)o->a + i * k, *y = (const double *)o->bt + c * k;
    double acc = 0.0;
    for (int64_t l = 0; l < k; l++)
        acc = fma(x[l], y[l], acc);
    return acc;
}

/* Direction s's D of product element at: the result on its operands less the result on the
   claimed arithmetic's, both in one and the same order (the FMA chain in k order; a
   tensor-core model's chain of blocks, first0 and firsts[s] from its results), so that D is
   what the narrower operands change after the accumulator has rounded. Not the exact
   difference: where the data's small parts lie below the accumulator's ulp (integers with
   offsets of 2^-20), a correct f32 chain drops them as the TF32 operands do, its error then
   is the exact difference, and only the same order's D (0 there) leaves it alone. NaN where
   a converted operand is not finite. */
static double sig_dir(const env_job *j, int s, int64_t at, double first0, double chain0,
                      const double *firsts)
{
    const operands *o0 = &j->ops[0], *o1 = j->sig_ops[s];
    const int64_t i = at / j->n, c = at % j->n;
    if (o0->model && (!o0->ta.finite[i] || !o0->tbt.finite[c])) return NAN;
    if (o1->model && (!o1->ta.finite[i] || !o1->tbt.finite[c])) return NAN;
    if (o1->model) return firsts[s] - first0;
    return sig_chain(j, o1, i, c) - chain0;
}

/* The signature's numbers of element at: e = cv - exact (the claimed arithmetic's exact
   result: the f64 reference, or a tensor-core mode's on its converted operands), each
   direction's D, and the claimed arithmetic's chain's own error (the noise D must stand
   above); first[a] arithmetic a's first result (a model's chain of blocks). */
static void sig_element(const env_job *j, int64_t at, double cv, double exact, const double *first)
{
    if (!isfinite(exact)) return;
    j->sig_e[at] = cv - exact;
    const double chain0 =
        j->ops[0].model ? first[0] : sig_chain(j, &j->ops[0], at / j->n, at % j->n);
    j->sig_s[at] = chain0 - exact;
    double firsts[GV_ENV_MAX_SIG];
    for (int s = 0; s < j->ns; s++)
        firsts[s] = j->sig_ops[s]->model ? first[j->sig_ops[s] - j->ops] : NAN;
    for (int s = 0; s < j->ns; s++)
        j->sig_d[s * j->n_el + at] = sig_dir(j, s, at, first[0], chain0, firsts);
}

/* Judge output element at: its legal results in each arithmetic (from lanes, or computed
   here), the range, the width and the distance into the job's per-element arrays. */
static void judge_element(const env_job *j, int64_t at, const elem_orders *eo, void *tmp)
{
    const gv_tensor *out = &j->p->out[0];
    double res[GV_ENV_TC_NORD + 1 + ENV_NDOT], claimed_first = 0.0;
    double claimed[GV_ENV_TC_NORD + 1 + ENV_NDOT];
    int n_claimed = 0;
    double cv = gv_dtype_load(j->c->dtype, out->data, at), ref = out->ref[at], exact = NAN;
    double first[GV_ENV_MAX_ARITH];
    for (int a = 0; a < GV_ENV_MAX_ARITH; a++)
        first[a] = NAN;
    if (!isfinite(cv) || !isfinite(ref)) return;
    if (j->ofmt && !gv_bfma_in_format(j->ofmt, (float)cv)) j->off_fmt[at] = 1;
    for (int a = 0; a < j->na; a++) {
        const gv_env_arith *ar = j->ar[a];
        /* the arithmetic's precision: the claimed dtype's, or its own */
        const int abits = ar->acc_bits ? ar->acc_bits : j->bits,
                  aemin = ar->acc_bits ? ar->acc_emin : j->emin;
        const double aunit = ldexp(1.0, -(ar->sigma_bits ? ar->sigma_bits : abits));
        double sq;
        const int nres = arith_results(j, a, at, eo, tmp, res, &sq);
        double lo = res[0], hi = res[0];
        for (int q = 1; q < nres; q++) {
            if (res[q] < lo) lo = res[q];
            if (res[q] > hi) hi = res[q];
        }
        if (!isfinite(lo) || !isfinite(hi)) break; /* an order overflowed */
        if (a == 0) exact = j->ops[0].model ? res[GV_ENV_TC_NORD] : ref;
        first[a] = res[0];
        if (j->declared) note_exact_as(j, a, at, cv, ref, res, nres, claimed, &n_claimed);
        if (a > 0 && res[0] == claimed_first) j->agree[at] |= (unsigned char)(1u << a);
        if (a == 0) claimed_first = res[0];
        const double w = j->declared
                             ? width_declared(j, a, at, cv, ref, abits, aemin, &lo, &hi)
                             : width_free(j, a, at, cv, ref, abits, aemin, aunit, sq, &lo, &hi);
        double da = distance(cv, lo, hi, w);
        j->ex[a * j->n_el + at] = cv > hi ? (cv - hi) / w : cv < lo ? (lo - cv) / w : 0.0;
        if (da <= GV_ENV_BOUND) j->within[at] |= (unsigned char)(1u << a);
        if (a == 0) {
            j->d[at] = da;
            j->e[at] = cv > hi ? (cv - hi) / w : cv < lo ? (cv - lo) / w : 0.0;
        }
    }
    if (j->ns) sig_element(j, at, cv, exact, first);
}

/* Columns judged a unit of work: a row of a product is cut into units of this many columns,
   their sampled elements taken ENV_W at a time */
enum { ENV_UNIT_COLS = 64 };

/* Every sampled element judged, on all cores; false where a thread found no memory for its
   scratch. A product's elements go ENV_W at a time through orders_lanes (a row's sampled
   columns, in order), a sum's one at a time. */
static bool judge_elements(const env_job *j)
{
    const bool lanes = j->product && !j->declared;
    const size_t es = j->f32 ? sizeof(float) : sizeof(double);
    const int64_t per_row = (j->n + ENV_UNIT_COLS - 1) / ENV_UNIT_COLS;
    const int64_t units = j->product ? j->m * per_row : j->n_el;
    /* scratch a thread: the lanes' operand and products (k ENV_W each), or one sum's k */
    const size_t scratch = es * (size_t)j->k * (lanes ? 2 * ENV_W : 1);
    bool lost = false;
#pragma omp parallel for schedule(static) if (j->n_el >= GV_PAR_MIN)
    for (int64_t at = 0; at < j->n_el; at++) {
        /* NaN: not judged here (the placement rules judge it) */
        j->d[at] = j->e[at] = j->near[at] = NAN;
        if (j->ns) j->sig_e[at] = j->sig_s[at] = NAN;
        for (int s = 0; s < j->ns; s++)
            j->sig_d[s * j->n_el + at] = NAN;
        j->within[at] = j->agree[at] = j->exact_as[at] = 0;
    }
    /* one element (a whole-vector sum of 1e8 terms): its orders spread their own work over
       the cores (block_tree), which they cannot inside an active region */
#pragma omp parallel if (units > 1)
    {
        void *tmp = NULL; /* taken by a thread that gets an element (a long sum has one) */
        double *res = malloc(sizeof(double) * (size_t)(GV_ENV_MAX_ARITH * ENV_W * (ENV_NDOT + 1)));
#pragma omp for schedule(dynamic, 1)
        for (int64_t u = 0; u < units; u++) {
            int64_t ats[ENV_UNIT_COLS], js[ENV_UNIT_COLS];
            int cnt = 0;
            if (j->product) {
                int64_t i = u / per_row, j0 = (u % per_row) * ENV_UNIT_COLS;
                for (int64_t col = j0; col < j->n && col < j0 + ENV_UNIT_COLS; col++)
                    if (sampled(i * j->n + col, j->keep))
                        js[cnt] = col, ats[cnt++] = i * j->n + col;
            } else if (sampled(u, j->keep)) {
                ats[cnt++] = u;
            }
            if (cnt == 0) continue;
            if (!tmp) tmp = malloc(scratch);
            if (!tmp || !res) {
#pragma omp atomic write
                lost = true;
                continue;
            }
            for (int g = 0; g < cnt; g += ENV_W) {
                const int nw = cnt - g < ENV_W ? cnt - g : ENV_W;
                elem_orders eo = {{NULL}, {NULL}};
                double *sq = res + GV_ENV_MAX_ARITH * ENV_W * ENV_NDOT;
                if (lanes)
                    for (int a = 0; a < j->na; a++) {
                        const bool rz = j->ops[a].model ? false : j->ar[a]->rz;
                        orders_lanes(&j->ops[a], j->f32, rz, ats[g] / j->n, js + g, nw, j->k, tmp,
                                     (char *)tmp + es * (size_t)j->k * ENV_W,
                                     res + a * ENV_W * ENV_NDOT, sq + a * ENV_W);
                    }
                for (int w = 0; w < nw; w++) {
                    if (lanes)
                        for (int a = 0; a < j->na; a++) {
                            eo.lanes[a] = res + (a * ENV_W + w) * ENV_NDOT;
                            eo.lanes_sq[a] = sq + a * ENV_W + w;
                        }
                    judge_element(j, ats[g + w], &eo, tmp);
                }
            }
        }
        free(tmp);
        free(res);
    }
    return !lost;
}

/* The sums over elements in index order (the same on any number of threads) into env: the
   count, the worst element, the lean, each arithmetic's share, the match. */
static void job_summarise(const env_job *j)
{
    gv_envelope *env = j->env;
    const gv_tensor *out = &j->p->out[0];
    const int na = j->na;
    int64_t cnt = 0, outside = 0, cnt_in[GV_ENV_MAX_ARITH] = {0}, cnt_as[GV_ENV_MAX_ARITH] = {0};
    bool agrees[GV_ENV_MAX_ARITH];
    for (int a = 0; a < na; a++)
        agrees[a] = true;
    double se = 0.0, se_sr = 0.0, se2 = 0.0, sum_ex[GV_ENV_MAX_ARITH] = {0};
    env->d_max = 0.0;
    env->worst = -1;
    env->off_format = 0;
    env->first_off_format = -1;
    env->out_format = j->ofmt ? j->ofmt->name : NULL;
    for (int64_t at = 0; at < j->n_el; at++) {
        if (isnan(j->d[at])) continue;
        cnt++;
        if (j->off_fmt[at] && env->off_format++ == 0) env->first_off_format = at;
        for (int a = 0; a < na; a++) {
            if (j->within[at] >> a & 1u) cnt_in[a]++;
            sum_ex[a] += j->ex[a * j->n_el + at];
            if (a > 0 && !(j->agree[at] >> a & 1u)) agrees[a] = false;
            if (j->exact_as[at] >> a & 1u) cnt_as[a]++;
        }
        if (j->d[at] > GV_ENV_BOUND) outside++;
        if (env->worst < 0 || j->d[at] > env->d_max) env->worst = at, env->d_max = j->d[at];
        double s = out->ref[at] < 0 ? -1.0 : 1.0;
        se += j->e[at];
        se_sr += s * j->e[at];
        se2 += j->e[at] * j->e[at];
    }
    env->n = cnt;
    env->outside = outside;
    env->bias_n = cnt;
    env->z = se2 > 0 ? se / sqrt(se2) : 0.0;
    env->z_sr = se2 > 0 ? se_sr / sqrt(se2) : 0.0;
    char on[48];
    if (j->ops[0].model) {
        snprintf(env->claimed, sizeof env->claimed, "%s (sm_%d's model%s%s)", j->ar[0]->name, j->sm,
                 j->declared ? ", f32 in " : "",
                 j->declared ? gv_env_order_name(&env->used, on, sizeof on) : "");
    } else if (j->declared) {
        snprintf(env->claimed, sizeof env->claimed, "%s in %s order", j->f32 ? "f32" : "f64",
                 gv_env_order_name(&env->used, on, sizeof on));
    } else {
        snprintf(env->claimed, sizeof env->claimed, "%s", j->ar[0]->name);
    }
    env->n_arith = na;
    env->best = 0;
    for (int a = 0; a < na; a++) {
        env->arith[a].name = j->ar[a]->name;
        env->arith[a].key = j->ar[a]->key;
        env->arith[a].extra = j->ar[a]->extra;
        env->arith[a].share = cnt ? (double)cnt_in[a] / (double)cnt : 0.0;
        env->arith[a].agrees = a > 0 && cnt > 0 && agrees[a];
        env->arith[a].mean_excess = cnt ? sum_ex[a] / (double)cnt : 0.0;
        env->arith[a].exact_as = cnt_as[a];
    }
    /* The match: the claimed arithmetic wherever it holds every element (an impostor whose
       own orders spread wide, as rounding toward zero's do from a pairwise tree's small drift
       to a chain's large one, may hold them too: that is no reason to name it); else the
       largest share, then the smaller mean excess. */
    env->best_any = 0;
    for (int a = 1; a < na; a++) {
        const double sa = env->arith[a].share, sb = env->arith[env->best_any].share;
        if (sa > sb ||
            (sa == sb && env->arith[a].mean_excess < env->arith[env->best_any].mean_excess))
            env->best_any = a;
    }
    /* an impostor that holds no element is no match either: the row then names the claimed
       arithmetic as the nearest */
    if (env->arith[env->best_any].share <= 0.0) env->best_any = 0;
    env->best = env->arith[0].share < 1.0 ? env->best_any : 0;
    if (env->worst >= 0) {
        int64_t at = env->worst;
        env->worst_i = j->product ? at / j->n : 0;
        env->worst_j = j->product ? at % j->n : at;
        env->worst_value = gv_dtype_load(j->c->dtype, out->data, at);
        env->nearest = j->near[at];
    }
}

/* The signature of each direction from the elements' e and D, in index order (the same on any
   number of threads): e and D scaled by one power of two (beta, z and r2 do not change) so
   that their squares neither underflow nor overflow; then the significant direction that
   explains the most of e (largest r2) names the arithmetic. An impostor of a narrower format
   is significant in its own direction and in the wider ones its rounding contains (bf16's
   error holds most of TF32's: beta near 1 there too), but explains e fully only in its own. */
static void sig_summarise(const env_job *j)
{
    gv_envelope *env = j->env;
    env->n_sig = j->ns;
    env->sig_best = -1;
    for (int s = 0; s < j->ns; s++) {
        const double *dd = j->sig_d + s * j->n_el;
        double top = 0.0;
        for (int64_t at = 0; at < j->n_el; at++)
            if (isfinite(j->sig_e[at]) && isfinite(dd[at]))
                top = fmax(top, fmax(fabs(j->sig_e[at]), fabs(dd[at])));
        int ex = 0;
        if (top > 0.0) frexp(top, &ex);
        double sed = 0.0, sdd = 0.0, see = 0.0, sed2 = 0.0, sss = 0.0;
        int64_t n = 0;
        for (int64_t at = 0; at < j->n_el; at++) {
            if (!isfinite(j->sig_e[at]) || !isfinite(dd[at])) continue;
            const double e = ldexp(j->sig_e[at], -ex), d = ldexp(dd[at], -ex);
            const double sg = isfinite(j->sig_s[at]) ? ldexp(j->sig_s[at], -ex) : 0.0;
            n += d != 0.0;
            sed += e * d, sdd += d * d, see += e * e, sed2 += (e * d) * (e * d), sss += sg * sg;
        }
        const gv_env_arith *x = j->sig[s];
        env->sig[s].name = x->name, env->sig[s].key = x->key;
        env->sig[s].extra_beta = x->sig_beta, env->sig[s].extra_z = x->sig_z;
        env->sig[s].arith = -1;
        for (int a = 1; a < j->na; a++)
            if (j->ar[a] == x) env->sig[s].arith = a;
        env->sig[s].n = n;
        env->sig[s].beta = sdd > 0.0 ? sed / sdd : 0.0;
        env->sig[s].z = sed2 > 0.0 ? sed / sqrt(sed2) : 0.0;
        env->sig[s].r2 = sdd > 0.0 && see > 0.0 ? sed * sed / (sdd * see) : 0.0;
        env->sig[s].d_sigma = sss > 0.0 ? sqrt(sdd / sss) : INFINITY;
        env->sig[s].significant = n >= GV_ENV_SIG_MIN_N && sdd > 0.0 &&
                                  env->sig[s].d_sigma >= GV_ENV_SIG_D_SIGMA &&
                                  env->sig[s].z > GV_ENV_SIG_Z &&
                                  fabs(env->sig[s].beta - 1.0) < GV_ENV_SIG_BETA &&
                                  env->sig[s].r2 >= GV_ENV_SIG_R2;
        if (env->sig[s].significant &&
            (env->sig_best < 0 || env->sig[s].r2 > env->sig[env->sig_best].r2))
            env->sig_best = s;
    }
    /* the signature names the match where it is significant (a FAIL outside the envelope
       names what carries the rounding, not the arithmetic whose wide orders hold the most) */
    if (env->sig_best >= 0 && env->sig[env->sig_best].arith > 0)
        env->best = env->best_any = env->sig[env->sig_best].arith;
}

/* The signature in words into buf: "consistent with tf32 operands: the outputs carry its
   operands' rounding (beta 0.97, z 41, r2 0.99 over 1024 elements)" (s the direction) */
static void sig_words(const gv_envelope *env, int s, char *buf, size_t len)
{
    snprintf(buf, len,
             "consistent with %s: the outputs carry its operands' rounding (beta %.3g, z %.3g, "
             "r2 %.2f over %lld elements)",
             env->sig[s].name, env->sig[s].beta, env->sig[s].z, env->sig[s].r2,
             (long long)env->sig[s].n);
}

/* The row's note: how much lies inside, what it matches, what cannot be told apart. */
static void job_note(const env_job *j)
{
    gv_envelope *env = j->env;
    int len =
        snprintf(env->note, sizeof env->note, "envelope of %s: %.4g %% inside, max %.3g widths",
                 env->claimed, 100.0 * env->arith[0].share, env->d_max);
    if (env->sampled_of && len > 0 && (size_t)len < sizeof env->note)
        len += snprintf(env->note + len, sizeof env->note - (size_t)len,
                        " (a sample of %lld of %lld elements)", (long long)env->n,
                        (long long)env->sampled_of);
    if (env->sig_best >= 0 && len > 0 && (size_t)len < sizeof env->note) {
        char sw[160];
        sig_words(env, env->sig_best, sw, sizeof sw);
        len += snprintf(env->note + len, sizeof env->note - (size_t)len, "; %s", sw);
    } else if (env->best != 0 && len > 0 && (size_t)len < sizeof env->note) {
        len += snprintf(env->note + len, sizeof env->note - (size_t)len,
                        "; consistent with %s on %.4g %%", env->arith[env->best].name,
                        100.0 * env->arith[env->best].share);
    }
    /* a direction with no element to show it: the inputs are exact in that format (or
       nearly), and its rounding leaves no signature */
    for (int s = 0; s < env->n_sig; s++) {
        const bool weak = env->sig[s].n < GV_ENV_SIG_MIN_N ||
                          !(env->sig[s].d_sigma >= GV_ENV_SIG_D_SIGMA);
        if (!(weak && len > 0 && (size_t)len < sizeof env->note))
            continue;
        if (env->sig[s].n >= GV_ENV_SIG_MIN_N) /* D is there, but beneath the noise */
            len += snprintf(env->note + len, sizeof env->note - (size_t)len,
                            "; %s change the results by %.2g times a chain's own rounding "
                            "error: too little for a rounding signature",
                            env->sig[s].name, env->sig[s].d_sigma);
        else if (env->sig[s].n == 0)
            len += snprintf(env->note + len, sizeof env->note - (size_t)len,
                            "; %s leave no rounding signature: the inputs are exact in that "
                            "format",
                            env->sig[s].name);
        else
            len += snprintf(env->note + len, sizeof env->note - (size_t)len,
                            "; %s leave a rounding signature on %lld elements only (it needs %d)",
                            env->sig[s].name, (long long)env->sig[s].n, GV_ENV_SIG_MIN_N);
    }
    if (j->c->mode == GV_MODE_FP8ROW && len > 0 && (size_t)len < sizeof env->note)
        len += snprintf(env->note + len, sizeof env->note - (size_t)len,
                        "; lean not judged (the rowwise epilogue is not replayed bit for bit)");
    if (!j->declared && !j->product && j->n_el == 1 && len > 0 && (size_t)len < sizeof env->note)
        len += snprintf(env->note + len, sizeof env->note - (size_t)len,
                        "; one sum in any order cannot show a tree rounding toward zero "
                        "(--order judges it)");
    for (int a = 1; a < j->na; a++) {
        if (!(len > 0 && (size_t)len < sizeof env->note)) break;
        if (env->arith[a].agrees)
            len += snprintf(env->note + len, sizeof env->note - (size_t)len,
                            "; %s and %s agree exactly on these inputs", env->arith[a].key,
                            env->arith[0].key);
        else if (env->arith[a].share >= 1.0 && env->arith[0].share >= 1.0)
            /* not the same bits, but every output lies within both envelopes: on this data
               the widths cover the difference, and these outputs cannot show which ran */
            len += snprintf(env->note + len, sizeof env->note - (size_t)len,
                            "; every output is within %s's envelope too: these outputs do not "
                            "tell it from %s",
                            env->arith[a].key, env->arith[0].key);
    }
}

void gv_envelope_judge(const gv_problem *p, gv_result *r)
{
    gv_envelope *env = &r->env;
    double t0 = now_ms();
    env_job j = {.p = p, .c = &p->c, .env = env};
    j.f32 = j.c->dtype == GV_F32;
    j.product = j.c->op->envelope == GV_ENV_PRODUCT;
    j.declared = env->used.kind != GV_ORDER_ANY;
    j.bits = j.f32 ? 24 : 53, j.emin = j.f32 ? -126 : -1022;
    j.sm = env->arch > 0 ? env->arch : GV_ENV_TC_ARCH_DEFAULT;
    if (!job_shape(&j)) {
        snprintf(env->why_not, sizeof env->why_not, "the tensors do not have the op's shape");
        return;
    }
    job_ariths(&j);
    bool ok = job_operands(&j);
    const size_t n_el = (size_t)j.n_el;
    j.d = malloc(sizeof(double) * n_el), j.e = malloc(sizeof(double) * n_el);
    j.near = malloc(sizeof(double) * n_el);
    /* each arithmetic's excess beyond its own [lo, hi], in its widths: the tie-break of the
       match when two hold the same share (an output inside both within the slack); 0 for an
       arithmetic an element's judgement stopped before (an order overflowed) */
    j.ex = calloc(n_el * (size_t)j.na, sizeof(double));
    j.within = malloc(n_el), j.agree = malloc(n_el), j.off_fmt = calloc(n_el, 1);
    j.exact_as = malloc(n_el);
    j.sig_e = malloc(sizeof(double) * n_el), j.sig_s = malloc(sizeof(double) * n_el);
    j.sig_d = malloc(sizeof(double) * n_el * (size_t)(j.ns > 0 ? j.ns : 1));
    ok = ok && j.d && j.e && j.near && j.ex && j.within && j.agree && j.off_fmt && j.exact_as &&
         j.sig_e && j.sig_d && j.sig_s;
    /* a narrower output format (f16acc's binary16): every output must be one of its values */
    j.ofmt = j.ops[0].model && j.ops[0].model->out.sig_bits < 24 ? &j.ops[0].model->out : NULL;
    /* The budget: at most GV_ENV_BUDGET terms (output elements times k) are emulated, the
       elements past it a fixed pseudo-random sample of the output (the same on every run
       and thread count), so that a 4096^3 product costs what a 256x4096x256 one does. An
       impostor moves nearly every element; the sample sees it as the whole would. */
    j.keep = UINT64_MAX; /* an element is judged where its hash is at most keep */
    if ((double)j.n_el * (double)j.k > GV_ENV_BUDGET) {
        double share = GV_ENV_BUDGET / ((double)j.n_el * (double)j.k);
        j.keep = (uint64_t)(share * 18446744073709551615.0);
    }
    env->sampled_of = j.keep == UINT64_MAX ? 0 : j.n_el;
    if (ok && judge_elements(&j)) {
        job_summarise(&j);
        sig_summarise(&j);
        env->judged = env->n > 0;
        if (!env->judged) snprintf(env->why_not, sizeof env->why_not, "no finite output to judge");
    } else {
        snprintf(env->why_not, sizeof env->why_not, "too little host memory for the envelope");
    }
    job_free(&j);
    env->ms = now_ms() - t0;
    if (env->judged) job_note(&j);
}

bool gv_envelope_fails(const gv_result *r, char *why, size_t len)
{
    const gv_envelope *env = &r->env;
    if (!env->judged) return false;
    char match[200] = "";
    if (env->sig_best >= 0) {
        match[0] = ';', match[1] = ' ';
        sig_words(env, env->sig_best, match + 2, sizeof match - 2);
    } else if (env->best != 0)
        snprintf(match, sizeof match, "; consistent with %s on %.4g %% of elements",
                 env->arith[env->best].name, 100.0 * env->arith[env->best].share);
    else
        snprintf(match, sizeof match, "; nearest to %s (%.4g %% inside)", env->claimed,
                 100.0 * env->arith[0].share);
    if (env->off_format > 0) {
        snprintf(why, len,
                 "%lld of %lld outputs are no %s values (first at flat index %lld): %s return "
                 "%s results%s",
                 (long long)env->off_format, (long long)env->n, env->out_format,
                 (long long)env->first_off_format, env->claimed, env->out_format, match);
        return true;
    }
    if (!(env->d_max <= GV_ENV_BOUND)) {
        snprintf(why, len,
                 "outside the envelope of %s at element (%lld, %lld): distance %.3g widths, "
                 "nearest legal value %.9g (output %.9g; %lld elements outside)%s",
                 env->claimed, (long long)env->worst_i, (long long)env->worst_j, env->d_max,
                 env->nearest, env->worst_value, (long long)env->outside, match);
        return true;
    }
    /* One order replayed bit for bit (declared, or gpuval's own kernel's): where every output
       is exactly an impostor's result and none is a legal value of the claimed arithmetic,
       the outputs name what computed them, however close (a reduce.sum tree rounding toward
       zero lies 1 or 2 widths out on zero-mean and tiny f64 data, inside the bound). A
       correct kernel of that order gives the claimed replay's bits, never the impostor's
       where the two differ. */
    for (int a = 1; env->used.kind != GV_ORDER_ANY && a < env->n_arith; a++)
        if (env->n > 0 && env->arith[a].exact_as == env->n) {
            snprintf(why, len,
                     "the outputs are %s's results bit for bit (%lld of %lld elements), none a "
                     "legal value of %s (nearest %.17g, output %.17g)",
                     env->arith[a].name, (long long)env->arith[a].exact_as, (long long)env->n,
                     env->claimed, env->nearest, env->worst_value);
            return true;
        }
    /* The operand-rounding signature: the outputs' errors carry the deterministic rounding
       of a narrower operand format (beta near 1, z far past chance), however narrow the
       per-element distances; a correct kernel's errors are order noise uncorrelated with it */
    if (env->sig_best >= 0) {
        snprintf(why, len, "operand rounding: %s; the errors of %s are uncorrelated with it",
                 match + 2, env->claimed);
        return true;
    }
    if (env->best_any != 0) /* a lean names what the outputs are nearest to, claimed or not */
        snprintf(match, sizeof match, "; consistent with %s on %.4g %% of elements",
                 env->arith[env->best_any].name, 100.0 * env->arith[env->best_any].share);
    /* fp8row's lean is not judged: its epilogue (the row's and column's descales) is not
       replayed bit for bit, and cuBLASLt's own correct rowwise outputs, every one inside the
       envelope at 0 widths, leaned toward zero of it on an H200 (tools/fp8row_outputs.py,
       uniform and row-scaled families); the impostors it tells apart lie far outside */
    const bool lean_modelled = r->c.mode != GV_MODE_FP8ROW;
    if (!env->lean_unjudged && lean_modelled && env->bias_n >= GV_BIAS_MIN_N &&
        (fabs(env->z) > GV_BIAS_Z_BOUND || fabs(env->z_sr) > GV_BIAS_Z_BOUND)) {
        bool by_sr = !(fabs(env->z) > fabs(env->z_sr));
        double z = by_sr ? env->z_sr : env->z;
        const char *way =
            by_sr ? (z < 0 ? "toward zero" : "away from zero") : (z < 0 ? "downward" : "upward");
        snprintf(why, len,
                 "bias: outputs lean %s of the envelope of %s (z = %+.1f over %lld outputs)%s", way,
                 env->claimed, z, (long long)env->bias_n, match);
        return true;
    }
    return false;
}
