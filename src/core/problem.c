/* problem.c: a case's host problem (problem.h) — its layout, its inputs generated and rounded to
 * the storage dtype, the buffers kept between cases, the sizes it needs on the device and the
 * host, and its device launch. Part of the oracle cache's version (meson.build): what is here
 * can change a reference. */
#include "core/problem.h"

#include <assert.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../oracle/go.h"
#include "core/gen.h"

void gv_oracle_reason(int rc, const char *stage, char *why, size_t len)
{
    const char *msg = go_last_error();
    if (msg[0])
        snprintf(why, len, "%s: %s", stage, msg);
    else
        snprintf(why, len, "%s: %s (%s)", stage, gv_strerror(rc), gv_errname(rc));
}

/* The dtype copy, by chunks on all cores (each element converted on its own). */
static void store_dtype(const double *src, void *dst, int64_t n, gv_dtype t)
{
    if (dst == (const void *)src) return; /* an f64 input's one buffer (gv_problem_init_shared) */
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
    assert(i >= 0 && i < p->l.n_in); /* an input of the layout, buffers taken */
    gv_tensor *t = &p->in[i];
    gv_dtype dt = p->c.dtype;
    size_t es = gv_dtype_size(dt);
    int64_t n = t->count;
    /* the edge distributions' window (gen.h): from the case and this tensor's size */
    gv_dist_window w;
    gv_dist_window_of(&p->c, dist, n, &w);
#pragma omp parallel for schedule(static) if (n >= GV_PAR_MIN)
    for (int64_t k = 0; k < n; k += CHUNK) {
        int64_t len = n - k < CHUNK ? n - k : CHUNK;
        gv_gen_fill_window(t->ref + k, k, len, dist, dt, p->c.seed, (uint64_t)i, &w);
        if (t->data != (void *)t->ref)
            gv_dtype_store_n(dt, (char *)t->data + (size_t)k * es, t->ref + k, len);
    }
}

void gv_store_rounded(gv_problem *p, int i)
{
    assert(i >= 0 && i < p->l.n_in);
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

/* The pool's bookkeeping: pool.total is the sum of the kept buffers' bytes (pool_put's room
   test relies on it), never over POOL_MAX_BYTES, and every kept buffer is one pool_put
   accepted (POOL_MIN_BYTES to POOL_MAX_BYTES). */
static void pool_assert_consistent(void)
{
    size_t sum = 0;
    for (int i = 0; i < POOL_SLOTS; i++) {
        if (!pool.ptr[i]) continue;
        assert(pool.bytes[i] >= POOL_MIN_BYTES && pool.bytes[i] <= POOL_MAX_BYTES);
        sum += pool.bytes[i];
    }
    assert(pool.total == sum);
    assert(pool.total <= POOL_MAX_BYTES);
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
    pool_assert_consistent();
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
        assert(small >= 0); /* total > 0 means a buffer is kept (pool_assert_consistent) */
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
    pool_assert_consistent();
}

void gv_pool_release(void)
{
    for (int i = 0; i < POOL_SLOTS; i++) {
        free(pool.ptr[i]);
        pool.ptr[i] = NULL;
        pool.bytes[i] = 0;
    }
    pool.total = 0;
    pool_assert_consistent();
}

void gv_problem_free(gv_problem *p)
{
    for (int i = 0; i < GV_MAX_TENSORS; i++) {
        pool_put(p->in[i].ref);
        if (p->in[i].data != (void *)p->in[i].ref) pool_put(p->in[i].data);
        pool_put(p->out[i].ref);
        pool_put(p->out[i].data);
        pool_put(p->out[i].gauge);
        pool_put(p->out[i].pgauge);
        pool_put(p->out[i].ref_lo);
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

/* What every op's layout hook gives (op.h, api.c's checks for the public ones): 0 to
   GV_MAX_TENSORS inputs, 1 to GV_MAX_TENSORS outputs, no negative count or workspace. The
   problem's arrays, gk_launch's and the device's red-zoned buffers are sized by it. */
static void layout_assert_contract(const gv_layout *l)
{
    assert(l->n_in >= 0 && l->n_in <= GV_MAX_TENSORS);
    assert(l->n_out >= 1 && l->n_out <= GV_MAX_TENSORS);
    for (int i = 0; i < l->n_in; i++)
        assert(l->in[i].count >= 0);
    for (int i = 0; i < l->n_out; i++)
        assert(l->out[i].count >= 0);
    assert(l->workspace_bytes >= 0);
}

static int problem_init(gv_problem *p, const gv_case *c, bool shared);

int gv_problem_init(gv_problem *p, const gv_case *c)
{
    return problem_init(p, c, false);
}

int gv_problem_init_shared(gv_problem *p, const gv_case *c)
{
    return problem_init(p, c, true);
}

static int problem_init(gv_problem *p, const gv_case *c, bool shared)
{
    memset(p, 0, sizeof *p);
    p->c = *c;
    int rc = c->op->layout(c, &p->l);
    if (rc != GV_OK) return rc;
    assert(p->l.n_in >= 0);
    if (p->l.n_in > GV_MAX_TENSORS || p->l.n_out > GV_MAX_TENSORS || p->l.n_out < 1)
        return GV_EINVAL;
    size_t es = gv_dtype_size(c->dtype);
    /* a placement the device layer cannot make (abi/layout.h) is the op's bug, not the case's */
    for (int i = 0; i < p->l.n_in; i++)
        if (!gk_place_valid(&p->l.in_place[i], p->l.in[i].count, (int64_t)es)) return GV_EINTERNAL;
    for (int i = 0; i < p->l.n_out; i++)
        if (!gk_place_valid(&p->l.out_place[i], p->l.out[i].count, (int64_t)es))
            return GV_EINTERNAL;
    /* every buffer's size, then taken from the pool largest first (pool_get) */
    enum { MAX_BUFS = 7 * GV_MAX_TENSORS };
    bool exact = gv_exact_wanted(c);
    size_t want[MAX_BUFS];
    void *got[MAX_BUFS];
    int order[MAX_BUFS], nbuf = 0;
    /* an f64 input's values and its dtype copy are the same bytes: one buffer where asked */
    bool one = shared && c->dtype == GV_F64;
    for (int i = 0; i < p->l.n_in; i++) {
        size_t n = (size_t)p->l.in[i].count;
        want[nbuf++] = n * sizeof(double) + 1;  /* ref */
        if (!one) want[nbuf++] = n * es + 1;    /* data */
    }
    for (int i = 0; i < p->l.n_out; i++) {
        size_t n = (size_t)p->l.out[i].count;
        want[nbuf++] = n * sizeof(double) + 1; /* ref */
        want[nbuf++] = n * es + 1;             /* data */
        want[nbuf++] = n * sizeof(double) + 1; /* gauge */
        if (c->op->pgauge) want[nbuf++] = n * sizeof(double) + 1;
        if (exact) want[nbuf++] = n * sizeof(double) + 1; /* ref_lo */
    }
    assert(nbuf <= MAX_BUFS);        /* at most 2 a tensor in, 5 out */
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
        t->data = one ? (void *)t->ref : got[b++];
    }
    for (int i = 0; i < p->l.n_out; i++) {
        gv_tensor *t = &p->out[i];
        t->name = p->l.out[i].name;
        t->count = p->l.out[i].count;
        t->ref = got[b++];
        t->data = got[b++];
        t->gauge = got[b++];
        if (c->op->pgauge) t->pgauge = got[b++];
        if (exact) t->ref_lo = got[b++];
    }
    assert(b == nbuf); /* every buffer taken is handed to its tensor, in the order asked */
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

int64_t gv_device_bytes(const gv_problem *p)
{
    layout_assert_contract(&p->l);
    /* in double: near 4.6e18 elements the byte count does not fit int64 */
    double elems = 0, offsets = 0;
    for (int i = 0; i < p->l.n_in; i++) {
        elems += (double)gk_place_span(&p->l.in_place[i], p->l.in[i].count);
        offsets += (double)p->l.in_place[i].offset_bytes;
    }
    for (int i = 0; i < p->l.n_out; i++) {
        elems += (double)gk_place_span(&p->l.out_place[i], p->l.out[i].count);
        offsets += (double)p->l.out_place[i].offset_bytes;
    }
    /* gk_run puts a red zone before and after every tensor and the workspace */
    double guarded = p->l.n_in + p->l.n_out + (p->l.workspace_bytes > 0);
    double bytes = elems * (double)gv_dtype_size(p->c.dtype) + offsets +
                   (double)p->l.workspace_bytes + guarded * 2 * GV_REDZONE_BYTES;
    return bytes >= 0x1p63 ? INT64_MAX : (int64_t)bytes;
}

double gv_host_bytes(const gv_layout *l, gv_dtype t)
{
    layout_assert_contract(l);
    double es = (double)gv_dtype_size(t), bytes = 0;
    for (int i = 0; i < l->n_in; i++)
        bytes += (double)l->in[i].count * (8 + es);
    for (int i = 0; i < l->n_out; i++)
        bytes += (double)l->out[i].count * (32 + es); /* ref, gauge, G, ref_lo */
    return bytes;
}

static double meminfo_bytes(const char *field);

/* MemTotal from /proc/meminfo in bytes; 0 when unknown. Total rather than available: some
   virtual machines grow their memory as it is used, so "available" understates it. */
double gv_host_memory_bytes(void)
{
    return meminfo_bytes("MemTotal");
}

double gv_case_host_bytes(const gv_case *c, const gv_layout *l)
{
    layout_assert_contract(l);
    /* gv_problem_init's buffers, one by one: an input's f64 values and dtype copy; an output's
       reference, dtype copy and gauge, its G where the op has a probabilistic model, its
       remainder where the exact reference is wanted */
    double es = (double)gv_dtype_size(c->dtype), bytes = 0;
    double per_out = 8 + es + 8 + (c->op->pgauge ? 8 : 0) + (gv_exact_wanted(c) ? 8 : 0);
    for (int i = 0; i < l->n_in; i++)
        bytes += (double)l->in[i].count * (8 + es);
    for (int i = 0; i < l->n_out; i++)
        bytes += (double)l->out[i].count * per_out;
    if (c->op->oracle_scratch_bytes) bytes += c->op->oracle_scratch_bytes(c);
    return bytes + GV_HOST_PROCESS_BYTES;
}

/* A field of /proc/meminfo ("MemTotal", "MemAvailable") in bytes; 0 when unknown. */
static double meminfo_bytes(const char *field)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256], want[64];
    snprintf(want, sizeof want, "%s: %%lf kB", field);
    double kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, want, &kb) == 1) break;
    fclose(f);
    return kb * 1024.0;
}

double gv_host_available_bytes(void)
{
    double avail = meminfo_bytes("MemAvailable");
    /* the buffers this thread's pool keeps are the process's to reuse */
    return avail > 0 ? avail + (double)pool.total : 0;
}

int gv_host_memory_check(const gv_case *c, const gv_layout *l, char *why, size_t len)
{
    double need = gv_case_host_bytes(c, l), total = gv_host_memory_bytes();
    if (total > 0 && need > total) {
        snprintf(why, len, "needs %.1f GB of host memory, the host has %.1f GB", need / 1e9,
                 total / 1e9);
        return GV_ENOMEM;
    }
    if (need < GV_HOST_AVAILABLE_CHECK_BYTES) return GV_OK;
    /* a large case: what is free now decides, with the pool's buffers given back first (a
       kept buffer of a smaller case may not fit any of this one's) */
    gv_pool_release();
    double avail = gv_host_available_bytes();
    if (avail > 0 && need > avail) {
        snprintf(why, len, "needs %.1f GB of host memory, %.1f GB available", need / 1e9,
                 avail / 1e9);
        return GV_ENOMEM;
    }
    return GV_OK;
}

/* The given inputs into p's input tensors (data bit for bit, ref its exact f64 value). */
int gv_problem_apply_given(gv_problem *p, const gv_given_inputs *given)
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

void gv_problem_launch(const gv_problem *p, gk_launch *L, gk_host_io *io)
{
    const gv_case *c = &p->c;
    layout_assert_contract(&p->l);
    /* gk_launch's dims hold every dim of a shape (gv.h) */
    _Static_assert(sizeof L->dims / sizeof L->dims[0] >= GV_MAX_DIMS, "gk_launch.dims");
    assert(c->shape.nd >= 0 && c->shape.nd <= GV_MAX_DIMS);
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
        L->in_place[i] = p->l.in_place[i];
        io->in[i] = p->in[i].data;
    }
    for (int i = 0; i < p->l.n_out; i++) {
        L->out_count[i] = p->out[i].count;
        L->out_name[i] = p->out[i].name;
        L->out_place[i] = p->l.out_place[i];
        io->out[i] = p->out[i].data;
    }
    L->workspace_bytes = p->l.workspace_bytes;
    L->host_aux = p->aux;
}

bool gv_exact_wanted(const gv_case *c)
{
    return c->op->exact_reference && c->dtype == GV_F64 && c->op->flops(c) <= GV_EXACT_MAX_FLOPS;
}
