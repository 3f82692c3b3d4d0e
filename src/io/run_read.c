/* run_read.c: the one strict reader of run files (run_read.h) — the file opened without
 * waiting on it, parsed whole, and held member by member to the schema it names, so that
 * compare, merge and report decide on what gpuval writes and nothing else. */
#include "io/run_read.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gv.h"
#include "core/hash.h"
#include "io/json_util.h"
#include "io/probe_read.h"
#include "io/schemas.h"

/* The kinds of document the reader knows (their names from io/schemas.h, the writers' own)
   and the array each must hold. */
static const struct {
    gv_doc_kind kind;
    const char *array;
} known[] = {
    {GV_DOC_RUN, "cases"},        {GV_DOC_BENCH, "cases"},
    {GV_DOC_TRADEOFFS, "groups"}, {GV_DOC_COLLECTIVES, "collectives"},
    {GV_DOC_CASE, NULL}, /* case.json of --dump-failures: one case, its result inside */
    {GV_DOC_PROBE, GV_PROBE_READ_ARRAY}, /* probe --json: io/probe_read.h's rules */
};
enum { N_KNOWN = sizeof known / sizeof known[0] };

bool gv_run_verdict_ok(const char *v)
{
    return v && (strcmp(v, "PASS") == 0 || strcmp(v, "FAIL") == 0 || strcmp(v, "SKIP") == 0 ||
                 strcmp(v, "ERROR") == 0);
}

long long gv_jint_in(const json_t *o, const char *path, long long lo, long long hi,
                     long long missing)
{
    const json_t *v = gv_jget(o, path);
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        return x >= lo && x <= hi ? (long long)x : missing;
    }
    if (!json_is_real(v)) return missing;
    double x = json_real_value(v);
    /* compared as doubles before the conversion: a double outside long long's range (or NaN)
       never reaches the cast */
    if (!(x >= (double)lo && x <= (double)hi) || x != floor(x)) return missing;
    return (long long)x;
}

/* ---- keys --------------------------------------------------------------------------------- */

/* The seed of c as an unsigned decimal into buf; false when it is not one. */
static bool seed_text(const json_t *s, char *buf, size_t len)
{
    if (json_is_integer(s)) {
        /* a negative integer is a seed >= 2^63 from a file written before seeds were strings */
        snprintf(buf, len, "%llu", (unsigned long long)json_integer_value(s));
        return true;
    }
    if (!json_is_string(s)) return false;
    const char *t = json_string_value(s);
    size_t n = strlen(t);
    if (n == 0 || n > 20 || strspn(t, "0123456789") != n) return false;
    /* below 2^64: 20 digits only up to 18446744073709551615 */
    if (n == 20 && strcmp(t, "18446744073709551615") > 0) return false;
    snprintf(buf, len, "%s", t);
    return true;
}

/* a and b after buf[0..at) (cut to len): the new end */
static size_t key_append(char *buf, size_t len, size_t at, const char *a, const char *b)
{
    if (at >= len) return len;
    int n = snprintf(buf + at, len - at, "%s%s", a, b);
    return n > 0 && (size_t)n < len - at ? at + (size_t)n : len;
}

void gv_run_case_key(const json_t *c, char *buf, size_t len)
{
    char shape[128] = "", seed[32] = "?";
    size_t used = 0, i;
    const json_t *d;
    json_array_foreach(json_object_get(c, "shape"), i, d)
    {
        long long v = json_is_integer(d) ? (long long)json_integer_value(d) : -1;
        used += (size_t)snprintf(shape + used, used < sizeof shape ? sizeof shape - used : 0,
                                 "%s%lld", i ? "x" : "", v);
    }
    seed_text(json_object_get(c, "seed"), seed, sizeof seed);
    int n = snprintf(buf, len, "%s %s/%s/%s/%s %s", gv_jstr(c, "op"), gv_jstr(c, "dtype"),
                     gv_jstr(c, "mode"), gv_jstr(c, "dist"), shape, seed);
    /* inputs gpuval did not make: the files' digests are part of the case, so that such a case
       matches only a case of the same bytes, never a generated one (whose dist and seed it
       carries); one written before the digests were recorded matches nothing but its like */
    const char *from = gv_jstr(c, "inputs");
    if (!*from || strcmp(from, "generated") == 0) return;
    size_t at = n > 0 && (size_t)n < len ? (size_t)n : len;
    const json_t *files = json_object_get(c, "input_files");
    bool recorded = json_is_array(files) && json_array_size(files) > 0;
    at = key_append(buf, len, at, " inputs:", recorded ? "" : "unrecorded");
    json_array_foreach(recorded ? files : NULL, i, d) at =
        key_append(buf, len, at, i ? "," : "", gv_jstr(d, "sha256"));
}

static uint64_t key_hash(const char *k)
{
    return gv_xxh64(k, strlen(k), 0x9e3779b97f4a7c15ull);
}

/* The slot of key: where it is, or the empty one where it would go. */
static size_t probe(const gv_run_index *ix, const char *key)
{
    size_t mask = ix->cap - 1, s = (size_t)key_hash(key) & mask;
    while (ix->slot[s] >= 0 && strcmp(ix->keys[ix->slot[s]], key) != 0)
        s = (s + 1) & mask;
    return s;
}

int gv_run_index_build(const json_t *cases, gv_run_index *ix, size_t *first, size_t *again)
{
    memset(ix, 0, sizeof *ix);
    ix->n = json_array_size(cases);
    ix->cap = 16;
    while (ix->cap < 2 * ix->n)
        ix->cap *= 2;
    ix->keys = malloc((ix->n + 1) * sizeof *ix->keys);
    ix->slot = malloc(ix->cap * sizeof *ix->slot);
    if (!ix->keys || !ix->slot) return GV_ENOMEM;
    for (size_t s = 0; s < ix->cap; s++)
        ix->slot[s] = -1;
    for (size_t i = 0; i < ix->n; i++) {
        gv_run_case_key(json_array_get(cases, i), ix->keys[i], sizeof ix->keys[i]);
        size_t s = probe(ix, ix->keys[i]);
        if (ix->slot[s] >= 0) {
            *first = (size_t)ix->slot[s];
            *again = i;
            return GV_EINVAL;
        }
        ix->slot[s] = (long long)i;
    }
    return GV_OK;
}

long long gv_run_index_find(const gv_run_index *ix, const char *key)
{
    if (!ix->slot) return -1;
    return ix->slot[probe(ix, key)];
}

void gv_run_index_free(gv_run_index *ix)
{
    free(ix->keys);
    free(ix->slot);
    memset(ix, 0, sizeof *ix);
}

/* ---- members ------------------------------------------------------------------------------ */

/* Where a complaint is put: the file's name, the case's place and key. */
typedef struct where {
    const char *name;
    const char *what; /* "case", "row", "collective" */
    size_t index;
    char key[GV_RUN_KEY_LEN];
    char *err;
    size_t len;
} where;

static int bad(const where *w, const char *member, const char *fmt, const char *value)
{
    char why[256];
    snprintf(why, sizeof why, fmt, value);
    if (w->what)
        snprintf(w->err, w->len, "%s: %s %zu (%s): %s: %s", w->name, w->what, w->index, w->key,
                 member, why);
    else
        snprintf(w->err, w->len, "%s: %s: %s", w->name, member, why);
    return GV_EINVAL;
}

static int need_string(const where *w, const json_t *c, const char *member)
{
    const json_t *v = json_object_get(c, member);
    if (!v) return bad(w, member, "missing%s", "");
    if (!json_is_string(v) || !json_string_value(v)[0])
        return bad(w, member, "not a non-empty string%s", "");
    return GV_OK;
}

/* A number as gpuval writes one: a JSON number or "inf", "-inf", "nan"; absent or null when
   optional. *x: its value (NaN when absent). */
static int need_number(const where *w, const json_t *o, const char *path, bool required, double *x)
{
    const json_t *v = gv_jget(o, path);
    *x = NAN;
    if (!v || json_is_null(v)) return required ? bad(w, path, "missing%s", "") : GV_OK;
    if (json_is_number(v)) {
        *x = json_number_value(v);
        return GV_OK;
    }
    const char *s = json_string_value(v);
    if (s && (strcmp(s, "inf") == 0 || strcmp(s, "-inf") == 0 || strcmp(s, "nan") == 0)) {
        *x = gv_jval(v);
        return GV_OK;
    }
    return bad(w, path, "not a number (nor \"inf\", \"-inf\", \"nan\")%s", "");
}

static int need_verdict(const where *w, const json_t *c, const char **verdict)
{
    const json_t *v = json_object_get(c, "verdict");
    if (!v) return bad(w, "verdict", "missing%s", "");
    *verdict = json_string_value(v);
    if (!gv_run_verdict_ok(*verdict))
        return bad(w, "verdict", "'%s' is not PASS, FAIL, SKIP or ERROR",
                   *verdict ? *verdict : "(not a string)");
    return GV_OK;
}

/* Accurate bits at path, where present: a number or "inf", "-inf", "nan"; for a PASS a
   non-negative number or +inf (the outputs equal the reference): -inf and NaN never pass. */
static int need_bits(const where *w, const json_t *c, const char *path, bool pass)
{
    double b;
    int rc = need_number(w, c, path, false, &b);
    if (rc != GV_OK || !pass || !gv_jget(c, path) || json_is_null(gv_jget(c, path))) return rc;
    if (isnan(b) || b < 0) return bad(w, path, "%s with verdict PASS", isnan(b) ? "NaN" : "< 0");
    return GV_OK;
}

/* Error sizes a PASS was judged on: never NaN. */
static int need_not_nan(const where *w, const json_t *c, const char *path, bool pass)
{
    double x;
    int rc = need_number(w, c, path, false, &x);
    if (rc == GV_OK && pass && isnan(x) && gv_jget(c, path))
        return bad(w, path, "NaN with verdict PASS%s", "");
    return rc;
}

static int check_shape(const where *w, const json_t *c)
{
    const json_t *s = json_object_get(c, "shape");
    if (!s) return bad(w, "shape", "missing%s", "");
    if (!json_is_array(s) || json_array_size(s) == 0 || json_array_size(s) > 8)
        return bad(w, "shape", "not an array of 1 to 8 sizes%s", "");
    size_t i;
    const json_t *d;
    json_array_foreach(s, i, d)
    {
        if (!json_is_integer(d) || json_integer_value(d) < 0 ||
            json_integer_value(d) > ((json_int_t)1 << 62))
            return bad(w, "shape", "a size that is not an integer in [0, 2^62]%s", "");
    }
    return GV_OK;
}

/* "input_files" (absent in files written before it was recorded; null for generated inputs):
   an array of {"file": string, "sha256": 64 lower-case hex digits}. */
static int check_input_files(where *w, const json_t *c)
{
    const json_t *files = json_object_get(c, "input_files");
    if (!files || json_is_null(files)) return GV_OK;
    if (!json_is_array(files) || json_array_size(files) == 0 || json_array_size(files) > 8)
        return bad(w, "input_files", "not null nor an array of 1 to 8 files%s", "");
    size_t i;
    const json_t *f;
    json_array_foreach(files, i, f)
    {
        const char *h = json_string_value(json_object_get(f, "sha256"));
        if (!json_is_string(json_object_get(f, "file")) || !h || strlen(h) != 64 ||
            strspn(h, "0123456789abcdef") != 64)
            return bad(w, "input_files",
                       "a file that is not {\"file\": name, \"sha256\": 64 hex digits}%s", "");
    }
    return GV_OK;
}

/* What names a case and its verdict: op, dtype, mode, dist, shape, seed, verdict (in *verdict). */
static int check_ident(where *w, const json_t *c, const char **verdict)
{
    if (!json_is_object(c)) return bad(w, "case", "not an object%s", "");
    static const char *const strings[] = {"op", "dtype", "mode", "dist"};
    for (size_t k = 0; k < 4; k++)
        if (need_string(w, c, strings[k]) != GV_OK) return GV_EINVAL;
    if (check_shape(w, c) != GV_OK) return GV_EINVAL;
    char seed[32];
    const json_t *s = json_object_get(c, "seed");
    if (!s) return bad(w, "seed", "missing%s", "");
    if (!seed_text(s, seed, sizeof seed))
        return bad(w, "seed", "not an integer nor a string of decimal digits below 2^64%s", "");
    if (check_input_files(w, c) != GV_OK) return GV_EINVAL;
    gv_run_case_key(c, w->key, sizeof w->key);
    return need_verdict(w, c, verdict);
}

/* One case of gpuval-run/1 or gpuval-bench/1. */
static int check_case(where *w, const json_t *c, bool bench)
{
    const char *verdict;
    if (check_ident(w, c, &verdict) != GV_OK) return GV_EINVAL;
    bool pass = strcmp(verdict, "PASS") == 0;
    if (!bench) {
        const json_t *m = json_object_get(c, "metrics");
        if (m && !json_is_object(m) && !json_is_null(m))
            return bad(w, "metrics", "not an object%s", "");
        if (m && need_bits(w, c, "metrics.accurate_bits", pass) != GV_OK) return GV_EINVAL;
        static const char *const errs[] = {"metrics.max_rel", "metrics.normwise_rel",
                                           "metrics.prob_max", "error_model.ratio"};
        for (size_t k = 0; k < 4; k++)
            if (need_not_nan(w, c, errs[k], pass) != GV_OK) return GV_EINVAL;
        return GV_OK;
    }
    const json_t *judged = gv_jget(c, "sanity.judged");
    bool j = json_is_true(judged);
    if (j && need_bits(w, c, "sanity.accurate_bits", pass) != GV_OK) return GV_EINVAL;
    static const char *const errs[] = {"sanity.max_rel", "sanity.normwise_rel", "sanity.ratio"};
    for (size_t k = 0; k < 3; k++)
        if (need_not_nan(w, c, errs[k], pass && j) != GV_OK) return GV_EINVAL;
    const json_t *timings = json_object_get(c, "timings"), *t;
    const char *scope;
    if (timings && !json_is_object(timings)) return bad(w, "timings", "not an object%s", "");
    json_object_foreach((json_t *)timings, scope, t)
    {
        const json_t *samples = json_object_get(t, "samples_ms");
        if (!samples) continue;
        char member[96];
        snprintf(member, sizeof member, "timings.%s.samples_ms", scope);
        if (!json_is_array(samples)) return bad(w, member, "not an array%s", "");
        size_t i;
        const json_t *v;
        json_array_foreach(samples, i, v)
        {
            double x = json_is_number(v) ? json_number_value(v) : NAN;
            if (!(isfinite(x) && x >= 0)) {
                char at[32];
                snprintf(at, sizeof at, "%zu", i);
                return bad(w, member, "sample %s is not a finite number >= 0", at);
            }
        }
    }
    return GV_OK;
}

static int check_cases(where *w, const json_t *cases, bool bench)
{
    size_t i;
    const json_t *c;
    w->what = "case";
    json_array_foreach(cases, i, c)
    {
        w->index = i;
        snprintf(w->key, sizeof w->key, "?");
        if (check_case(w, c, bench) != GV_OK) return GV_EINVAL;
    }
    gv_run_index ix;
    size_t first = 0, again = 0;
    int rc = gv_run_index_build(cases, &ix, &first, &again);
    if (rc == GV_EINVAL) {
        w->index = again;
        snprintf(w->key, sizeof w->key, "%s", ix.keys[again]);
        char at[32];
        snprintf(at, sizeof at, "%zu", first);
        bad(w, "key", "the same case as case %s (op, dtype, mode, dist, shape, seed)", at);
    } else if (rc != GV_OK) {
        snprintf(w->err, w->len, "%s: out of memory", w->name);
    }
    gv_run_index_free(&ix);
    return rc;
}

static int check_tradeoffs(where *w, const json_t *groups)
{
    size_t g, i;
    const json_t *grp, *row;
    w->what = "row";
    json_array_foreach(groups, g, grp)
    {
        const json_t *rows = json_object_get(grp, "rows");
        snprintf(w->key, sizeof w->key, "group %zu", g);
        if (!json_is_array(rows)) {
            w->index = 0;
            return bad(w, "rows", "missing or not an array%s", "");
        }
        json_array_foreach(rows, i, row)
        {
            w->index = i;
            snprintf(w->key, sizeof w->key, "group %zu %s/%s", g, gv_jstr(row, "dtype"),
                     gv_jstr(row, "mode"));
            if (!json_is_object(row)) return bad(w, "row", "not an object%s", "");
            const char *verdict;
            if (need_verdict(w, row, &verdict) != GV_OK) return GV_EINVAL;
            if (need_bits(w, row, "accurate_bits", strcmp(verdict, "PASS") == 0) != GV_OK)
                return GV_EINVAL;
        }
    }
    return GV_OK;
}

static int check_collectives(where *w, const json_t *doc)
{
    long long ranks = gv_jint_in(doc, "ranks", 1, GV_RUN_MAX_RANKS, -1);
    if (ranks < 0) return bad(w, "ranks", "not an integer in [1, 65536]%s", "");
    if (gv_jget(doc, "rank") && gv_jint_in(doc, "rank", 0, ranks - 1, -1) < 0)
        return bad(w, "rank", "not an integer in [0, ranks)%s", "");
    if (gv_jget(doc, "fleet.device_index") &&
        gv_jint_in(doc, "fleet.device_index", -1, INT32_MAX, -2) < -1)
        return bad(w, "fleet.device_index", "not an integer in [-1, 2^31)%s", "");
    size_t i;
    const json_t *row;
    w->what = "collective";
    json_array_foreach(json_object_get(doc, "collectives"), i, row)
    {
        w->index = i;
        snprintf(w->key, sizeof w->key, "%s %s", gv_jstr(row, "collective"), gv_jstr(row, "dtype"));
        if (!json_is_object(row)) return bad(w, "row", "not an object%s", "");
        const char *verdict;
        if (need_verdict(w, row, &verdict) != GV_OK) return GV_EINVAL;
        if (json_object_get(row, "rank_verdict") &&
            !gv_run_verdict_ok(gv_jstr(row, "rank_verdict")))
            return bad(w, "rank_verdict", "'%s' is not PASS, FAIL, SKIP or ERROR",
                       gv_jstr(row, "rank_verdict"));
        if (gv_jint_in(row, "count", 0, (long long)1 << 62, -1) < 0)
            return bad(w, "count", "not an integer in [0, 2^62]%s", "");
    }
    return GV_OK;
}

int gv_run_validate(const json_t *doc, const char *name, char *err, size_t len)
{
    where w = {.name = name, .err = err, .len = len};
    if (!json_is_object(doc)) return bad(&w, "document", "not a JSON object%s", "");
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!schema) return bad(&w, "no \"schema\" string", "not a gpuval run file%s", "");
    int k = 0;
    while (k < N_KNOWN && !gv_schema_is(schema, known[k].kind))
        k++;
    if (k == N_KNOWN) return bad(&w, "schema", "unknown schema '%s'", schema);
    if (!known[k].array) { /* gpuval-case/1: the case, and its result as a run's case */
        const char *verdict;
        w.what = "case";
        snprintf(w.key, sizeof w.key, "?");
        if (check_ident(&w, doc, &verdict) != GV_OK) return GV_EINVAL;
        const json_t *result = json_object_get(doc, "result");
        return result ? check_case(&w, result, false) : GV_OK;
    }
    if (strcmp(schema, gv_schema(GV_DOC_PROBE)) == 0) return gv_probe_validate(doc, name, err, len);
    const json_t *array = json_object_get(doc, known[k].array);
    if (!json_is_array(array)) return bad(&w, known[k].array, "missing or not an array%s", "");
    switch (k) {
    case 0: return check_cases(&w, array, false);
    case 1: return check_cases(&w, array, true);
    case 2: return check_tradeoffs(&w, array);
    default: return check_collectives(&w, doc);
    }
}

/* ---- the file ----------------------------------------------------------------------------- */

/* Load path as JSON: a regular file, not empty, whole. GV_OK with *doc, or GV_EINVAL with *doc
   NULL and the fault in err. */
static int load(const char *path, json_t **doc, char *err, size_t len)
{
    *doc = NULL;
    /* O_NONBLOCK: a FIFO nobody writes is refused below instead of blocking the open */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, len, "%s: cannot read: %s", path, strerror(errno));
        return GV_EINVAL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, len, "%s: not a regular file", path);
        close(fd);
        return GV_EINVAL;
    }
    if (st.st_size == 0) {
        snprintf(err, len, "%s: empty file (truncated?)", path);
        close(fd);
        return GV_EINVAL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    json_error_t jerr;
    /* through a buffered stream: json_loadfd reads one byte a system call, which made a run
       file with a 10 MB string take a minute */
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(err, len, "%s: cannot read: %s", path, strerror(errno));
        close(fd);
        return GV_EINVAL;
    }
    *doc = json_loadf(f, 0, &jerr);
    fclose(f);
    if (!*doc) {
        if (json_error_code(&jerr) == json_error_premature_end_of_input)
            snprintf(err, len, "%s: truncated: the JSON ends early (line %d, column %d)", path,
                     jerr.line, jerr.column);
        else
            snprintf(err, len, "%s: invalid JSON: %s (line %d, column %d)", path, jerr.text,
                     jerr.line, jerr.column);
        return GV_EINVAL;
    }
    return GV_OK;
}

int gv_run_read(const char *path, const char *const *schemas, json_t **doc, char *err, size_t len)
{
    if (load(path, doc, err, len) != GV_OK) return GV_EINVAL;
    const char *schema = json_string_value(json_object_get(*doc, "schema"));
    bool taken = schemas == NULL, known_schema = false;
    for (int i = 0; !taken && schemas[i]; i++)
        taken = schema && strcmp(schema, schemas[i]) == 0;
    for (int k = 0; schema && k < N_KNOWN; k++)
        known_schema |= gv_schema_is(schema, known[k].kind);
    if (!taken) { /* "PATH: unknown schema 'X': is not a A, B or C run" */
        size_t used = schema
                          ? (size_t)snprintf(err, len, "%s: %sschema '%s': is not a ", path,
                                             known_schema ? "" : "unknown ", schema)
                          : (size_t)snprintf(err, len, "%s: no \"schema\" string: is not a ", path);
        for (int i = 0; schemas[i]; i++)
            used += (size_t)snprintf(err + (used < len ? used : len), used < len ? len - used : 0,
                                     "%s%s",
                                     i == 0           ? ""
                                     : schemas[i + 1] ? ", "
                                                      : " or ",
                                     schemas[i]);
        if (used < len) snprintf(err + used, len - used, " run");
    } else if (gv_run_validate(*doc, path, err, len) == GV_OK) {
        return GV_OK;
    }
    json_decref(*doc);
    *doc = NULL;
    return GV_EINVAL;
}

int gv_doc_read(const char *path, json_t **doc, char *err, size_t len)
{
    if (load(path, doc, err, len) != GV_OK) return GV_EINVAL;
    const char *schema = json_string_value(json_object_get(*doc, "schema"));
    for (int k = 0; schema && k < N_KNOWN; k++)
        if (gv_schema_is(schema, known[k].kind)) {
            if (gv_run_validate(*doc, path, err, len) == GV_OK) return GV_OK;
            json_decref(*doc);
            *doc = NULL;
            return GV_EINVAL;
        }
    if (json_is_object(*doc) && gv_doc_kind_of(schema) != GV_DOC_COUNT) return GV_OK;
    if (!json_is_object(*doc))
        snprintf(err, len, "%s: document: not a JSON object", path);
    else if (schema)
        snprintf(err, len, "%s: schema: unknown schema '%s'", path, schema);
    else
        snprintf(err, len, "%s: no \"schema\" string: not a gpuval document", path);
    json_decref(*doc);
    *doc = NULL;
    return GV_EINVAL;
}
