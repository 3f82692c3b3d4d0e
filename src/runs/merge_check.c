/* merge_check.c: run files of several GPUs as one fleet (merge_check.h).
 *
 * Agreement: devices are grouped by model and software (name, compute capability, SM count,
 * driver, runtime and cuBLAS versions); within a group, a deterministic op's output digests
 * must be identical. When they are not, the digest a strict majority holds is the reference
 * and the other devices are the outliers; without a strict majority (two devices, or an even
 * split) the class of digests whose normwise error against the f64 oracle is strictly the
 * smallest and whose largest error in ulps is at most half every other class's is the
 * reference (a correctly rounded op's healthy 0.5 ulp against a corrupted element's 1.5 or
 * more); otherwise the disagreement is reported undecided (every device of it named).
 * Devices of different groups are not compared bit for bit (a different model or library
 * version may legitimately round differently); a note says so.
 *
 * Timing: a correctness run's device_ms (upload, launch, download: wall clock, not a
 * benchmark) summed over the cases every device of the node judged, against the node's
 * median; more than GV_FLEET_SLOW_FRACTION over it is flagged with the device's PCIe link and
 * clocks. A flag, never a verdict: the exit code does not change for it. */
#include "runs/merge_check.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_json.h" /* gv_jnum, gv_jstr */
#include "core/gv.h"
#include "io/outfile.h"
#include "runs/run_files.h"
#include "io/json_util.h" /* gv_json_now */
#include "io/run_doc.h"

typedef gv_fm_dev fm_dev;
typedef gv_fm_case fm_case;
typedef gv_fleet_merged fm_merge;

/* "op|dtype|mode|dist|shape|seed": the identity compare_runs.c matches cases by. */
static void case_key(const json_t *c, char *buf, size_t len)
{
    char shape[128] = "";
    size_t used = 0;
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(c, "shape"), i, d)
    {
        used += (size_t)snprintf(shape + used, used < sizeof shape ? sizeof shape - used : 0,
                                 "%s%lld", i ? "x" : "", (long long)json_integer_value(d));
    }
    const json_t *seed = json_object_get(c, "seed");
    char seed_text[32];
    if (json_is_string(seed))
        snprintf(seed_text, sizeof seed_text, "%s", json_string_value(seed));
    else
        snprintf(seed_text, sizeof seed_text, "%lld", (long long)json_integer_value(seed));
    snprintf(buf, len, "%s %s %s %s %s|%s", gv_jstr(c, "op"), gv_jstr(c, "dtype"),
             gv_jstr(c, "mode"), gv_jstr(c, "dist"), shape, seed_text);
}

static void describe_device(fm_dev *d, const json_t *doc, int k, bool several_hosts)
{
    memset(d, 0, sizeof *d);
    d->doc = doc;
    d->index = gv_jint(doc, "fleet.device_index", -1);
    d->rank = gv_jint(doc, "fleet.rank", -1);
    gv_fleet_host_text(doc, d->host, sizeof d->host);
    gv_fleet_device_label(doc, k, several_hosts, d->label, sizeof d->label);
    gv_fleet_model_text(doc, d->group, sizeof d->group);
}

static bool judged(const json_t *c)
{
    const char *v = c ? gv_jstr(c, "verdict") : "";
    return strcmp(v, "PASS") == 0 || strcmp(v, "FAIL") == 0;
}

static double case_err(const json_t *c, const char *metric)
{
    double e = gv_jnum(c, metric);
    return isnan(e) ? INFINITY : e;
}

/* Decide the agreement of one case over the devices of one group (members[0..m)). */
static void agree_group(fm_case *fc, fm_dev *devs, const int *members, int m)
{
    assert(m >= 0 && m <= GV_FLEET_MERGE_MAX); /* a group is some of the merge's run files */
    const char *digest[GV_FLEET_MERGE_MAX];
    int with = 0;
    for (int i = 0; i < m; i++) {
        const json_t *c = json_object_get(devs[members[i]].cases, fc->key);
        const char *h = c ? json_string_value(json_object_get(c, "output_hash")) : NULL;
        digest[i] = h;
        with += h != NULL;
    }
    if (with < 2) return;
    fc->compared = true;
    /* classes of equal digests: count and the smallest error in each */
    int cls[GV_FLEET_MERGE_MAX], n_cls = 0, count[GV_FLEET_MERGE_MAX];
    double err[GV_FLEET_MERGE_MAX], worst[GV_FLEET_MERGE_MAX];
    const char *cls_digest[GV_FLEET_MERGE_MAX];
    for (int i = 0; i < m; i++) {
        cls[i] = -1;
        if (!digest[i]) continue;
        for (int k = 0; k < n_cls; k++)
            if (strcmp(cls_digest[k], digest[i]) == 0) cls[i] = k;
        if (cls[i] < 0) {
            cls[i] = n_cls;
            cls_digest[n_cls] = digest[i];
            count[n_cls] = 0;
            err[n_cls] = worst[n_cls] = INFINITY;
            n_cls++;
        }
        count[cls[i]]++;
        const json_t *c = json_object_get(devs[members[i]].cases, fc->key);
        double e = case_err(c, "metrics.normwise_rel"), w = case_err(c, "metrics.max_ulp");
        if (e < err[cls[i]]) err[cls[i]] = e;
        if (w < worst[cls[i]]) worst[cls[i]] = w;
    }
    if (n_cls > fc->n_digest_classes) fc->n_digest_classes = n_cls;
    if (n_cls == 1) {
        if (fc->reference < 0)
            for (int i = 0; i < m; i++)
                if (digest[i]) fc->reference = members[i];
        return;
    }
    int ref = -1;
    for (int k = 0; k < n_cls; k++)
        if (2 * count[k] > with) ref = k; /* a strict majority */
    if (ref < 0) {
        /* no majority: the class strictly closest to the oracle in normwise error, and whose
           largest error in ulps is at most 1/GV_FLEET_DECISIVE of every other class's. Nearness
           alone misnamed healthy GPUs on two H200s: a fault of a few ulps in one element of an
           op whose elements err by several (an FFT) or thousands (TF32) of ulps may land nearer
           the true value than the healthy rounding did. A difference inside the op's own
           rounding noise decides nothing: undecided, both named. */
        int best = 0;
        for (int k = 1; k < n_cls; k++)
            if (err[k] < err[best]) best = k;
        bool strict = true;
        for (int k = 0; k < n_cls; k++)
            if (k != best && !(err[best] < err[k] && GV_FLEET_DECISIVE * worst[best] <= worst[k]))
                strict = false;
        if (strict) ref = best;
    }
    if (ref < 0) {
        fc->undecided = true;
        return;
    }
    for (int i = 0; i < m; i++) {
        if (!digest[i]) continue;
        if (cls[i] == ref)
            fc->reference = members[i];
        else
            fc->outlier[members[i]] = true;
    }
}

static void decide_case(fm_case *fc, fm_dev *devs, int n, char groups[][400], int n_groups)
{
    assert(n <= GV_FLEET_MERGE_MAX && n_groups <= n); /* fc->outlier[] and members[] hold them */
    fc->reference = -1;
    fc->deterministic = true;
    for (int d = 0; d < n; d++) {
        const json_t *c = json_object_get(devs[d].cases, fc->key);
        if (c && !json_is_true(json_object_get(c, "deterministic"))) fc->deterministic = false;
    }
    if (!fc->deterministic) {
        snprintf(fc->agreement, sizeof fc->agreement, "not compared (op not deterministic)");
        return;
    }
    for (int g = 0; g < n_groups; g++) {
        int members[GV_FLEET_MERGE_MAX], m = 0;
        for (int d = 0; d < n; d++)
            if (strcmp(devs[d].group, groups[g]) == 0) members[m++] = d;
        agree_group(fc, devs, members, m);
    }
    int outliers = 0;
    for (int d = 0; d < n; d++)
        outliers += fc->outlier[d];
    if (!fc->compared)
        snprintf(fc->agreement, sizeof fc->agreement, "-");
    else if (fc->undecided)
        snprintf(fc->agreement, sizeof fc->agreement, "DIFFER (no majority, none clearly nearer the oracle)");
    else if (outliers) {
        size_t used = (size_t)snprintf(fc->agreement, sizeof fc->agreement, "DIFFER: outlier");
        for (int d = 0; d < n && used < sizeof fc->agreement; d++)
            if (fc->outlier[d])
                used += (size_t)snprintf(fc->agreement + used, sizeof fc->agreement - used, " %s",
                                         devs[d].label);
    } else
        snprintf(fc->agreement, sizeof fc->agreement, "identical");
}

/* Sum device_ms over the cases that every device of d's node and group judged; then flag the
   devices more than GV_FLEET_SLOW_FRACTION over their node's median. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void time_devices(fm_dev *devs, int n, const char *const *keys, int n_keys)
{
    assert(n <= GV_FLEET_MERGE_MAX); /* peers[] and the times */
    for (int d = 0; d < n; d++) {
        if (devs[d].timed) continue;
        int peers[GV_FLEET_MERGE_MAX], m = 0;
        for (int e = 0; e < n; e++)
            if (strcmp(devs[e].host, devs[d].host) == 0 &&
                strcmp(devs[e].group, devs[d].group) == 0)
                peers[m++] = e;
        for (int i = 0; i < m; i++)
            devs[peers[i]].timed = true;
        if (m < 2) continue;
        double t[GV_FLEET_MERGE_MAX] = {0};
        for (int k = 0; k < n_keys; k++) {
            bool all = true;
            for (int i = 0; i < m && all; i++)
                all = judged(json_object_get(devs[peers[i]].cases, keys[k]));
            if (!all) continue;
            for (int i = 0; i < m; i++) {
                double ms = gv_jnum(json_object_get(devs[peers[i]].cases, keys[k]), "device_ms");
                if (isfinite(ms)) t[i] += ms;
            }
        }
        double sorted[GV_FLEET_MERGE_MAX];
        memcpy(sorted, t, sizeof(double) * (size_t)m);
        qsort(sorted, (size_t)m, sizeof(double), cmp_double);
        double median = m % 2 ? sorted[m / 2] : 0.5 * (sorted[m / 2 - 1] + sorted[m / 2]);
        for (int i = 0; i < m; i++) {
            fm_dev *p = &devs[peers[i]];
            p->time_ms = t[i];
            p->vs_median = median > 0 ? t[i] / median - 1.0 : NAN;
            p->slow = median > 0 && t[i] > (1.0 + GV_FLEET_SLOW_FRACTION) * median;
        }
    }
}

static void count_verdict(fm_dev *d, const json_t *c)
{
    const char *v = gv_jstr(c, "verdict");
    if (strcmp(v, "PASS") == 0)
        d->pass++;
    else if (strcmp(v, "FAIL") == 0)
        d->fail++;
    else if (strcmp(v, "ERROR") == 0)
        d->error++;
    else
        d->skip++;
}

static bool on_several_hosts(json_t *const *docs, int n)
{
    bool several_hosts = false;
    for (int k = 1; k < n; k++) {
        const char *a = gv_jstr(docs[0], "fleet.host"), *b = gv_jstr(docs[k], "fleet.host");
        if (!a[0]) a = gv_jstr(docs[0], "host.hostname");
        if (!b[0]) b = gv_jstr(docs[k], "host.hostname");
        if (strcmp(a, b) != 0) several_hosts = true;
    }
    return several_hosts;
}

/* Index device d's cases by key, count its verdicts and add the keys not seen before. */
static void gather_cases(fm_merge *m, int d)
{
    json_t *map = json_object();
    m->devs[d].cases = map;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(m->devs[d].doc, "cases"), i, c)
    {
        char key[512];
        case_key(c, key, sizeof key);
        json_object_set(map, key, c);
        count_verdict(&m->devs[d], c);
        if (!json_object_get(m->keyset, key)) {
            json_object_set(m->keyset, key, c);
            const char **grown = realloc(m->keys, sizeof *m->keys * (size_t)(m->n_keys + 1));
            if (!grown) continue;
            m->keys = grown;
            m->keys[m->n_keys++] = json_object_iter_key(json_object_iter_at(m->keyset, key));
        }
    }
}

/* Each run file as a device: a label of its own, its model group, its cases. */
static void gather(fm_merge *m, json_t *const *docs)
{
    bool several_hosts = on_several_hosts(docs, m->n);
    m->devs = calloc((size_t)m->n, sizeof *m->devs);
    m->keyset = json_object();
    for (int d = 0; d < m->n; d++) {
        fm_dev *v = &m->devs[d];
        describe_device(v, docs[d], d, several_hosts);
        for (int e = 0; e < d; e++)
            if (strcmp(m->devs[e].label, v->label) == 0) {
                char own[96];
                snprintf(own, sizeof own, "%.80s#%d", v->label, d);
                snprintf(v->label, sizeof v->label, "%s", own);
            }
        int g = 0;
        while (g < m->n_groups && strcmp(m->groups[g], v->group) != 0)
            g++;
        if (g == m->n_groups)
            snprintf(m->groups[m->n_groups++], sizeof m->groups[0], "%s", v->group);
        gather_cases(m, d);
    }
}

/* Decide each case's agreement and count the cases identical, differing and not compared. */
static void judge_cases(fm_merge *m)
{
    m->fcs = calloc((size_t)(m->n_keys ? m->n_keys : 1), sizeof *m->fcs);
    for (int k = 0; k < m->n_keys; k++) {
        fm_case *fc = &m->fcs[k];
        fc->key = m->keys[k];
        fc->any = json_object_get(m->keyset, m->keys[k]);
        fc->all_pass = true;
        for (int d = 0; d < m->n; d++) {
            const json_t *c = json_object_get(m->devs[d].cases, fc->key);
            if (!c || strcmp(gv_jstr(c, "verdict"), "PASS") != 0) fc->all_pass = false;
        }
        decide_case(fc, m->devs, m->n, m->groups, m->n_groups);
        bool out_here = false;
        for (int d = 0; d < m->n; d++)
            if (fc->outlier[d]) {
                m->devs[d].outlier_cases++;
                out_here = true;
            }
        if (out_here || fc->undecided)
            m->differ++;
        else if (fc->compared)
            m->identical++;
        else
            m->not_compared++;
    }
}

static int group_of(const fm_merge *m, const fm_dev *v)
{
    int g = 0;
    while (strcmp(m->groups[g], v->group) != 0)
        g++;
    return g;
}

/* A device's row of the fleet document. */
static json_t *device_json(const fm_dev *v, const char *file, int g)
{
    json_t *jd = json_object();
    json_object_set_new(jd, "label", json_string(v->label));
    json_object_set_new(jd, "file", json_string(file));
    json_object_set_new(jd, "model", json_integer(g));
    json_object_set(jd, "device", json_object_get(v->doc, "device"));
    json_object_set(jd, "fleet", json_object_get(v->doc, "fleet"));
    json_object_set_new(jd, "summary",
                        json_pack("{s:i, s:i, s:i, s:i}", "passed", v->pass, "failed", v->fail,
                                  "skipped", v->skip, "errors", v->error));
    json_object_set_new(jd, "device_ms_total",
                        isfinite(v->vs_median) ? json_real(v->time_ms) : json_null());
    json_object_set_new(jd, "vs_node_median",
                        isfinite(v->vs_median) ? json_real(v->vs_median) : json_null());
    json_object_set_new(jd, "slow", json_boolean(v->slow));
    json_object_set_new(jd, "outlier_cases", json_integer(v->outlier_cases));
    return jd;
}

/* The devices' rows of the fleet document. */
static json_t *devices_json(const fm_merge *m, const char *const *names)
{
    json_t *jdevs = json_array();
    for (int d = 0; d < m->n; d++)
        json_array_append_new(jdevs, device_json(&m->devs[d], names[d], m->devs[d].model));
    return jdevs;
}

void gv_fleet_case_label(const char *key, char *label, size_t len)
{
    snprintf(label, len, "%s", key);
    char *bar = strrchr(label, '|');
    if (bar) *bar = '\0';
}

/* One case on each device, for the fleet document. */
static json_t *case_devices_json(const fm_merge *m, const fm_case *fc)
{
    json_t *per = json_array();
    for (int d = 0; d < m->n; d++) {
        const json_t *c = json_object_get(m->devs[d].cases, fc->key);
        json_t *pd = json_object();
        json_object_set_new(pd, "device", json_string(m->devs[d].label));
        json_object_set_new(pd, "verdict", c ? json_string(gv_jstr(c, "verdict")) : json_null());
        json_object_set(pd, "output_hash", c ? json_object_get(c, "output_hash") : json_null());
        const json_t *mt = c ? json_object_get(c, "metrics") : NULL;
        json_object_set(pd, "max_rel", mt ? json_object_get(mt, "max_rel") : json_null());
        json_object_set(pd, "normwise_rel", mt ? json_object_get(mt, "normwise_rel") : json_null());
        json_object_set(pd, "worst_index", mt ? json_object_get(mt, "worst_index") : json_null());
        json_object_set(pd, "worst_value", mt ? json_object_get(mt, "worst_value") : json_null());
        json_object_set(pd, "device_ms", c ? json_object_get(c, "device_ms") : json_null());
        json_object_set_new(pd, "outlier", json_boolean(fc->outlier[d]));
        json_array_append_new(per, pd);
    }
    return per;
}

/* The cases' rows of the fleet document (every case, quiet or not). */
static json_t *cases_json(const fm_merge *m)
{
    json_t *jcases = json_array();
    for (int k = 0; k < m->n_keys; k++) {
        const fm_case *fc = &m->fcs[k];
        json_t *jc = json_object();
        const char *fields[] = {"op", "dtype", "mode", "dist", "shape", "seed"};
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
            json_object_set(jc, fields[f], json_object_get(fc->any, fields[f]));
        json_object_set_new(jc, "deterministic", json_boolean(fc->deterministic));
        json_object_set_new(jc, "compared", json_boolean(fc->compared));
        json_object_set_new(jc, "agreement", json_string(fc->agreement));
        json_object_set_new(jc, "devices", case_devices_json(m, fc));
        json_array_append_new(jcases, jc);
    }
    return jcases;
}

bool gv_fleet_case_outlier(const gv_fleet_merged *m, const gv_fm_case *fc, int d)
{
    return fc->outlier[d] || (fc->undecided && json_object_get(m->devs[d].cases, fc->key));
}

/* Every outlier device of every case (each device that has it, when undecided), as the fleet
   document's rows. */
static json_t *outliers_json(const fm_merge *m)
{
    json_t *jout = json_array();
    for (int k = 0; k < m->n_keys; k++) {
        const fm_case *fc = &m->fcs[k];
        char label[512];
        gv_fleet_case_label(fc->key, label, sizeof label);
        const fm_dev *ref = fc->reference >= 0 ? &m->devs[fc->reference] : NULL;
        const json_t *rc = ref ? json_object_get(ref->cases, fc->key) : NULL;
        for (int d = 0; d < m->n; d++) {
            if (!gv_fleet_case_outlier(m, fc, d)) continue;
            json_array_append_new(jout, json_pack("{s:s, s:s, s:b, s:s}", "case", label, "device",
                                                  m->devs[d].label, "undecided", fc->undecided,
                                                  "reference", rc ? ref->label : ""));
        }
    }
    return jout;
}

/* The notes: several models compared apart, slow devices. */
static json_t *notes_json(const fm_merge *m)
{
    json_t *notes = json_array();
    char note[512];
    if (m->n_groups > 1) {
        snprintf(note, sizeof note,
                 "%d device models or software versions: outputs are compared bit for bit only "
                 "within each",
                 m->n_groups);
        json_array_append_new(notes, json_string(note));
    }
    for (int d = 0; d < m->n; d++)
        if (m->devs[d].slow) {
            char link[48], clk[32];
            gv_fleet_link_text(m->devs[d].doc, link, sizeof link);
            gv_fleet_clock_text(m->devs[d].doc, clk, sizeof clk);
            snprintf(note, sizeof note,
                     "%s is %.1f%% slower than its node's median over the cases every device "
                     "judged (PCIe %s, SM clock %s MHz); correctness-run times, not a benchmark",
                     m->devs[d].label, 100 * m->devs[d].vs_median, link, clk);
            json_array_append_new(notes, json_string(note));
        }
    return notes;
}

/* The merge's status from the verdicts over every device. */
static gv_status merge_status(const fm_merge *m)
{
    int pass = 0, fail = 0, error = 0;
    bool any_device = false;
    for (int d = 0; d < m->n; d++) {
        pass += m->devs[d].pass;
        fail += m->devs[d].fail;
        error += m->devs[d].error;
        any_device = any_device || json_is_object(json_object_get(m->devs[d].doc, "device"));
    }
    gv_status rc = gv_run_status(fail, error, pass, any_device, false);
    if (rc == GV_ST_OK && m->differ > 0) rc = GV_ST_OUTLIER;
    return rc;
}

/* The gpuval-fleet/1 document; it takes the three arrays and a reference to the notes. */
static json_t *fleet_doc(const fm_merge *m, json_t *jdevs, json_t *jcases, json_t *jout)
{
    json_t *root = json_object();
    char when[64];
    json_object_set_new(root, "schema", json_string(gv_schema(GV_DOC_FLEET)));
    json_object_set_new(root, "created", json_string(gv_json_now(when, sizeof when)));
    json_object_set_new(root, "devices", jdevs);
    json_object_set_new(root, "cases", jcases);
    json_object_set_new(root, "outliers", jout);
    json_object_set(root, "notes", m->notes);
    json_object_set_new(root, "summary",
                        json_pack("{s:i, s:i, s:i, s:i, s:f}", "cases", m->n_keys, "identical",
                                  m->identical, "differ", m->differ, "not_compared",
                                  m->not_compared, "slow_fraction", GV_FLEET_SLOW_FRACTION));
    return root;
}

gv_status gv_fleet_merge(json_t *const *docs, const char *const *names, int n, gv_fleet_merged *m,
                         json_t **fleet, gv_error *e)
{
    memset(m, 0, sizeof *m);
    if (n > GV_FLEET_MERGE_MAX)
        return gv_err_set(e, GV_ST_BAD_INPUT, "merge takes at most %d run files, not %d",
                          GV_FLEET_MERGE_MAX, n);
    m->n = n;
    gather(m, docs);
    judge_cases(m);
    time_devices(m->devs, n, m->keys, m->n_keys);
    for (int d = 0; d < n; d++)
        m->devs[d].model = group_of(m, &m->devs[d]);
    m->notes = notes_json(m);
    if (fleet) *fleet = fleet_doc(m, devices_json(m, names), cases_json(m), outliers_json(m));
    return merge_status(m);
}

void gv_fleet_merged_free(gv_fleet_merged *m)
{
    if (!m) return;
    for (int d = 0; d < m->n && m->devs; d++)
        json_decref((json_t *)m->devs[d].cases);
    json_decref(m->keyset);
    json_decref(m->notes);
    free(m->keys);
    free(m->fcs);
    free(m->devs);
    memset(m, 0, sizeof *m);
}
