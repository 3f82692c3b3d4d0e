/* screen_golden.c: the golden digest file of `gpuval screen` (screen_golden.h). One entry per GPU
 * model and software (the model's name, the driver, the CUDA runtime and cuBLAS versions, as the
 * run recorded them), each holding the output digest of every deterministic case by its case key
 * (the key compare and merge match cases by). The same model with the same software must write
 * the same bits; another driver or cuBLAS may legitimately choose other kernels, so it is
 * another entry. The reader is strict: a file that is not exactly this format is refused with
 * the reason, never half read. */
#include "fleet/screen_golden.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench/stats.h"
#include "core/gv.h"
#include "fleet/screen_health.h"
#include "runs/run_files.h"
#include "io/json_util.h"
#include "io/run_read.h"
#include "io/schemas.h"

#ifndef GV_VERSION
#define GV_VERSION "unknown"
#endif

bool gv_screen_golden_key(const json_t *run, char *buf, size_t len)
{
    const json_t *dev = json_object_get(run, "device");
    const json_t *name = json_object_get(dev, "name"),
                 *drv = json_object_get(dev, "driver_version"),
                 *rt = json_object_get(dev, "runtime_version"),
                 *cb = json_object_get(dev, "cublas_version");
    if (!json_is_string(name) || !json_is_integer(drv) || !json_is_integer(rt) ||
        !json_is_integer(cb))
        return false;
    snprintf(buf, len, "%s, driver %lld, runtime %lld, cuBLAS %lld", json_string_value(name),
             (long long)json_integer_value(drv), (long long)json_integer_value(rt),
             (long long)json_integer_value(cb));
    return true;
}

/* The key of a golden entry, as gv_screen_golden_key writes a run's. */
static void entry_key(const json_t *e, char *buf, size_t len)
{
    snprintf(buf, len, "%s, driver %lld, runtime %lld, cuBLAS %lld", gv_jstr(e, "gpu"),
             (long long)json_integer_value(json_object_get(e, "driver")),
             (long long)json_integer_value(json_object_get(e, "runtime")),
             (long long)json_integer_value(json_object_get(e, "cublas")));
}

/* "0x" and 16 lowercase or uppercase hex digits: a digest as gv_digest_format writes it */
static bool digest_ok(const char *s)
{
    if (!s || strncmp(s, "0x", 2) != 0 || strlen(s) != 18) return false;
    return strspn(s + 2, "0123456789abcdefABCDEF") == 16;
}

/* Whether every member of o is one of names (NULL-terminated); the first other into *bad. */
static bool only_members(const json_t *o, const char *const *names, const char **bad)
{
    const char *k;
    const json_t *val;
    json_object_foreach((json_t *)o, k, val)
    {
        bool known = false;
        for (int i = 0; names[i] && !known; i++)
            known = strcmp(k, names[i]) == 0;
        if (!known) {
            *bad = k;
            return false;
        }
    }
    return true;
}

/* An entry's "perf": absent, or an object of known speeds with positive values. */
static int validate_perf(const json_t *perf, const char *name, size_t i, char *err, size_t len)
{
    if (!perf) return GV_OK;
    if (!json_is_object(perf)) {
        snprintf(err, len, "%s: entry %zu: \"perf\" is not an object", name, i);
        return GV_EINVAL;
    }
    const char *pk;
    const json_t *pv;
    json_object_foreach((json_t *)perf, pk, pv)
    {
        bool known = false;
        for (int m = 0; m < GV_SCREEN_NPERF && !known; m++)
            known = strcmp(pk, gv_screen_perf_key(m)) == 0;
        double x = json_is_number(pv) ? json_number_value(pv) : -1;
        if (!known || !(x > 0 && x < 1e12)) {
            snprintf(err, len,
                     "%s: entry %zu: perf \"%s\" is not a known speed with a positive "
                     "value",
                     name, i, pk);
            return GV_EINVAL;
        }
    }
    return GV_OK;
}

/* Entry i of entries on its own: its members, its key's fields, its digests and its perf; then
   that no earlier entry has its key. */
static int validate_entry(const json_t *entries, size_t i, const char *name, char *err, size_t len)
{
    static const char *const fields[] = {"gpu",     "driver",  "runtime", "cublas", "recorded",
                                         "digests", "perf",    NULL};
    const json_t *e = json_array_get(entries, i);
    const char *bad = NULL;
    if (!json_is_object(e)) {
        snprintf(err, len, "%s: entry %zu is not an object", name, i);
        return GV_EINVAL;
    }
    if (!only_members(e, fields, &bad)) {
        snprintf(err, len, "%s: entry %zu: unknown member \"%s\"", name, i, bad);
        return GV_EINVAL;
    }
    if (!json_is_string(json_object_get(e, "gpu")) ||
        !json_is_integer(json_object_get(e, "driver")) ||
        !json_is_integer(json_object_get(e, "runtime")) ||
        !json_is_integer(json_object_get(e, "cublas"))) {
        snprintf(err, len,
                 "%s: entry %zu: needs \"gpu\" (a string) and \"driver\", \"runtime\", "
                 "\"cublas\" (integers, as the run document records them)",
                 name, i);
        return GV_EINVAL;
    }
    const json_t *rec = json_object_get(e, "recorded");
    if (rec && !json_is_string(rec)) {
        snprintf(err, len, "%s: entry %zu: \"recorded\" is not a string", name, i);
        return GV_EINVAL;
    }
    const json_t *digests = json_object_get(e, "digests");
    if (!json_is_object(digests)) {
        snprintf(err, len, "%s: entry %zu: \"digests\" is not an object", name, i);
        return GV_EINVAL;
    }
    const char *k;
    const json_t *d;
    json_object_foreach((json_t *)digests, k, d)
    {
        if (!digest_ok(json_string_value(d))) {
            snprintf(err, len, "%s: entry %zu: the digest of '%s' is not 0x and 16 hex digits",
                     name, i, k);
            return GV_EINVAL;
        }
    }
    if (validate_perf(json_object_get(e, "perf"), name, i, err, len) != GV_OK) return GV_EINVAL;
    char key[320], other[320];
    entry_key(e, key, sizeof key);
    for (size_t j = 0; j < i; j++) {
        entry_key(json_array_get(entries, j), other, sizeof other);
        if (strcmp(key, other) == 0) {
            snprintf(err, len, "%s: entries %zu and %zu are both for %s", name, j, i, key);
            return GV_EINVAL;
        }
    }
    return GV_OK;
}

int gv_screen_golden_validate(const json_t *g, const char *name, char *err, size_t len)
{
    static const char *const top[] = {"schema", "tool", "created", "entries", NULL};
    const char *bad = NULL;
    if (!json_is_object(g)) {
        snprintf(err, len, "%s: not a JSON object: not a golden file", name);
        return GV_EINVAL;
    }
    const char *schema = json_string_value(json_object_get(g, "schema"));
    if (!gv_schema_is(schema, GV_DOC_GOLDEN)) {
        snprintf(err, len,
                 "%s: schema '%s': not a golden file (%s; gpuval screen --record "
                 "writes one)",
                 name, schema ? schema : "(none)", gv_schema(GV_DOC_GOLDEN));
        return GV_EINVAL;
    }
    if (!only_members(g, top, &bad)) {
        snprintf(err, len,
                 "%s: unknown member \"%s\" (a golden file has schema, tool, created, "
                 "entries)",
                 name, bad);
        return GV_EINVAL;
    }
    const json_t *entries = json_object_get(g, "entries");
    if (!json_is_array(entries)) {
        snprintf(err, len, "%s: \"entries\" is not an array", name);
        return GV_EINVAL;
    }
    for (size_t i = 0; i < json_array_size(entries); i++)
        if (validate_entry(entries, i, name, err, len) != GV_OK) return GV_EINVAL;
    return GV_OK;
}

int gv_screen_golden_read(const char *path, json_t **golden, char *err, size_t len)
{
    *golden = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        return GV_EINVAL;
    }
    json_error_t je;
    json_t *doc = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!doc) {
        snprintf(err, len, "%s: not JSON (line %d, column %d: %s)", path, je.line, je.column,
                 je.text);
        return GV_EINVAL;
    }
    if (gv_screen_golden_validate(doc, path, err, len) != GV_OK) {
        json_decref(doc);
        return GV_EINVAL;
    }
    *golden = doc;
    return GV_OK;
}

const json_t *gv_screen_golden_entry(const json_t *golden, const char *key)
{
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(golden, "entries"), i, e)
    {
        char k[320];
        entry_key(e, k, sizeof k);
        if (strcmp(k, key) == 0) return e;
    }
    return NULL;
}

/* The entry of run's key in entries, made (empty) when there is none. */
static json_t *entry_for(json_t *entries, const json_t *run, const char *key, const char *now)
{
    size_t i;
    json_t *e;
    json_array_foreach(entries, i, e)
    {
        char k[320];
        entry_key(e, k, sizeof k);
        if (strcmp(k, key) == 0) {
            json_object_set_new(e, "recorded", json_string(now));
            return e;
        }
    }
    const json_t *dev = json_object_get(run, "device");
    e = json_pack("{s:s, s:O, s:O, s:O, s:s, s:{}}", "gpu", gv_jstr(dev, "name"), "driver",
                  json_object_get(dev, "driver_version"), "runtime",
                  json_object_get(dev, "runtime_version"), "cublas",
                  json_object_get(dev, "cublas_version"), "recorded", now, "digests");
    json_array_append_new(entries, e);
    return e;
}

/* Each entry the record touched gains "perf": per speed, the median over the node's GPUs of its
   key that timed it (a key none timed keeps what it had). */
static void record_perf(json_t *entries, json_t *const *docs, int n)
{
    size_t i;
    json_t *e;
    json_array_foreach(entries, i, e)
    {
        char key[320];
        entry_key(e, key, sizeof key);
        json_t *perf = NULL;
        for (int m = 0; m < GV_SCREEN_NPERF; m++) {
            double x[GV_FLEET_MAX_DEVICES];
            int k = 0;
            for (int r = 0; r < n && k < GV_FLEET_MAX_DEVICES; r++) {
                char rk[320];
                if (!docs[r] || !gv_screen_golden_key(docs[r], rk, sizeof rk) || strcmp(rk, key))
                    continue;
                double v[GV_SCREEN_NPERF];
                gv_screen_perf_read(json_object_get(json_object_get(docs[r], "screen"), "perf"), v);
                if (v[m] > 0) x[k++] = v[m];
            }
            if (!k) continue;
            if (!perf) perf = json_object();
            json_object_set_new(perf, gv_screen_perf_key(m), json_real(gv_median(x, k)));
        }
        if (perf) json_object_set_new(e, "perf", perf);
    }
}

json_t *gv_screen_golden_record(const json_t *prev, json_t *const *docs, int n, char *err,
                                size_t len)
{
    char now[64];
    gv_json_now(now, sizeof now);
    json_t *entries = prev ? json_deep_copy(json_object_get(prev, "entries")) : json_array();
    json_t *fresh = json_object(); /* the keys this record has set, case key -> the run's file */
    for (int r = 0; r < n; r++) {
        if (!docs[r]) continue;
        char key[320];
        if (!gv_screen_golden_key(docs[r], key, sizeof key)) {
            snprintf(err, len,
                     "run %d has no device fingerprint (name, driver, runtime, cuBLAS): "
                     "nothing to record",
                     r);
            goto fail;
        }
        json_t *e = entry_for(entries, docs[r], key, now);
        json_t *digests = json_object_get(e, "digests");
        json_t *seen = json_object_get(fresh, key);
        if (!seen) {
            seen = json_object();
            json_object_set_new(fresh, key, seen);
        }
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(docs[r], "cases"), i, c)
        {
            const char *verdict = gv_jstr(c, "verdict"),
                       *hash = json_string_value(json_object_get(c, "output_hash"));
            if (!json_is_true(json_object_get(c, "deterministic")) || !hash ||
                strcmp(verdict, "SKIP") == 0 || strcmp(verdict, "ERROR") == 0)
                continue;
            char ck[512];
            gv_run_case_key(c, ck, sizeof ck);
            const char *had = json_string_value(json_object_get(seen, ck));
            if (had && strcmp(had, hash) != 0) {
                snprintf(err, len, "GPUs of %s disagree on %s (%s and %s): not recorded", key, ck,
                         had, hash);
                goto fail;
            }
            json_object_set_new(seen, ck, json_string(hash));
            json_object_set_new(digests, ck, json_string(hash));
        }
    }
    json_decref(fresh);
    record_perf(entries, docs, n);
    return json_pack("{s:s, s:{s:s, s:s}, s:s, s:o}", "schema", gv_schema(GV_DOC_GOLDEN), "tool",
                     "name", "gpuval", "version", GV_VERSION, "created", now, "entries", entries);
fail:
    json_decref(fresh);
    json_decref(entries);
    return NULL;
}
