/* bench_json.c: the timed run's JSON document, schema "gpuval-bench/1" (see bench_json.h):
 * header and device fingerprint, ceilings, each case with its raw samples, summaries and
 * speed-ups, the crossover sweeps and the targets. Statistics come from stats.c; this file
 * only arranges them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_json.h"
#include "json_util.h"

#ifndef GV_VERSION
#define GV_VERSION "unknown"
#endif

static json_t *pair(double a, double b)
{
    json_t *p = json_array();
    json_array_append_new(p, gv_json_num(a));
    json_array_append_new(p, gv_json_num(b));
    return p;
}

/* A JSON number, or one of the strings gv_json_num() writes, as a double; NaN otherwise. */
static double jval(const json_t *v)
{
    if (!v) return NAN;
    if (json_is_number(v)) return json_number_value(v);
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strcmp(s, "inf") == 0) return INFINITY;
        if (strcmp(s, "-inf") == 0) return -INFINITY;
    }
    return NAN;
}

double gv_jat(const json_t *arr, size_t i)
{
    return jval(json_array_get(arr, i));
}

double gv_jnum(const json_t *o, const char *path)
{
    char key[128];
    const char *p = path;
    while (o && *p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len >= sizeof key) return NAN;
        memcpy(key, p, len);
        key[len] = '\0';
        o = json_is_object(o) ? json_object_get(o, key) : NULL;
        p = dot ? dot + 1 : p + len;
    }
    return jval(o);
}

const char *gv_jstr(const json_t *o, const char *path)
{
    char key[128];
    const char *p = path;
    while (o && *p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len >= sizeof key) return "";
        memcpy(key, p, len);
        key[len] = '\0';
        o = json_is_object(o) ? json_object_get(o, key) : NULL;
        p = dot ? dot + 1 : p + len;
    }
    return o && json_is_string(o) ? json_string_value(o) : "";
}

static json_t *sampling_json(const gv_sampling *s)
{
    return json_pack("{s:o, s:o, s:i, s:i, s:o}", "target_spread", gv_json_num(s->target_spread),
                     "cap_s", gv_json_num(s->cap_s), "min_samples", s->min_samples, "max_samples",
                     s->max_samples, "budget_s", gv_json_num(s->budget_s));
}

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon += 2;
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(buf, len, "%s", colon);
            break;
        }
    }
    fclose(f);
}

json_t *gv_bench_doc_new(const gv_bench_run_info *info)
{
    char host[256] = "", when[64], cpu[256];
    gethostname(host, sizeof host - 1);
    time_t t = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    cpu_model(cpu, sizeof cpu);
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string(GV_BENCH_SCHEMA));
    json_object_set_new(doc, "tool",
                        json_pack("{s:s, s:s}", "name", "gpuval", "version", GV_VERSION));
    json_object_set_new(doc, "command", json_string("bench"));
    json_object_set_new(doc, "argv", json_string(info->argv_joined ? info->argv_joined : ""));
    json_object_set_new(doc, "created", json_string(when));
    json_object_set_new(doc, "preset", info->preset ? json_string(info->preset) : json_null());
    json_object_set_new(doc, "host",
                        json_pack("{s:s, s:s, s:I, s:i}", "hostname", host, "cpu_model", cpu,
                                  "logical_cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
                                  "oracle_threads", info->oracle_threads));
    json_object_set_new(doc, "build", gv_json_build());
    json_object_set_new(doc, "device",
                        info->have_device ? gv_json_device(&info->device) : json_null());
    const gv_bench_opts *o = info->opts;
    json_t *m = json_object();
    json_object_set_new(m, "confidence", gv_json_num(o->gpu.conf));
    json_object_set_new(
        m, "interval",
        json_string("distribution-free CI of the median from order statistics (Conover 3.2); "
                    "speed-up CI: the ratio of the two medians' CIs, each at 1-(1-conf)/2 "
                    "(Bonferroni)"));
    json_object_set_new(m, "rel_spread", json_string("(ci_hi - ci_lo) / (2 median)"));
    json_object_set_new(m, "gpu", sampling_json(&o->gpu));
    json_object_set_new(m, "cpu", sampling_json(&o->cpu));
    json_object_set_new(m, "timer",
                        json_string("CUDA events; the sample is queued behind a "
                                    "holding kernel, so launch gaps stay out"));
    json_object_set_new(m, "warmup",
                        json_string("setup and one launch at open; one discarded "
                                    "sample per scope; the oracle's first run "
                                    "(the reference) is not timed"));
    json_object_set_new(m, "cpu_what",
                        json_string("the f64 oracle, including its error-model "
                                    "gauge, on the inputs the GPU gets"));
    json_object_set_new(
        m, "scopes",
        json_pack("{s:s, s:s, s:s, s:s}", "kernel_hot",
                  "the op's launch repeated back to back, time per launch", "kernel_cold",
                  "one launch after writing a buffer of twice the L2's size", "e2e",
                  "pinned H2D of every input, one launch, D2H of every output (plans, handles "
                  "and the op's host_aux are set up once, outside)",
                  "cpu", "one run of the op's f64 oracle"));
    json_object_set_new(m, "max_hot_reps", json_integer(o->max_hot_reps));
    json_object_set_new(m, "min_hot_sample_ms", gv_json_num(o->min_hot_sample_ms));
    json_object_set_new(m, "flush_bytes", json_integer(gk_l2_flush_bytes()));
    json_object_set_new(doc, "method", m);
    json_object_set_new(doc, "ceilings", json_null());
    json_object_set_new(doc, "cases", json_array());
    json_object_set_new(doc, "crossovers", json_array());
    json_object_set_new(doc, "notes", json_array());
    return doc;
}

static json_t *stat_json(const gv_samples *s, double conf)
{
    gv_stat st;
    json_t *o = json_object();
    gv_stat_describe(s->ms, s->n, conf, &st);
    json_object_set_new(o, "n", json_integer(s->n));
    json_object_set_new(o, "reps", json_integer(s->reps));
    json_object_set_new(o, "median_ms", gv_json_num(st.median));
    json_object_set_new(o, "ci_ms", pair(st.lo, st.hi));
    json_object_set_new(o, "coverage", gv_json_num(st.coverage));
    json_object_set_new(o, "rel_spread", gv_json_num(st.rel_spread));
    json_object_set_new(o, "min_ms", gv_json_num(st.min));
    json_object_set_new(o, "max_ms", gv_json_num(st.max));
    json_object_set_new(o, "stop", json_string(gv_stop_name(s->stop)));
    json_object_set_new(o, "elapsed_s", gv_json_num(s->elapsed_s));
    json_t *raw = json_array();
    for (int i = 0; i < s->n; i++)
        json_array_append_new(raw, gv_json_num(s->ms[i]));
    json_object_set_new(o, "samples_ms", raw);
    return o;
}

static json_t *ceiling_json(const gv_ceiling *c, const char *what, double conf, bool is_copy)
{
    json_t *o = json_object();
    json_object_set_new(o, "what", json_string(what));
    json_object_set_new(o, "ok", json_boolean(c->ok));
    json_object_set_new(o, "why", json_string(c->ok ? "" : c->why));
    json_object_set_new(o, is_copy ? "bytes" : "n", json_integer(c->size));
    json_object_set_new(o, is_copy ? "moved_bytes" : "flops", gv_json_num(c->work));
    if (c->ok) {
        json_t *t = stat_json(&c->t, conf);
        double ms = gv_jnum(t, "median_ms");
        json_object_set_new(o, "timing", t);
        json_object_set_new(o, is_copy ? "gbps" : "gflops",
                            gv_json_num(c->work / (ms * 1e-3) / 1e9));
        if (!is_copy) json_object_set_new(o, "math_mode", json_string(c->math_mode));
    }
    return o;
}

json_t *gv_bench_ceilings_json(const gv_ceilings *c, double conf)
{
    json_t *o = json_object(), *g = json_object();
    json_object_set_new(o, "copy",
                        ceiling_json(&c->copy,
                                     "device-to-device copy, bytes read + "
                                     "written",
                                     conf, true));
    for (int t = 0; t < GV_NDTYPES; t++)
        json_object_set_new(
            g, gv_dtype_name((gv_dtype)t),
            ceiling_json(&c->gemm[t], "cuBLAS gemm n^3, pedantic math", conf, false));
    json_object_set_new(o, "gemm", g);
    return o;
}

static json_t *shape_json(const gv_shape *s)
{
    json_t *a = json_array();
    for (int i = 0; i < s->nd; i++)
        json_array_append_new(a, json_integer(s->d[i]));
    return a;
}

static json_t *sanity_json(const gv_bench_case *bc)
{
    const gv_result *r = &bc->sanity;
    bool judged = bc->timed && (r->verdict == GV_PASS || r->verdict == GV_FAIL);
    json_t *o = json_object(), *tiers = json_array(), *met = json_array();
    for (int k = 0; k < r->tiers.n; k++) {
        json_array_append_new(tiers, json_real(r->tiers.t[k]));
        if (judged && gv_tier_met(&r->m, k)) json_array_append_new(met, json_real(r->tiers.t[k]));
    }
    json_object_set_new(o, "judged", json_boolean(judged));
    json_object_set_new(o, "tiers", tiers);
    json_object_set_new(o, "tiers_met", met);
    json_object_set_new(o, "expected_tier",
                        r->expected_tier > 0 ? json_real(r->expected_tier) : json_null());
    json_object_set_new(o, "kernel_path",
                        json_pack("{s:s, s:s}", "verdict", gv_verdict_name(bc->kernel_verdict),
                                  "reason", bc->kernel_reason));
    if (judged) {
        json_object_set_new(o, "max_rel", gv_json_num(r->m.max_rel));
        json_object_set_new(o, "normwise_rel", gv_json_num(r->m.normwise_rel));
        json_object_set_new(o, "accurate_bits", gv_json_num(r->m.bits));
        json_object_set_new(o, "ratio", gv_json_num(r->m.ratio));
        json_object_set_new(o, "ratio_bound", gv_json_num(r->ratio_bound));
        json_object_set_new(o, "poisoned", json_integer(r->m.poisoned));
    }
    return o;
}

static bool intervals_overlap(const json_t *a, const json_t *b)
{
    return gv_jnum(a, "ci_lo") <= gv_jnum(b, "ci_hi") && gv_jnum(b, "ci_lo") <= gv_jnum(a, "ci_hi");
}

static json_t *repeat_json(const gv_samples *first, const gv_samples *second, double conf)
{
    gv_stat a, b;
    gv_stat_describe(first->ms, first->n, conf, &a);
    gv_stat_describe(second->ms, second->n, conf, &b);
    json_t *fa = json_pack("{s:o, s:o, s:o, s:i}", "median_ms", gv_json_num(a.median), "ci_lo",
                           gv_json_num(a.lo), "ci_hi", gv_json_num(a.hi), "n", a.n);
    json_t *fb = json_pack("{s:o, s:o, s:o, s:i}", "median_ms", gv_json_num(b.median), "ci_lo",
                           gv_json_num(b.lo), "ci_hi", gv_json_num(b.hi), "n", b.n);
    json_t *o = json_object();
    json_object_set_new(o, "scope", json_string("kernel_hot"));
    json_object_set_new(o, "rule", json_string("the two medians' intervals overlap"));
    json_object_set_new(o, "agree", json_boolean(intervals_overlap(fa, fb)));
    json_object_set_new(o, "diff_rel", gv_json_num(b.median / a.median - 1.0));
    json_object_set_new(o, "first", fa);
    json_object_set_new(o, "second", fb);
    return o;
}

json_t *gv_bench_case_json(const gv_bench_case *bc, const json_t *ceilings, double conf)
{
    const gv_case *c = &bc->c;
    char shape[64], label[192];
    gv_shape_format(&c->shape, shape, sizeof shape);
    gv_case_label(c, label, sizeof label);
    json_t *o = json_object();
    json_object_set_new(o, "case", json_string(label));
    json_object_set_new(o, "op", json_string(c->op->name));
    json_object_set_new(o, "family", json_string(c->op->family));
    json_object_set_new(o, "dtype", json_string(gv_dtype_name(c->dtype)));
    json_object_set_new(o, "mode", json_string(gv_mode_name(c->mode)));
    json_object_set_new(o, "dist", json_string(gv_dist_name(c->dist)));
    json_object_set_new(o, "dims", json_string(c->op->dims));
    json_object_set_new(o, "shape", shape_json(&c->shape));
    json_object_set_new(o, "shape_label", json_string(shape));
    json_object_set_new(o, "seed", json_integer((json_int_t)c->seed));
    json_object_set_new(o, "flops", gv_json_num(bc->sanity.flops));
    json_object_set_new(o, "bytes", gv_json_num(bc->sanity.bytes));
    json_object_set_new(o, "verdict", json_string(gv_verdict_name(bc->sanity.verdict)));
    json_object_set_new(o, "reason", json_string(bc->sanity.reason));
    json_object_set_new(o, "math_mode", json_string(bc->sanity.math_mode));
    json_object_set_new(o, "oracle_threads", json_integer(bc->oracle_threads));
    json_object_set_new(o, "reference_ms", gv_json_num(bc->reference_ms));
    json_object_set_new(o, "sanity", sanity_json(bc));
    json_object_set_new(o, "launch",
                        json_pack("{s:b, s:i, s:i, s:I, s:I}", "queued", bc->info.queued,
                                  "hold_timeouts", bc->info.hold_timeouts, "hot_reps",
                                  bc->t[GV_T_HOT].reps, "flush_bytes",
                                  (json_int_t)bc->info.flush_bytes, "device_bytes",
                                  (json_int_t)bc->info.device_bytes));
    json_t *timings = json_object(), *speedup = json_object(), *achieved = json_object();
    for (int i = 0; i < GV_NTIMINGS; i++)
        if (bc->t[i].n > 0)
            json_object_set_new(timings, gv_timing_key(i), stat_json(&bc->t[i], conf));
    const gv_samples *cpu = &bc->t[GV_T_CPU];
    double copy_gbps = gv_jnum(ceilings, "copy.gbps");
    char gemm_key[32];
    snprintf(gemm_key, sizeof gemm_key, "gemm.%s.gflops", gv_dtype_name(c->dtype));
    double gemm_gflops = gv_jnum(ceilings, gemm_key);
    for (int i = GV_T_HOT; i <= GV_T_E2E; i++) {
        const gv_samples *g = &bc->t[i];
        if (g->n == 0) continue;
        if (cpu->n > 0) {
            gv_ratio r;
            gv_ratio_of_medians(cpu->ms, cpu->n, g->ms, g->n, conf, &r);
            json_object_set_new(speedup, gv_timing_key(i),
                                json_pack("{s:o, s:o, s:o}", "ratio", gv_json_num(r.ratio), "ci",
                                          pair(r.lo, r.hi), "coverage", gv_json_num(r.coverage)));
        }
        if (i == GV_T_E2E) continue; /* transfers are not the op's flops or bytes */
        double s = gv_median(g->ms, g->n) * 1e-3;
        double gflops = bc->sanity.flops / s / 1e9, gbps = bc->sanity.bytes / s / 1e9;
        json_object_set_new(achieved, gv_timing_key(i),
                            json_pack("{s:o, s:o, s:o, s:o}", "gflops", gv_json_num(gflops), "gbps",
                                      gv_json_num(gbps), "frac_gemm_ceiling",
                                      gv_json_num(gflops / gemm_gflops), "frac_copy_ceiling",
                                      gv_json_num(gbps / copy_gbps)));
    }
    json_object_set_new(o, "timings", timings);
    json_object_set_new(o, "speedup", speedup);
    json_object_set_new(o, "achieved", achieved);
    if (bc->repeat.n > 0 && bc->t[GV_T_HOT].n > 0)
        json_object_set_new(o, "repeat_check", repeat_json(&bc->t[GV_T_HOT], &bc->repeat, conf));
    return o;
}

/* ---- crossover sweeps ---- */

json_t *gv_bench_crossover_new(const gv_case *base, int dim, int64_t lo, int64_t hi, double factor)
{
    char dims[64];
    snprintf(dims, sizeof dims, "%s", base->op->dims);
    /* the name of dim `dim` in "m,k,n" */
    char *name = dims;
    for (int i = 0; i < dim && name; i++) {
        name = strchr(name, ',');
        if (name) name++;
    }
    if (!name) name = dims;
    name[strcspn(name, ",")] = '\0';
    json_t *o = json_object();
    json_object_set_new(o, "op", json_string(base->op->name));
    json_object_set_new(o, "dtype", json_string(gv_dtype_name(base->dtype)));
    json_object_set_new(o, "mode", json_string(gv_mode_name(base->mode)));
    json_object_set_new(o, "dims", json_string(base->op->dims));
    json_object_set_new(o, "dim", json_string(name));
    json_object_set_new(o, "dim_index", json_integer(dim));
    json_object_set_new(o, "base_shape", shape_json(&base->shape));
    json_object_set_new(o, "lo", json_integer(lo));
    json_object_set_new(o, "hi", json_integer(hi));
    json_object_set_new(o, "factor", gv_json_num(factor));
    json_object_set_new(o, "scope", json_string("e2e"));
    json_object_set_new(o, "points", json_array());
    json_object_set_new(o, "status", json_string("not in the swept range"));
    json_object_set_new(o, "stopped_early", json_false());
    return o;
}

void gv_bench_crossover_add(json_t *xo, int64_t size, json_t *case_obj)
{
    json_t *pts = json_object_get(xo, "points");
    json_object_set_new(case_obj, "size", json_integer(size));
    size_t at = json_array_size(pts);
    for (size_t i = 0; i < json_array_size(pts); i++)
        if (json_integer_value(json_object_get(json_array_get(pts, i), "size")) > size) {
            at = i;
            break;
        }
    json_array_insert_new(pts, at, case_obj);
}

static void set_size(json_t *xo, const char *key, double v)
{
    json_object_set_new(xo, key, isnan(v) ? json_null() : gv_json_num(v));
}

void gv_bench_crossover_finish(json_t *xo)
{
    json_t *pts = json_object_get(xo, "points");
    size_t n = json_array_size(pts);
    double *size = calloc(n + 1, sizeof *size), *ratio = calloc(n + 1, sizeof *ratio),
           *lower = calloc(n + 1, sizeof *lower);
    int m = 0;
    for (size_t i = 0; size && ratio && lower && i < n; i++) {
        const json_t *p = json_array_get(pts, i);
        double r = gv_jnum(p, "speedup.e2e.ratio");
        if (isnan(r)) continue; /* not timed (skipped, failed to run): no evidence */
        size[m] = gv_jnum(p, "size");
        ratio[m] = r;
        json_t *ci = json_object_get(json_object_get(json_object_get(p, "speedup"), "e2e"), "ci");
        lower[m] = jval(json_array_get(ci, 0));
        m++;
    }
    gv_crossover x = {GV_XO_NONE, -1, NAN}, xc = {GV_XO_NONE, -1, NAN};
    if (m > 0) {
        gv_crossover_find(size, ratio, m, &x);
        gv_crossover_find(size, lower, m, &xc);
    }
    json_object_set_new(xo, "timed_points", json_integer(m));
    json_object_set_new(
        xo, "status",
        json_string(m ? gv_crossover_status_name(x.status) : "no point could be timed"));
    set_size(xo, "first_win_size", x.first_win >= 0 ? size[x.first_win] : NAN);
    set_size(xo, "last_loss_size",
             x.status == GV_XO_FOUND       ? size[x.first_win - 1]
             : x.status == GV_XO_NONE && m ? size[m - 1]
                                           : NAN);
    set_size(xo, "interp_size", x.interp);
    set_size(xo, "confident_first_win_size", xc.first_win >= 0 ? size[xc.first_win] : NAN);
    free(size);
    free(ratio);
    free(lower);
}

/* ---- targets and summary ---- */

static bool is(const json_t *c, const char *key, const char *want)
{
    return strcmp(gv_jstr(c, key), want) == 0;
}

/* The kernel-only scope a target reads: hot when timed, else cold. */
static const char *kernel_scope(const json_t *c)
{
    return json_object_get(json_object_get(c, "achieved"), "kernel_hot") ? "kernel_hot"
                                                                         : "kernel_cold";
}

static void add_bandwidth_target(json_t *out, const json_t *c, const json_t *doc, const char *what,
                                 double goal)
{
    char path[64], name[192];
    const char *scope = kernel_scope(c);
    snprintf(path, sizeof path, "achieved.%s.gbps", scope);
    double gbps = gv_jnum(c, path);
    snprintf(path, sizeof path, "achieved.%s.frac_copy_ceiling", scope);
    double frac = gv_jnum(c, path);
    snprintf(name, sizeof name, "%s %s: >= %.0f%% of the copy bandwidth", what, gv_jstr(c, "dtype"),
             goal * 100);
    json_t *t = json_object();
    json_object_set_new(t, "target", json_string(name));
    json_object_set_new(t, "case", json_string(gv_jstr(c, "case")));
    json_object_set_new(t, "measure", json_string(scope));
    json_object_set_new(t, "value_gbps", gv_json_num(gbps));
    json_object_set_new(t, "ceiling_gbps", gv_json_num(gv_jnum(doc, "ceilings.copy.gbps")));
    json_object_set_new(t, "fraction", gv_json_num(frac));
    json_object_set_new(t, "goal", gv_json_num(goal));
    json_object_set_new(t, "met", isnan(frac) ? json_null() : json_boolean(frac >= goal));
    json_object_set_new(t, "sanity", json_string(gv_jstr(c, "verdict")));
    json_array_append_new(out, t);
}

static void add_gemm_ratio_target(json_t *out, const json_t *tiled, const json_t *cublas)
{
    char name[160], path[64];
    const char *scope = kernel_scope(tiled);
    snprintf(path, sizeof path, "timings.%s.median_ms", scope);
    double a = gv_jnum(tiled, path), b = gv_jnum(cublas, path);
    snprintf(name, sizeof name, "gemm.tiled time / gemm.cublas time at 4096^3 %s",
             gv_jstr(tiled, "dtype"));
    json_t *t = json_object();
    json_object_set_new(t, "target", json_string(name));
    json_object_set_new(t, "case", json_string(gv_jstr(tiled, "case")));
    json_object_set_new(t, "measure", json_string(scope));
    json_object_set_new(t, "tiled_ms", gv_json_num(a));
    json_object_set_new(t, "cublas_ms", gv_json_num(b));
    json_object_set_new(t, "ratio", gv_json_num(a / b));
    snprintf(path, sizeof path, "achieved.%s.frac_gemm_ceiling", scope);
    json_object_set_new(t, "tiled_frac_gemm_ceiling", gv_json_num(gv_jnum(tiled, path)));
    json_object_set_new(t, "cublas_frac_gemm_ceiling", gv_json_num(gv_jnum(cublas, path)));
    json_object_set_new(t, "goal", json_null());
    json_object_set_new(t, "met", json_null());
    json_object_set_new(t, "sanity", json_string(gv_jstr(tiled, "verdict")));
    json_array_append_new(out, t);
}

json_t *gv_bench_targets_json(const json_t *doc)
{
    json_t *out = json_array(), *cases = json_object_get(doc, "cases");
    size_t i, j;
    json_t *c, *d;
    json_array_foreach(cases, i, c)
    {
        if (is(c, "op", "vadd") && is(c, "dtype", "f32") && is(c, "shape_label", "268435456"))
            add_bandwidth_target(out, c, doc, "vadd at 2^28 elements", 0.85);
        if (is(c, "op", "einsum.colsum") && is(c, "shape_label", "10000x5000x7000"))
            add_bandwidth_target(out, c, doc, "einsum.colsum at 10000x5000x7000", 0.60);
        if (!is(c, "op", "gemm.tiled") || !is(c, "shape_label", "4096x4096x4096")) continue;
        json_array_foreach(cases, j, d)
        {
            if (is(d, "op", "gemm.cublas") && is(d, "shape_label", "4096x4096x4096") &&
                is(d, "dtype", gv_jstr(c, "dtype")) && is(d, "mode", gv_jstr(c, "mode"))) {
                add_gemm_ratio_target(out, c, d);
                break;
            }
        }
    }
    return out;
}

static void count_case(const json_t *c, int counts[4])
{
    const char *v = gv_jstr(c, "verdict");
    for (int k = 0; k < 4; k++)
        if (strcmp(v, gv_verdict_name((gv_verdict)k)) == 0) counts[k]++;
}

void gv_bench_doc_summarise(json_t *doc)
{
    int counts[4] = {0, 0, 0, 0};
    size_t i, j;
    json_t *c, *xo;
    json_array_foreach(json_object_get(doc, "cases"), i, c) count_case(c, counts);
    json_array_foreach(json_object_get(doc, "crossovers"), i, xo)
    {
        json_array_foreach(json_object_get(xo, "points"), j, c) count_case(c, counts);
    }
    json_object_set_new(doc, "summary",
                        json_pack("{s:i, s:i, s:i, s:i}", "sane", counts[GV_PASS], "sanity_failed",
                                  counts[GV_FAIL], "skipped", counts[GV_SKIP], "errors",
                                  counts[GV_ERROR]));
}
