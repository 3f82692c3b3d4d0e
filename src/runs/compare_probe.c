/* compare_probe.c: two probe documents compared feature by feature (see compare_probe.h). The
 * documents come through the strict reader (io/probe_read.h), so every row has its op, dtype
 * and mode, and every feature its value and verdict. */
#include "runs/compare_probe.h"

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"
#include "io/json_util.h"
#include "io/probe_read.h"
#include "io/schemas.h"

/* A growing list of one-sided keys, with whether each was measured on its side. */
typedef struct sided {
    char **keys;
    bool *ran;
    int n, cap;
} sided;

static int sided_add(sided *s, const char *key, bool ran)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        char **k = realloc(s->keys, (size_t)(cap + 1) * sizeof *k);
        if (!k) return GV_ENOMEM;
        s->keys = k;
        bool *r = realloc(s->ran, (size_t)(cap + 1) * sizeof *r);
        if (!r) return GV_ENOMEM;
        s->ran = r;
        s->cap = cap;
    }
    if (!(s->keys[s->n] = strdup(key))) return GV_ENOMEM;
    s->ran[s->n++] = ran;
    return GV_OK;
}

/* The row of rows whose key is key, or NULL. */
static const json_t *find_row(const json_t *rows, const char *key)
{
    size_t i;
    const json_t *r;
    json_array_foreach(rows, i, r)
    {
        char k[256];
        gv_probe_row_key(r, k, sizeof k);
        if (strcmp(k, key) == 0) return r;
    }
    return NULL;
}

static gv_cmp_case *new_case(gv_cmp_result *res, int cap, const json_t *row, const char *feature)
{
    assert(res->n_cases < cap); /* the capacity counted every feature and row of both sides */
    gv_cmp_case *cc = &res->cases[res->n_cases++];
    memset(cc, 0, sizeof *cc);
    snprintf(cc->op, sizeof cc->op, "%s", gv_jstr(row, "op"));
    snprintf(cc->name, sizeof cc->name, "%s/%s%s%s", gv_jstr(row, "dtype"), gv_jstr(row, "mode"),
             feature ? " " : "", feature ? feature : "");
    cc->n_items = 1;
    return cc;
}

/* "RNE (PASS)": the expectation a side judged by, or "none" */
static const char *expected_of(const json_t *x)
{
    const char *e = json_string_value(json_object_get(x, "expected"));
    return e ? e : "none";
}

/* One feature present on both sides. */
static void compare_feature(gv_cmp_case *cc, const json_t *xb, const json_t *xn)
{
    gv_cmp_item *it = &cc->items[0];
    snprintf(it->what, sizeof it->what, "value");
    const char *vb = gv_jstr(xb, "value"), *vn = gv_jstr(xn, "value");
    const char *db = gv_jstr(xb, "verdict"), *dn = gv_jstr(xn, "verdict");
    const char *eb = expected_of(xb), *en = expected_of(xn);
    snprintf(it->base, sizeof it->base, "%s", vb);
    snprintf(it->new_, sizeof it->new_, "%s", vn);
    char exp[120];
    if (strcmp(eb, en) == 0)
        snprintf(exp, sizeof exp, "expected %s", eb);
    else
        snprintf(exp, sizeof exp, "expected %s in the base, %s in the new", eb, en);
    if (strcmp(vb, vn) != 0) {
        /* the fingerprint changed: a regression-class change even where both sides still meet
           a lenient expectation */
        it->outcome = GV_CMP_REGRESSED;
        snprintf(it->why, sizeof it->why, "CHANGED; %s: base %s, new %s%s", exp, db, dn,
                 strcmp(db, "PASS") == 0 && strcmp(dn, "PASS") == 0 ? " (both meet it)" : "");
    } else if (strcmp(db, dn) != 0 || strcmp(eb, en) != 0) {
        it->outcome = GV_CMP_SAME;
        snprintf(it->why, sizeof it->why, "same value; %s: base %s, new %s", exp, db, dn);
    } else {
        it->outcome = GV_CMP_SAME;
    }
    cc->outcome = it->outcome;
}

/* A row measured on one side and skipped on the other (or skipped on both). */
static void compare_skips(gv_cmp_case *cc, const json_t *rb, const json_t *rn, gv_cmp_result *res)
{
    gv_cmp_item *it = &cc->items[0];
    const json_t *sb = json_object_get(rb, "skipped"), *sn = json_object_get(rn, "skipped");
    snprintf(it->what, sizeof it->what, "row");
    snprintf(it->base, sizeof it->base, "%s", sb ? "skipped" : "measured");
    snprintf(it->new_, sizeof it->new_, "%s", sn ? "skipped" : "measured");
    if (sb && sn) {
        it->outcome = GV_CMP_SAME;
    } else if (sn) {
        it->outcome = GV_CMP_INCONCLUSIVE;
        res->n_not_run++;
        snprintf(it->why, sizeof it->why, "measured in the base, skipped in the new: %.100s",
                 json_string_value(sn));
    } else {
        it->outcome = GV_CMP_INCONCLUSIVE;
        snprintf(it->why, sizeof it->why, "skipped in the base (%.80s), measured in the new",
                 json_string_value(sb));
    }
    cc->outcome = it->outcome;
}

static size_t features_of(const json_t *rows)
{
    size_t n = 0, i;
    const json_t *r;
    json_array_foreach(rows, i, r) n += json_object_size(json_object_get(r, "features")) + 1;
    return n;
}

int gv_compare_probes(const json_t *base, const json_t *new_doc, gv_cmp_result *res, char *err,
                      size_t err_len)
{
    memset(res, 0, sizeof *res);
    for (int side = 0; side < 2; side++) {
        const char *s = gv_jstr(side ? new_doc : base, "schema");
        if (strcmp(s, gv_schema(GV_DOC_PROBE)) != 0) {
            snprintf(err, err_len, "%s file: '%s' is not a probe document (%s)",
                     side ? "new" : "base", s, gv_schema(GV_DOC_PROBE));
            return GV_EINVAL;
        }
    }
    const json_t *rb = json_object_get(base, "rows"), *rn = json_object_get(new_doc, "rows");
    res->probe = true;
    res->device_differs =
        gv_cmp_device_diff(base, new_doc, res->device_why, sizeof res->device_why);
    int cap = (int)(features_of(rb) + features_of(rn) + 1);
    res->cases = calloc((size_t)cap, sizeof *res->cases);
    if (!res->cases) return GV_ENOMEM;
    sided ob = {0}, on = {0};
    int rc = GV_OK;
    size_t i;
    const json_t *b;
    char key[256], fkey[384];
    json_array_foreach(rb, i, b)
    {
        gv_probe_row_key(b, key, sizeof key);
        const json_t *n = find_row(rn, key);
        bool measured_b = !json_object_get(b, "skipped");
        if (!n) { /* a mode gone: nothing says whether its arithmetic is the same */
            if ((rc = sided_add(&ob, key, measured_b)) != GV_OK) break;
            continue;
        }
        bool measured_n = !json_object_get(n, "skipped");
        if (!measured_b || !measured_n) {
            compare_skips(new_case(res, cap, b, NULL), b, n, res);
            continue;
        }
        const json_t *fb = json_object_get(b, "features"), *fn = json_object_get(n, "features");
        const char *name;
        const json_t *xb;
        json_object_foreach((json_t *)fb, name, xb)
        {
            const json_t *xn = json_object_get(fn, name);
            snprintf(fkey, sizeof fkey, "%s %s", key, name);
            if (!xn) {
                if ((rc = sided_add(&ob, fkey, true)) != GV_OK) break;
                continue;
            }
            compare_feature(new_case(res, cap, b, name), xb, xn);
        }
        json_object_foreach((json_t *)fn, name, xb)
        {
            snprintf(fkey, sizeof fkey, "%s %s", key, name);
            if (rc == GV_OK && !json_object_get(fb, name)) rc = sided_add(&on, fkey, true);
        }
        if (rc != GV_OK) break;
    }
    json_array_foreach(rn, i, b)
    {
        gv_probe_row_key(b, key, sizeof key);
        if (rc == GV_OK && !find_row(rb, key))
            rc = sided_add(&on, key, !json_object_get(b, "skipped"));
    }
    res->only_base = ob.keys;
    res->only_base_ran = ob.ran;
    res->n_only_base = ob.n;
    res->only_new = on.keys;
    res->n_only_new = on.n;
    free(on.ran);
    if (rc != GV_OK || (!res->only_base && ob.n) || (!res->only_new && on.n)) {
        gv_cmp_result_free(res);
        return GV_ENOMEM;
    }
    /* gv_cmp_result_free and the printers expect the arrays even when empty */
    if (!res->only_base) res->only_base = calloc(1, sizeof *res->only_base);
    if (!res->only_base_ran) res->only_base_ran = calloc(1, sizeof *res->only_base_ran);
    if (!res->only_new) res->only_new = calloc(1, sizeof *res->only_new);
    if (!res->only_base || !res->only_base_ran || !res->only_new) {
        gv_cmp_result_free(res);
        return GV_ENOMEM;
    }
    for (int k = 0; k < res->n_cases; k++)
        res->count[res->cases[k].outcome]++;
    for (int k = 0; k < res->n_only_base; k++)
        res->n_not_run += res->only_base_ran[k];
    /* a changed value outranks everything; then anything one-sided or skipped on one side:
       a comparison that could not look at every feature of both is never SAME */
    if (res->count[GV_CMP_REGRESSED])
        res->overall = GV_CMP_REGRESSED;
    else if (res->count[GV_CMP_INCONCLUSIVE] || res->n_only_base || res->n_only_new)
        res->overall = GV_CMP_INCONCLUSIVE;
    else
        res->overall = GV_CMP_SAME;
    return GV_OK;
}
