/* trade_report.c: the speed-ups, Pareto front, model flags, counts and JSON document of
 * `gpuval tradeoffs` (see trade_report.h). Numbers that are not finite are written as
 * gv_json_num writes them ("inf", "-inf", "nan"); what was not measured is null. The printers
 * of the document are in src/render/ (trade_text.h, render_tradeoffs.h). */
#include "bench/trade_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench_json.h"
#include "core/hash.h"
#include "io/json_util.h"
#include "core/model_floor.h"

#ifndef GV_VERSION
#define GV_VERSION "unknown"
#endif

int gv_trade_default_mode(void)
{
    gv_mode m;
    return gv_mode_parse("default", &m) == GV_OK ? (int)m : -1;
}

static bool judged(const gv_result *r)
{
    return r->verdict == GV_PASS || r->verdict == GV_FAIL;
}

/* The row of (dtype, mode) in the group, or NULL. */
static const gv_trade_row *find_row(const gv_trade_row *rows, int n, int dtype, int mode)
{
    for (int i = 0; i < n; i++)
        if ((int)rows[i].r.c.dtype == dtype && (int)rows[i].r.c.mode == mode) return &rows[i];
    return NULL;
}

static double over(const gv_trade_row *base, const gv_trade_row *row)
{
    if (!base || !base->timed || !row->timed || !(row->t.median > 0)) return NAN;
    return base->t.median / row->t.median;
}

void gv_trade_speedups(gv_trade_row *rows, int n)
{
    int def = gv_trade_default_mode();
    const gv_trade_row *f64 = find_row(rows, n, GV_F64, GV_MODE_NATIVE);
    for (int i = 0; i < n; i++) {
        gv_trade_row *row = &rows[i];
        const gv_trade_row *base = def >= 0 ? find_row(rows, n, row->r.c.dtype, def) : NULL;
        if (!base) base = find_row(rows, n, row->r.c.dtype, GV_MODE_NATIVE);
        row->speedup_vs_f64 = over(f64, row);
        row->speedup_vs_default = over(base, row);
    }
}

static bool candidate(const gv_trade_row *row)
{
    return row->r.verdict == GV_PASS && row->timed && !isnan(row->r.m.bits) &&
           !isnan(row->t.median);
}

void gv_trade_pareto(gv_trade_row *rows, int n)
{
    for (int i = 0; i < n; i++) {
        if (!candidate(&rows[i])) {
            rows[i].pareto = -1;
            continue;
        }
        double bi = rows[i].r.m.bits, ti = rows[i].t.median;
        rows[i].pareto = 1;
        for (int j = 0; j < n && rows[i].pareto; j++) {
            if (j == i || !candidate(&rows[j])) continue;
            double bj = rows[j].r.m.bits, tj = rows[j].t.median;
            if (bj >= bi && tj <= ti && (bj > bi || tj < ti)) rows[i].pareto = 0;
        }
    }
}

/* What the mode's probes showed, for a flag: "its probe shows the path in effect (...)" when
   they passed, else that the path was not checked. */
static const char *probe_says(const gv_trade_row *row, char *buf, size_t len)
{
    if (row->n_probes && row->probe_verdict == GV_PASS)
        snprintf(buf, len, "its mode probe shows the path in effect (%s)", row->probe_what);
    else
        snprintf(buf, len, "no probe of this mode: the library may not be using the claimed path");
    return buf;
}

void gv_trade_flag_models(gv_trade_row *rows, int n)
{
    for (int i = 0; i < n; i++) {
        gv_trade_row *row = &rows[i];
        const gv_result *r = &row->r;
        row->model_flag[0] = '\0';
        if (r->verdict != GV_PASS) continue;
        char says[160];
        /* an emulation keeping more bits than its name (measured by the width probe): judged
           at the width it claims, and said so */
        int claimed = gv_mode_get(r->c.mode)->input_bits;
        if (claimed > 0 && !isnan(row->probe_width) && row->probe_width > claimed) {
            snprintf(row->model_flag, sizeof row->model_flag,
                     "keeps %.0f bits below each row's largest element (width probe), %.0f more "
                     "than the %d its name claims; judged at the claimed width",
                     row->probe_width, row->probe_width - claimed, claimed);
            continue;
        }
        double floor = r->prob.floor_rms;
        if (r->prob.on && floor > 0 && r->m.prob_n >= GV_PROB_RMS_MIN_N &&
            r->m.prob_rms < floor / GV_PROB_FLOOR_FACTOR) {
            snprintf(row->model_flag, sizeof row->model_flag,
                     "better than its model: R_rms %.3g is below 1/%g of the %.3g that rounding "
                     "the inputs to %d bits alone gives; %s",
                     r->m.prob_rms, GV_PROB_FLOOR_FACTOR, floor, gv_mode_get(r->c.mode)->input_bits,
                     probe_says(row, says, sizeof says));
            continue;
        }
        if (r->c.mode == GV_MODE_NATIVE || (int)r->c.mode == gv_trade_default_mode()) continue;
        const gv_trade_row *nat = find_row(rows, n, r->c.dtype, GV_MODE_NATIVE);
        if (!nat || !judged(&nat->r) || !(nat->r.m.normwise_rel > 0)) continue;
        if (nat->r.output_hash == r->output_hash)
            snprintf(row->model_flag, sizeof row->model_flag, "the same bits as %s native (%s); %s",
                     gv_dtype_name(r->c.dtype), nat->r.math_mode[0] ? nat->r.math_mode : "-",
                     probe_says(row, says, sizeof says));
    }
}

void gv_trade_summarize(const gv_trade_group *g, int n, gv_trade_summary *s)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < g[k].n; i++) {
            const gv_trade_row *row = &g[k].rows[i];
            s->rows++;
            switch (row->r.verdict) {
            case GV_PASS: s->passed++; break;
            case GV_FAIL: s->failed++; break;
            case GV_SKIP: s->skipped++; break;
            case GV_ERROR: s->errors++; break;
            }
            if (row->time_error && row->r.verdict != GV_ERROR) s->errors++;
        }
}

/* ---- JSON ---------------------------------------------------------------------------- */

static json_t *num_or_null(bool have, double x)
{
    return have ? gv_json_num(x) : json_null();
}

static json_t *row_json(const gv_trade_row *row)
{
    const gv_result *r = &row->r;
    bool j = judged(r);
    json_t *o = json_object(), *met = json_array();
    for (int k = 0; k < r->tiers.n; k++)
        if (j && gv_tier_met(&r->m, k)) json_array_append_new(met, json_real(r->tiers.t[k]));
    json_object_set_new(o, "dtype", json_string(gv_dtype_name(r->c.dtype)));
    json_object_set_new(o, "mode", json_string(gv_mode_name(r->c.mode)));
    json_object_set_new(o, "math_mode", json_string(r->math_mode));
    json_object_set_new(o, "verdict", json_string(gv_verdict_name(r->verdict)));
    json_object_set_new(o, "reason", json_string(r->reason));
    json_object_set_new(o, "accurate_bits", num_or_null(j, r->m.bits));
    /* the width the mode claims, beside the bits measured: never the bits themselves */
    json_object_set_new(o, "claimed_bits",
                        json_integer(gv_mode_precision_bits(r->c.dtype, r->c.mode)));
    json_object_set_new(o, "reference", json_string(j && r->ref_exact ? "exact" : "f64"));
    json_object_set_new(o, "correctly_rounded", num_or_null(j && r->ref_exact, r->m.cr_frac));
    json_object_set_new(o, "normwise_rel", num_or_null(j, r->m.normwise_rel));
    json_object_set_new(o, "max_rel", num_or_null(j, r->m.max_rel));
    json_object_set_new(o, "tiers_met", met);
    /* for merging the devices of a node (runs/merge_perf.c): a deterministic op's bits must
       agree */
    json_object_set_new(o, "deterministic", json_boolean(r->c.op->nondeterministic == NULL));
    char hash[24];
    json_object_set_new(o, "output_hash",
                        j && r->have_hash
                            ? json_string(gv_digest_format(r->output_hash, hash, sizeof hash))
                            : json_null());
    json_object_set_new(o, "ratio", num_or_null(j, r->m.ratio));
    json_object_set_new(o, "prob_max", num_or_null(j && r->prob.on, r->m.prob_max));
    json_object_set_new(
        o, "prob_rms",
        num_or_null(j && r->prob.on && r->m.prob_n >= GV_PROB_RMS_MIN_N, r->m.prob_rms));
    json_object_set_new(
        o, "time_ms",
        row->timed ? json_pack("{s:o, s:o, s:o, s:i}", "median", gv_json_num(row->t.median), "lo",
                               gv_json_num(row->t.lo), "hi", gv_json_num(row->t.hi), "n", row->t.n)
                   : json_null());
    if (!row->timed && row->time_why[0])
        json_object_set_new(o, "time_why", json_string(row->time_why));
    json_object_set_new(o, "speedup_vs_f64",
                        num_or_null(!isnan(row->speedup_vs_f64), row->speedup_vs_f64));
    json_object_set_new(o, "speedup_vs_default",
                        num_or_null(!isnan(row->speedup_vs_default), row->speedup_vs_default));
    /* NVML's energy counter over a window of its own (energy.h), per call; null where the
       board or driver does not report it, or the row was not timed, with why */
    json_object_set_new(o, "energy_j", num_or_null(row->energy.ok, row->energy.j_per_call));
    if (row->energy.ok)
        json_object_set_new(
            o, "energy",
            json_pack("{s:I, s:o, s:o, s:o, s:o}", "calls", (json_int_t)row->energy.calls, "gpu_s",
                      gv_json_num(row->energy.gpu_s), "wall_s", gv_json_num(row->energy.wall_s),
                      "watts", gv_json_num(row->energy.watts), "update_ms",
                      gv_json_num(row->energy.update_ms)));
    else if (row->energy.why[0])
        json_object_set_new(o, "energy_why", json_string(row->energy.why));
    if (row->power_ok)
        json_object_set_new(o, "clocks",
                            json_pack("{s:i, s:i, s:I, s:b}", "sm_mhz_before",
                                      (int)row->sm_mhz_before, "sm_mhz_after",
                                      (int)row->sm_mhz_after, "throttle_reasons",
                                      (json_int_t)row->throttle, "throttled", row->throttled));
    else if (row->power_why[0])
        json_object_set_new(o, "power_why", json_string(row->power_why));
    json_object_set_new(o, "pareto", row->pareto < 0 ? json_null() : json_boolean(row->pareto));
    json_object_set_new(o, "prob_floor_rms",
                        num_or_null(j && r->prob.floor_rms > 0, r->prob.floor_rms));
    json_object_set_new(o, "model_flag",
                        row->model_flag[0] ? json_string(row->model_flag) : json_null());
    /* the mode probes (docs/error-models.md, "A mode must be in effect"): null for a mode
       that has none */
    json_object_set_new(
        o, "probe",
        row->n_probes
            ? json_pack("{s:i, s:s, s:s, s:o, s:o, s:o}", "n", row->n_probes, "verdict",
                        gv_verdict_name(row->probe_verdict), "what", row->probe_what, "reason",
                        row->probe_reason[0] ? json_string(row->probe_reason) : json_null(),
                        "width_bits", num_or_null(!isnan(row->probe_width), row->probe_width),
                        "acc_bits", num_or_null(!isnan(row->probe_acc_bits), row->probe_acc_bits))
            : json_null());
    /* the arithmetic fingerprint of a GEMM row (gpuval probe): null where not probed */
    json_object_set_new(
        o, "arith",
        row->arith_have ? json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s}", "in_bits", row->arith_in,
                                    "acc_bits", row->arith_acc, "block", row->arith_block,
                                    "rounding", row->arith_round, "subnormals", row->arith_sub,
                                    "fails", row->arith_fails, "failed", row->arith_failed)
                        : json_null());
    /* the emulated significand a sweep mode asks for (fp64emu32 ... 56; null for the
       library's own choice): the report draws the sweep's curve from it */
    int mbits = gv_mode_get(r->c.mode)->input_bits;
    bool emu = gv_mode_get(r->c.mode)->emulated != 0; /* the mode table's column, not its name */
    json_object_set_new(o, "mantissa_bits", num_or_null(emu && mbits > 0, mbits));
    return o;
}

json_t *gv_trade_group_json(const gv_trade_group *g)
{
    json_t *shape = json_array(), *rows = json_array();
    for (int i = 0; i < g->shape.nd; i++)
        json_array_append_new(shape, json_integer(g->shape.d[i]));
    for (int i = 0; i < g->n; i++)
        json_array_append_new(rows, row_json(&g->rows[i]));
    return json_pack("{s:s, s:s, s:o, s:s, s:I, s:o}", "op", g->op->name, "dims", g->op->dims,
                     "shape", shape, "dist", gv_dist_name(g->dist), "seed", (json_int_t)g->seed,
                     "rows", rows);
}

json_t *gv_trade_doc(const gv_run_info *info, const gv_trade_group *g, int n,
                     const gv_trade_summary *s)
{
    char when[64];
    json_t *root = json_object(), *groups = json_array();
    json_object_set_new(root, "schema", json_string(gv_schema(GV_DOC_TRADEOFFS)));
    json_object_set_new(root, "tool",
                        json_pack("{s:s, s:s}", "name", "gpuval", "version", GV_VERSION));
    json_object_set_new(root, "command", json_string("tradeoffs"));
    json_object_set_new(root, "argv", gv_json_bytes(info->argv_joined ? info->argv_joined : ""));
    json_object_set_new(root, "created", json_string(gv_json_now(when, sizeof when)));
    json_object_set_new(root, "host", gv_json_host(info->oracle_threads));
    json_object_set_new(root, "build", gv_json_build());
    json_object_set_new(root, "device",
                        info->have_device ? gv_json_device(&info->device) : json_null());
    json_object_set_new(root, "fleet", gv_fleet_info_json(&info->fleet));
    for (int k = 0; k < n; k++)
        json_array_append_new(groups, gv_trade_group_json(&g[k]));
    json_object_set_new(root, "groups", groups);
    json_object_set_new(root, "summary",
                        json_pack("{s:i, s:i, s:i, s:i, s:i}", "rows", s->rows, "passed", s->passed,
                                  "failed", s->failed, "skipped", s->skipped, "errors", s->errors));
    return root;
}

int gv_trade_write_json(const char *path, const json_t *doc)
{
    return gv_bench_write_json(path, doc);
}
