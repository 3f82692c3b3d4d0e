/* probe_read.c: the probe document held member by member to its schema (see probe_read.h),
 * so that compare, report and merge decide on what `gpuval probe` writes and nothing else. */
#include "io/probe_read.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/gv.h"
#include "io/json_util.h"

void gv_probe_row_key(const json_t *row, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s/%s", gv_jstr(row, "op"), gv_jstr(row, "dtype"), gv_jstr(row, "mode"));
}

/* Where a rule broke: the file, the row's place and key (none for the document's members). */
typedef struct where {
    const char *name;
    long row; /* -1: a member of the document */
    char key[256];
    char *err;
    size_t len;
} where;

static int bad(const where *w, const char *member, const char *why)
{
    if (w->row >= 0)
        snprintf(w->err, w->len, "%s: row %ld (%s): %s: %s", w->name, w->row, w->key, member, why);
    else
        snprintf(w->err, w->len, "%s: %s: %s", w->name, member, why);
    return GV_EINVAL;
}

static bool nonempty_string(const json_t *v)
{
    return json_is_string(v) && json_string_value(v)[0];
}

/* An integer in [lo, hi] (a JSON integer: the writer writes counts as integers). */
static bool int_in(const json_t *v, long long lo, long long hi)
{
    return json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi;
}

static int check_feature(const where *w, const char *fname, const json_t *x)
{
    char member[128], why[160];
    snprintf(member, sizeof member, "features.%s", fname);
    if (!fname[0]) return bad(w, "features", "a feature with an empty name");
    if (!json_is_object(x)) return bad(w, member, "not an object");
    snprintf(member, sizeof member, "features.%s.value", fname);
    if (!nonempty_string(json_object_get(x, "value")))
        return bad(w, member, json_object_get(x, "value") ? "not a non-empty string" : "missing");
    snprintf(member, sizeof member, "features.%s.verdict", fname);
    const json_t *v = json_object_get(x, "verdict");
    const char *s = json_string_value(v);
    if (!v) return bad(w, member, "missing");
    if (!s || !(strcmp(s, "PASS") == 0 || strcmp(s, "FAIL") == 0 || strcmp(s, "NEW") == 0)) {
        snprintf(why, sizeof why, "'%.60s' is not PASS, FAIL or NEW", s ? s : "(not a string)");
        return bad(w, member, why);
    }
    const json_t *e = json_object_get(x, "expected");
    snprintf(member, sizeof member, "features.%s.expected", fname);
    if (e && !json_is_string(e) && !json_is_null(e)) return bad(w, member, "not a string nor null");
    static const char *const texts[] = {"detail", "source"};
    for (int k = 0; k < 2; k++) {
        const json_t *t = json_object_get(x, texts[k]);
        snprintf(member, sizeof member, "features.%s.%s", fname, texts[k]);
        if (t && !json_is_string(t)) return bad(w, member, "not a string");
    }
    const json_t *c = json_object_get(x, "changed_in_repeats");
    snprintf(member, sizeof member, "features.%s.changed_in_repeats", fname);
    if (c && !int_in(c, 0, 1000000)) return bad(w, member, "not an integer >= 0");
    return GV_OK;
}

static int check_replay(const where *w, const json_t *rp)
{
    if (!json_is_array(rp)) return bad(w, "replay", "not an array");
    size_t i;
    const json_t *x;
    json_array_foreach(rp, i, x)
    {
        char member[64];
        snprintf(member, sizeof member, "replay[%zu]", i);
        if (!json_is_object(x)) return bad(w, member, "not an object");
        const json_t *dots = json_object_get(x, "dots"), *agree = json_object_get(x, "agree");
        if (!int_in(json_object_get(x, "k"), 1, (long long)1 << 40) ||
            !int_in(dots, 0, (long long)1 << 62) || !int_in(agree, 0, (long long)1 << 62) ||
            json_integer_value(agree) > json_integer_value(dots))
            return bad(w, member, "k, dots, agree not integers with k >= 1, 0 <= agree <= dots");
    }
    return GV_OK;
}

static int check_row(where *w, const json_t *r)
{
    if (!json_is_object(r)) return bad(w, "row", "not an object");
    static const char *const names[] = {"op", "dtype", "mode"};
    for (int k = 0; k < 3; k++) {
        const json_t *v = json_object_get(r, names[k]);
        if (!nonempty_string(v)) return bad(w, names[k], v ? "not a non-empty string" : "missing");
    }
    gv_probe_row_key(r, w->key, sizeof w->key);
    const json_t *m = json_object_get(r, "math_mode");
    if (m && !json_is_string(m)) return bad(w, "math_mode", "not a string");
    const json_t *skipped = json_object_get(r, "skipped"), *fs = json_object_get(r, "features");
    if (skipped) {
        if (!json_is_string(skipped)) return bad(w, "skipped", "not a string (why)");
        if (fs) return bad(w, "features", "present in a skipped row");
        return GV_OK;
    }
    if (!fs) return bad(w, "features", "missing (and the row is not skipped)");
    if (!json_is_object(fs) || json_object_size(fs) == 0)
        return bad(w, "features", "not an object of at least one feature");
    const char *fname;
    const json_t *x;
    json_object_foreach((json_t *)fs, fname, x)
    {
        if (check_feature(w, fname, x) != GV_OK) return GV_EINVAL;
    }
    const json_t *rp = json_object_get(r, "replay");
    return rp ? check_replay(w, rp) : GV_OK;
}

int gv_probe_validate(const json_t *doc, const char *name, char *err, size_t len)
{
    where w = {.name = name, .row = -1, .err = err, .len = len};
    const json_t *rows = json_object_get(doc, GV_PROBE_READ_ARRAY);
    if (!json_is_array(rows)) return bad(&w, GV_PROBE_READ_ARRAY, "missing or not an array");
    if (json_array_size(rows) > GV_PROBE_MAX_ROWS)
        return bad(&w, GV_PROBE_READ_ARRAY, "more than 4096 rows (one per op, dtype and mode)");
    const json_t *dev = json_object_get(doc, "device");
    if (dev && !json_is_object(dev) && !json_is_null(dev))
        return bad(&w, "device", "not an object nor null");
    static const char *const objects[] = {"expectations", "summary"};
    for (int k = 0; k < 2; k++) {
        const json_t *o = json_object_get(doc, objects[k]);
        if (o && !json_is_object(o)) return bad(&w, objects[k], "not an object");
    }
    size_t i, j;
    const json_t *r;
    json_array_foreach(rows, i, r)
    {
        w.row = (long)i;
        snprintf(w.key, sizeof w.key, "?");
        if (check_row(&w, r) != GV_OK) return GV_EINVAL;
        /* rows are few (one per op, dtype and mode, at most GV_PROBE_MAX_ROWS): the quadratic
           look for a twin is cheap */
        for (j = 0; j < i; j++) {
            char other[256];
            gv_probe_row_key(json_array_get(rows, j), other, sizeof other);
            if (strcmp(other, w.key) == 0) {
                char why[96];
                snprintf(why, sizeof why, "the same row as row %zu (op, dtype, mode)", j);
                return bad(&w, "key", why);
            }
        }
    }
    return GV_OK;
}
