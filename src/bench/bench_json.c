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

#include "bench/bench_json.h"
#include "core/registry.h"
#include "io/json_util.h"
#include "bench/bench_result.h"
#include "bench/bench_targets.h"
#include "io/outfile.h"
#include "io/run_info.h"

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

static json_t *sampling_json(const gv_sampling *s)
{
    return json_pack("{s:o, s:o, s:i, s:i, s:o}", "target_spread", gv_json_num(s->target_spread),
                     "cap_s", gv_json_num(s->cap_s), "min_samples", s->min_samples, "max_samples",
                     s->max_samples, "budget_s", gv_json_num(s->budget_s));
}

void gv_bench_cpu_model(char *buf, size_t len)
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
    gv_bench_cpu_model(cpu, sizeof cpu);
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string(gv_schema(GV_DOC_BENCH)));
    json_object_set_new(doc, "tool",
                        json_pack("{s:s, s:s}", "name", "gpuval", "version", GV_VERSION));
    json_object_set_new(doc, "command", json_string("bench"));
    json_object_set_new(doc, "argv", gv_json_bytes(info->argv_joined ? info->argv_joined : ""));
    json_object_set_new(doc, "created", json_string(when));
    json_object_set_new(doc, "preset", info->preset ? json_string(info->preset) : json_null());
    json_object_set_new(doc, "host",
                        json_pack("{s:o, s:o, s:I, s:i}", "hostname", gv_json_bytes(host),
                                  "cpu_model", gv_json_bytes(cpu), "logical_cpus",
                                  (json_int_t)sysconf(_SC_NPROCESSORS_ONLN), "oracle_threads",
                                  info->oracle_threads));
    json_object_set_new(doc, "build", gv_json_build());
    json_object_set_new(doc, "env", gv_json_env());
    json_object_set_new(doc, "device",
                        info->have_device ? gv_json_device(&info->device) : json_null());
    gv_fleet_info fleet; /* the device's index, PCIe link and clocks: merging a node's devices */
    gv_fleet_info_fill(&fleet, info->have_device ? &info->device : NULL, info->device_count,
                       info->device_index);
    json_object_set_new(doc, "fleet", gv_fleet_info_json(&fleet));
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
        json_object_set_new(o, "timing", stat_json(&c->t, conf));
        json_object_set_new(o, is_copy ? "gbps" : "gflops", gv_json_num(gv_ceiling_rate(c, conf)));
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
            ceiling_json(&c->gemm[t],
                         "cuBLAS gemm n^3: f32 pedantic math, f64 default math (math_mode)", conf,
                         false));
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

static json_t *sanity_json(const gv_bench_case_result *res)
{
    const gv_bench_case *bc = &res->bc;
    const gv_result *r = &bc->sanity;
    json_t *o = json_object(), *tiers = json_array(), *met = json_array();
    for (int k = 0; k < r->tiers.n; k++) {
        json_array_append_new(tiers, json_real(r->tiers.t[k]));
        if (res->judged && gv_tier_met(&r->m, k))
            json_array_append_new(met, json_real(r->tiers.t[k]));
    }
    json_object_set_new(o, "judged", json_boolean(res->judged));
    json_object_set_new(o, "tiers", tiers);
    json_object_set_new(o, "tiers_met", met);
    json_object_set_new(o, "expected_tier",
                        r->expected_tier > 0 ? json_real(r->expected_tier) : json_null());
    json_object_set_new(o, "kernel_path",
                        json_pack("{s:s, s:s}", "verdict", gv_verdict_name(bc->kernel_verdict),
                                  "reason", bc->kernel_reason));
    if (res->judged) {
        json_object_set_new(o, "max_rel", gv_json_num(r->m.max_rel));
        json_object_set_new(o, "normwise_rel", gv_json_num(r->m.normwise_rel));
        json_object_set_new(o, "accurate_bits", gv_json_num(r->m.bits));
        json_object_set_new(o, "ratio", gv_json_num(r->m.ratio));
        json_object_set_new(o, "ratio_bound", gv_json_num(r->ratio_bound));
        json_object_set_new(o, "poisoned", json_integer(r->m.poisoned));
    }
    return o;
}

static json_t *repeat_half(const gv_stat *a)
{
    return json_pack("{s:o, s:o, s:o, s:i}", "median_ms", gv_json_num(a->median), "ci_lo",
                     gv_json_num(a->lo), "ci_hi", gv_json_num(a->hi), "n", a->n);
}

static json_t *repeat_json(const gv_bench_repeat *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "scope", json_string("kernel_hot"));
    json_object_set_new(o, "rule", json_string("the two medians' intervals overlap"));
    json_object_set_new(o, "agree", json_boolean(r->agree));
    json_object_set_new(o, "diff_rel", gv_json_num(r->diff_rel));
    json_object_set_new(o, "first", repeat_half(&r->first));
    json_object_set_new(o, "second", repeat_half(&r->second));
    return o;
}

json_t *gv_bench_case_json(const gv_bench_case_result *res)
{
    const gv_bench_case *bc = &res->bc;
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
    /* what the byte count behind GB/s and %copy assumes, where it is not every tensor once */
    json_object_set_new(o, "bytes_model",
                        c->op->bytes_model ? json_string(c->op->bytes_model) : json_null());
    json_object_set_new(o, "shape_label", json_string(shape));
    json_object_set_new(o, "seed", gv_json_seed(c->seed));
    json_object_set_new(o, "flops", gv_json_num(bc->sanity.flops));
    json_object_set_new(o, "bytes", gv_json_num(bc->sanity.bytes));
    json_object_set_new(o, "verdict", json_string(gv_verdict_name(bc->sanity.verdict)));
    json_object_set_new(o, "reason", json_string(bc->sanity.reason));
    json_object_set_new(o, "math_mode", json_string(bc->sanity.math_mode));
    json_object_set_new(o, "oracle_threads", json_integer(bc->oracle_threads));
    json_object_set_new(o, "reference_ms", gv_json_num(bc->reference_ms));
    json_object_set_new(o, "sanity", sanity_json(res));
    json_object_set_new(o, "launch",
                        json_pack("{s:b, s:i, s:i, s:I, s:I}", "queued", bc->info.queued,
                                  "hold_timeouts", bc->info.hold_timeouts, "hot_reps",
                                  bc->t[GV_T_HOT].reps, "flush_bytes",
                                  (json_int_t)bc->info.flush_bytes, "device_bytes",
                                  (json_int_t)bc->info.device_bytes));
    /* NVML around the GPU scopes: a slowdown reason marks the times (render/bench_text.c) */
    if (bc->clocks.ok)
        json_object_set_new(
            o, "clocks",
            json_pack("{s:i, s:i, s:I, s:b}", "sm_mhz_before", (int)bc->clocks.sm_mhz_before,
                      "sm_mhz_after", (int)bc->clocks.sm_mhz_after, "throttle_reasons",
                      (json_int_t)bc->clocks.throttle, "throttled", bc->clocks.throttled));
    else
        json_object_set_new(o, "clocks", json_null());
    if (!bc->clocks.ok && bc->clocks.why[0])
        json_object_set_new(o, "clocks_why", json_string(bc->clocks.why));
    json_t *timings = json_object(), *speedup = json_object(), *achieved = json_object();
    for (int i = 0; i < GV_NTIMINGS; i++)
        if (res->has[i])
            json_object_set_new(timings, gv_timing_key(i), stat_json(&bc->t[i], res->conf));
    for (int i = GV_T_HOT; i <= GV_T_E2E; i++) {
        const gv_bench_speedup *sp = &res->speedup[i];
        if (sp->present)
            json_object_set_new(speedup, gv_timing_key(i),
                                json_pack("{s:o, s:o, s:o}", "ratio", gv_json_num(sp->r.ratio),
                                          "ci", pair(sp->r.lo, sp->r.hi), "coverage",
                                          gv_json_num(sp->r.coverage)));
        const gv_bench_achieved *a = &res->achieved[i];
        if (a->present)
            json_object_set_new(achieved, gv_timing_key(i),
                                json_pack("{s:o, s:o, s:o, s:o}", "gflops", gv_json_num(a->gflops),
                                          "gbps", gv_json_num(a->gbps), "frac_gemm_ceiling",
                                          gv_json_num(a->frac_gemm), "frac_copy_ceiling",
                                          gv_json_num(a->frac_copy)));
    }
    json_object_set_new(o, "timings", timings);
    json_object_set_new(o, "speedup", speedup);
    json_object_set_new(o, "achieved", achieved);
    if (res->repeat.present) json_object_set_new(o, "repeat_check", repeat_json(&res->repeat));
    if (res->size > 0) json_object_set_new(o, "size", json_integer(res->size));
    return o;
}

/* ---- crossover sweeps, targets, summary ---- */

static json_t *size_or_null(double v)
{
    return isnan(v) ? json_null() : gv_json_num(v);
}

json_t *gv_bench_crossover_json(const gv_bench_crossover *xo)
{
    const gv_case *base = &xo->base;
    json_t *o = json_object(), *pts = json_array();
    json_object_set_new(o, "op", json_string(base->op->name));
    json_object_set_new(o, "dtype", json_string(gv_dtype_name(base->dtype)));
    json_object_set_new(o, "mode", json_string(gv_mode_name(base->mode)));
    json_object_set_new(o, "dims", json_string(base->op->dims));
    json_object_set_new(o, "dim", json_string(xo->dim_name));
    json_object_set_new(o, "dim_index", json_integer(xo->dim));
    json_object_set_new(o, "base_shape", shape_json(&base->shape));
    json_object_set_new(o, "lo", json_integer(xo->lo));
    json_object_set_new(o, "hi", json_integer(xo->hi));
    json_object_set_new(o, "factor", gv_json_num(xo->factor));
    json_object_set_new(o, "scope", json_string("e2e"));
    for (int i = 0; i < xo->n; i++)
        json_array_append_new(pts, gv_bench_case_json(&xo->pts[i]));
    json_object_set_new(o, "points", pts);
    json_object_set_new(o, "status", json_string(gv_bench_crossover_status_text(xo)));
    json_object_set_new(o, "stopped_early", json_boolean(xo->stopped_early));
    json_object_set_new(o, "timed_points", json_integer(xo->timed_points));
    json_object_set_new(o, "first_win_size", size_or_null(xo->first_win_size));
    json_object_set_new(o, "last_loss_size", size_or_null(xo->last_loss_size));
    json_object_set_new(o, "interp_size", size_or_null(xo->interp_size));
    json_object_set_new(o, "confident_first_win_size", size_or_null(xo->confident_first_win_size));
    return o;
}

static json_t *target_json(const gv_bench_target *t)
{
    char label[192];
    json_t *o = json_object();
    json_object_set_new(o, "target", json_string(t->name));
    json_object_set_new(o, "case", json_string(gv_case_label(&t->c->bc.c, label, sizeof label)));
    json_object_set_new(o, "measure", json_string(gv_timing_key(t->scope)));
    if (t->spec->metric == GV_TARGET_COPY_FRACTION) {
        json_object_set_new(o, "value_gbps", gv_json_num(t->value_gbps));
        json_object_set_new(o, "ceiling_gbps", gv_json_num(t->ceiling_gbps));
        json_object_set_new(o, "fraction", gv_json_num(t->fraction));
        json_object_set_new(o, "goal", gv_json_num(t->spec->goal));
        json_object_set_new(o, "met",
                            isnan(t->fraction) ? json_null()
                                               : json_boolean(t->fraction >= t->spec->goal));
    } else {
        json_object_set_new(o, "tiled_ms", gv_json_num(t->ms));
        json_object_set_new(o, "cublas_ms", gv_json_num(t->ref_ms));
        json_object_set_new(o, "ratio", gv_json_num(t->ratio));
        json_object_set_new(o, "tiled_frac_gemm_ceiling", gv_json_num(t->frac_gemm));
        json_object_set_new(o, "cublas_frac_gemm_ceiling", gv_json_num(t->ref_frac_gemm));
        json_object_set_new(o, "goal", json_null());
        json_object_set_new(o, "met", json_null());
    }
    json_object_set_new(o, "sanity", json_string(gv_verdict_name(t->c->bc.sanity.verdict)));
    return o;
}

json_t *gv_bench_targets_json(const gv_bench_target *t, int n)
{
    json_t *out = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(out, target_json(&t[i]));
    return out;
}

json_t *gv_bench_summary_json(const gv_bench_summary *s)
{
    return json_pack("{s:i, s:i, s:i, s:i}", "sane", s->sane, "sanity_failed", s->failed, "skipped",
                     s->skipped, "errors", s->errors);
}

static int emit_json(FILE *f, void *doc)
{
    return json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
}

int gv_bench_write_json(const char *path, const json_t *doc)
{
    return gv_write_file(path, emit_json, (void *)doc) == 0 ? GV_OK : GV_EIO;
}
