/* judge_memo.c: a judgement kept in the oracle cache and taken back for the same case, inputs,
 * outputs and host code (judge_memo.h). */
#include "core/judge_memo.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/cache.h"
#include "core/hash.h"
#include "core/judge.h"
#include "core/knobs.h"
#include "core/reference.h"
#include "judge_version.h" /* GV_JUDGE_SRC_HASH, written at every build (meson.build) */

static bool memo_on = false;

/* The names read back, each once a process, in memory shared with the processes forked after
   gv_judge_memo_enable: a case's result crosses from its worker to check's process as bytes
   (core/runner.c), where a pointer into the worker's own heap would point at nothing. The
   workers add to it beside each other (an atomic bump of the used bytes), each keeping its
   own list of the names it placed there. */
enum { ARENA_BYTES = 1 << 20 };
static struct arena {
    size_t used; /* bytes of text after the header, every process's */
    char text[];
} *arena;

void gv_judge_memo_enable(bool on)
{
    if (on && !arena) {
        void *m = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) arena = m; /* zeroed: nothing used */
    }
    memo_on = on && arena;
}

const char *gv_judge_memo_name(int judge_memo)
{
    switch (judge_memo) {
    case GV_JUDGE_MEMO_HIT: return "hit";
    case GV_JUDGE_MEMO_STORED: return "stored";
    case GV_JUDGE_MEMO_MISS: return "miss";
    default: return "off";
    }
}

/* The names of the judgement's extras and checks: in a gv_result they point at the library's
   own strings, whose addresses differ from process to process, so an entry holds the text. */
enum { NAME_LEN = 96 };
typedef struct memo_names {
    char extra[GV_MAX_EXTRA][NAME_LEN];
    char check[GV_MAX_CHECKS][NAME_LEN];
} memo_names;

static const char *intern(const char *s)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct kept {
        struct kept *next;
        const char *text;
    } *head;
    if (!arena) return NULL;
    pthread_mutex_lock(&lock);
    const char *found = NULL;
    for (struct kept *k = head; k && !found; k = k->next)
        if (strcmp(k->text, s) == 0) found = k->text;
    if (!found) {
        size_t n = strlen(s) + 1, room = ARENA_BYTES - sizeof *arena;
        size_t at = __atomic_fetch_add(&arena->used, n, __ATOMIC_RELAXED);
        struct kept *k = at + n <= room ? malloc(sizeof *k) : NULL;
        if (k) {
            memcpy(arena->text + at, s, n);
            k->text = arena->text + at;
            k->next = head;
            head = k;
            found = k->text;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

/* The entry's key: the case, its inputs' and outputs' hashes, the mode the kernel reported.
   False where an output is missing. */
static bool memo_key(const gv_problem *p, const gv_result *r, char *key, size_t len)
{
    const gv_case *c = &p->c;
    uint64_t out = 0;
    for (int i = 0; i < p->l.n_out; i++) {
        if (!p->out[i].data) return false;
        out = gv_xxh64_chunked(p->out[i].data, (size_t)p->out[i].count * gv_dtype_size(c->dtype),
                               out);
    }
    int n = snprintf(key, len,
                     "judgement;op=%s;dtype=%s;mode=%s;dist=%s;seed=%" PRIu64
                     ";inputs=%016" PRIx64 ";outputs=%016" PRIx64 ";n_out=%d;math=%s;shape=",
                     c->op->name, gv_dtype_name(c->dtype), gv_mode_name(c->mode),
                     gv_dist_name(c->dist), c->seed, p->in_hash, out, p->l.n_out, r->math_mode);
    for (int i = 0; i < c->shape.nd && n > 0 && (size_t)n < len; i++)
        n += snprintf(key + n, len - (size_t)n, "%s%" PRId64, i ? "x" : "", c->shape.d[i]);
    return n > 0 && (size_t)n < len;
}

/* The entry's version: the judge's sources and compiler, the result's layout and the oracle
   cache's version (the sources and libraries that make the reference). */
static char version[1400];

/* The compiler's settings that can change floating-point code: a build with another one
   (fast math, FMA contraction on, a sanitizer) judges afresh. */
static const char *build_flags(void)
{
    return ""
#ifdef __FAST_MATH__
           " fast-math"
#endif
#ifdef __FMA__
           " fma"
#endif
#ifdef __AVX2__
           " avx2"
#endif
#ifdef __AVX512F__
           " avx512f"
#endif
#ifdef __OPTIMIZE__
           " optimize"
#endif
#ifdef __SANITIZE_ADDRESS__
           " asan"
#endif
#ifdef NDEBUG
           " ndebug"
#endif
        ;
}

static void set_version(void)
{
    snprintf(version, sizeof version,
             "judgement 1; judge sources %s; result %zu bytes; cc %s%s; %s", GV_JUDGE_SRC_HASH,
             sizeof(gv_result), __VERSION__, build_flags(), gv_cache_version());
}

static const char *memo_version(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, set_version);
    return version;
}

/* What a stored judgement must agree with before it is taken: the same case (the key's hash
   could name another file's key only by a collision the cache checks; this is the contents'). */
static bool memo_fits(const gv_result *m, const gv_result *r, const memo_names *names)
{
    if (m->c.dtype != r->c.dtype || m->c.mode != r->c.mode || m->c.dist != r->c.dist ||
        m->c.seed != r->c.seed || m->c.shape.nd != r->c.shape.nd)
        return false;
    for (int d = 0; d < m->c.shape.nd && d < GV_MAX_DIMS; d++)
        if (m->c.shape.d[d] != r->c.shape.d[d]) return false;
    if (m->n_extra < 0 || m->n_extra > GV_MAX_EXTRA || m->n_checks < 0 ||
        m->n_checks > GV_MAX_CHECKS || (unsigned)m->verdict > GV_ERROR || !m->have_hash)
        return false;
    for (int i = 0; i < m->n_extra; i++)
        if (!memchr(names->extra[i], 0, NAME_LEN)) return false;
    for (int i = 0; i < m->n_checks; i++)
        if (!memchr(names->check[i], 0, NAME_LEN)) return false;
    return strcmp(m->math_mode, r->math_mode) == 0;
}

/* r takes the stored judgement m, keeping what is this run's own; false (r untouched) where
   a name found no room. */
static bool memo_adopt(gv_result *r, const gv_result *m, const memo_names *names)
{
    const char *extra[GV_MAX_EXTRA], *check[GV_MAX_CHECKS];
    for (int i = 0; i < m->n_extra; i++)
        if (!(extra[i] = intern(names->extra[i]))) return false;
    for (int i = 0; i < m->n_checks; i++)
        if (!(check[i] = intern(names->check[i]))) return false;
    gv_result now = *r;
    *r = *m;
    r->c = now.c;
    r->inputs_ms = now.inputs_ms, r->oracle_ms = now.oracle_ms, r->device_ms = now.device_ms;
    r->judge_ms = now.judge_ms;
    r->bytes_needed = now.bytes_needed, r->bytes_free = now.bytes_free;
    r->cache = now.cache;
    r->output_lost = now.output_lost;
    for (int i = 0; i < r->n_extra; i++)
        r->extra[i].name = extra[i];
    for (int i = 0; i < r->n_checks; i++)
        r->checks[i].name = check[i];
    return true;
}

/* The judgement r as an entry: its run's own numbers cleared, the names as text. False where
   a name does not fit. */
static bool memo_pack(const gv_result *r, gv_result *m, memo_names *names)
{
    *m = *r;
    m->c.op = NULL;
    m->inputs_ms = m->oracle_ms = m->device_ms = m->judge_ms = 0;
    m->bytes_free = 0;
    memset(&m->cache, 0, sizeof m->cache);
    memset(names, 0, sizeof *names);
    for (int i = 0; i < r->n_extra; i++) {
        if (!r->extra[i].name || strlen(r->extra[i].name) >= NAME_LEN) return false;
        strcpy(names->extra[i], r->extra[i].name);
        m->extra[i].name = NULL;
    }
    for (int i = 0; i < r->n_checks; i++) {
        if (!r->checks[i].name || strlen(r->checks[i].name) >= NAME_LEN) return false;
        strcpy(names->check[i], r->checks[i].name);
        m->checks[i].name = NULL;
    }
    return true;
}

bool gv_judge_memo_may(const gv_result *r, int repeat)
{
    return memo_on && !gv_knobs()->no_judge_cache && repeat <= 1 &&
           r->inputs == GV_INPUTS_GENERATED && !r->ftz_allowed && !r->daz_allowed;
}

/* The entry's key into key, and the two buffers; false where the memo does not apply. */
static bool memo_open(const gv_problem *p, const gv_result *r, int repeat, char *dir, size_t dlen,
                      char *key, size_t klen)
{
    return gv_judge_memo_may(r, repeat) && !r->guard[0] && r->env.arch == 0 &&
           p->in_hash_known && gv_cache_run_dir(dir, dlen) && memo_key(p, r, key, klen);
}

int gv_judge_memo_take(const gv_problem *p, gv_result *r, int repeat)
{
    char dir[4096], key[1024];
    if (!memo_open(p, r, repeat, dir, sizeof dir, key, sizeof key)) return GV_JUDGE_MEMO_OFF;
    gv_result *m = malloc(sizeof *m);
    memo_names *names = malloc(sizeof *names);
    int got = GV_JUDGE_MEMO_MISS;
    void *bufs[2] = {m, names};
    size_t sizes[2] = {sizeof *m, sizeof *names};
    if (m && names && gv_cache_get(dir, key, memo_version(), 2, bufs, sizes) == 1 &&
        memo_fits(m, r, names) && memo_adopt(r, m, names)) {
        r->judge_memo = GV_JUDGE_MEMO_HIT;
        got = GV_JUDGE_MEMO_HIT;
    }
    free(m);
    free(names);
    return got;
}

void gv_judge_memo_store(const gv_problem *p, gv_result *r, int repeat)
{
    char dir[4096], key[1024];
    r->judge_memo = GV_JUDGE_MEMO_OFF;
    if (!memo_open(p, r, repeat, dir, sizeof dir, key, sizeof key)) return;
    r->judge_memo = GV_JUDGE_MEMO_MISS;
    gv_result *m = malloc(sizeof *m);
    memo_names *names = malloc(sizeof *names);
    const void *bufs[2] = {m, names};
    size_t sizes[2] = {sizeof *m, sizeof *names};
    if (m && names && memo_pack(r, m, names) &&
        gv_cache_put(dir, key, memo_version(), 2, bufs, sizes, gv_cache_max_bytes()) == GV_OK)
        r->judge_memo = GV_JUDGE_MEMO_STORED;
    free(m);
    free(names);
}

void gv_judge_or_memo(const gv_problem *p, gv_result *r, int repeat)
{
    if (gv_judge_memo_take(p, r, repeat) == GV_JUDGE_MEMO_HIT) return;
    gv_judge_problem(p, r);
    gv_judge_memo_store(p, r, repeat);
}
