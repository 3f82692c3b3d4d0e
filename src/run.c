/* run.c: one case of a correctness run, end to end: problem (inputs rounded to the storage
 * dtype), device memory check, oracle, device run, compare, verdict. */
#include "run.h"

#include <assert.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../oracle/go.h"
#include "cache.h"
#include "digest.h"
#include "gen.h"
#include "repeat.h"
#include "model_floor.h"

void gv_oracle_reason(int rc, const char *stage, char *why, size_t len)
{
    const char *msg = go_last_error();
    if (msg[0])
        snprintf(why, len, "%s: %s", stage, msg);
    else
        snprintf(why, len, "%s: %s (%s)", stage, gv_strerror(rc), gv_errname(rc));
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* The digest of what the device wrote, every output in order (gpuval merge compares it;
   model_floor.h's gv_output_hash, the one tradeoffs compares modes by): gv_judge has just
   computed it as out_hash, from the same outputs. */
static void hash_outputs(gv_result *r)
{
    r->output_hash = r->out_hash;
    r->have_hash = true;
}

/* The dtype copy, by chunks on all cores (each element converted on its own). */
static void store_dtype(const double *src, void *dst, int64_t n, gv_dtype t)
{
    enum { CHUNK = 1 << 16 };
    size_t es = gv_dtype_size(t);
#pragma omp parallel for schedule(static) if (n >= GV_PAR_MIN)
    for (int64_t i = 0; i < n; i += CHUNK)
        gv_dtype_store_n(t, (char *)dst + (size_t)i * es, src + i, n - i < CHUNK ? n - i : CHUNK);
}

/* Generated and stored in one pass: each chunk of f64 values is copied to the dtype while it
   is still in cache (the same values as gv_gen_fill then store_dtype). */
void gv_fill(gv_problem *p, int i, gv_dist dist)
{
    enum { CHUNK = 1 << 13 };
    gv_tensor *t = &p->in[i];
    gv_dtype dt = p->c.dtype;
    size_t es = gv_dtype_size(dt);
    int64_t n = t->count;
#pragma omp parallel for schedule(static) if (n >= GV_PAR_MIN)
    for (int64_t k = 0; k < n; k += CHUNK) {
        int64_t len = n - k < CHUNK ? n - k : CHUNK;
        gv_gen_fill_at(t->ref + k, k, len, dist, dt, p->c.seed, (uint64_t)i);
        gv_dtype_store_n(dt, (char *)t->data + (size_t)k * es, t->ref + k, len);
    }
}

void gv_store_rounded(gv_problem *p, int i)
{
    gv_tensor *t = &p->in[i];
#pragma omp parallel for schedule(static) if (t->count >= GV_PAR_MIN)
    for (int64_t k = 0; k < t->count; k++)
        t->ref[k] = gv_round_to(t->ref[k], p->c.dtype);
    store_dtype(t->ref, t->data, t->count, p->c.dtype);
}

/* Host buffers kept between the cases of one process. A case's tensors reach gigabytes, and
 * taking fresh pages from the kernel for every case (a page fault and a zeroed page each) cost
 * more than generating, the oracle and the judge: perf of one vadd f64 1e8 case put 40 % of its
 * host time in the kernel's clear_page. A freed buffer of 1 MiB or more is kept (at most
 * POOL_SLOTS of them and POOL_MAX_BYTES in all; the smallest goes first) and handed to the
 * next request of 1 MiB or more it fits, the smallest that fits. A case takes its buffers
 * largest first (gv_problem_init), so that a small tensor does not take the buffer a large one
 * of the same case needs; the unused tail of a larger buffer costs nothing, its pages are
 * there already. (Asking a buffer to waste at most half of itself, as before, made every new
 * size class of the catalogue take fresh pages: 7.5 GB over vadd's first eleven cases.) The
 * tensors are malloc'd, never
 * calloc'd: their contents are written before they are read, so a reused buffer needs no
 * clearing. One pool per thread; cases run on one thread. */
enum { POOL_SLOTS = 24 };
#define POOL_MIN_BYTES ((size_t)1 << 20)
#define POOL_MAX_BYTES ((size_t)16 << 30)
static _Thread_local struct {
    void *ptr[POOL_SLOTS];
    size_t bytes[POOL_SLOTS];
    size_t total;
} pool;

/* A fresh buffer. One of HUGE_MIN bytes or more starts on a 2 MiB boundary, so that where
   the kernel's transparent huge pages are "always" its first touch can take one fault per
   2 MiB rather than per 4 KiB page (many threads filling a fresh tensor queue on the
   page-table locks). It does not ask for them (MADV_HUGEPAGE): with the usual defrag
   setting such a fault waits for compaction when free memory is page cache, which made the
   first 1e8-element case seconds slower on a loaded machine. */
#define HUGE_MIN   ((size_t)8 << 20)
#define HUGE_ALIGN ((size_t)2 << 20)
static void *fresh(size_t bytes)
{
    if (bytes < HUGE_MIN) return malloc(bytes);
    void *ptr = NULL;
    return posix_memalign(&ptr, HUGE_ALIGN, bytes) == 0 ? ptr : NULL;
}

static void *pool_get(size_t bytes)
{
    if (bytes < POOL_MIN_BYTES) return malloc(bytes);
    int best = -1;
    for (int i = 0; i < POOL_SLOTS; i++)
        if (pool.ptr[i] && pool.bytes[i] >= bytes && (best < 0 || pool.bytes[i] < pool.bytes[best]))
            best = i;
    if (best < 0) return fresh(bytes);
    void *ptr = pool.ptr[best];
    pool.total -= pool.bytes[best];
    pool.ptr[best] = NULL;
    return ptr;
}

static void pool_put(void *ptr)
{
    if (!ptr) return;
    size_t bytes = malloc_usable_size(ptr);
    if (bytes < POOL_MIN_BYTES || bytes > POOL_MAX_BYTES) {
        free(ptr);
        return;
    }
    while (pool.total + bytes > POOL_MAX_BYTES) { /* make room: the smallest kept go first */
        int small = -1;
        for (int i = 0; i < POOL_SLOTS; i++)
            if (pool.ptr[i] && (small < 0 || pool.bytes[i] < pool.bytes[small])) small = i;
        free(pool.ptr[small]);
        pool.total -= pool.bytes[small];
        pool.ptr[small] = NULL;
    }
    int slot = -1;
    for (int i = 0; i < POOL_SLOTS && slot < 0; i++)
        if (!pool.ptr[i]) slot = i;
    if (slot < 0) { /* full: replace the smallest kept buffer if this one is larger */
        for (int i = 0; i < POOL_SLOTS; i++)
            if (slot < 0 || pool.bytes[i] < pool.bytes[slot]) slot = i;
        if (pool.bytes[slot] >= bytes) {
            free(ptr);
            return;
        }
        free(pool.ptr[slot]);
        pool.total -= pool.bytes[slot];
    }
    pool.ptr[slot] = ptr;
    pool.bytes[slot] = bytes;
    pool.total += bytes;
}

void gv_problem_free(gv_problem *p)
{
    for (int i = 0; i < GV_MAX_TENSORS; i++) {
        pool_put(p->in[i].ref);
        pool_put(p->in[i].data);
        pool_put(p->out[i].ref);
        pool_put(p->out[i].data);
        pool_put(p->out[i].gauge);
        pool_put(p->out[i].pgauge);
    }
    if (p->aux && p->aux_free) p->aux_free(p->aux);
    memset(p, 0, sizeof *p);
}

/* The set-up fills of gv_problem_init, on all cores for large tensors (each element or byte
   on its own: the same contents). */
static void fill_nan(double *x, int64_t n)
{
#pragma omp parallel for schedule(static) if (n >= GV_PAR_MIN)
    for (int64_t k = 0; k < n; k++)
        x[k] = NAN;
}

static void fill_poison(void *data, size_t bytes)
{
    enum { CHUNK = 1 << 20 };
    int64_t nchunks = (int64_t)((bytes + CHUNK - 1) / CHUNK);
#pragma omp parallel for schedule(static) if (nchunks >= 4)
    for (int64_t k = 0; k < nchunks; k++) {
        size_t off = (size_t)k * CHUNK;
        memset((char *)data + off, GV_POISON_BYTE, bytes - off < CHUNK ? bytes - off : CHUNK);
    }
}

int gv_problem_init(gv_problem *p, const gv_case *c)
{
    memset(p, 0, sizeof *p);
    p->c = *c;
    int rc = c->op->layout(c, &p->l);
    if (rc != GV_OK) return rc;
    assert(p->l.n_in >= 0);
    if (p->l.n_in > GV_MAX_TENSORS || p->l.n_out > GV_MAX_TENSORS || p->l.n_out < 1)
        return GV_EINVAL;
    size_t es = gv_dtype_size(c->dtype);
    /* every buffer's size, then taken from the pool largest first (pool_get) */
    enum { MAX_BUFS = 6 * GV_MAX_TENSORS };
    size_t want[MAX_BUFS];
    void *got[MAX_BUFS];
    int order[MAX_BUFS], nbuf = 0;
    for (int i = 0; i < p->l.n_in; i++) {
        size_t n = (size_t)p->l.in[i].count;
        want[nbuf++] = n * sizeof(double) + 1; /* ref */
        want[nbuf++] = n * es + 1;             /* data */
    }
    for (int i = 0; i < p->l.n_out; i++) {
        size_t n = (size_t)p->l.out[i].count;
        want[nbuf++] = n * sizeof(double) + 1; /* ref */
        want[nbuf++] = n * es + 1;             /* data */
        want[nbuf++] = n * sizeof(double) + 1; /* gauge */
        if (c->op->pgauge) want[nbuf++] = n * sizeof(double) + 1;
    }
    for (int k = 0; k < nbuf; k++) { /* insertion sort, largest first, ties in order */
        int j = k;
        for (; j > 0 && want[order[j - 1]] < want[k]; j--)
            order[j] = order[j - 1];
        order[j] = k;
    }
    bool short_of_memory = false;
    for (int k = 0; k < nbuf; k++) {
        got[order[k]] = pool_get(want[order[k]]);
        short_of_memory |= got[order[k]] == NULL;
    }
    int b = 0;
    for (int i = 0; i < p->l.n_in; i++) {
        gv_tensor *t = &p->in[i];
        t->name = p->l.in[i].name;
        t->count = p->l.in[i].count;
        t->ref = got[b++];
        t->data = got[b++];
    }
    for (int i = 0; i < p->l.n_out; i++) {
        gv_tensor *t = &p->out[i];
        t->name = p->l.out[i].name;
        t->count = p->l.out[i].count;
        t->ref = got[b++];
        t->data = got[b++];
        t->gauge = got[b++];
        if (c->op->pgauge) t->pgauge = got[b++];
    }
    if (short_of_memory) goto nomem;
    for (int i = 0; i < p->l.n_out; i++) {
        gv_tensor *t = &p->out[i];
        if (t->pgauge)
            fill_nan(t->pgauge, t->count); /* a G never computed fails the case, never passes it */
        fill_poison(t->data, (size_t)t->count * es); /* unwritten until written */
    }
    rc = c->op->make_inputs(p);
    if (rc != GV_OK) gv_problem_free(p);
    return rc;
nomem:
    gv_problem_free(p);
    return GV_ENOMEM;
}

int gv_reference(gv_problem *p)
{
    int rc = p->c.op->oracle(p);
    if (rc == GV_OK) rc = gv_error_gauges(p);
    return rc;
}

int gv_error_gauges(gv_problem *p)
{
    int rc = GV_OK;
    if (p->c.op->gauge) rc = p->c.op->gauge(p);
    if (rc == GV_OK && p->c.op->pgauge) rc = p->c.op->pgauge(p);
    return rc;
}

int64_t gv_device_bytes(const gv_problem *p)
{
    /* in double: near 4.6e18 elements the byte count does not fit int64 */
    double elems = 0;
    for (int i = 0; i < p->l.n_in; i++)
        elems += (double)p->l.in[i].count;
    for (int i = 0; i < p->l.n_out; i++)
        elems += (double)p->l.out[i].count;
    /* gk_run puts a red zone before and after every tensor and the workspace */
    double guarded = p->l.n_in + p->l.n_out + (p->l.workspace_bytes > 0);
    double bytes = elems * (double)gv_dtype_size(p->c.dtype) + (double)p->l.workspace_bytes +
                   guarded * 2 * GV_REDZONE_BYTES;
    return bytes >= 0x1p63 ? INT64_MAX : (int64_t)bytes;
}

void gv_result_extra(gv_result *r, const char *name, double value)
{
    if (r->n_extra >= GV_MAX_EXTRA) return;
    r->extra[r->n_extra].name = name;
    r->extra[r->n_extra].value = value;
    r->n_extra++;
}

double gv_host_bytes(const gv_layout *l, gv_dtype t)
{
    double es = (double)gv_dtype_size(t), bytes = 0;
    for (int i = 0; i < l->n_in; i++)
        bytes += (double)l->in[i].count * (8 + es);
    for (int i = 0; i < l->n_out; i++)
        bytes += (double)l->out[i].count * (24 + es);
    return bytes;
}

/* MemTotal from /proc/meminfo in bytes; 0 when unknown. Total rather than available: some
   virtual machines grow their memory as it is used, so "available" understates it. */
static double host_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    double kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %lf kB", &kb) == 1) break;
    fclose(f);
    return kb * 1024.0;
}

static double default_expected_tier(const gv_case *c)
{
    /* modes that promise the dtype's accuracy (native, default, the emulations that claim
       it) expect its tier; reduced modes report the tier they reach */
    return gv_mode_get(c->mode)->promises_tier ? gv_dtype_tier(c->dtype) : 0.0;
}

void gv_result_check(gv_result *r, const char *name, double value, double bound,
                     const char *why_fmt, ...)
{
    if (r->n_checks >= GV_MAX_CHECKS) {
        /* more checks than room is a bug of the op's hook, not a verdict to drop silently */
        snprintf(r->internal, sizeof r->internal, "more than %d checks from %s", GV_MAX_CHECKS,
                 r->c.op->name);
        return;
    }
    __typeof__(r->checks[0]) *k = &r->checks[r->n_checks++];
    k->name = name;
    k->value = value;
    k->bound = bound;
    va_list ap;
    va_start(ap, why_fmt);
    vsnprintf(k->why, sizeof k->why, why_fmt, ap);
    va_end(ap);
}

void gv_result_init(gv_result *r, const gv_case *c, const gv_tiers *tiers)
{
    memset(r, 0, sizeof *r);
    const gv_op *op = c->op;
    r->c = *c;
    r->tiers = *tiers;
    r->u = op->unit_roundoff ? op->unit_roundoff(c) : gv_unit_roundoff(c->dtype, c->mode);
    r->depth = op->depth(c);
    r->ratio_bound = op->ratio_bound > 0 ? op->ratio_bound : GV_DEFAULT_RATIO_BOUND;
    r->expected_tier = default_expected_tier(c);
    if (op->expected_tier)
        r->expected_tier = op->expected_tier(c, r->expected_tier_why, sizeof r->expected_tier_why);
    r->flops = op->flops(c);
    r->bytes = op->bytes(c);
    r->m.worst_index = r->m.first_nonfinite_index = r->m.first_poisoned_index = -1;
    r->m.prob_worst_index = r->m.first_inexact_index = -1;
    /* The probabilistic model judges the arithmetic the mode claims: accumulation at the
       dtype's u and depth (f16acc's at 2^-11), inputs rounded to the mode's input bits where
       it has fewer than the dtype (tf32 2^-11, bf16 2^-8, fp8 2^-4, a fixed-point emulation
       2^-bits). Fast-math modes have function errors outside its form and keep the
       worst-case model alone. */
    if (op->pgauge && c->mode != GV_MODE_FASTMATH) {
        gv_case native = *c;
        native.mode = GV_MODE_NATIVE;
        int in_bits = gv_mode_get(c->mode)->input_bits;
        r->prob.on = true;
        int acc_bits = gv_mode_get(c->mode)->acc_bits;
        r->prob.u =
            acc_bits > 0 ? ldexp(1.0, -acc_bits) : gv_unit_roundoff(c->dtype, GV_MODE_NATIVE);
        r->prob.depth = op->depth(&native);
        r->prob.u_in =
            in_bits > 0 && in_bits < gv_dtype_mantissa_bits(c->dtype) ? ldexp(1.0, -in_bits) : 0.0;
        r->prob.oracle_depth = op->oracle_depth ? op->oracle_depth(c) : r->prob.depth;
        r->prob.w = gv_prob_unit(r->prob.u, r->prob.depth, r->prob.u_in) +
                    0x1p-53 * sqrt(r->prob.oracle_depth > 1 ? r->prob.oracle_depth : 1.0);
    }
    r->exact = op->exact && op->exact(c);
}

static void set_reason(gv_result *r, gv_verdict v, const char *fmt, double a, double b)
{
    r->verdict = v;
    snprintf(r->reason, sizeof r->reason, fmt, a, b);
}

/* The index of tier t among r's tiers, adding it when it is not there (an expected tier is
   always measured, whatever tiers the run was asked for); -1 if there is no room. */
static int tier_index(gv_result *r, double t)
{
    for (int k = 0; k < r->tiers.n; k++)
        if (r->tiers.t[k] == t) return k;
    if (r->tiers.n == GV_MAX_TIERS) return -1;
    r->tiers.t[r->tiers.n] = t;
    return r->tiers.n++;
}

void gv_decide(gv_result *r)
{
    const gv_metrics *m = &r->m;
    char *why = r->reason;
    size_t len = sizeof r->reason;
    r->verdict = GV_FAIL;
    why[0] = '\0';
    if (r->guard[0]) {
        snprintf(why, len, "%s", r->guard);
        return;
    }
    if (m->poisoned) {
        snprintf(why, len, "%lld unwritten elements (first at %lld)", (long long)m->poisoned,
                 (long long)m->first_poisoned_index);
        return;
    }
    if (r->internal[0]) {
        r->verdict = GV_ERROR;
        snprintf(why, len, "internal: %s", r->internal);
        return;
    }
    if (r->unjudgeable[0]) {
        r->verdict = GV_SKIP;
        snprintf(why, len, "%s", r->unjudgeable);
        return;
    }
    if (m->nonfinite_mismatches) {
        snprintf(why, len, "%lld NaN/Inf not where the oracle has them (first at %lld)",
                 (long long)m->nonfinite_mismatches, (long long)m->first_nonfinite_index);
        return;
    }
    for (int i = 0; i < r->n_checks; i++) {
        if (!(r->checks[i].value <= r->checks[i].bound)) {
            snprintf(why, len, "%s", r->checks[i].why);
            return;
        }
    }
    if (!(m->ratio <= r->ratio_bound)) {
        snprintf(why, len, "error model: ratio %.3g over bound %.3g", m->ratio, r->ratio_bound);
        return;
    }
    if (r->prob.on && !(m->prob_max <= GV_PROB_MAX_BOUND)) {
        snprintf(why, len, "probabilistic model: max R %.3g over %.3g at element %lld", m->prob_max,
                 GV_PROB_MAX_BOUND, (long long)m->prob_worst_index);
        return;
    }
    if (r->prob.on && m->prob_n >= GV_PROB_RMS_MIN_N && !(m->prob_rms <= GV_PROB_RMS_BOUND)) {
        snprintf(why, len, "probabilistic model: RMS R %.3g over %.3g (%.1f effective bits)",
                 m->prob_rms, GV_PROB_RMS_BOUND, m->eff_bits);
        return;
    }
    if (r->exact && m->inexact) {
        snprintf(why, len, "exact probe: %lld of %lld elements inexact (first at %lld)",
                 (long long)m->inexact, (long long)m->n, (long long)m->first_inexact_index);
        return;
    }
    if (r->expected_tier > 0) {
        int k = -1;
        for (int i = 0; i < r->tiers.n; i++)
            if (r->tiers.t[i] == r->expected_tier) k = i;
        if (k < 0) {
            /* gv_judge measures it; a result decided without that is the harness's bug */
            r->verdict = GV_ERROR;
            snprintf(why, len, "internal: the expected tier %.0e was not measured",
                     r->expected_tier);
            return;
        }
        if (!gv_tier_met(m, k)) {
            snprintf(why, len, "expected tier %.0e missed: %lld elements", r->expected_tier,
                     (long long)m->mismatches[k]);
            return;
        }
    }
    r->verdict = GV_PASS;
}

/* A tier t is promised only where the probabilistic model guarantees it: when its largest
   allowance GV_PROB_MAX_BOUND w G_i exceeds t (1 + |r_i|) for some element (zero-mean inputs
   summed deep cancel to |r| far below G), no tier is expected and the models alone judge. */
static void tier_within_model(const gv_problem *p, gv_result *r)
{
    if (!r->prob.on || r->expected_tier <= 0 || r->expected_tier_why[0]) return;
    double worst = 0.0;
    for (int i = 0; i < p->l.n_out; i++) {
        const gv_tensor *t = &p->out[i];
        if (!t->pgauge) continue;
            /* a maximum: the same whatever the order, so on all cores */
#pragma omp parallel for schedule(static) reduction(max : worst) if (t->count >= GV_PAR_MIN)
        for (int64_t k = 0; k < t->count; k++) {
            double num = GV_PROB_MAX_BOUND * r->prob.w * t->pgauge[k], den = 1.0 + fabs(t->ref[k]);
            if (!gv_quot_may_exceed(num, den, worst)) continue; /* cannot raise the maximum */
            double need = num / den;
            if (need > worst) worst = need; /* NaN (never computed) is caught by the compare */
        }
    }
    if (worst > r->expected_tier) {
        snprintf(r->tier_note, sizeof r->tier_note,
                 "the model allows errors up to %.2g (1 + |r|) here, over the tier %.0e", worst,
                 r->expected_tier);
        r->expected_tier = 0.0;
    }
}

/* The judge's serial passes over whole tensors: the output hash (XXH64, one stream) and the
   probabilistic floor (sums in one order). Each reads only p and r->prob, which the compare
   leaves alone, so on large outputs each runs on a thread of its own beside it. */
typedef struct judge_side {
    const gv_problem *p;
    const gv_result *r;
    double floor_rms;
    uint64_t hash;
} judge_side;

static void *side_hash(void *arg)
{
    judge_side *s = arg;
    s->hash = gv_output_hash(s->p);
    return NULL;
}

static void *side_floor(void *arg)
{
    judge_side *s = arg;
    s->floor_rms = gv_prob_floor(s->p, s->r);
    return NULL;
}

void gv_judge(const gv_problem *p, gv_result *r)
{
    const gv_case *c = &p->c;
    int bits = gv_mode_precision_bits(c->dtype, c->mode);
    r->n_checks = 0;
    r->unjudgeable[0] = r->internal[0] = '\0';
    judge_side side = {p, r, 0.0, 0};
    int64_t out_elems = 0;
    for (int i = 0; i < p->l.n_out; i++)
        out_elems += p->out[i].count;
    pthread_t th_hash, th_floor;
    bool on_hash = false, on_floor = false;
    if (out_elems >= ((int64_t)1 << 20)) {
        on_hash = pthread_create(&th_hash, NULL, side_hash, &side) == 0;
        on_floor = pthread_create(&th_floor, NULL, side_floor, &side) == 0;
    }
    tier_within_model(p, r);
    if (r->expected_tier > 0 && tier_index(r, r->expected_tier) < 0)
        snprintf(r->internal, sizeof r->internal, "no room to measure the expected tier %.0e",
                 r->expected_tier);
    for (int i = 0; i < p->l.n_out; i++) {
        const gv_tensor *t = &p->out[i];
        gv_error_model em = {t->gauge,  r->depth, r->u, r->prob.on ? t->pgauge : NULL,
                             r->prob.w, r->exact};
        gv_metrics m;
        gv_compare(t->data, c->dtype, t->ref, t->count, &r->tiers, &em, bits, &m);
        if (i == 0)
            r->m = m;
        else
            gv_metrics_merge(&r->m, &m, r->tiers.n);
    }
    if (on_floor)
        pthread_join(th_floor, NULL);
    else
        side_floor(&side);
    if (on_hash)
        pthread_join(th_hash, NULL);
    else
        side_hash(&side);
    r->prob.floor_rms = side.floor_rms;
    r->out_hash = side.hash;
    if (c->op->measure) c->op->measure(p, r);
    gv_decide(r);
}

int gv_run_case(const gv_case *c, const gv_tiers *tiers, gv_result *r)
{
    return gv_run_case_full(c, tiers, 1, r, NULL, NULL);
}

int gv_run_case_repeat(const gv_case *c, const gv_tiers *tiers, int repeat, gv_result *r)
{
    return gv_run_case_full(c, tiers, repeat, r, NULL, NULL);
}

/* The given inputs into p's input tensors (data bit for bit, ref its exact f64 value). */
static int apply_given(gv_problem *p, const gv_given_inputs *given)
{
    if (given->n != p->l.n_in) return GV_EINVAL;
    for (int i = 0; i < p->l.n_in; i++) {
        gv_tensor *t = &p->in[i];
        if (given->count[i] != t->count) return GV_EINVAL;
        memcpy(t->data, given->data[i], (size_t)t->count * gv_dtype_size(p->c.dtype));
        for (int64_t k = 0; k < t->count; k++)
            t->ref[k] = gv_dtype_load(p->c.dtype, t->data, k);
    }
    return GV_OK;
}

static void release(gv_problem *p, gv_problem *keep)
{
    if (keep)
        *keep = *p;
    else
        gv_problem_free(p);
}

void gv_problem_launch(const gv_problem *p, gk_launch *L, gk_host_io *io)
{
    const gv_case *c = &p->c;
    memset(L, 0, sizeof *L);
    memset(io, 0, sizeof *io);
    L->dtype = c->dtype;
    L->mode = c->mode;
    L->nd = c->shape.nd;
    for (int i = 0; i < c->shape.nd; i++)
        L->dims[i] = c->shape.d[i];
    L->n_in = p->l.n_in;
    L->n_out = p->l.n_out;
    for (int i = 0; i < p->l.n_in; i++) {
        L->in_count[i] = p->in[i].count;
        L->in_name[i] = p->in[i].name;
        io->in[i] = p->in[i].data;
    }
    for (int i = 0; i < p->l.n_out; i++) {
        L->out_count[i] = p->out[i].count;
        L->out_name[i] = p->out[i].name;
        io->out[i] = p->out[i].data;
    }
    L->workspace_bytes = p->l.workspace_bytes;
    L->host_aux = p->aux;
}

int gv_run_case_io(const gv_case *c, const gv_tiers *tiers, gv_result *r,
                   const gv_given_inputs *given, gv_problem *keep)
{
    return gv_run_case_full(c, tiers, 1, r, given, keep);
}

/* The correctness run of one case on the device, on a thread of its own while the oracle
 * runs on the caller's (gv_case_device_start): both only read the inputs (the device run its
 * data, the oracle their f64 copies) and write outputs of their own, so they can overlap; the
 * judge waits for both. */
static void *device_job_run(void *arg)
{
    gv_case_run *cr = (gv_case_run *)arg;
    if (cr->on_device) cr->on_device(cr->index, false, cr->on_device_ctx);
    gk_device_count(); /* makes the selected device current on this thread */
    gk_clear_error();
    double t0 = now_ms();
    cr->device_rc = gk_run(cr->p.c.op->device, &cr->L, &cr->io);
    cr->device_ms = now_ms() - t0;
    /* the last error is one buffer for the process: copied here, before the next case's
       device run can start, it belongs to this case whenever the judge reads it */
    snprintf(cr->device_error, sizeof cr->device_error, "%s", gk_last_error());
    if (cr->on_device) cr->on_device(cr->index, true, cr->on_device_ctx);
    return NULL;
}

bool gv_pipeline_wanted(void)
{
    const char *e = getenv("GPUVAL_PIPELINE");
    return e && e[0] == '1' && e[1] == '\0' && !gv_serial_wanted();
}

bool gv_serial_wanted(void)
{
    const char *e = getenv("GPUVAL_SERIAL_CASE");
    return e && e[0] == '1' && e[1] == '\0';
}

void gv_case_prepare(gv_case_run *cr, const gv_case *c, const gv_tiers *tiers, int repeat,
                     gv_result *r, const gv_given_inputs *given)
{
    gv_device_note note = cr->on_device;
    void *note_ctx = cr->on_device_ctx;
    int index = cr->index;
    memset(cr, 0, sizeof *cr);
    cr->on_device = note;
    cr->on_device_ctx = note_ctx;
    cr->index = index;
    cr->r = r;
    cr->repeat = repeat;
    const gv_op *op = c->op;
    gv_result_init(r, c, tiers);
    if (!op->device) {
        set_reason(r, GV_SKIP, "built without CUDA", 0, 0);
        return;
    }
    if (gk_device_count() == 0) {
        set_reason(r, GV_SKIP, "no CUDA device", 0, 0);
        return;
    }
    /* Sizes first, from the layout alone: a case too large for the device or the host is a
       SKIP with the numbers before anything is allocated. */
    gv_problem *p = &cr->p;
    p->c = *c;
    int rc = op->layout(c, &p->l);
    if (rc != GV_OK) {
        r->verdict = GV_ERROR;
        snprintf(r->reason, sizeof r->reason, "layout: %s", gv_strerror(rc));
        return;
    }
    r->bytes_needed = gv_device_bytes(p);
    int64_t free_b = 0, total_b = 0;
    if (gk_mem_info(&free_b, &total_b) == GV_OK) {
        /* the free bytes are checked again just before the device run (gv_case_admit): a
           previous case may still hold its memory now */
        r->bytes_free = free_b;
        if (r->bytes_needed == INT64_MAX) {
            set_reason(r, GV_SKIP, "needs more than %.0f bytes of device memory, %.0f free",
                       (double)INT64_MAX, (double)free_b);
            return;
        }
        if (r->bytes_needed > total_b) {
            set_reason(r, GV_SKIP, "needs %.0f bytes of device memory, %.0f free",
                       (double)r->bytes_needed, (double)free_b);
            return;
        }
    }
    double host_need = gv_host_bytes(&p->l, c->dtype), host_avail = host_available_bytes();
    if (host_avail > 0 && host_need > host_avail) {
        set_reason(r, GV_SKIP, "needs %.0f bytes of host memory, %.0f available", host_need,
                   host_avail);
        return;
    }
    go_clear_error();
    double t_in = now_ms();
    rc = gv_problem_init(p, c);
    r->inputs_ms = now_ms() - t_in;
    if (rc == GV_ENOMEM) {
        set_reason(r, GV_SKIP, "too little host memory for the inputs (%.0f bytes)", host_need, 0);
        return;
    }
    if (rc != GV_OK) {
        r->verdict = GV_ERROR;
        gv_oracle_reason(rc, "inputs", r->reason, sizeof r->reason);
        return;
    }
    cr->have_problem = true;
    if (given && apply_given(p, given) != GV_OK) {
        r->verdict = GV_ERROR;
        snprintf(r->reason, sizeof r->reason, "inputs: the given tensors do not match the layout");
        return;
    }
    cr->runnable = true;
}

bool gv_case_admit(gv_case_run *cr)
{
    if (!cr->runnable) return false;
    gv_result *r = cr->r;
    int64_t free_b = 0, total_b = 0;
    if (gk_mem_info(&free_b, &total_b) == GV_OK) {
        r->bytes_free = free_b;
        if (r->bytes_needed > free_b) {
            set_reason(r, GV_SKIP, "needs %.0f bytes of device memory, %.0f free",
                       (double)r->bytes_needed, (double)free_b);
            cr->runnable = false;
            return false;
        }
    }
    return true;
}

void gv_case_device_start(gv_case_run *cr, bool own_thread)
{
    if (!cr->runnable) return;
    gv_problem_launch(&cr->p, &cr->L, &cr->io);
    cr->device_pending = true;
    if (own_thread) cr->device_thread = pthread_create(&cr->thread, NULL, device_job_run, cr) == 0;
}

void gv_case_oracle(gv_case_run *cr)
{
    if (!cr->runnable) return;
    gv_result *r = cr->r;
    double t0 = now_ms();
    go_clear_error();
    bool cached = false; /* oracle_ms is then the time to read the reference back */
    gv_cache_counts before = gv_cache_counts_get();
    int rc = gv_cached_reference(&cr->p, &cached);
    r->oracle_ms = now_ms() - t0;
    gv_cache_counts after = gv_cache_counts_get();
    r->cache.hits = after.hits - before.hits;
    r->cache.misses = after.misses - before.misses;
    r->cache.stored = after.stored - before.stored;
    r->cache.rejected = after.rejected - before.rejected;
    if (rc != GV_OK) {
        r->verdict = GV_ERROR;
        gv_oracle_reason(rc, "oracle", r->reason, sizeof r->reason);
        cr->oracle_failed = true;
    }
}

void gv_case_device_wait(gv_case_run *cr)
{
    if (!cr->device_pending) return;
    if (cr->device_thread)
        pthread_join(cr->thread, NULL);
    else
        device_job_run(cr); /* serial, or no thread could be made: run it here */
    cr->device_thread = false;
    cr->device_pending = false;
    cr->device_done = true;
}

bool gv_case_device_broke(const gv_case_run *cr)
{
    int rc = cr->device_rc;
    return cr->device_done && rc != GV_OK && rc != GV_EGUARD && rc != GV_EDEVMEM &&
           rc != GV_EUNSUPPORTED;
}

void gv_case_finish(gv_case_run *cr, gv_problem *keep)
{
    gv_case_device_wait(cr); /* nothing may still read the inputs when they are freed */
    gv_result *r = cr->r;
    gv_problem *p = &cr->p;
    const char *err = cr->device_error; /* as gk_last_error() was when the run ended */
    if (cr->device_done && !cr->oracle_failed) {
        int rc = cr->device_rc;
        r->device_ms = cr->device_ms;
        snprintf(r->math_mode, sizeof r->math_mode, "%s", cr->L.math_mode);
        if (rc == GV_EDEVMEM) {
            set_reason(r, GV_SKIP, "needs %.0f bytes of device memory, %.0f free",
                       (double)r->bytes_needed, (double)r->bytes_free);
        } else if (rc == GV_EUNSUPPORTED) {
            r->verdict = GV_SKIP;
            snprintf(r->reason, sizeof r->reason, "mode not supported: %.230s", err);
        } else if (rc == GV_EGUARD) {
            /* the outputs came back: fill the metrics, but a write outside a tensor or a
               changed input fails the case whatever the numbers say (gv_decide's first rule) */
            snprintf(r->guard, sizeof r->guard, "%.190s", err);
            gv_judge(p, r);
            hash_outputs(r);
        } else if (rc == GV_EINTERNAL) {
            r->verdict = GV_ERROR;
            snprintf(r->reason, sizeof r->reason, "internal: %.240s", err);
        } else if (rc != GV_OK) {
            r->verdict = GV_ERROR;
            snprintf(r->reason, sizeof r->reason, "%.250s", err);
        } else {
            double t0 = now_ms();
            gv_judge(p, r);
            hash_outputs(r);
            r->judge_ms = now_ms() - t0;
            if (cr->repeat > 1) gv_repeat_judge(p, &cr->L, r, cr->repeat);
        }
    }
    if (cr->have_problem)
        release(p, keep);
    else if (keep)
        memset(keep, 0, sizeof *keep);
    cr->have_problem = cr->runnable = false;
}

int gv_run_case_full(const gv_case *c, const gv_tiers *tiers, int repeat, gv_result *r,
                     const gv_given_inputs *given, gv_problem *keep)
{
    gv_case_run cr = {.index = -1};
    gv_case_prepare(&cr, c, tiers, repeat, r, given);
    if (gv_case_admit(&cr)) {
        gv_case_device_start(&cr, !gv_serial_wanted());
        gv_case_oracle(&cr);
    }
    gv_case_finish(&cr, keep);
    return GV_OK;
}
