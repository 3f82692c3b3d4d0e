/* merge_probe.c: several GPUs' probe documents as one fingerprint table (see merge_probe.h).
 * Rows and features are found through jansson objects used as hash tables, so a merge is
 * linear in the features of all documents. */
#include "runs/merge_probe.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"
#include "io/json_util.h"
#include "io/probe_read.h"
#include "runs/run_files.h"

#define PM_MAX GV_FLEET_MAX_DEVICES

static void label_device(gv_pm_dev *d, const json_t *doc, int k, bool several_hosts)
{
    gv_fleet_device_label(doc, k, several_hosts, d->label, sizeof d->label);
    gv_fleet_model_text(doc, d->model, sizeof d->model);
}

/* Decide one key within each group: a strict majority's value is the reference. */
static void vote(gv_pm_key *k, gv_pm_dev *devs, int n)
{
    for (int g = 0; g < n; g++) {
        if (devs[g].group != g) continue; /* g leads its group */
        int members = 0, best = -1, best_count = 0;
        bool differ = false;
        for (int i = 0; i < n; i++) {
            if (devs[i].group != g || !k->value[i]) continue;
            members++;
            int count = 0;
            for (int j = 0; j < n; j++)
                count += devs[j].group == g && k->value[j] && strcmp(k->value[i], k->value[j]) == 0;
            if (count > best_count) {
                best_count = count;
                best = i;
            }
            if (best >= 0 && strcmp(k->value[i], k->value[best]) != 0) differ = true;
        }
        if (!differ) continue;
        k->disagree = true;
        bool majority = 2 * best_count > members;
        if (!majority) k->undecided = true;
        for (int i = 0; i < n; i++) {
            if (devs[i].group != g || !k->value[i]) continue;
            k->majority[i] = majority ? k->value[best] : NULL;
            k->outlier[i] = majority && strcmp(k->value[i], k->value[best]) != 0;
        }
    }
}

/* The keys of every document, in the order first met: row entries and their features. */
static gv_pm_key *collect(gv_pm_dev *devs, int n, json_t *const *docs, int *n_keys)
{
    json_t *seen = json_object();
    size_t total = 1;
    for (int d = 0; d < n; d++) {
        size_t i;
        const json_t *r;
        json_array_foreach(json_object_get(docs[d], "rows"), i, r) total +=
            1 + json_object_size(json_object_get(r, "features"));
    }
    gv_pm_key *keys = calloc(total, sizeof *keys);
    if (!seen || !keys) {
        json_decref(seen);
        free(keys);
        return NULL;
    }
    int m = 0;
    for (int d = 0; d < n; d++) {
        size_t i;
        const json_t *r;
        json_array_foreach(json_object_get(docs[d], "rows"), i, r)
        {
            char rk[256], both[400];
            gv_probe_row_key(r, rk, sizeof rk);
            const char *fname = "";
            const json_t *x = NULL;
            void *it = NULL;
            const json_t *fs = json_object_get(r, "features");
            do { /* the row itself first, then each of its features */
                snprintf(both, sizeof both, "%s\x1f%s", rk, fname);
                if (!json_object_get(seen, both)) {
                    assert((size_t)m < total);
                    json_object_set_new(seen, both, json_integer(m));
                    snprintf(keys[m].row, sizeof keys[m].row, "%s", rk);
                    snprintf(keys[m].feature, sizeof keys[m].feature, "%s", fname);
                    m++;
                }
                it = it ? json_object_iter_next((json_t *)fs, it) : json_object_iter((json_t *)fs);
                fname = it ? json_object_iter_key(it) : NULL;
                x = it ? json_object_iter_value(it) : NULL;
            } while (fname && x);
        }
    }
    json_decref(seen);
    (void)devs;
    *n_keys = m;
    return keys;
}

static void fill_values(gv_pm_key *k, gv_pm_dev *devs, int n)
{
    for (int d = 0; d < n; d++) {
        const json_t *r = json_object_get(devs[d].rows, k->row);
        bool measured = r && !json_object_get(r, "skipped");
        if (!k->feature[0]) {
            k->value[d] = !r ? "absent" : measured ? "measured" : "skipped";
            continue;
        }
        if (!measured) continue; /* the row entry says it */
        const json_t *x = json_object_get(json_object_get(r, "features"), k->feature);
        k->value[d] = x ? gv_jstr(x, "value") : "absent";
        k->fail[d] = x && strcmp(gv_jstr(x, "verdict"), "FAIL") == 0;
        k->any_fail |= k->fail[d];
    }
}

static json_t *fleet_json(const gv_pm_key *keys, int m, const gv_pm_dev *devs, int n, int disagree)
{
    json_t *dv = json_array(), *fs = json_array(), *outs = json_array();
    for (int d = 0; d < n; d++)
        json_array_append_new(dv,
                              json_pack("{s:o, s:o, s:o, s:i}", "file", gv_json_bytes(devs[d].file),
                                        "label", gv_json_bytes(devs[d].label), "model",
                                        gv_json_bytes(devs[d].model), "group", devs[d].group));
    for (int k = 0; k < m; k++) {
        const gv_pm_key *p = &keys[k];
        json_t *vals = json_array();
        for (int d = 0; d < n; d++) {
            json_array_append_new(vals, p->value[d] ? gv_json_bytes(p->value[d]) : json_null());
            if (p->outlier[d])
                json_array_append_new(outs, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "device",
                                                      gv_json_bytes(devs[d].label), "file",
                                                      gv_json_bytes(devs[d].file), "row",
                                                      gv_json_bytes(p->row), "feature",
                                                      gv_json_bytes(p->feature), "value",
                                                      gv_json_bytes(p->value[d]), "majority",
                                                      gv_json_bytes(p->majority[d])));
        }
        json_array_append_new(
            fs, json_pack("{s:o, s:o, s:o, s:b, s:b, s:b}", "row", gv_json_bytes(p->row), "feature",
                          gv_json_bytes(p->feature), "values", vals, "agree", !p->disagree,
                          "undecided", p->undecided, "fail", p->any_fail));
    }
    return json_pack("{s:s, s:o, s:o, s:o, s:{s:i, s:i}}", "schema", gv_schema(GV_DOC_FLEET_PROBE),
                     "devices", dv, "features", fs, "outliers", outs, "summary", "features", m,
                     "disagree", disagree);
}

/* Each document as a device: its label, its rows by key, its group (the first device of its
   model). Returns GV_ST_RUNTIME when a row table could not be made; *errors counts the
   documents that recorded errors. */
static gv_status read_devices(gv_pm_dev *devs, json_t *const *docs, const char *const *names, int n,
                              int *errors)
{
    bool several_hosts = false;
    for (int d = 1; d < n; d++)
        several_hosts |=
            strcmp(gv_jstr(docs[d], "host.hostname"), gv_jstr(docs[0], "host.hostname")) != 0;
    gv_status rc = GV_ST_OK;
    *errors = 0;
    for (int d = 0; d < n; d++) {
        devs[d].file = names[d];
        label_device(&devs[d], docs[d], d, several_hosts);
        devs[d].rows = json_object();
        if (!devs[d].rows) rc = GV_ST_RUNTIME;
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(docs[d], "rows"), i, r)
        {
            char rk[256];
            gv_probe_row_key(r, rk, sizeof rk);
            if (devs[d].rows) json_object_set(devs[d].rows, rk, r);
        }
        devs[d].group = d;
        for (int e = 0; e < d; e++)
            if (strcmp(devs[e].model, devs[d].model) == 0) {
                devs[d].group = devs[e].group;
                break;
            }
        *errors += gv_jint(docs[d], "summary.errors", 0) > 0;
    }
    /* documents written under CUDA_VISIBLE_DEVICES all say device 0: labels that repeat
       would name no one, so then every device is named by its place on the command line */
    bool repeated = false;
    for (int d = 0; d < n; d++)
        for (int e = 0; e < d; e++)
            repeated |= strcmp(devs[d].label, devs[e].label) == 0;
    for (int d = 0; repeated && d < n; d++)
        snprintf(devs[d].label, sizeof devs[d].label, "run%d", d);
    return rc;
}

gv_status gv_probe_merge(json_t *const *docs, const char *const *names, int n, gv_probe_merged *pm,
                         json_t **fleet)
{
    assert(n >= 1 && n <= PM_MAX); /* merge.c refuses more files */
    memset(pm, 0, sizeof *pm);
    pm->n = n;
    gv_pm_dev *devs = pm->devs;
    int errors;
    gv_status rc = read_devices(devs, docs, names, n, &errors);
    int m = 0;
    gv_pm_key *keys = rc == GV_ST_OK ? collect(devs, n, docs, &m) : NULL;
    if (!keys) {
        for (int d = 0; d < n; d++)
            json_decref(devs[d].rows);
        memset(pm, 0, sizeof *pm);
        return GV_ST_RUNTIME;
    }
    for (int k = 0; k < m; k++) {
        fill_values(&keys[k], devs, n);
        vote(&keys[k], devs, n);
        pm->disagree += keys[k].disagree;
        pm->fails += keys[k].any_fail;
    }
    pm->keys = keys;
    pm->n_keys = m;
    rc = pm->disagree ? GV_ST_OUTLIER : errors ? GV_ST_RUNTIME : pm->fails ? GV_ST_FAIL : GV_ST_OK;
    if (fleet) *fleet = fleet_json(keys, m, devs, n, pm->disagree);
    for (int d = 0; d < n; d++) {
        json_decref(devs[d].rows);
        devs[d].rows = NULL;
    }
    return rc;
}

void gv_probe_merged_free(gv_probe_merged *pm)
{
    free(pm->keys);
    memset(pm, 0, sizeof *pm);
}
