/* merge_perf.c: timed runs of several GPUs as one view (merge_perf.h).
 *
 * Each run (one per device: bench or tradeoffs --json) is read into items — a bench case, or a
 * tradeoffs row — matched across runs by their identity (op, dtype, mode, dist, shape, seed).
 * For every item and device: the median time and its interval as the run recorded them (bench:
 * the first of kernel_hot, kernel_cold, e2e that every device timed; tradeoffs: its hot scope),
 * and the ratio to the median over the devices of the same host and model (the node's median);
 * more than GV_FLEET_SLOW_FRACTION over it is flagged SLOW, a flag never a verdict. With two
 * devices the median is their mean: one device is flagged when it is more than 22 % slower
 * than the other.
 *
 * Agreement (tradeoffs): a row of an op declared deterministic must have the same accurate
 * bits, and the same output digest where recorded, on every device of one model and software
 * (grouped as merge_check.c groups them); the value a strict majority holds is the reference
 * and the other devices are named; without a majority the row is reported as differing with
 * no device named. Either way the merge exits 6. */
#include "runs/merge_perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_json.h"
#include "core/gv.h"
#include "io/outfile.h"
#include "runs/merge_check.h" /* GV_FLEET_SLOW_FRACTION */
#include "runs/run_files.h"   /* gv_fleet_*_text, GV_FLEET_MAX_DEVICES */
#include "io/json_util.h"     /* gv_json_now */
#include "io/run_doc.h"
#include "bench/trade_report.h"

#define PF_MAX GV_FLEET_MAX_DEVICES

typedef gv_pf_item pf_item;
typedef gv_pf_dev pf_dev;
typedef gv_pf_key pf_key;
typedef gv_perf_merged pf_merge;

static pf_key *key_slot(pf_merge *m, const char *key, const char *label)
{
    for (int k = 0; k < m->n_keys; k++)
        if (strcmp(m->keys[k].key, key) == 0) return &m->keys[k];
    if (m->n_keys == m->cap) {
        int cap = m->cap ? 2 * m->cap : 16;
        pf_key *grown = realloc(m->keys, sizeof *grown * (size_t)cap);
        if (!grown) return NULL;
        m->keys = grown;
        m->cap = cap;
    }
    pf_key *k = &m->keys[m->n_keys++];
    memset(k, 0, sizeof *k);
    snprintf(k->key, sizeof k->key, "%s", key);
    snprintf(k->label, sizeof k->label, "%s", label);
    return k;
}

static void seed_text(const json_t *seed, char *buf, size_t len)
{
    if (json_is_string(seed))
        snprintf(buf, len, "%s", json_string_value(seed));
    else
        snprintf(buf, len, "%lld", (long long)json_integer_value(seed));
}

static void shape_text(const json_t *shape, char *buf, size_t len)
{
    size_t used = 0, i;
    json_t *d;
    buf[0] = '\0';
    json_array_foreach(shape, i, d)
    {
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%lld", i ? "x" : "",
                                 (long long)json_integer_value(d));
    }
}

/* Add one device's items (d: its index) from a bench document. */
static int add_bench(pf_merge *m, int d, const json_t *doc)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(doc, "cases"), i, c)
    {
        char key[320], seed[32];
        seed_text(json_object_get(c, "seed"), seed, sizeof seed);
        snprintf(key, sizeof key, "%s|%s|%s|%s|%s|%s", gv_jstr(c, "op"), gv_jstr(c, "dtype"),
                 gv_jstr(c, "mode"), gv_jstr(c, "dist"), gv_jstr(c, "shape_label"), seed);
        pf_key *k = key_slot(m, key, gv_jstr(c, "case"));
        if (!k) return GV_ENOMEM;
        pf_item *it = &k->dev[d];
        k->present[d] = true;
        it->src = c;
        it->timings = json_object_get(c, "timings");
        it->clocks = json_object_get(c, "clocks");
        it->verdict = gv_jstr(c, "verdict");
        it->bits = json_object_get(json_object_get(c, "sanity"), "accurate_bits");
        it->normwise = json_object_get(json_object_get(c, "sanity"), "normwise_rel");
    }
    return GV_OK;
}

/* Add one device's items from a tradeoffs document. */
static int add_trade(pf_merge *m, int d, const json_t *doc)
{
    size_t g, r;
    json_t *grp, *row;
    json_array_foreach(json_object_get(doc, "groups"), g, grp)
    {
        char shape[96], seed[32];
        shape_text(json_object_get(grp, "shape"), shape, sizeof shape);
        seed_text(json_object_get(grp, "seed"), seed, sizeof seed);
        json_array_foreach(json_object_get(grp, "rows"), r, row)
        {
            char key[320], label[200];
            snprintf(key, sizeof key, "%s|%s|%s|%s|%s|%s", gv_jstr(grp, "op"),
                     gv_jstr(row, "dtype"), gv_jstr(row, "mode"), gv_jstr(grp, "dist"), shape,
                     seed);
            snprintf(label, sizeof label, "%s %s %s %s", gv_jstr(grp, "op"), shape,
                     gv_jstr(row, "dtype"), gv_jstr(row, "mode"));
            pf_key *k = key_slot(m, key, label);
            if (!k) return GV_ENOMEM;
            pf_item *it = &k->dev[d];
            json_decref(it->ci); /* a row repeated in one run: the last one counts */
            it->ci = NULL;
            k->present[d] = true;
            it->src = row;
            const json_t *t = json_object_get(row, "time_ms");
            if (json_is_object(t)) {
                it->median = json_object_get(t, "median");
                it->ci = json_pack("[O, O]", json_object_get(t, "lo"), json_object_get(t, "hi"));
                it->ms = gv_jnum(t, "median");
            } else
                it->ms = NAN;
            it->clocks = json_object_get(row, "clocks");
            it->verdict = gv_jstr(row, "verdict");
            it->bits = json_object_get(row, "accurate_bits");
            it->normwise = json_object_get(row, "normwise_rel");
            it->hash = json_object_get(row, "output_hash");
            it->deterministic = json_is_true(json_object_get(row, "deterministic"));
        }
    }
    return GV_OK;
}

/* bench: the first scope every device that has the case timed; its numbers into the items. */
static void bench_scope(pf_merge *m, pf_key *k)
{
    static const char *const scopes[] = {"kernel_hot", "kernel_cold", "e2e"};
    for (size_t s = 0; s < sizeof scopes / sizeof scopes[0] && !k->scope; s++) {
        bool all = true, any = false;
        for (int d = 0; d < m->n; d++) {
            if (!k->present[d]) continue;
            bool has = json_is_object(json_object_get(k->dev[d].timings, scopes[s]));
            all = all && has;
            any = any || has;
        }
        if (all && any) k->scope = scopes[s];
    }
    for (int d = 0; d < m->n; d++) {
        pf_item *it = &k->dev[d];
        it->ms = NAN;
        if (!k->present[d] || !k->scope) continue;
        const json_t *t = json_object_get(it->timings, k->scope);
        it->median = json_object_get(t, "median_ms");
        const json_t *ci = json_object_get(t, "ci_ms");
        if (json_is_array(ci)) it->ci = json_deep_copy(ci);
        it->ms = gv_jnum(t, "median_ms");
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Each device's time against the median of the devices of its host and model that timed it. */
static void against_node(pf_merge *m, pf_key *k)
{
    for (int d = 0; d < m->n; d++) {
        pf_item *it = &k->dev[d];
        it->vs = NAN;
        if (!k->present[d] || !(it->ms > 0) || !isfinite(it->ms)) continue;
        double t[PF_MAX];
        int p = 0;
        for (int e = 0; e < m->n; e++) {
            const pf_item *o = &k->dev[e];
            if (k->present[e] && o->ms > 0 && isfinite(o->ms) &&
                strcmp(m->devs[e].host, m->devs[d].host) == 0 &&
                strcmp(m->devs[e].model, m->devs[d].model) == 0)
                t[p++] = o->ms;
        }
        if (p < 2) continue;
        qsort(t, (size_t)p, sizeof t[0], cmp_double);
        double median = p % 2 ? t[p / 2] : 0.5 * (t[p / 2 - 1] + t[p / 2]);
        it->vs = it->ms / median - 1.0;
        it->slow = it->ms > (1.0 + GV_FLEET_SLOW_FRACTION) * median;
        pf_dev *v = &m->devs[d];
        v->timed++;
        v->slow_cases += it->slow;
        v->log_ratio_sum += log(it->ms / median);
        v->n_ratios++;
    }
}

/* The comparison token of a judged deterministic row: its bits exactly, and its digest. */
static void agree_token(const pf_item *it, char *buf, size_t len)
{
    const char *h = json_string_value(it->hash);
    snprintf(buf, len, "%.17g %s", gv_jnum(it->src, "accurate_bits"), h ? h : "");
}

/* tradeoffs: within each model, the bits (and digests) of a deterministic row must agree. */
static void agreement(pf_merge *m, pf_key *k)
{
    k->deterministic = true;
    for (int d = 0; d < m->n; d++)
        if (k->present[d] && !k->dev[d].deterministic) k->deterministic = false;
    if (!k->deterministic) {
        snprintf(k->agreement, sizeof k->agreement, "not compared (op not deterministic)");
        return;
    }
    bool done[PF_MAX] = {false};
    for (int d = 0; d < m->n; d++) {
        if (done[d]) continue;
        int members[PF_MAX], n_mem = 0;
        char tok[PF_MAX][96];
        for (int e = d; e < m->n; e++)
            if (strcmp(m->devs[e].model, m->devs[d].model) == 0) {
                done[e] = true;
                const pf_item *it = &k->dev[e];
                if (!k->present[e] || json_is_null(it->bits) || !it->bits) continue;
                agree_token(it, tok[n_mem], sizeof tok[0]);
                members[n_mem++] = e;
            }
        if (n_mem < 2) continue;
        k->compared = true;
        int best = -1, best_count = 0;
        bool all_same = true;
        for (int i = 0; i < n_mem; i++) {
            int count = 0;
            for (int j = 0; j < n_mem; j++)
                count += strcmp(tok[i], tok[j]) == 0;
            if (count != n_mem) all_same = false;
            if (count > best_count) {
                best_count = count;
                best = i;
            }
        }
        if (all_same) continue;
        k->differ = true;
        if (2 * best_count <= n_mem) {
            k->undecided = true;
            continue;
        }
        for (int i = 0; i < n_mem; i++)
            if (strcmp(tok[i], tok[best]) != 0) k->dev[members[i]].outlier = true;
    }
    if (!k->compared)
        snprintf(k->agreement, sizeof k->agreement, "-");
    else if (!k->differ)
        snprintf(k->agreement, sizeof k->agreement, "same");
    else if (k->undecided)
        snprintf(k->agreement, sizeof k->agreement, "DIFFER (no majority)");
    else {
        size_t used = (size_t)snprintf(k->agreement, sizeof k->agreement, "DIFFER: outlier");
        for (int d = 0; d < m->n && used < sizeof k->agreement; d++)
            if (k->dev[d].outlier)
                used += (size_t)snprintf(k->agreement + used, sizeof k->agreement - used, " %s",
                                         m->devs[d].label);
    }
}

static void describe(pf_dev *v, const json_t *doc, int k, bool several_hosts)
{
    memset(v, 0, sizeof *v);
    v->doc = doc;
    gv_fleet_host_text(doc, v->host, sizeof v->host);
    gv_fleet_device_label(doc, k, several_hosts, v->label, sizeof v->label);
    gv_fleet_model_text(doc, v->model, sizeof v->model);
}

static json_t *item_json(const pf_merge *m, const pf_key *k, int d)
{
    const pf_item *it = &k->dev[d];
    json_t *o = json_object();
    json_object_set_new(o, "device", json_string(m->devs[d].label));
    json_object_set_new(o, "verdict", json_string(it->verdict));
    json_object_set(o, "median_ms", it->median ? (json_t *)it->median : json_null());
    json_object_set(o, "ci_ms", it->ci ? it->ci : json_null());
    json_object_set_new(o, "vs_node_median", isfinite(it->vs) ? json_real(it->vs) : json_null());
    json_object_set_new(o, "slow", json_boolean(it->slow));
    json_object_set(o, "clocks", it->clocks ? (json_t *)it->clocks : json_null());
    json_object_set(o, "accurate_bits", it->bits ? (json_t *)it->bits : json_null());
    json_object_set(o, "normwise_rel", it->normwise ? (json_t *)it->normwise : json_null());
    if (m->trade) {
        json_object_set(o, "output_hash", it->hash ? (json_t *)it->hash : json_null());
        json_object_set_new(o, "outlier", json_boolean(it->outlier));
    }
    return o;
}

static json_t *fleet_doc(const pf_merge *m, const char *const *names, json_t *notes, int differ,
                         int slow_flags)
{
    json_t *root = json_object(), *devs = json_array(), *cases = json_array();
    char when[64];
    json_object_set_new(root, "schema", json_string(gv_schema(GV_DOC_FLEET_PERF)));
    json_object_set_new(root, "created", json_string(gv_json_now(when, sizeof when)));
    json_object_set_new(root, "kind", json_string(m->trade ? "tradeoffs" : "bench"));
    for (int d = 0; d < m->n; d++) {
        const pf_dev *v = &m->devs[d];
        json_t *jd = json_object();
        json_object_set_new(jd, "label", json_string(v->label));
        json_object_set_new(jd, "file", json_string(names[d]));
        json_object_set_new(jd, "model", json_string(v->model));
        json_object_set(jd, "device", json_object_get(v->doc, "device"));
        json_object_set(jd, "fleet", json_object_get(v->doc, "fleet"));
        json_object_set_new(jd, "timed_cases", json_integer(v->timed));
        json_object_set_new(jd, "slow_cases", json_integer(v->slow_cases));
        json_object_set_new(jd, "vs_node_geomean",
                            v->n_ratios ? json_real(exp(v->log_ratio_sum / v->n_ratios) - 1)
                                        : json_null());
        json_array_append_new(devs, jd);
    }
    for (int k = 0; k < m->n_keys; k++) {
        const pf_key *key = &m->keys[k];
        json_t *jc = json_object(), *per = json_array();
        json_object_set_new(jc, "case", json_string(key->label));
        json_object_set_new(jc, "key", json_string(key->key));
        json_object_set_new(jc, "scope",
                            json_string(m->trade     ? "kernel_hot"
                                        : key->scope ? key->scope
                                                     : ""));
        if (m->trade) {
            json_object_set_new(jc, "deterministic", json_boolean(key->deterministic));
            json_object_set_new(jc, "agreement", json_string(key->agreement));
        }
        for (int d = 0; d < m->n; d++)
            if (key->present[d]) json_array_append_new(per, item_json(m, key, d));
        json_object_set_new(jc, "devices", per);
        json_array_append_new(cases, jc);
    }
    json_object_set_new(root, "devices", devs);
    json_object_set_new(root, "cases", cases);
    json_object_set(root, "notes", notes);
    json_object_set_new(root, "summary",
                        json_pack("{s:i, s:i, s:i, s:f}", "cases", m->n_keys, "differ", differ,
                                  "slow_flags", slow_flags, "slow_fraction",
                                  GV_FLEET_SLOW_FRACTION));
    return root;
}

void gv_perf_merged_free(gv_perf_merged *m)
{
    if (!m) return;
    for (int k = 0; k < m->n_keys; k++)
        for (int d = 0; d < m->n; d++)
            json_decref(m->keys[k].dev[d].ci);
    free(m->keys);
    json_decref(m->notes);
    free(m);
}

/* Each run read into m: every document of the first one's schema (each one that is not is
   named), its device described and labelled apart from the others, its items added. */
static gv_status read_runs(pf_merge *m, json_t *const *docs, const char *const *names, gv_error *e)
{
    const int n = m->n;
    bool several_hosts = false;
    gv_status rc = GV_ST_OK;
    e->msg[0] = '\0';
    for (int d = 0; d < n; d++) {
        const char *want = m->trade ? gv_schema(GV_DOC_TRADEOFFS) : gv_schema(GV_DOC_BENCH);
        if (strcmp(gv_jstr(docs[d], "schema"), want) != 0) /* each one named */
            rc = gv_err_add(e, GV_ST_BAD_INPUT, "%s is not a %s document like %s", names[d], want,
                            names[0]);
    }
    for (int d = 0; d < n && rc == GV_ST_OK; d++) {
        pf_dev tmp;
        describe(&tmp, docs[d], d, false);
        if (d && strcmp(tmp.host, m->devs[0].host) != 0) several_hosts = true;
        m->devs[d] = tmp;
    }
    for (int d = 0; d < n && rc == GV_ST_OK; d++) {
        describe(&m->devs[d], docs[d], d, several_hosts);
        for (int prev = 0; prev < d; prev++)
            if (strcmp(m->devs[prev].label, m->devs[d].label) == 0) {
                char own[96];
                snprintf(own, sizeof own, "%.80s#%d", m->devs[d].label, d);
                snprintf(m->devs[d].label, sizeof m->devs[d].label, "%s", own);
            }
        if ((m->trade ? add_trade(m, d, docs[d]) : add_bench(m, d, docs[d])) != GV_OK)
            rc = GV_ST_RUNTIME; /* out of memory: nothing to add to what ran out */
    }
    return rc;
}

/* What the merge counts over every item and device: verdicts for the run's status, rows that
   differ between devices and slow flags. */
typedef struct pf_tally {
    int fail, error, judged, differ, slow_flags;
} pf_tally;

static pf_tally judge_items(pf_merge *m)
{
    pf_tally t = {0};
    for (int k = 0; k < m->n_keys; k++) {
        pf_key *key = &m->keys[k];
        if (!m->trade) bench_scope(m, key);
        against_node(m, key);
        if (m->trade) agreement(m, key);
        t.differ += key->differ;
        for (int d = 0; d < m->n; d++) {
            if (!key->present[d]) continue;
            const char *v = key->dev[d].verdict;
            t.fail += strcmp(v, "FAIL") == 0;
            t.error += strcmp(v, "ERROR") == 0;
            t.judged += strcmp(v, "PASS") == 0 || strcmp(v, "FAIL") == 0;
            t.slow_flags += key->dev[d].slow;
        }
    }
    return t;
}

/* The notes under the table: each slow device with its link and clock, and rows that differ. */
static json_t *merge_notes(const pf_merge *m, int differ)
{
    json_t *notes = json_array();
    for (int d = 0; d < m->n; d++) {
        const pf_dev *v = &m->devs[d];
        if (!v->slow_cases) continue;
        char link[48], clk[32], note[512];
        gv_fleet_link_text(v->doc, link, sizeof link);
        gv_fleet_clock_text(v->doc, clk, sizeof clk);
        snprintf(note, sizeof note,
                 "%s is more than %.0f%% slower than its node's median in %d of %d timed cases "
                 "(PCIe %s, SM clock %s MHz)",
                 v->label, 100 * GV_FLEET_SLOW_FRACTION, v->slow_cases, v->timed, link, clk);
        json_array_append_new(notes, json_string(note));
    }
    if (differ)
        json_array_append_new(notes, json_string("a deterministic row's accurate bits or output "
                                                 "digest differ between devices of one model"));
    return notes;
}

gv_status gv_fleet_perf_merge(json_t *const *docs, const char *const *names, int n,
                              gv_perf_merged **merged, json_t **fleet, gv_error *e)
{
    *merged = NULL;
    if (n < 1 || n > PF_MAX)
        return gv_err_set(e, GV_ST_BAD_INPUT, "merge takes 1 to %d run files, not %d", PF_MAX, n);
    pf_merge *m = calloc(1, sizeof *m);
    if (!m) return gv_err_set(e, GV_ST_RUNTIME, "out of host memory merging");
    m->n = n;
    m->trade = strcmp(gv_jstr(docs[0], "schema"), gv_schema(GV_DOC_TRADEOFFS)) == 0;
    gv_status rc = read_runs(m, docs, names, e);
    if (rc != GV_ST_OK) {
        gv_perf_merged_free(m);
        return rc;
    }
    bool any_device = false;
    for (int d = 0; d < n; d++)
        any_device = any_device || json_is_object(json_object_get(docs[d], "device"));
    pf_tally t = judge_items(m);
    m->differ = t.differ;
    m->slow_flags = t.slow_flags;
    m->notes = merge_notes(m, t.differ);
    rc = gv_run_status(t.fail, t.error, t.judged, any_device, false);
    if (rc == GV_ST_OK && t.differ > 0) rc = GV_ST_OUTLIER;
    if (fleet) *fleet = fleet_doc(m, names, m->notes, t.differ, t.slow_flags);
    *merged = m;
    return rc;
}
