/* envelope.c: the envelope of the claimed arithmetic on the user's own data (envelope.h): the
 * legal results of every output element computed on the CPU, bit for bit, in the claimed
 * precision and in its impostors', and the distance of the output to them. Not part of the
 * oracle cache's version: it decides verdicts, never references. */
#include "core/envelope.h"
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

/* The arithmetics an envelope models. Operand rounding (bits > 0) rounds each input to that
   many significant bits, to nearest even, before the claimed precision's orders run; rz runs
   them rounding toward zero. A tensor-core arithmetic (tc, a mode with a block-FMA model:
   envelope_tc.h) rounds the operands into the model's input format and runs the model's block
   orders, and where f32_orders also the f32 orders over the same operands (a TF32 product
   on CUDA cores, or on an architecture whose block is another: the same operands, each
   order legal); its results are rounded to acc_bits (0: the dtype's) with normals from
   2^acc_emin. */
typedef struct arith {
    const char *name, *key, *extra; /* "tf32 operands", "tf32", "envelope_match_tf32" */
    int bits;                       /* operands rounded to this many bits; 0: as given */
    bool rz;                        /* every operation rounds toward zero */
    gv_mode tc;                     /* the tensor-core mode modelled; GV_MODE_NATIVE: none */
    bool f32_orders;
    int acc_bits, acc_emin;
} arith;

static const arith A_F32 = {
    .name = "f32 in any order", .key = "f32", .extra = "envelope_match_f32"};
static const arith A_F64 = {
    .name = "f64 in any order", .key = "f64", .extra = "envelope_match_f64"};
static const arith A_TF32 = {
    .name = "tf32 operands", .key = "tf32", .extra = "envelope_match_tf32", .bits = 11};
static const arith A_BF16 = {
    .name = "bf16 operands", .key = "bf16", .extra = "envelope_match_bf16", .bits = 8};
static const arith A_OP40 = {
    .name = "40-bit operands", .key = "op40", .extra = "envelope_match_op40", .bits = 40};
static const arith A_RZ32 = {.name = "round-toward-zero accumulation",
                             .key = "rz",
                             .extra = "envelope_match_rz",
                             .rz = true};
static const arith A_RZ64 = {.name = "round-toward-zero accumulation",
                             .key = "rz",
                             .extra = "envelope_match_rz",
                             .rz = true};
static const arith A_TC_TF32 = {.name = "tf32 tensor cores",
                                .key = "tf32",
                                .extra = "envelope_match_tf32",
                                .tc = GV_MODE_TF32,
                                .f32_orders = true};
static const arith A_TC_BF16 = {.name = "bf16 tensor cores",
                                .key = "bf16",
                                .extra = "envelope_match_bf16",
                                .tc = GV_MODE_BF16,
                                .f32_orders = true};
static const arith A_TC_F16 = {.name = "f16 tensor cores",
                               .key = "f16",
                               .extra = "envelope_match_f16",
                               .tc = GV_MODE_F16,
                               .f32_orders = true};
static const arith A_TC_F16ACC = {.name = "f16 tensor cores with f16 accumulation",
                                  .key = "f16acc",
                                  .extra = "envelope_match_f16acc",
                                  .tc = GV_MODE_F16ACC,
                                  .acc_bits = 11,
                                  .acc_emin = -14};

/* A tensor-core mode's arithmetics: the claimed one first, then the impostors told apart from
   it (another operand format behind the label; plain f32, the mode not in effect). An
   impostor whose model the architecture lacks is left out. */
static int tc_ariths(gv_mode mode, int sm, const arith **ar)
{
    const arith *list[3] = {NULL, NULL, &A_F32};
    switch (mode) {
    case GV_MODE_TF32: list[0] = &A_TC_TF32, list[1] = &A_TC_BF16; break;
    case GV_MODE_BF16: list[0] = &A_TC_BF16, list[1] = &A_TC_TF32; break;
    case GV_MODE_F16: list[0] = &A_TC_F16, list[1] = &A_TC_BF16; break;
    case GV_MODE_F16ACC: list[0] = &A_TC_F16ACC, list[1] = &A_TC_F16; break;
    default: return 0;
    }
    int na = 0;
    char why[96];
    for (int i = 0; i < 3; i++)
        if (i == 2 || gv_env_tc_model(list[i]->tc, sm, why, sizeof why)) ar[na++] = list[i];
    return na;
}

int gv_env_order_parse(const char *s, gv_env_order *o, char *why, size_t len)
{
    *o = (gv_env_order){GV_ORDER_ANY, 0, false};
    if (!s || !s[0] || strcmp(s, "any") == 0) return GV_OK;
    if (strcmp(s, "k") == 0)
        o->kind = GV_ORDER_K;
    else if (strcmp(s, "pairwise") == 0)
        o->kind = GV_ORDER_PAIRWISE;
    else if (strcmp(s, "tree") == 0)
        o->kind = GV_ORDER_TREE;
    else if (strncmp(s, "blocked:", 8) == 0) {
        char *end = NULL;
        long long b = strtoll(s + 8, &end, 10);
        if (!(end && end != s + 8 && *end == '\0' && b >= 1 && b <= ((int64_t)1 << 40))) {
            snprintf(why, len, "order '%.40s': blocked:B takes a block size B >= 1 (blocked:32)",
                     s);
            return GV_EINVAL;
        }
        o->kind = GV_ORDER_BLOCKED;
        o->block = b;
    } else {
        snprintf(why, len,
                 "no order '%.40s': k, pairwise, blocked:B (B terms a block) or tree "
                 "(docs/cli.md, judge)",
                 s);
        return GV_EINVAL;
    }
    return GV_OK;
}

const char *gv_env_order_name(const gv_env_order *o, char *buf, size_t len)
{
    switch (o->kind) {
    case GV_ORDER_K: snprintf(buf, len, "k"); break;
    case GV_ORDER_PAIRWISE: snprintf(buf, len, "pairwise"); break;
    case GV_ORDER_BLOCKED: snprintf(buf, len, "blocked:%lld", (long long)o->block); break;
    case GV_ORDER_TREE: snprintf(buf, len, o->kernel ? "its kernel's tree" : "tree"); break;
    case GV_ORDER_TREE_ONEPASS: snprintf(buf, len, "its kernel's one-pass tree"); break;
    default: snprintf(buf, len, "any"); break;
    }
    return buf;
}

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

/* x rounded to p significant bits, to nearest with ties to even (p >= the dtype's: x). */
static double round_bits(double x, int p)
{
    if (x == 0.0 || !isfinite(x)) return x;
    int e;
    frexp(x, &e);
    return ldexp(nearbyint(ldexp(x, p - e)), e - p);
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
    bool a_borrowed; /* a is the tensor's own f64 values (not a copy): not freed */
    const gv_bfma_model *model; /* a tensor-core arithmetic's; NULL: none */
    gv_env_tc_operand ta, tbt;  /* its operands (a and bt are their f32 values) */
} operands;

static void *operand_copy(const double *src, int64_t rows, int64_t cols, bool transpose, int bits,
                          bool f32)
{
    size_t es = f32 ? sizeof(float) : sizeof(double);
    void *dst = malloc(es * (size_t)(rows * cols));
    if (!dst) return NULL;
#pragma omp parallel for schedule(static) if (rows * cols >= GV_PAR_MIN)
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            double v = src[i * cols + j];
            if (bits) v = round_bits(v, bits);
            int64_t at = transpose ? j * rows + i : i * cols + j;
            if (f32)
                ((float *)dst)[at] = (float)v;
            else
                ((double *)dst)[at] = v;
        }
    return dst;
}

/* The legal orders of element `at` in one arithmetic: res[0..*nres), every modelled order
   (o ANY) or the one o names. Under rz, the element's every operation rounds toward zero (the
   thread's own rounding mode, restored after). */
static void orders_of(const operands *o, bool f32, bool product, bool rz, const gv_env_order *ord,
                      int64_t at, int64_t n, int64_t k, void *tmp, double *res, int *nres,
                      double *sq)
{
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
            if (any)
                dot_f32(x, y, k, tmp, res, sq);
            else
                dot_order_f32(x, y, k, ord, tmp, res, nres);
        } else {
            const double *x = (const double *)o->a + i * k, *y = (const double *)o->bt + j * k;
            if (any)
                dot_f64(x, y, k, tmp, res, sq);
            else
                dot_order_f64(x, y, k, ord, tmp, res, nres);
        }
        if (any) *nres = ENV_NDOT;
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

/* The legal results of product element `at` in a tensor-core arithmetic: the model's block
   orders (envelope_tc.h), then where f32_orders the f32 orders over the same converted
   operands (orders_of: every modelled order, or the declared one). *sq is theirs either way
   (the width's floor); res NaN where an operand is not finite after the conversion (an f16
   overflow: the placement rules judge the element). */
static void tc_orders_of(const operands *o, bool f32_orders, const gv_env_order *ord, int64_t at,
                         int64_t n, int64_t k, void *tmp, double *res, int *nres, double *sq)
{
    int64_t i = at / n, j = at % n;
    if (!o->ta.finite[i] || !o->tbt.finite[j]) {
        res[0] = NAN;
        *nres = 1;
        *sq = 0.0;
        return;
    }
    gv_env_tc_dot(o->model, o->ta.s + i * k, o->tbt.s + j * k, k, res);
    /* the exact result on the converted operands (to f64's rounding): the mode's own "exact
       output", where the native envelope takes the f64 reference on the operands as given,
       which a mode in effect need not come near */
    const float *x = (const float *)o->a + i * k, *y = (const float *)o->bt + j * k;
    double exact = 0.0;
    for (int64_t l = 0; l < k; l++)
        exact = fma((double)x[l], (double)y[l], exact);
    res[GV_ENV_TC_NORD] = exact;
    int more = 0;
    double scratch[ENV_NDOT];
    orders_of(o, true, true, false, ord, at, n, k, tmp,
              f32_orders ? res + GV_ENV_TC_NORD + 1 : scratch, &more, sq);
    *nres = GV_ENV_TC_NORD + 1 + (f32_orders ? more : 0);
}

/* The distance of c to the envelope [lo, hi] of width w, in widths: 0 within a width of it. */
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

static double distance(double c, double lo, double hi, double w)
{
    if (c < lo - w) return (lo - w - c) / w;
    if (c > hi + w) return (c - hi - w) / w;
    return 0.0;
}

void gv_envelope_judge(const gv_problem *p, gv_result *r)
{
    gv_envelope *env = &r->env;
    double t0 = now_ms();
    const gv_case *c = &p->c;
    bool f32 = c->dtype == GV_F32, product = c->op->envelope == GV_ENV_PRODUCT;
    const bool declared = env->used.kind != GV_ORDER_ANY;
    int bits = f32 ? 24 : 53, emin = f32 ? -126 : -1022;
    const gv_tensor *out = &p->out[0];
    int64_t n_el = out->count, m, k, n;
    if (product) {
        assert(c->shape.nd == 3);
        m = c->shape.d[0], k = c->shape.d[1], n = c->shape.d[2];
    } else {
        n = out->count, m = 1, k = n > 0 ? p->in[0].count / n : 0;
    }
    if (n_el <= 0 || k <= 0 ||
        (product ? m * n != n_el || p->in[0].count != m * k || p->in[1].count != k * n
                 : k * n != p->in[0].count)) {
        snprintf(env->why_not, sizeof env->why_not, "the tensors do not have the op's shape");
        return;
    }
    /* the arithmetics: the claimed one, then the impostors it is told apart from */
    const arith *ar[GV_ENV_MAX_ARITH];
    int na = 0;
    const int sm = env->arch > 0 ? env->arch : GV_ENV_TC_ARCH_DEFAULT;
    if (c->mode != GV_MODE_NATIVE) {
        /* a tensor-core mode (gv_envelope_applies let only those with a model through) */
        assert(product && f32);
        na = tc_ariths(c->mode, sm, ar);
    } else {
        ar[na++] = f32 ? &A_F32 : &A_F64;
        if (product && f32) ar[na++] = &A_TF32, ar[na++] = &A_BF16;
        if (product && !f32) ar[na++] = &A_OP40;
        ar[na++] = f32 ? &A_RZ32 : &A_RZ64;
    }
    assert(na >= 1 && na <= GV_ENV_MAX_ARITH);

    /* operands per arithmetic (those with the claimed operands share its copy) */
    operands ops[GV_ENV_MAX_ARITH] = {{0}};
    bool ok = true;
    for (int a = 0; a < na; a++) {
        if (ar[a]->tc != GV_MODE_NATIVE) {
            char why[96];
            ops[a].model = gv_env_tc_model(ar[a]->tc, sm, why, sizeof why);
            assert(ops[a].model && product && f32);
            ok = ok &&
                 gv_env_tc_operand_make(ops[a].model, p->in[0].ref, m, k, false, &ops[a].ta) ==
                     GV_OK &&
                 gv_env_tc_operand_make(ops[a].model, p->in[1].ref, k, n, true, &ops[a].tbt) ==
                     GV_OK;
            ops[a].a = ops[a].ta.v, ops[a].bt = ops[a].tbt.v;
            continue;
        }
        if (a > 0 && ar[a]->bits == 0 && ar[0]->tc == GV_MODE_NATIVE) {
            ops[a] = ops[0];
            continue;
        }
        if (product) {
            ops[a].a = operand_copy(p->in[0].ref, m, k, false, ar[a]->bits, f32);
            ops[a].bt = operand_copy(p->in[1].ref, k, n, true, ar[a]->bits, f32);
        } else if (!f32 && ar[a]->bits == 0 && n == 1) {
            /* one f64 sum taken as given: its transposed copy would be the tensor itself
               (10^8 terms: 800 MB of fresh pages), so the orders read the tensor */
            ops[a].a = (void *)p->in[0].ref;
            ops[a].a_borrowed = true;
            ops[a].bt = NULL;
        } else {
            ops[a].a = operand_copy(p->in[0].ref, k, n, true, ar[a]->bits, f32);
            ops[a].bt = NULL;
        }
        ok = ok && ops[a].a && (!product || ops[a].bt);
    }
    double *d = malloc(sizeof(double) * (size_t)n_el), *e = malloc(sizeof(double) * (size_t)n_el),
           *near = malloc(sizeof(double) * (size_t)n_el);
    /* each arithmetic's excess beyond its own [lo, hi], in its widths: the tie-break of the
       match when two hold the same share (an output inside both within the slack) */
    double *ex = malloc(sizeof(double) * (size_t)(n_el * na));
    unsigned char *within = malloc((size_t)n_el), *agree = malloc((size_t)n_el),
                  *off_fmt = calloc((size_t)n_el, 1);
    ok = ok && d && e && near && ex && within && agree && off_fmt;
    /* a narrower output format (f16acc's binary16): every output must be one of its values */
    const gv_bfma_format *ofmt =
        ops[0].model && ops[0].model->out.sig_bits < 24 ? &ops[0].model->out : NULL;
    bool lost = false; /* a thread without its scratch: the envelope is not judged */
    /* The budget: at most GV_ENV_BUDGET terms (output elements times k) are emulated, the
       elements past it a fixed pseudo-random sample of the output (the same on every run
       and thread count), so that a 4096^3 product costs what a 256x4096x256 one does. An
       impostor moves nearly every element; the sample sees it as the whole would. */
    uint64_t keep = UINT64_MAX; /* an element is judged where its hash is at most keep */
    if ((double)n_el * (double)k > GV_ENV_BUDGET) {
        double share = GV_ENV_BUDGET / ((double)n_el * (double)k);
        keep = (uint64_t)(share * 18446744073709551615.0);
    }
    env->sampled_of = keep == UINT64_MAX ? 0 : n_el;
    if (ok) {
        size_t es = f32 ? sizeof(float) : sizeof(double);
        /* one element (a whole-vector sum of 1e8 terms): its orders spread their own work over
           the cores (block_tree), which they cannot inside an active region */
#pragma omp parallel if (n_el > 1)
        {
            void *tmp = NULL; /* taken by a thread that gets an element (a long sum has one) */
#pragma omp for schedule(dynamic, 16)
            for (int64_t at = 0; at < n_el; at++) {
                d[at] = e[at] = NAN; /* NaN: not judged here (the placement rules judge it) */
                near[at] = NAN;
                within[at] = agree[at] = 0;
                if (!sampled(at, keep)) continue;
                if (!tmp) tmp = malloc(es * (size_t)k);
                double res[GV_ENV_TC_NORD + 1 + ENV_NDOT], claimed_first = 0.0;
                int nres = 0;
                double cv = gv_dtype_load(c->dtype, out->data, at), ref = out->ref[at];
                if (!tmp) {
#pragma omp atomic write
                    lost = true;
                    continue;
                }
                if (!isfinite(cv) || !isfinite(ref)) continue;
                if (ofmt && !gv_bfma_in_format(ofmt, (float)cv)) off_fmt[at] = 1;
                for (int a = 0; a < na; a++) {
                    double sq = 0.0;
                    /* the arithmetic's precision: the claimed dtype's, or its own */
                    const int abits = ar[a]->acc_bits ? ar[a]->acc_bits : bits,
                              aemin = ar[a]->acc_bits ? ar[a]->acc_emin : emin;
                    const double aunit = ldexp(1.0, -abits);
                    if (ops[a].model) {
                        tc_orders_of(&ops[a], ar[a]->f32_orders, &env->used, at, n, k, tmp, res,
                                     &nres, &sq);
                    } else {
                        orders_of(&ops[a], f32, product, ar[a]->rz, &env->used, at, n, k, tmp, res,
                                  &nres, &sq);
                    }
                    double lo = res[0], hi = res[0];
                    for (int q = 1; q < nres; q++) {
                        if (res[q] < lo) lo = res[q];
                        if (res[q] > hi) hi = res[q];
                    }
                    if (!isfinite(lo) || !isfinite(hi)) break; /* an order overflowed */
                    if (a > 0 && res[0] == claimed_first) agree[at] |= (unsigned char)(1u << a);
                    double w;
                    if (declared) {
                        /* one order: its results (the variants a kernel of it may take) are
                           the legal values, with an ulp's slack, and so is the exact result
                           (an exact output never FAILs); nothing between them */
                        w = hi - lo;
                        double u = ulp_in(0.5 * (lo + hi), abits, aemin);
                        if (!(w >= u)) w = u;
                        if (a == 0) {
                            claimed_first = res[0];
                            double wr = ulp_in(ref, abits, aemin);
                            if (!ops[0].model &&
                                distance(cv, ref, ref, wr) < distance(cv, lo, hi, w))
                                lo = hi = ref, w = wr;
                            near[at] = cv < lo ? lo : cv > hi ? hi : cv;
                        }
                    } else {
                        if (a == 0) {
                            /* the nearest legal result, before r widens the range */
                            near[at] = cv < lo ? lo : cv > hi ? hi : cv;
                            claimed_first = res[0];
                            /* the f64 reference is legal for native arithmetic; a
                               tensor-core mode's exact result is among its own (on the
                               converted operands) */
                            if (!ops[0].model && ref < lo) lo = ref;
                            if (!ops[0].model && ref > hi) hi = ref;
                        }
                        /* the width: the legal spread, at least one ulp of r (an output one
                           ulp off every modelled order is still legal) and at least
                           GV_ENV_SIGMAS standard deviations of one order's rounding error on
                           these inputs (a few orders' spread can be narrow by chance: they
                           share structure) */
                        w = hi - lo;
                        double u = ulp_in(a == 0 ? ref : 0.5 * (lo + hi), abits, aemin);
                        double sigma = aunit * sqrt(sq / 3.0);
                        if (!(w >= u)) w = u;
                        if (isfinite(sigma) && w < GV_ENV_SIGMAS * sigma) w = GV_ENV_SIGMAS * sigma;
                    }
                    double da = distance(cv, lo, hi, w);
                    ex[a * n_el + at] = cv > hi ? (cv - hi) / w : cv < lo ? (lo - cv) / w : 0.0;
                    if (da <= GV_ENV_BOUND) within[at] |= (unsigned char)(1u << a);
                    if (a == 0) {
                        d[at] = da;
                        e[at] = cv > hi ? (cv - hi) / w : cv < lo ? (cv - lo) / w : 0.0;
                    }
                }
            }
            free(tmp);
        }
        /* the sums over elements in index order: the same on any number of threads */
        int64_t cnt = 0, outside = 0, cnt_in[GV_ENV_MAX_ARITH] = {0};
        bool agrees[GV_ENV_MAX_ARITH];
        for (int a = 0; a < na; a++)
            agrees[a] = true;
        double se = 0.0, se_sr = 0.0, se2 = 0.0, sum_ex[GV_ENV_MAX_ARITH] = {0};
        env->d_max = 0.0;
        env->worst = -1;
        env->off_format = 0;
        env->first_off_format = -1;
        env->out_format = ofmt ? ofmt->name : NULL;
        for (int64_t at = 0; at < n_el; at++) {
            if (isnan(d[at])) continue;
            cnt++;
            if (off_fmt[at] && env->off_format++ == 0) env->first_off_format = at;
            for (int a = 0; a < na; a++) {
                if (within[at] >> a & 1u) cnt_in[a]++;
                sum_ex[a] += ex[a * n_el + at];
                if (a > 0 && !(agree[at] >> a & 1u)) agrees[a] = false;
            }
            if (d[at] > GV_ENV_BOUND) outside++;
            if (env->worst < 0 || d[at] > env->d_max) env->worst = at, env->d_max = d[at];
            double s = out->ref[at] < 0 ? -1.0 : 1.0;
            se += e[at];
            se_sr += s * e[at];
            se2 += e[at] * e[at];
        }
        env->n = cnt;
        env->outside = outside;
        env->bias_n = cnt;
        env->z = se2 > 0 ? se / sqrt(se2) : 0.0;
        env->z_sr = se2 > 0 ? se_sr / sqrt(se2) : 0.0;
        if (ops[0].model) {
            char on[48];
            snprintf(env->claimed, sizeof env->claimed, "%s (sm_%d's model%s%s)", ar[0]->name, sm,
                     declared ? ", f32 in " : "",
                     declared ? gv_env_order_name(&env->used, on, sizeof on) : "");
        } else if (declared) {
            char on[48];
            snprintf(env->claimed, sizeof env->claimed, "%s in %s order", f32 ? "f32" : "f64",
                     gv_env_order_name(&env->used, on, sizeof on));
        } else {
            snprintf(env->claimed, sizeof env->claimed, "%s", ar[0]->name);
        }
        env->n_arith = na;
        env->best = 0;
        for (int a = 0; a < na; a++) {
            env->arith[a].name = ar[a]->name;
            env->arith[a].key = ar[a]->key;
            env->arith[a].extra = ar[a]->extra;
            env->arith[a].share = cnt ? (double)cnt_in[a] / (double)cnt : 0.0;
            env->arith[a].agrees = a > 0 && cnt > 0 && agrees[a];
            env->arith[a].mean_excess = cnt ? sum_ex[a] / (double)cnt : 0.0;
        }
        /* The match: the claimed arithmetic wherever it holds every element (an impostor
           whose own orders spread wide, as rounding toward zero's do from a pairwise tree's
           small drift to a chain's large one, may hold them too: that is no reason to name
           it); else the largest share, then the smaller mean excess. */
        env->best_any = 0;
        for (int a = 1; a < na; a++) {
            const double sa = env->arith[a].share, sb = env->arith[env->best_any].share;
            if (sa > sb ||
                (sa == sb && env->arith[a].mean_excess < env->arith[env->best_any].mean_excess))
                env->best_any = a;
        }
        /* an impostor that holds no element is no match either: the row then names the
           claimed arithmetic as the nearest */
        if (env->arith[env->best_any].share <= 0.0) env->best_any = 0;
        env->best = env->arith[0].share < 1.0 ? env->best_any : 0;
        if (env->worst >= 0) {
            int64_t at = env->worst;
            env->worst_i = product ? at / n : 0;
            env->worst_j = product ? at % n : at;
            env->worst_value = gv_dtype_load(c->dtype, out->data, at);
            env->nearest = near[at];
        }
        env->judged = cnt > 0 && !lost;
        if (lost)
            snprintf(env->why_not, sizeof env->why_not, "too little host memory for the envelope");
        else if (!env->judged)
            snprintf(env->why_not, sizeof env->why_not, "no finite output to judge");
    } else {
        snprintf(env->why_not, sizeof env->why_not, "too little host memory for the envelope");
    }
    for (int a = 0; a < na; a++) {
        if (ops[a].model) {
            gv_env_tc_operand_free(&ops[a].ta);
            gv_env_tc_operand_free(&ops[a].tbt);
            continue;
        }
        if (a > 0 && ops[a].a == ops[0].a) continue;
        if (!ops[a].a_borrowed) free(ops[a].a);
        free(ops[a].bt);
    }
    free(d);
    free(e);
    free(near);
    free(ex);
    free(within);
    free(agree);
    free(off_fmt);
    env->ms = now_ms() - t0;
    if (!env->judged) return;

    /* the row's note: how much lies inside, what it matches, what cannot be told apart */
    int len =
        snprintf(env->note, sizeof env->note, "envelope of %s: %.4g %% inside, max %.3g widths",
                 env->claimed, 100.0 * env->arith[0].share, env->d_max);
    if (env->sampled_of && len > 0 && (size_t)len < sizeof env->note)
        len += snprintf(env->note + len, sizeof env->note - (size_t)len,
                        " (a sample of %lld of %lld elements)", (long long)env->n,
                        (long long)env->sampled_of);
    if (env->best != 0 && len > 0 && (size_t)len < sizeof env->note)
        len += snprintf(env->note + len, sizeof env->note - (size_t)len,
                        "; consistent with %s on %.4g %%", env->arith[env->best].name,
                        100.0 * env->arith[env->best].share);
    if (!declared && !product && n_el == 1 && len > 0 && (size_t)len < sizeof env->note)
        len += snprintf(env->note + len, sizeof env->note - (size_t)len,
                        "; one sum in any order cannot show a tree rounding toward zero "
                        "(--order judges it)");
    for (int a = 1; a < na; a++) {
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

bool gv_envelope_fails(const gv_result *r, char *why, size_t len)
{
    const gv_envelope *env = &r->env;
    if (!env->judged) return false;
    char match[120] = "";
    if (env->best != 0)
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
    if (env->best_any != 0) /* a lean names what the outputs are nearest to, claimed or not */
        snprintf(match, sizeof match, "; consistent with %s on %.4g %% of elements",
                 env->arith[env->best_any].name, 100.0 * env->arith[env->best_any].share);
    if (env->bias_n >= GV_BIAS_MIN_N &&
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
