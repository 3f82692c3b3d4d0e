/* reference.c: a case's f64 reference (reference.h) — the op's oracle and error-model gauges,
 * read from the oracle cache (cache.h) when a valid entry exists, else computed and, when worth
 * it, stored; and costly inputs kept the same way. Part of the oracle cache's version
 * (meson.build): the key and the version are made here. */
#include "core/reference.h"

#include <assert.h>
#include <cblas.h>
#include <fftw3.h>
#include <gnu/libc-version.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oracle_version.h" /* GV_ORACLE_SRC_HASH, written at build time (meson.build) */
#include "core/cache.h"
#include "core/hash.h"
#include "core/knobs.h"
#include "core/registry.h"
#include "../../oracle/go.h"

#ifndef GV_VERSION
#define GV_VERSION "unknown"
#endif

int gv_reference(gv_problem *p)
{
    /* the exact reference where it was asked for (ref_lo allocated) and the inputs allow it */
    p->ref_exact = false;
    if (p->out[0].ref_lo) {
        bool done = false;
        int rc = p->c.op->exact_reference(p, &done);
        if (rc != GV_OK) return rc;
        p->ref_exact = done;
    }
    int rc = p->ref_exact ? GV_OK : p->c.op->oracle(p);
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

/* Process-wide settings and counts: set once by the command line, counted by the run. */
static bool cache_on = true, memo_on = false;
static gv_cache_counts counts;

void gv_cache_enable(bool on)
{
    cache_on = on;
}

void gv_cache_memo_enable(bool on)
{
    memo_on = on;
}

gv_cache_counts gv_cache_counts_get(void)
{
    return counts;
}

/* The cache's directory into dir when the cache is on and usable. An unusable one (a regular
   file where a directory must be, a symbolic link not asked for: cache.h, gv_cache_dir) is said
   once on stderr and the run goes on without a cache; the first use of a directory also sweeps
   the temporaries killed runs left. Looked at again only when the environment names another
   directory (a test that moves HOME). */
static bool cache_dir(char *dir, size_t len)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static char seen[4096];
    static bool usable;
    if (!cache_on || gv_cache_default_dir(dir, len) != 0) return false;
    pthread_mutex_lock(&lock);
    if (strcmp(seen, dir) != 0) {
        char why[4600];
        int rc = gv_cache_dir(dir, len, why, sizeof why);
        if (rc == -2) fprintf(stderr, "gpuval: warning: oracle cache not used: %s\n", why);
        if (rc == 0) gv_cache_sweep(dir);
        usable = rc == 0;
        snprintf(seen, sizeof seen, "%s", dir);
    }
    bool ok = usable;
    pthread_mutex_unlock(&lock);
    return ok;
}

bool gv_cache_run_dir(char *dir, size_t len)
{
    return cache_dir(dir, len);
}

bool gv_cache_usable(void)
{
    char dir[4096];
    return cache_dir(dir, sizeof dir);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* What decides a reference besides the case: the code and libraries that compute it. */
void gv_oracle_blas_fixed(bool on)
{
    go_blas_fixed_threads(on ? GO_BLAS_THREADS : 0);
}

const char *gv_cache_version(void)
{
    static char v[1024];
    if (!v[0])
        /* the BLAS's thread count: GO_BLAS_THREADS wherever the oracle fixes it (go.h), so
           runs of every --jobs and every host share their entries */
        snprintf(v, sizeof v, "gpuval %s; sources %016llx; %s; %d threads; glibc %s; %s",
                 GV_VERSION, (unsigned long long)GV_ORACLE_SRC_HASH, openblas_get_config(),
                 go_blas_threads() > 0 ? go_blas_threads() : openblas_get_num_threads(),
                 gnu_get_libc_version(), fftw_version);
    return v;
}

/* The key: the case and a hash of its generated inputs (so storage modes that round the inputs
   differently never share an entry); the mode only where the op's reference reads it (a
   scaled fp8 mode's always: its reference is of the operands as the mode quantises them). */
bool gv_cache_modes_share(const gv_case *c)
{
    return (c->op->reference_ignores_mode || c->op->oracle_ignores_mode) &&
           !gv_mode_scaled(c->mode);
}

/* The inputs' f64 values hashed, in order (the case key's inputs=). */
static uint64_t inputs_hash(const gv_problem *p)
{
    uint64_t in_hash = 0;
    for (int i = 0; i < p->l.n_in; i++)
        in_hash = gv_xxh64_chunked(p->in[i].ref, (size_t)p->in[i].count * sizeof(double), in_hash);
    return in_hash;
}

void gv_cache_case_key(const gv_problem *p, char *buf, size_t len)
{
    const gv_case *c = &p->c;
    uint64_t in_hash = p->in_hash_known ? p->in_hash : inputs_hash(p);
    /* what the entry holds besides ref and gauge: ops that share a reference name may differ
       there (einsum.colsum f64 wants the exact reference, with its ref_lo, where
       matmul_colsum's flops put it past GV_EXACT_MAX_FLOPS), and one key for both made each
       find the other's entry of other sizes stale and replace it, every run */
    const char *holds = p->out[0].pgauge ? (p->out[0].ref_lo ? "gpl" : "gp")
                                         : (p->out[0].ref_lo ? "gl" : "g");
    bool any_mode = gv_cache_modes_share(c);
    int n = snprintf(buf, len,
                     "reference=%s;family=%s;dtype=%s;mode=%s;dist=%s;seed=%" PRIu64
                     ";inputs=%016" PRIx64 ";holds=%s;shape=",
                     gv_reference_name(c->op), c->op->family, gv_dtype_name(c->dtype),
                     any_mode ? "any" : gv_mode_name(c->mode),
                     gv_dist_name(c->dist), c->seed, in_hash, holds);
    for (int i = 0; i < c->shape.nd && n > 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, "%s%" PRId64, i ? "x" : "", c->shape.d[i]);
}

/* GPUVAL_CACHE_MIN_MS (tests set 0), else GV_CACHE_MIN_MS_DEFAULT: the fixed part of what
   reading an entry back costs, under which no oracle is worth an entry. */
double gv_cache_min_ms(void)
{
    const char *s = gv_knobs()->cache_min_ms;
    char *end;
    double v = s ? strtod(s, &end) : GV_CACHE_MIN_MS_DEFAULT;
    return s && (end == s || *end || !(v >= 0)) ? GV_CACHE_MIN_MS_DEFAULT : v;
}

void gv_cache_counts_line(const gv_cache_counts *c, char *buf, size_t len)
{
    /* the misses neither stored nor cheap: the oracle failed, or the put did (larger than the
       cap, a full disk): the cache is best effort */
    int other = c->misses - c->stored - c->cheap;
    assert(other >= 0);
    snprintf(buf, len,
             "oracle cache: %d hits, %d misses (%d stored; %d cheap: the oracle took less than "
             "a read of its entry, %g ms + %g GB/s; %d not kept: an oracle error, or larger than "
             "the cap or not writable), %d rejected",
             c->hits, c->misses, c->stored, c->cheap, gv_cache_min_ms(),
             GV_CACHE_READ_BYTES_PER_MS / 1e6, other, c->rejected);
}

bool gv_reference_kept(gv_problem *p)
{
    char dir[4096];
    if (!cache_dir(dir, sizeof dir)) return false;
    if (!p->in_hash_known) p->in_hash = inputs_hash(p);
    p->in_hash_known = true;
    char key[1024], note[GV_CACHE_MAX_KEY];
    gv_cache_case_key(p, key, sizeof key);
    const char *version = gv_cache_version();
    if (gv_cache_has(dir, key, version)) return true;
    return snprintf(note, sizeof note, "cheap=%s", key) < (int)sizeof note &&
           gv_cache_has(dir, note, version);
}

int gv_cached_reference(gv_problem *p, bool *hit)
{
    *hit = false;
    char dir[4096];
    if (!cache_dir(dir, sizeof dir)) return gv_reference(p);
    if (!p->in_hash_known) p->in_hash = inputs_hash(p); /* and the judgement's (judge_memo.h) */
    p->in_hash_known = true;
    char key[1024];
    gv_cache_case_key(p, key, sizeof key);
    const char *version = gv_cache_version();
    void *bufs[4 * GV_MAX_TENSORS + 1];
    size_t sizes[4 * GV_MAX_TENSORS + 1], bytes = 0;
    int nbuf = 0;
    assert(p->l.n_out >= 1 && p->l.n_out <= GV_MAX_TENSORS); /* 4 buffers an output at most */
    for (int i = 0; i < p->l.n_out; i++) {
        gv_tensor *t = &p->out[i];
        size_t b = (size_t)t->count * sizeof(double);
        bufs[nbuf] = t->ref, sizes[nbuf++] = b;
        bufs[nbuf] = t->gauge, sizes[nbuf++] = b;
        if (t->pgauge) bufs[nbuf] = t->pgauge, sizes[nbuf++] = b;
        if (t->ref_lo) bufs[nbuf] = t->ref_lo, sizes[nbuf++] = b;
        bytes += (2 + (t->pgauge != NULL) + (t->ref_lo != NULL)) * b;
    }
    /* which reference the entry holds, where both were possible: 1 exact, 0 the oracle's */
    double kind = 0.0;
    if (p->out[0].ref_lo) bufs[nbuf] = &kind, sizes[nbuf++] = sizeof kind;
    int got = gv_cache_get(dir, key, version, nbuf, bufs, sizes);
    int lock = GV_CACHE_NOT_LOCKED;
    if (got != 1) {
        /* another process sharing the cache may be computing this very entry: wait for it and
           look again, rather than compute it on the same cores at the same time (cache.h) */
        lock = gv_cache_lock(dir, key);
        if (lock != GV_CACHE_NOT_LOCKED && got == 0)
            got = gv_cache_get(dir, key, version, nbuf, bufs, sizes);
    }
    if (got == 1) {
        gv_cache_unlock(lock);
        counts.hits++;
        *hit = true;
        p->ref_exact = kind == 1.0;
        /* an entry shared by modes whose gauges differ holds the gauges of the mode that made
           it: this case's own, from the reference read back */
        return p->c.op->oracle_ignores_mode && !p->c.op->reference_ignores_mode
                   ? gv_error_gauges(p)
                   : GV_OK;
    }
    counts.misses++;
    if (got < 0) {
        counts.rejected++;
        /* a G never computed must stay NaN (gv_problem_init): undo what a bad entry wrote */
        for (int i = 0; i < p->l.n_out; i++)
            for (int64_t k = 0; p->out[i].pgauge && k < p->out[i].count; k++)
                p->out[i].pgauge[k] = NAN;
    }
    double t0 = now_ms();
    int rc = gv_reference(p);
    double took_ms = now_ms() - t0;
    kind = p->ref_exact ? 1.0 : 0.0;
    /* kept only when computing it is slower than reading it back (cache.h, gv_cache_worth):
       the rest, element-wise adds and stencils whose oracle runs at memory speed, are
       recomputed and counted cheap, so that a warm run's misses are explained */
    if (rc == GV_OK && !gv_cache_worth(took_ms, bytes, gv_cache_min_ms())) {
        counts.cheap++;
        /* a note that it is cheap (no buffers): the next run's case may leave it uncomputed
           until its outputs are back, and then not compute it at all where the judgement is
           kept (gv_reference_kept, judge_memo.h). In check's runs only (gv_cache_memo_enable):
           a library caller judging thousands of small cases would fill the cache with notes
           nothing reads, each put scanning the directory */
        char note[GV_CACHE_MAX_KEY];
        if (memo_on && snprintf(note, sizeof note, "cheap=%s", key) < (int)sizeof note &&
            !gv_cache_has(dir, note, version))
            gv_cache_put(dir, note, version, 0, NULL, NULL, gv_cache_max_bytes());
    } else if (rc == GV_OK) {
        int put = gv_cache_put(dir, key, version, nbuf, (const void *const *)bufs, sizes,
                               gv_cache_max_bytes());
        if (put == GV_OK) counts.stored++;
    }
    gv_cache_unlock(lock);
    return rc;
}

int gv_cache_memo(const char *key, int nbuf, void *const *bufs, const size_t *sizes,
                  int (*make)(void *ctx), void *ctx)
{
    char dir[4096];
    if (!memo_on || !cache_dir(dir, sizeof dir)) return make(ctx);
    char full[GV_CACHE_MAX_KEY];
    if (snprintf(full, sizeof full, "made=%s", key) >= (int)sizeof full) return make(ctx);
    const char *version = gv_cache_version();
    if (gv_cache_get(dir, full, version, nbuf, bufs, sizes) == 1) return GV_OK;
    int lock = gv_cache_lock(dir, full); /* made once for every process (cache.h) */
    if (lock != GV_CACHE_NOT_LOCKED && gv_cache_get(dir, full, version, nbuf, bufs, sizes) == 1) {
        gv_cache_unlock(lock);
        return GV_OK;
    }
    size_t bytes = 0;
    for (int i = 0; i < nbuf; i++)
        bytes += sizes[i];
    double t0 = now_ms();
    int rc = make(ctx);
    /* the reference's rule: kept where making it is slower than reading it back */
    if (rc == GV_OK && now_ms() - t0 > gv_cache_min_ms() + (double)bytes / 2e6)
        gv_cache_put(dir, full, version, nbuf, (const void *const *)bufs, sizes,
                     gv_cache_max_bytes());
    gv_cache_unlock(lock);
    return rc;
}

/* ---- The last run's note: `cache info` explains a warm run's misses ----------------------- */

/* One op's misses in a run: how many cases, the oracle's summed ms, and of what kind. */
typedef struct miss_row {
    const char *op;
    int cases, cheap, stored, other;
    double oracle_ms, max_ms;
} miss_row;

void gv_cache_note_run(const char *command, const gv_result *results, int n)
{
    char dir[4096];
    if (!cache_dir(dir, sizeof dir) || n <= 0) return;
    gv_cache_counts t = {0};
    miss_row rows[64];
    int nrows = 0;
    for (int i = 0; i < n; i++) {
        const gv_result *r = &results[i];
        t.hits += r->cache.hits, t.misses += r->cache.misses, t.stored += r->cache.stored;
        t.cheap += r->cache.cheap, t.rejected += r->cache.rejected;
        if (r->cache.misses <= 0 || !r->c.op) continue;
        int k = 0;
        while (k < nrows && strcmp(rows[k].op, r->c.op->name) != 0)
            k++;
        if (k == nrows) {
            if (nrows == 64) continue; /* the counts above still hold every case */
            rows[nrows++] = (miss_row){.op = r->c.op->name};
        }
        miss_row *m = &rows[k];
        m->cases++;
        m->cheap += r->cache.cheap;
        m->stored += r->cache.stored;
        m->other += r->cache.misses - r->cache.cheap - r->cache.stored;
        m->oracle_ms += r->oracle_ms;
        if (r->oracle_ms > m->max_ms) m->max_ms = r->oracle_ms;
    }
    /* written beside the entries as a name no entry or temporary has (cache.c lists only
       those), whole or not at all: a temporary name of its own, then renamed */
    char path[4200], tmp[4200];
    snprintf(path, sizeof path, "%s/" GV_CACHE_NOTE_NAME, dir);
    snprintf(tmp, sizeof tmp, "%s/" GV_CACHE_NOTE_NAME ".%ld", dir, (long)getpid());
    mkdir(dir, 0755); /* a run that stored nothing yet: the directory may not exist */
    FILE *f = fopen(tmp, "wx");
    if (!f) return;
    time_t now = time(NULL);
    struct tm tm;
    char when[64] = "";
    if (gmtime_r(&now, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    char line[512];
    gv_cache_counts_line(&t, line, sizeof line);
    fprintf(f, "last run   %s, %s, %d cases\n           %s\n", command, when, n, line);
    if (nrows > 0)
        fprintf(f, "misses     %-28s %5s %10s %10s  %s\n", "op", "cases", "oracle ms", "max ms",
                "why");
    for (int k = 0; k < nrows; k++) {
        const miss_row *m = &rows[k];
        const char *why = m->cheap == m->cases   ? "cheap: computing beat reading it back"
                          : m->stored == m->cases ? "stored now: no entry (a new case, a new "
                                                    "version, evicted or rejected)"
                                                  : "mixed: cheap, stored or not kept";
        if (m->other == m->cases) why = "not kept: an oracle error, over the cap, not writable";
        fprintf(f, "           %-28s %5d %10.1f %10.1f  %s\n", m->op, m->cases, m->oracle_ms,
                m->max_ms, why);
    }
    bool ok = fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
}
