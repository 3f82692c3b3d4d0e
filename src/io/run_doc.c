/* run_doc.c: the table row's text and the JSON run file (see run_doc.h). Non-finite numbers
 * are written as the strings "inf", "-inf", "nan": JSON has no literals for them. A case's
 * "seed" is an integer when below 2^63 and otherwise a string of its decimal digits (json
 * integers are signed), so --seed can replay any case; compare_runs.c reads both. */
#include "io/run_doc.h"

#include "core/gv.h"
#include "core/bias_pool.h"
#include "io/outfile.h"
#include "io/strbuf.h"
#include "core/hash.h"
#include "core/inputs.h"
#include "core/judge.h"
#include "core/judge_memo.h"
#include "io/npy.h"
#include "io/tensor_shape.h"
#include "io/run_info.h"
#include "io/json_util.h"
#include "io/outfile.h"

#include <jansson.h>
#include <math.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef GV_VERSION
#define GV_VERSION "unknown"
#endif

/* Whether tier t (one of the table's two columns) is met; "-" when not judged or not
   among the run's tiers. */
static const char *met_tier(const gv_result *r, double t)
{
    if (r->verdict == GV_SKIP || r->verdict == GV_ERROR) return "-";
    for (int k = 0; k < r->tiers.n; k++)
        if (r->tiers.t[k] == t) return gv_tier_met(&r->m, k) ? "yes" : "no";
    return "-";
}

/* check --repeat (or a repeat canary, core/repeat.h) on an op that declares itself
   nondeterministic: its spread, never judged; on a deterministic op that passed: how many
   launches agreed bit for bit (a FAIL says which differed in its reason). */
static void repeat_note(gv_strbuf *b, const gv_result *r)
{
    double v[3] = {-1, -1, -1};
    const char *names[3] = {"repeats", "repeat_differing", "repeat_max_ulp_diff"};
    for (int i = 0; i < r->n_extra; i++)
        for (int k = 0; k < 3; k++)
            if (strcmp(r->extra[i].name, names[k]) == 0) v[k] = r->extra[i].value;
    if (v[0] < 0) return;
    if (!r->c.op->nondeterministic) {
        if (r->verdict == GV_PASS && v[1] == 0)
            gv_strbuf_printf(b, " [%g launches, bit-identical]", v[0]);
        return;
    }
    gv_strbuf_printf(
        b, " [nondeterministic (%s): %g launches, up to %g elements differ, by up to %.3g ulps]",
        r->c.op->nondeterministic, v[0], v[1], v[2]);
}

char *gv_table_row_text(const gv_result *r)
{
    gv_strbuf row = {0}, *b = &row;
    gv_result_assert_bounds(r); /* met_tier and repeat_note walk its tiers and extras */
    char shape[64];
    gv_shape_format(&r->c.shape, shape, sizeof shape);
    bool judged = r->verdict == GV_PASS || r->verdict == GV_FAIL;
    char rmax[16] = "-", rrms[16] = "-";
    if (judged && r->prob.on) {
        /* in parentheses where R is reported, not judged (inputs gpuval did not make) */
        const char *fmt = r->prob.reported_only ? "(%.3g)" : "%.3g";
        snprintf(rmax, sizeof rmax, fmt, r->m.prob_max);
        if (r->m.prob_n >= GV_PROB_RMS_MIN_N) snprintf(rrms, sizeof rrms, fmt, r->m.prob_rms);
    }
    if (judged)
        gv_strbuf_printf(
            b, "%-24s %-5s %-8s %-9s %-16s %9.2e %9.2e %5.1f %8.3g %7s %6s %5s %5s  %s",
            r->c.op->name, gv_dtype_name(r->c.dtype), gv_mode_name(r->c.mode),
            gv_dist_name(r->c.dist), shape, r->m.max_rel, r->m.normwise_rel, r->m.bits, r->m.ratio,
            rmax, rrms, met_tier(r, 1e-8), met_tier(r, 1e-4), gv_verdict_name(r->verdict));
    else
        gv_strbuf_printf(b, "%-24s %-5s %-8s %-9s %-16s %9s %9s %5s %8s %7s %6s %5s %5s  %s",
                         r->c.op->name, gv_dtype_name(r->c.dtype), gv_mode_name(r->c.mode),
                         gv_dist_name(r->c.dist), shape, "-", "-", "-", "-", "-", "-", "-", "-",
                         gv_verdict_name(r->verdict));
    if (r->reason[0]) gv_strbuf_printf(b, " (%s)", r->reason);
    if (judged && r->ref_exact)
        gv_strbuf_printf(b, " [exact reference: %.4g %% correctly rounded]", 100.0 * r->m.cr_frac);
    if (judged && r->expected_tier == 0 && r->verdict == GV_PASS)
        gv_strbuf_printf(b, " [no tier expected: %s]",
                         r->expected_tier_why[0] ? r->expected_tier_why
                         : r->tier_note[0]       ? r->tier_note
                                                 : "reduced-precision mode");
    else if (judged && r->expected_tier_why[0])
        gv_strbuf_printf(b, " [expects %.0e: %s]", r->expected_tier, r->expected_tier_why);
    if (judged && r->verdict == GV_PASS && gv_bias_over(&r->m)) {
        /* a lean the rule does not judge here (a FAIL for bias says so in its reason) */
        char lean[160];
        gv_bias_lean(&r->m, r->prob.on, lean, sizeof lean);
        gv_strbuf_printf(b, " [bias reported, not judged: %s; %s]", r->bias.why_not, lean);
    }
    if (judged && r->m.flushed && !r->m.subnormal_kept && !gv_mode_get(r->c.mode)->promises_rn)
        gv_strbuf_printf(b,
                         " [FTZ: %lld of %lld outputs below 2^%d flushed to zero; mode %s does not "
                         "promise IEEE subnormals]",
                         (long long)r->m.flushed, (long long)r->m.subnormal_ref,
                         gv_dtype_min_exp(r->c.dtype), gv_mode_name(r->c.mode));
    else if (judged && r->ftz_allowed)
        gv_strbuf_printf(b, " [FTZ allowed: %lld of %lld outputs below 2^%d flushed to zero]",
                         (long long)r->m.flushed, (long long)r->m.subnormal_ref,
                         gv_dtype_min_exp(r->c.dtype));
    else if (judged && r->m.flushed && r->c.op->subnormals_unpromised)
        gv_strbuf_printf(
            b,
            " [underflow: %lld of %lld outputs below 2^%d returned as zero (%s); %s's "
            "functions do not promise IEEE subnormals]",
            (long long)r->m.flushed, (long long)r->m.subnormal_ref, gv_dtype_min_exp(r->c.dtype),
            r->m.subnormal_kept ? "lost range, the others kept" : "all flushed", r->c.op->name);
    if (judged && r->daz_allowed)
        gv_strbuf_printf(b, " [DAZ allowed: %lld subnormal inputs read as zero]",
                         (long long)r->daz_inputs);
    if (judged && r->prob.on && r->prob.reported_only)
        gv_strbuf_printf(b, " [R reported, not judged: %s]", GV_PROB_NOT_VALID);
    if (judged && r->env.judged) /* given inputs judged against the claimed arithmetic */
        gv_strbuf_printf(b, " [%s]", r->env.note);
    else if (judged && r->env.asked && r->inputs != GV_INPUTS_GENERATED &&
             r->c.op->envelope != GV_ENV_NONE)
        gv_strbuf_printf(b, " [envelope not judged: %s]", r->env.why_not);
    repeat_note(b, r);
    if (row.lost) {
        free(row.s);
        return NULL;
    }
    return row.s;
}

void gv_summary_add(gv_summary *s, const gv_result *r)
{
    switch (r->verdict) {
    case GV_PASS: s->pass++; break;
    case GV_FAIL: s->fail++; break;
    case GV_ERROR: s->error++; break;
    case GV_SKIP:
        s->skip++;
        if (strcmp(r->reason, "no CUDA device") == 0 ||
            strcmp(r->reason, "built without CUDA") == 0)
            s->skip_nodev++;
        break;
    }
}

/* Where the worst element lies, for a reader who wants to find it in the output: metrics'
   worst_index counts over the outputs laid end to end (gv_metrics_merge), so it is split here
   into the output's name and its C-order index in that output's shape (gv_tensor_shape, the
   shape a dump writes). null when there is no worst element or no layout can be made. */
static json_t *worst_at_json(const gv_result *r)
{
    if (r->m.worst_index < 0 || !r->c.op || !r->c.op->layout) return json_null();
    gv_layout l;
    if (r->c.op->layout(&r->c, &l) != GV_OK) return json_null();
    int64_t at = r->m.worst_index;
    for (int i = 0; i < l.n_out; i++) {
        if (at >= l.out[i].count) {
            at -= l.out[i].count;
            continue;
        }
        int64_t shape[GV_NPY_MAX_DIMS], idx[GV_NPY_MAX_DIMS];
        int nd = gv_tensor_shape(&r->c, &l, true, i, shape);
        for (int k = nd - 1; k >= 0; k--) {
            idx[k] = shape[k] > 0 ? at % shape[k] : 0;
            at = shape[k] > 0 ? at / shape[k] : 0;
        }
        json_t *index = json_array();
        for (int k = 0; k < nd; k++)
            json_array_append_new(index, json_integer(idx[k]));
        const char *name = l.out[i].name;
        char unnamed[32];
        if (!name || !name[0]) {
            snprintf(unnamed, sizeof unnamed, "output %d", i);
            name = unnamed;
        }
        return json_pack("{s:s, s:o}", "output", name, "index", index);
    }
    return json_null(); /* an index past the outputs: the layout and the metrics disagree */
}

/* The case: which op, in what arithmetic, on which inputs. */
static void set_case_members(json_t *o, const gv_result *r)
{
    json_t *shape = json_array();
    for (int i = 0; i < r->c.shape.nd; i++)
        json_array_append_new(shape, json_integer(r->c.shape.d[i]));
    json_object_set_new(o, "op", json_string(r->c.op->name));
    json_object_set_new(o, "family", json_string(r->c.op->family));
    json_object_set_new(o, "dtype", json_string(gv_dtype_name(r->c.dtype)));
    json_object_set_new(o, "mode", json_string(gv_mode_name(r->c.mode)));
    json_object_set_new(o, "dist", json_string(gv_dist_name(r->c.dist)));
    json_object_set_new(o, "dims", json_string(r->c.op->dims));
    json_object_set_new(o, "shape", shape);
    json_object_set_new(o, "seed", gv_json_seed(r->c.seed));
    json_object_set_new(o, "inputs", json_string(gv_inputs_name(r->inputs)));
    json_object_set_new(o, "planted_bug",
                        r->c.op->planted_bug ? json_string(r->c.op->planted_bug) : json_null());
}

/* The verdict, its reason and the tiers it was judged at (judged: PASS or FAIL). */
static void set_verdict_members(json_t *o, const gv_result *r, bool judged)
{
    json_t *tiers = json_array(), *met_arr = json_array();
    for (int k = 0; k < r->tiers.n; k++) {
        json_array_append_new(tiers, json_real(r->tiers.t[k]));
        if (judged && gv_tier_met(&r->m, k))
            json_array_append_new(met_arr, json_real(r->tiers.t[k]));
    }
    json_object_set_new(o, "verdict", json_string(gv_verdict_name(r->verdict)));
    json_object_set_new(o, "reason", json_string(r->reason));
    json_object_set_new(o, "cause", json_string(gv_cause_name(r->cause)));
    json_object_set_new(o, "expected_tier",
                        r->expected_tier > 0 ? json_real(r->expected_tier) : json_null());
    json_object_set_new(o, "expected_tier_why",
                        r->expected_tier_why[0] ? json_string(r->expected_tier_why)
                        : r->tier_note[0]       ? json_string(r->tier_note)
                                                : json_null());
    json_object_set_new(o, "tiers", tiers);
    json_object_set_new(o, "tiers_met", met_arr);
    json_object_set_new(o, "math_mode", json_string(r->math_mode));
    if (r->ftz_allowed) json_object_set_new(o, "ftz_allowed", json_true());
    if (r->daz_allowed) {
        json_object_set_new(o, "daz_allowed", json_true());
        json_object_set_new(o, "daz_inputs", json_integer((json_int_t)r->daz_inputs));
    }
    /* what the outputs were judged against: the exact result (oracle/exact.c) or the f64
       oracle's */
    json_object_set_new(o, "reference", json_string(judged && r->ref_exact ? "exact" : "f64"));
}

/* The measurements of a judged case (metrics). */
static json_t *metrics_json(const gv_result *r)
{
    json_t *mism = json_array();
    for (int k = 0; k < r->tiers.n; k++)
        json_array_append_new(mism, json_integer(r->m.mismatches[k]));
    json_t *m = json_object();
    json_object_set_new(m, "n", json_integer(r->m.n));
    json_object_set_new(m, "max_abs", gv_json_num(r->m.max_abs));
    json_object_set_new(m, "max_rel", gv_json_num(r->m.max_rel));
    json_object_set_new(m, "normwise_rel", gv_json_num(r->m.normwise_rel));
    json_object_set_new(m, "accurate_bits", gv_json_num(r->m.bits));
    json_object_set_new(m, "claimed_bits", json_integer(r->m.precision_bits));
    json_object_set_new(m, "max_ulp", gv_json_num(r->m.max_ulp));
    json_object_set_new(m, "mismatches", mism);
    json_object_set_new(m, "nonfinite_mismatches", json_integer(r->m.nonfinite_mismatches));
    json_object_set_new(m, "nonfinite_spurious", json_integer(r->m.nonfinite_spurious));
    json_object_set_new(m, "nonfinite_lost", json_integer(r->m.nonfinite_lost));
    json_object_set_new(m, "subnormal_outputs", json_integer(r->m.subnormal_ref));
    json_object_set_new(m, "flushed", json_integer(r->m.flushed));
    json_object_set_new(m, "subnormal_kept", json_integer(r->m.subnormal_kept));
    json_object_set_new(m, "zero_sign_wrong", json_integer(r->m.zero_sign_wrong));
    json_object_set_new(m, "poisoned", json_integer(r->m.poisoned));
    json_object_set_new(m, "worst_index", json_integer(r->m.worst_index));
    json_object_set_new(m, "worst_value", gv_json_num(r->m.worst_value));
    json_object_set_new(m, "worst_ref", gv_json_num(r->m.worst_ref));
    json_object_set_new(m, "worst_at", worst_at_json(r));
    json_object_set_new(m, "ulp_p50", gv_json_num(r->m.ulp_p50));
    json_object_set_new(m, "ulp_p99", gv_json_num(r->m.ulp_p99));
    if (r->prob.on) {
        json_object_set_new(m, "prob_max", gv_json_num(r->m.prob_max));
        json_object_set_new(m, "prob_rms", gv_json_num(r->m.prob_rms));
        json_object_set_new(m, "prob_bias", gv_json_num(r->m.prob_bias));
        json_object_set_new(m, "prob_worst_index", json_integer(r->m.prob_worst_index));
        json_object_set_new(m, "effective_bits", gv_json_num(r->m.eff_bits));
    }
    if (r->ref_exact) /* the share of outputs equal to the exact result rounded to nearest */
        json_object_set_new(m, "correctly_rounded", gv_json_num(r->m.cr_frac));
    /* the bias rule's measurements (judged or not: bias_rule below says) */
    json_object_set_new(m, "bias_unit", json_string(r->prob.on ? "R" : "ulp"));
    json_object_set_new(m, "bias_n", json_integer(r->m.bias_n));
    json_object_set_new(m, "bias_mean", gv_json_num(r->m.bias_mean));
    json_object_set_new(m, "bias_z", gv_json_num(r->m.bias_z));
    json_object_set_new(m, "bias_mean_sign_r", gv_json_num(r->m.bias_mean_sr));
    json_object_set_new(m, "bias_z_sign_r", gv_json_num(r->m.bias_z_sr));
    if (r->exact) {
        json_object_set_new(m, "inexact", json_integer(r->m.inexact));
        json_object_set_new(m, "first_inexact_index", json_integer(r->m.first_inexact_index));
    }
    return m;
}

/* The error models and rules the case was judged by, with their bounds. */
static void set_model_members(json_t *o, const gv_result *r, bool judged)
{
    json_object_set_new(o, "error_model",
                        json_pack("{s:o, s:o, s:o, s:o}", "u", gv_json_num(r->u), "depth",
                                  gv_json_num(r->depth), "bound", gv_json_num(r->ratio_bound),
                                  "ratio", judged ? gv_json_num(r->m.ratio) : json_null()));
    json_object_set_new(
        o, "prob_model",
        r->prob.on ? json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:b, s:o}", "u",
                               gv_json_num(r->prob.u), "depth", gv_json_num(r->prob.depth), "u_in",
                               gv_json_num(r->prob.u_in), "w", gv_json_num(r->prob.w), "max_bound",
                               gv_json_num(GV_PROB_MAX_BOUND), "rms_bound",
                               gv_json_num(GV_PROB_RMS_BOUND), "rms_min_n", GV_PROB_RMS_MIN_N,
                               "judges", !r->prob.reported_only, "not_judged_why",
                               r->prob.reported_only ? json_string(GV_PROB_NOT_VALID) : json_null())
                   : json_null());
    json_t *bias = json_pack("{s:b, s:o, s:o, s:i}", "judged", r->bias.judged, "why_not",
                             r->bias.judged ? json_null() : json_string(r->bias.why_not), "z_bound",
                             gv_json_num(GV_BIAS_Z_BOUND), "min_n", GV_BIAS_MIN_N);
    /* what a caller that runs many seeds' cases (kernel-eval's gate) pools across them
       (core/bias_pool.h): whether the pooled rule takes the case, its signed errors' sums and
       the root of their squares (2-norm, held in range by gv_ssq), and the pooled bound */
    int k = 0;
    double root = gv_ssq_root(&r->m.bias_sq, &k);
    json_object_set_new(bias, "pool",
                        json_pack("{s:b, s:o, s:o, s:o, s:o, s:i}", "takes", gv_bias_pool_takes(r),
                                  "sum", gv_json_num(r->m.bias_sum), "sum_sign_r",
                                  gv_json_num(r->m.bias_sum_sr), "root",
                                  gv_json_num(ldexp(root, k)), "z_bound",
                                  gv_json_num(GV_BIAS_POOL_Z), "min_n", GV_BIAS_POOL_MIN_N));
    json_object_set_new(o, "bias_rule", bias);
    /* the envelope of the claimed arithmetic (given inputs of products and sums); its numbers
       are also under "extra" (envelope_d_max, envelope_match_KEY) */
    if (r->c.op->envelope != GV_ENV_NONE && r->inputs != GV_INPUTS_GENERATED)
        json_object_set_new(
            o, "envelope",
            json_pack("{s:b, s:o, s:o, s:o, s:o, s:I, s:I}", "judged", r->env.judged, "why_not",
                      r->env.judged ? json_null() : json_string(r->env.why_not), "note",
                      r->env.judged ? json_string(r->env.note) : json_null(), "bound",
                      gv_json_num(GV_ENV_BOUND), "ms", gv_json_num(r->env.ms), "elements",
                      (json_int_t)r->env.n, "sampled_of", (json_int_t)r->env.sampled_of));
}

/* How the case ran: probes and guards, its costs and times, its digest and extras. */
static void set_run_members(json_t *o, const gv_result *r)
{
    json_object_set_new(o, "exact_probe", json_boolean(r->exact));
    json_object_set_new(o, "guard", r->guard[0] ? json_string(r->guard) : json_null());
    if (r->n_checks) {
        json_t *ch = json_array();
        for (int i = 0; i < r->n_checks; i++)
            json_array_append_new(ch, json_pack("{s:s, s:o, s:o}", "name", r->checks[i].name,
                                                "value", gv_json_num(r->checks[i].value), "bound",
                                                gv_json_num(r->checks[i].bound)));
        json_object_set_new(o, "checks", ch);
    }
    json_object_set_new(o, "flops", gv_json_num(r->flops));
    json_object_set_new(o, "bytes", gv_json_num(r->bytes));
    json_object_set_new(o, "oracle_ms", gv_json_num(r->oracle_ms));
    /* "hit": the reference was read from the oracle cache (oracle_ms is the read); "cheap":
       computed and not stored, its oracle being faster than reading an entry back; "unread":
       in the cache and not read, the judgement taken from the cache (core/judge_memo.h) */
    json_object_set_new(o, "oracle_cache",
                        json_string(r->oracle_unread  ? "unread"
                                    : r->cache.hits     ? "hit"
                                    : r->cache.stored ? "stored"
                                    : r->cache.cheap  ? "cheap"
                                    : r->cache.misses ? "miss"
                                                      : "off"));
    json_object_set_new(o, "device_ms", gv_json_num(r->device_ms));
    json_object_set_new(o, "inputs_ms", gv_json_num(r->inputs_ms));
    json_object_set_new(o, "judge_ms", gv_json_num(r->judge_ms));
    /* "hit": the judgement was taken from the cache (the same case, inputs and output bytes
       judged before by the same host code: core/judge_memo.h); judge_ms is then the read */
    json_object_set_new(o, "judge_cache", json_string(gv_judge_memo_name(r->judge_memo)));
    char hash[24];
    json_object_set_new(o, "output_hash",
                        r->have_hash
                            ? json_string(gv_digest_format(r->output_hash, hash, sizeof hash))
                            : json_null());
    json_object_set_new(o, "deterministic", json_boolean(r->c.op->nondeterministic == NULL));
    if (r->n_extra) {
        json_t *x = json_object();
        for (int i = 0; i < r->n_extra; i++)
            json_object_set_new(x, r->extra[i].name, gv_json_num(r->extra[i].value));
        json_object_set_new(o, "extra", x);
    }
    if (r->bytes_needed)
        json_object_set_new(o, "device_bytes",
                            json_pack("{s:I, s:I}", "needed", (json_int_t)r->bytes_needed, "free",
                                      (json_int_t)r->bytes_free));
}

/* One case of a run document. Its members in the order readers and diffs expect; a new member
   goes into the group it belongs to, one line. */
static json_t *result_json(const gv_result *r)
{
    gv_result_assert_bounds(r); /* its tiers, checks and extras are written below */
    bool judged = r->verdict == GV_PASS || r->verdict == GV_FAIL;
    json_t *o = json_object();
    set_case_members(o, r);
    set_verdict_members(o, r, judged);
    json_object_set_new(o, "metrics", judged ? metrics_json(r) : json_null());
    set_model_members(o, r, judged);
    set_run_members(o, r);
    return o;
}

json_t *gv_result_json(const gv_result *r)
{
    return result_json(r);
}

void gv_run_shared_set(json_t *root, const gv_run_info *info)
{
    char when[64];
    gv_json_now(when, sizeof when);
    json_object_set_new(root, "tool",
                        json_pack("{s:s, s:s}", "name", "gpuval", "version", GV_VERSION));
    json_object_set_new(root, "command", json_string(info->command));
    json_object_set_new(root, "argv", gv_json_bytes(info->argv_joined ? info->argv_joined : ""));
    json_object_set_new(root, "created", json_string(when));
    json_object_set_new(root, "host", gv_json_host(info->oracle_threads));
    json_object_set_new(root, "build", gv_json_build());
    json_object_set_new(root, "env", gv_json_env());
    json_object_set_new(root, "device",
                        info->have_device ? gv_json_device(&info->device) : json_null());
    json_object_set_new(root, "fleet", gv_fleet_info_json(&info->fleet));
}

json_t *gv_run_json(const gv_run_info *info, const gv_result *results, int n, const gv_summary *s)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string(gv_schema(GV_DOC_RUN)));
    gv_run_shared_set(root, info);
    json_t *cases = json_array();
    for (int i = 0; i < n; i++) {
        json_t *c = result_json(&results[i]);
        json_t *files = json_null();
        if (results[i].inputs != GV_INPUTS_GENERATED && info->n_input_files > 0) {
            files = json_array();
            for (int k = 0; k < info->n_input_files; k++)
                json_array_append_new(files, json_pack("{s:o, s:s}", "file",
                                                       gv_json_bytes(info->input_files[k].name),
                                                       "sha256", info->input_files[k].sha256));
        }
        json_object_set_new(c, "input_files", files);
        json_array_append_new(cases, c);
    }
    json_object_set_new(root, "cases", cases);
    json_object_set_new(root, "summary",
                        json_pack("{s:i, s:i, s:i, s:i}", "passed", s->pass, "failed", s->fail,
                                  "skipped", s->skip, "errors", s->error));
    return root;
}

static int emit_json(FILE *f, void *doc)
{
    return json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
}

int gv_json_write(const char *path, const gv_run_info *info, const gv_result *results, int n,
                  const gv_summary *s)
{
    json_t *root = gv_run_json(info, results, n, s);
    int rc = gv_write_file(path, emit_json, root);
    json_decref(root);
    return rc == 0 ? GV_OK : GV_EIO;
}

void gv_device_code(const gk_device_info *d, char *buf, size_t len)
{
    if (d->native < 0 || d->binary_arch <= 0)
        snprintf(buf, len, "none loads on this device (the binary carries %s)", GV_BUILD_ARCH);
    else if (d->native)
        snprintf(buf, len, "sm_%d SASS, native (compiled from compute_%d)", d->binary_arch,
                 d->ptx_arch);
    else
        snprintf(buf, len, "compute_%d PTX, JIT-compiled for sm_%d by the driver%s", d->ptx_arch,
                 d->binary_arch, d->ptx_arch < 80 ? " (the generic paths: no cp.async)" : "");
}
