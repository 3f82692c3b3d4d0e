/* screen_judge.c: the three judgements of `gpuval screen` (screen_judge.h) over the runs of a
 * node's GPUs: (a) each case's own verdict (the oracle and the error models, exactly as check
 * judged it), (b) each deterministic case's output digest against the golden file's entry for the
 * GPU's model, driver and libraries, and (c) the GPUs against each other, by gpuval merge's rules
 * (gv_fleet_merge: a strict majority of one model names the outlier; two GPUs, the one clearly
 * farther from the oracle), where a GPU holding the golden digest is never the one named. A
 * case that fails several judgements is one failure with every judgement named. Beside the
 * numbers, the board: its health (NVML's counters before and after, XID events) and its speed
 * against its peers and the golden file (screen_health.h). */
#include "fleet/screen_judge.h"

#include "fleet/screen_golden.h"
#include "fleet/screen_health.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench/stats.h"
#include "core/gv.h"
#include "io/json_util.h"
#include "io/run_read.h"
#include "runs/merge_check.h"

const char *gv_screen_by_text(int by, char *buf, size_t len)
{
    static const char *const names[] = {"check", "golden", "fleet", "health", "perf"};
    size_t at = 0;
    buf[0] = '\0';
    for (int b = 0; b < (int)(sizeof names / sizeof names[0]); b++)
        if (by & (1 << b)) {
            int w = snprintf(buf + at, at < len ? len - at : 0, "%s%s", at ? "+" : "", names[b]);
            if (w > 0) at += (size_t)w;
        }
    return buf;
}

enum { SHAPE_TEXT = 128 };

/* A case's shape as "AxBxC" (its run document's "shape"). */
static void case_shape(const json_t *c, char shape[SHAPE_TEXT])
{
    size_t used = 0, i;
    const json_t *d;
    shape[0] = '\0';
    json_array_foreach(json_object_get(c, "shape"), i, d)
    {
        used += (size_t)snprintf(shape + used, used < SHAPE_TEXT ? SHAPE_TEXT - used : 0, "%s%lld",
                                 i ? "x" : "", (long long)json_integer_value(d));
    }
}

/* "op dtype mode dist shape": how merge labels a case (its key before '|'), and the failures'. */
static void case_label(const json_t *c, char *buf, size_t len)
{
    char shape[SHAPE_TEXT];
    case_shape(c, shape);
    snprintf(buf, len, "%s %s %s %s %s", gv_jstr(c, "op"), gv_jstr(c, "dtype"), gv_jstr(c, "mode"),
             gv_jstr(c, "dist"), shape);
}

static int case_unit(const gv_screen_tier *tier, const json_t *c)
{
    char shape[SHAPE_TEXT];
    case_shape(c, shape);
    return gv_screen_unit_of(tier, gv_jstr(c, "op"), gv_jstr(c, "dtype"), gv_jstr(c, "mode"),
                             gv_jstr(c, "dist"), shape);
}

static void note(gv_screen_verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(gv_screen_verdict *v, const char *fmt, ...)
{
    if (v->n_notes >= (int)(sizeof v->notes / sizeof v->notes[0])) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->notes[v->n_notes++], sizeof v->notes[0], fmt, ap);
    va_end(ap);
}

/* Record that case label (unit) of GPU g failed judgement by, for why. The same case failed by
   another judgement already: that failure gains the judgement, and keeps its first reason. */
static void fail(gv_screen_verdict *v, int g, int unit, int by, const char *label, const char *why)
{
    for (int i = 0; i < v->n_failures; i++) {
        gv_screen_failure *f = &v->failures[i];
        if (f->gpu == g && strcmp(f->label, label) == 0) {
            f->by |= by;
            return;
        }
    }
    if (v->n_failures == v->cap) {
        int cap = v->cap ? 2 * v->cap : 16;
        gv_screen_failure *nf = realloc(v->failures, (size_t)cap * sizeof *nf);
        if (!nf) return; /* counted below all the same: the GPU is not ok */
        v->failures = nf;
        v->cap = cap;
    }
    gv_screen_failure *f = &v->failures[v->n_failures++];
    memset(f, 0, sizeof *f);
    f->gpu = g;
    f->unit = unit;
    f->by = by;
    snprintf(f->label, sizeof f->label, "%s", label);
    snprintf(f->why, sizeof f->why, "%s", why);
}

/* The GPU's identity and counts from its run. */
static void describe(gv_screen_gpu *gpu, const json_t *doc, int k)
{
    const json_t *dev = json_object_get(doc, "device");
    gpu->index = gv_jint(doc, "fleet.device_index", k);
    /* as nvidia-smi -L, DCGM and the device plugin print it, so that labels join */
    const char *uuid = gv_jstr(dev, "uuid");
    snprintf(gpu->uuid, sizeof gpu->uuid, "%s%s", *uuid && strncmp(uuid, "GPU-", 4) ? "GPU-" : "",
             uuid);
    snprintf(gpu->name, sizeof gpu->name, "%s",
             json_is_object(dev) ? gv_jstr(dev, "name") : "no device");
    if (!gv_screen_golden_key(doc, gpu->key, sizeof gpu->key))
        snprintf(gpu->key, sizeof gpu->key, "%s", gpu->name);
    double s = gv_jnum(doc, "screen.seconds");
    gpu->seconds = s == s && s > 0 ? s : 0;
}

/* (a) and (b) for GPU g. */
static void judge_gpu(gv_screen_verdict *v, int g, const json_t *doc, const json_t *golden)
{
    gv_screen_gpu *gpu = &v->gpus[g];
    const json_t *entry = NULL, *digests = NULL;
    if (golden) {
        entry = gv_screen_golden_entry(golden, gpu->key);
        gpu->golden = entry ? GV_GOLDEN_COMPARED : GV_GOLDEN_NO_ENTRY;
        digests = json_object_get(entry, "digests");
        if (!entry)
            note(v,
                 "GPU %d: no golden entry for this GPU/driver/library (%s): not compared "
                 "bit for bit",
                 gpu->index, gpu->key);
    }
    size_t i;
    const json_t *c;
    if (!json_is_object(json_object_get(doc, "device")))
        fail(v, g, -1, GV_SCREEN_BY_CHECK, "device", "its worker found no CUDA device");
    json_array_foreach(json_object_get(doc, "cases"), i, c)
    {
        char label[192], why[512];
        case_label(c, label, sizeof label);
        int unit = case_unit(v->tier, c);
        const char *verdict = gv_jstr(c, "verdict");
        gpu->cases++;
        if (strcmp(verdict, "PASS") == 0)
            gpu->passed++;
        else if (strcmp(verdict, "FAIL") == 0)
            gpu->failed++;
        else if (strcmp(verdict, "SKIP") == 0)
            gpu->skipped++;
        else
            gpu->errors++;
        if (strcmp(verdict, "FAIL") == 0 || strcmp(verdict, "ERROR") == 0 ||
            !gv_run_verdict_ok(verdict)) {
            snprintf(why, sizeof why, "%s: %s", *verdict ? verdict : "no verdict",
                     *gv_jstr(c, "reason") ? gv_jstr(c, "reason") : "(no reason recorded)");
            fail(v, g, unit, GV_SCREEN_BY_CHECK, label, why);
        }
        if (!digests || strcmp(verdict, "SKIP") == 0 || strcmp(verdict, "ERROR") == 0) continue;
        if (!json_is_true(json_object_get(c, "deterministic"))) continue; /* the models judge it */
        const char *hash = json_string_value(json_object_get(c, "output_hash"));
        char key[512];
        gv_run_case_key(c, key, sizeof key);
        const char *want = json_string_value(json_object_get(digests, key));
        if (!hash || !want) {
            gpu->golden_missing++;
            continue;
        }
        if (strcmp(hash, want) == 0) {
            gpu->golden_matched++;
            continue;
        }
        gpu->golden_differ++;
        snprintf(why, sizeof why, "digest %s differs from golden %s", hash, want);
        fail(v, g, unit, GV_SCREEN_BY_GOLDEN, label, why);
    }
    if (gpu->golden == GV_GOLDEN_COMPARED && gpu->golden_missing)
        note(v, "GPU %d: %d deterministic cases have no golden digest in the entry for %s",
             gpu->index, gpu->golden_missing, gpu->key);
}

/* The board's own account of GPU g (the health block its worker wrote): a failure of unit
   health where gv_health_judge fails it, a note for what it only warns of or could not read. */
static void judge_health(gv_screen_verdict *v, int g, const json_t *doc)
{
    const json_t *block = json_object_get(json_object_get(doc, "screen"), "health");
    if (!block) return; /* a run from before health was read: nothing to say */
    gv_health before, after;
    unsigned long long xid[GV_XID_MAX];
    int n_xid = gv_screen_health_read(block, &before, &after, xid);
    char why[512], warn[320];
    if (gv_health_judge(&before, &after, xid, n_xid, why, sizeof why, warn, sizeof warn))
        fail(v, g, GV_UNIT_HEALTH, GV_SCREEN_BY_HEALTH, "board health", why);
    if (*warn) note(v, "GPU %d: %s", v->gpus[g].index, warn);
    if (!before.ok && !after.ok)
        note(v, "GPU %d: health not read: %s", v->gpus[g].index, after.why);
    const char *watch = json_string_value(json_object_get(block, "xid_watch"));
    if (watch && (before.ok || after.ok))
        note(v, "GPU %d: XID events not watched: %s", v->gpus[g].index, watch);
}

/* Speed: each GPU's timed copy and products against the median of the node's other GPUs of
   its model and against its golden entry's speeds; slower than either by GV_SCREEN_PERF_MARGIN
   fails unit perf. A GPU faster than its reference is never named. */
static void judge_perf(gv_screen_verdict *v, json_t *const *docs, int n, const json_t *golden)
{
    double val[GV_FLEET_MAX_DEVICES][GV_SCREEN_NPERF];
    for (int g = 0; g < n; g++)
        gv_screen_perf_read(docs[g] ? json_object_get(json_object_get(docs[g], "screen"), "perf")
                                    : NULL,
                            val[g]);
    for (int g = 0; g < n; g++) {
        if (!docs[g]) continue;
        gv_screen_gpu *gpu = &v->gpus[g];
        memcpy(gpu->perf, val[g], sizeof gpu->perf);
        double gold[GV_SCREEN_NPERF] = {0};
        if (golden)
            gv_screen_perf_read(json_object_get(gv_screen_golden_entry(golden, gpu->key), "perf"),
                                gold);
        char why[512] = "";
        size_t used = 0;
        for (int i = 0; i < GV_SCREEN_NPERF; i++) {
            double peers[GV_FLEET_MAX_DEVICES];
            int m = 0;
            for (int h = 0; h < n; h++)
                if (h != g && docs[h] && val[h][i] > 0 && strcmp(v->gpus[h].name, gpu->name) == 0)
                    peers[m++] = val[h][i];
            double median = m ? gv_median(peers, m) : 0;
            const char *unit = gv_screen_perf_unit(i), *key = gv_screen_perf_key(i);
            int w = 0;
            if (gv_screen_perf_slow(val[g][i], median))
                w = snprintf(why + used, sizeof why - used,
                             "%s%s %.4g %s is %.2f of the median of its %d peers (%.4g)",
                             used ? "; " : "", key, val[g][i], unit, val[g][i] / median, m, median);
            else if (gv_screen_perf_slow(val[g][i], gold[i]))
                w = snprintf(why + used, sizeof why - used,
                             "%s%s %.4g %s is %.2f of the golden file's %.4g", used ? "; " : "",
                             key, val[g][i], unit, val[g][i] / gold[i], gold[i]);
            if (w > 0 && (size_t)w < sizeof why - used) used += (size_t)w;
        }
        if (*why) fail(v, g, GV_UNIT_PERF, GV_SCREEN_BY_PERF, "speed", why);
    }
}

/* Whether the golden file holds case c's digest for GPU g's key: 1 the same, 0 another, -1 no
   entry or no digest. */
static int golden_agrees(const json_t *golden, const gv_screen_gpu *gpu, const json_t *c)
{
    const json_t *digests = json_object_get(gv_screen_golden_entry(golden, gpu->key), "digests");
    char key[512];
    gv_run_case_key(c, key, sizeof key);
    const char *want = json_string_value(json_object_get(digests, key)),
               *hash = json_string_value(json_object_get(c, "output_hash"));
    if (!want || !hash) return -1;
    return strcmp(want, hash) == 0;
}

/* (c): the GPUs against each other, by merge's rules; outliers fail their case, but never a GPU
   whose digest the golden file holds for its model and software. */
static void judge_fleet(gv_screen_verdict *v, json_t *const *docs, const char *const *names, int n,
                        const json_t *golden, bool keep_merge)
{
    json_t *run_docs[GV_FLEET_MAX_DEVICES];
    const char *run_names[GV_FLEET_MAX_DEVICES];
    int gpu_of[GV_FLEET_MAX_DEVICES], m = 0;
    for (int i = 0; i < n; i++)
        if (docs[i]) {
            run_docs[m] = docs[i];
            run_names[m] = names[i] ? names[i] : "";
            gpu_of[m++] = i;
        }
    if (m < 2) return;
    json_t *fleet = NULL;
    gv_fleet_merged *merged = calloc(1, sizeof *merged);
    if (!merged) {
        note(v, "the GPUs were not compared with each other: out of host memory");
        return;
    }
    gv_error e = {.status = GV_ST_OK};
    gv_fleet_merge(run_docs, run_names, m, merged, &fleet, &e);
    if (keep_merge) {
        v->merged = merged;
    } else {
        gv_fleet_merged_free(merged);
        free(merged);
    }
    const json_t *devs = json_object_get(fleet, "devices");
    size_t i;
    const json_t *o;
    json_array_foreach(json_object_get(fleet, "outliers"), i, o)
    {
        const char *dev = gv_jstr(o, "device"), *label = gv_jstr(o, "case");
        int g = -1;
        for (int d = 0; d < m && g < 0; d++)
            if (strcmp(gv_jstr(json_array_get(devs, (size_t)d), "label"), dev) == 0) g = gpu_of[d];
        if (g < 0) continue;
        /* the unit from the outlier's own case */
        int unit = -1;
        size_t k;
        const json_t *c, *mine = NULL;
        json_array_foreach(json_object_get(docs[g], "cases"), k, c)
        {
            char l[192];
            case_label(c, l, sizeof l);
            if (strcmp(l, label) == 0) {
                unit = case_unit(v->tier, c);
                mine = c;
                break;
            }
        }
        char why[512];
        bool undecided = json_is_true(json_object_get(o, "undecided"));
        if (golden && mine && golden_agrees(golden, &v->gpus[g], mine) == 1)
            continue; /* its digest is the golden one, recorded on a node that passed: the GPUs
                         that differ from it are named by (b); the fleet's vote (without a
                         majority, nearness to the oracle) never outweighs it */
        if (undecided)
            snprintf(why, sizeof why,
                     "digest differs from the other GPU's of its model, neither is clearly nearer the "
                     "oracle and no golden digest decides (undecided: both named)");
        else
            snprintf(why, sizeof why,
                     "digest differs from the other GPUs' of its model "
                     "(reference %s)",
                     gv_jstr(o, "reference"));
        fail(v, g, unit, GV_SCREEN_BY_FLEET, label, why);
    }
    json_t *nv;
    json_array_foreach(json_object_get(fleet, "notes"), i, nv)
    {
        if (json_is_string(nv)) note(v, "%s", json_string_value(nv));
    }
    json_decref(fleet);
}

gv_status gv_screen_judge(const gv_screen_tier *tier, json_t *const *docs, const char *const *names,
                          int n, const json_t *golden, bool keep_merge, gv_screen_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->tier = tier;
    v->n = n < GV_FLEET_MAX_DEVICES ? n : GV_FLEET_MAX_DEVICES;
    for (int g = 0; g < v->n; g++) {
        gv_screen_gpu *gpu = &v->gpus[g];
        gpu->index = g;
        gpu->file = names ? names[g] : NULL;
        if (!docs[g]) {
            gpu->lost = true;
            snprintf(gpu->name, sizeof gpu->name, "not judged");
            continue;
        }
        describe(gpu, docs[g], g);
        judge_gpu(v, g, docs[g], golden);
        judge_health(v, g, docs[g]);
        const char *tv = gv_jstr(docs[g], "screen.tier");
        if (*tv && strcmp(tv, tier->version) != 0)
            note(v, "GPU %d ran %s, not %s", gpu->index, tv, tier->version);
    }
    judge_fleet(v, docs, names, v->n, golden, keep_merge);
    judge_perf(v, docs, v->n, golden);
    bool failed = false, lost = false;
    for (int i = 0; i < v->n_failures; i++) {
        const gv_screen_failure *f = &v->failures[i];
        gv_screen_gpu *gpu = &v->gpus[f->gpu];
        gpu->n_failures++;
        if (f->unit >= 0) gpu->unit_failures[f->unit]++;
    }
    for (int g = 0; g < v->n; g++) {
        gv_screen_gpu *gpu = &v->gpus[g];
        gpu->ok = !gpu->lost && gpu->n_failures == 0 && gpu->cases > 0;
        failed = failed || (!gpu->lost && !gpu->ok);
        lost = lost || gpu->lost;
    }
    v->status = failed ? GV_ST_FAIL : lost ? GV_ST_RUNTIME : GV_ST_OK;
    return v->status;
}

void gv_screen_verdict_free(gv_screen_verdict *v)
{
    free(v->failures);
    v->failures = NULL;
    gv_fleet_merged_free(v->merged);
    free(v->merged);
    v->merged = NULL;
    v->n_failures = v->cap = 0;
}
