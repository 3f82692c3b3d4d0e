/* tradeoffs.c: `gpuval tradeoffs`, accuracy against speed for every mode an op accepts. For
 * each selected op and size, every (dtype, mode) of the mode table the op accepts is run on
 * the same inputs: first a correctness pass (gv_run_case, never timed), then a timing pass
 * of the hot kernel-only scope by bench's method (gv_bench_time_hot); speed-ups, the Pareto
 * front and the JSON document come from bench/trade_report.c, the table and the Markdown from
 * the printers of src/render/ (trade_text.c, render_tradeoffs.c). */
#include "cmd/tradeoffs.h"
#include "render/fleet_text.h"

#include "core/power.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_case.h"
#include "cmd/cli.h"
#include "fleet/perf_workers.h"
#include "core/registry.h"
#include "io/run_doc.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "bench/trade_report.h"
#include "render/render.h"
#include "render/trade_text.h"
#include "probe/expect.h"
#include "probe/fprint_device.h"

/* The parser's labels for tradeoffs' options. */
enum { O_OP = 256, O_SIZE, O_DIST, O_SEED, O_DEVICE, O_SERIAL, O_JSON, O_MD };

/* tradeoffs' options, once: the parser (gv_cmd_tradeoffs), --help and the workers of --device
   LIST (fleet/perf_workers.h) all read this table. The parent keeps its outputs and the device
   list; every worker gets the selection. */
static const gv_opt trade_opts[] = {
    {.name = "op",
     .id = O_OP,
     .arg = "GLOBS",
     .help = "ops whose name matches one of the comma-separated globs (fnmatch), at\n"
             "their default sizes"},
    {.name = "size",
     .id = O_SIZE,
     .arg = "SPEC",
     .help = "sizes instead (dims joined by 'x', sizes by ',')"},
    {.name = "dist",
     .id = O_DIST,
     .arg = "NAME",
     .help = "inputs: uniform01 uniform11 smallint special offgrid ... (default: the\n"
             "op's own with --op, uniform11 without)"},
    {.name = "seed",
     .id = O_SEED,
     .arg = "N",
     .help = "input seed (default 0): decimal or 0x hex, up to 2^64-1"},
    {.name = "device",
     .id = O_DEVICE,
     .arg = "SPEC",
     .parent_only = true,
     .help = "the GPU: N, a list N,M,... or all (default: the first, or a rank's local\n"
             "rank). A list runs one worker process per device, each writing\n"
             "NAME.devI.json beside --json, then merges them as gpuval merge does: per\n"
             "row and device the verdict, accurate bits (which must agree across the\n"
             "devices of one model for deterministic ops: exit 6 otherwise), median\n"
             "and interval, the time against the node's median (over +10%: SLOW),\n"
             "SM clock, throttle reasons and PCIe link; --json writes the merged view"},
    {.name = "device-serial",
     .id = O_SERIAL,
     .parent_only = true,
     .help = "with a list: one device after another. Default: all at once, so the\n"
             "node is measured as it runs loaded and in the time of one device; the\n"
             "workers then share the host's cores and PCIe (the f64 oracles of the\n"
             "correctness pass compete for the cores). Serial gives clean timings for\n"
             "comparing against another node or a baseline"},
    {.name = "json",
     .id = O_JSON,
     .arg = "FILE",
     .parent_only = true,
     .help = "the run, schema gpuval-tradeoffs/1"},
    {.name = "md",
     .id = O_MD,
     .arg = "FILE",
     .parent_only = true,
     .help = "the tables as Markdown"},
    {.name = "quiet", .id = 'q', .help = "print no table: the summary line only"},
    {.name = "help", .id = 'h'},
};
_Static_assert(GV_NOPTS(trade_opts) <= GV_OPTS_MAX, "tradeoffs has more options than GV_OPTS_MAX");

const gv_opt_table gv_trade_options = {"tradeoffs", trade_opts, GV_NOPTS(trade_opts)};

static const char trade_head[] =
    "usage: gpuval tradeoffs [options]\n"
    "\n"
    "Accuracy against speed: for each selected op and size, every precision mode the op\n"
    "accepts for each dtype, on the same inputs, judged against the same float64 oracle (a\n"
    "correctness run, as `gpuval check`), then timed in a separate pass (as `gpuval bench`:\n"
    "hot kernel-only scope, one warm-up sample, samples until the median's 95% interval is\n"
    "within 1% or 0.5 s have passed).\n"
    "Default: gemm.cublas 2048x2048x2048, matmul_colsum 1000x500x700 and dense.sigmoid\n"
    "4096x2048x256, on zero-mean inputs (uniform11).\n"
    "\n";

static const char trade_tail[] =
    "\n"
    "Columns:\n"
    "  math mode     the library math mode the op set (e.g. cuBLAS pedantic or TF32)\n"
    "  verdict       the correctness verdict, as check gives it (reasons below the table)\n"
    "  bits          accurate bits, -log2(normwise relative error), measured: never capped\n"
    "                at the mode's width (inf: every output exact)\n"
    "  claimed       the significand bits the mode claims (its inputs', or f64's 53)\n"
    "  CR %          f64 rows judged against an exact reference: the share of outputs that\n"
    "                are the exact result rounded to nearest ('-': the f64 oracle judged)\n"
    "  probe         what the mode's probes measured, untimed, after its own case: 'width\n"
    "                W' bits an fp64 emulation keeps, 'acc B' accumulator bits of a narrow\n"
    "                mode, 'tie on grid' for TF32-like inputs. A mode not in effect FAILs\n"
    "                its row; a library fall-back (fp64emu to native) SKIPs it\n"
    "  arith         the GEMM's arithmetic as `gpuval probe` measures it, untimed: operand\n"
    "                bits / bits the dot keeps, b block (products added in one step; 1: an\n"
    "                FMA chain), the rounding of a block, and 'sub:' where subnormals are\n"
    "                flushed; '!' first: a feature FAILed the architecture's expectations\n"
    "                (gpuval probe shows which). The JSON's arith has each field\n"
    "  R_max, R_rms  the probabilistic model's largest and RMS ratio (dot-product ops, every\n"
    "                mode but fastmath; '-' where there is no such model)\n"
    "  median ms     median time per call of the hot kernel-only scope, with its 95%\n"
    "                order-statistic interval [lo, hi]\n"
    "  x vs f64      f64 native median / this median (> 1: faster)\n"
    "  x vs default  the same dtype's `default` mode median / this (its native mode when\n"
    "                the op has no `default` mode)\n"
    "  J/call        energy per call: NVML's energy counter over a window of its own, after\n"
    "                the timing pass (the call back to back for at least 1 s of device time\n"
    "                and 20 updates of the counter, read at an update edge before and after),\n"
    "                divided by the calls; '-' where the board has no counter (the JSON's\n"
    "                energy_why says why).\n"
    "                A time marked !throttled was taken while NVML reported a power, thermal\n"
    "                or hardware slowdown (the JSON records the SM clock before and after)\n"
    "  pareto        yes: no other passing row of the op and size has at least as many bits\n"
    "                in at most the time (better in one); '-' not a candidate (not PASS or\n"
    "                not timed)\n";

static const gv_exit_line trade_exits[] = {
    {GV_EXIT_OK, NULL},
    {GV_EXIT_FAIL, "a row failed"},
    {GV_EXIT_USAGE, NULL},
    {GV_EXIT_RUNTIME, NULL},
    {GV_EXIT_OUTLIER, "--device LIST: devices of one model disagree on a deterministic row"},
    {GV_EXIT_NODEV, NULL},
};

static const gv_help trade_help = {.head = trade_head,
                                   .opts = &gv_trade_options,
                                   .col = 16,
                                   .tail = trade_tail,
                                   .exits = trade_exits,
                                   .n_exits = GV_NEXITS(trade_exits)};

/* The default selection: the cuBLAS-backed dot-product ops, one catalogue size each (the
   largest whose f64 oracle stays under about 2 s). */
static const struct {
    const char *op, *shape;
} default_sel[] = {
    {"gemm.cublas", "2048x2048x2048"},
    {"matmul_colsum", "1000x500x700"},
    {"dense.sigmoid", "4096x2048x256"},
};
#define N_DEFAULT (int)(sizeof default_sel / sizeof default_sel[0])

typedef struct groups {
    gv_trade_group *g;
    int n, cap;
} groups;

static void groups_free(groups *gs)
{
    for (int i = 0; i < gs->n; i++)
        free(gs->g[i].rows);
    free(gs->g);
}

/* One group per distinct (op, shape) among the cases, on the selection's distribution (an
   op's canaries are check's, not ours); its rows: every dtype and mode the op accepts. */
static int add_groups(groups *gs, const gv_case *cases, int n, int dist)
{
    for (int i = 0; i < n; i++) {
        const gv_case *c = &cases[i];
        gv_dist want = dist >= 0 ? (gv_dist)dist : c->op->default_dist;
        if (c->dist != want) continue;
        bool seen = false;
        for (int k = 0; k < gs->n && !seen; k++)
            seen = gs->g[k].op == c->op && memcmp(&gs->g[k].shape, &c->shape, sizeof c->shape) == 0;
        if (seen) continue;
        if (gs->n == gs->cap) {
            int cap = gs->cap ? 2 * gs->cap : 8;
            gv_trade_group *grown = realloc(gs->g, sizeof *grown * (size_t)cap);
            if (!grown) return GV_ENOMEM;
            gs->g = grown;
            gs->cap = cap;
        }
        gv_trade_group *g = &gs->g[gs->n];
        *g = (gv_trade_group){.op = c->op, .shape = c->shape, .dist = c->dist, .seed = c->seed};
        g->rows = calloc((size_t)GV_NDTYPES * GV_NMODES, sizeof *g->rows);
        if (!g->rows) return GV_ENOMEM;
        gs->n++;
        for (int t = 0; t < GV_NDTYPES; t++)
            for (int m = 0; m < GV_NMODES; m++) {
                if (!gv_mode_ok(c->op, (gv_dtype)t, (gv_mode)m)) continue;
                gv_trade_row *row = &g->rows[g->n++];
                gv_case rc = *c;
                rc.dtype = (gv_dtype)t;
                rc.mode = (gv_mode)m;
                gv_result_init(&row->r, &rc);
                row->pareto = -1;
                row->speedup_vs_f64 = row->speedup_vs_default = NAN;
            }
    }
    return GV_OK;
}

/* Expand one selection into groups; a usage error is printed here. */
static int select_groups(groups *gs, gv_selection *sel)
{
    char err[512];
    gv_case *cases = NULL;
    int n = gv_select(sel, &cases, err, sizeof err);
    if (n < 0) {
        gv_usage_error("%s", err);
        return GV_EINVAL;
    }
    int rc = add_groups(gs, cases, n, sel->dist);
    free(cases);
    return rc;
}

static void progress(bool on, const char *pass, const gv_trade_row *row)
{
    if (!on) return;
    char label[160];
    fprintf(stderr, "\r%-6s %-70s", pass, gv_case_label(&row->r.c, label, sizeof label));
    fflush(stderr);
}

/* The timing pass of one row: inputs only (no oracle), the hot scope by bench's method. */
static void time_row(gv_trade_row *row, const gv_bench_opts *o, const char *uuid)
{
    gv_problem p;
    int rc = gv_problem_init(&p, &row->r.c);
    if (rc != GV_OK) {
        snprintf(row->time_why, sizeof row->time_why, "inputs: %s", gv_strerror(rc));
        row->time_error = rc != GV_ENOMEM;
        return;
    }
    gv_samples s = {0};
    gk_bench_info info;
    gv_power before, after;
    gv_power_read(uuid, &before);
    rc = gv_bench_time_hot(&p, o, &s, &info, row->time_why, sizeof row->time_why);
    gv_power_read(uuid, &after);
    int64_t launches = (int64_t)s.n * (s.reps > 0 ? s.reps : 1);
    row->power_ok = rc == GV_OK && before.ok && after.ok && launches > 0;
    /* Energy in a window of its own: NVML's counter moves in steps too coarse for bench's
       0.5 s (measured on an H100: 0 J for some rows, about 1.2 J per call for others). */
    if (rc == GV_OK && uuid)
        gv_bench_energy_window(&p, o, uuid, &row->energy);
    else
        snprintf(row->energy.why, sizeof row->energy.why, "%s", uuid ? "not timed" : "no device");
    if (row->power_ok) {
        row->sm_mhz_before = before.sm_clock_mhz;
        row->sm_mhz_after = after.sm_clock_mhz;
        row->throttle = before.throttle | after.throttle;
        row->throttled = (row->throttle & GV_THROTTLE_SLOWDOWN_MASK) != 0;
    } else {
        snprintf(row->power_why, sizeof row->power_why, "%s",
                 !before.ok  ? before.why
                 : !after.ok ? after.why
                             : "not timed");
    }
    if (rc == GV_OK) rc = gv_stat_describe(s.ms, s.n, o->gpu.conf, &row->t);
    if (rc == GV_OK)
        row->timed = true;
    else
        row->time_error = rc != GV_EDEVMEM && rc != GV_EUNSUPPORTED;
    if (rc != GV_OK && !row->time_why[0])
        snprintf(row->time_why, sizeof row->time_why, "%s", gv_strerror(rc));
    gv_samples_free(&s);
    gv_problem_free(&p);
}

static double extra_of(const gv_result *r, const char *name)
{
    for (int i = 0; i < r->n_extra; i++)
        if (strcmp(r->extra[i].name, name) == 0) return r->extra[i].value;
    return NAN;
}

/* How bad a verdict is for the row: PASS, then SKIP, ERROR, FAIL. */
static int severity(gv_verdict v)
{
    return v == GV_PASS ? 0 : v == GV_SKIP ? 1 : v == GV_ERROR ? 2 : 3;
}

/* The mode probes of a row (check's own cases for the mode, on the group's seed), run after
   its correctness case: a mode that is not in effect FAILs the row with the probe's reason;
   what they measured goes beside it. */
static void probe_row(gv_trade_row *row, bool show)
{
    row->probe_width = row->probe_acc_bits = NAN;
    gv_case pc[8];
    char err[256] = "";
    const gv_case *c = &row->r.c;
    int n = gv_mode_probe_cases(c->op, c->dtype, c->mode, false, c->seed, pc, 8, err, sizeof err);
    if (n <= 0) return;
    row->n_probes = n;
    row->probe_verdict = GV_PASS;
    size_t used = 0;
    for (int k = 0; k < n; k++) {
        gv_result pr;
        if (show) {
            char label[160];
            fprintf(stderr, "\r%-6s %-70s", "probe", gv_case_label(&pc[k], label, sizeof label));
            fflush(stderr);
        }
        gv_run_case(&pc[k], &pr);
        double width = extra_of(&pr, "probe_width_bits"), acc = extra_of(&pr, "probe_acc_bits"),
               off = extra_of(&pr, "probe_off_grid");
        char what[32];
        if (!isnan(width)) {
            row->probe_width = width;
            snprintf(what, sizeof what, "width %.0f", width);
        } else if (!isnan(acc)) {
            row->probe_acc_bits = acc;
            snprintf(what, sizeof what, isfinite(acc) ? "acc %.1f" : "acc exact", acc);
        } else if (!isnan(off)) {
            snprintf(what, sizeof what, "%s %s", gv_dist_name(pc[k].dist),
                     off == 0 ? "on grid" : "off grid");
        } else {
            snprintf(what, sizeof what, "%s %s", gv_dist_name(pc[k].dist),
                     gv_verdict_name(pr.verdict));
        }
        int w = snprintf(row->probe_what + used, sizeof row->probe_what - used, "%s%s",
                         used ? ", " : "", what);
        if (w > 0 && (size_t)w < sizeof row->probe_what - used) used += (size_t)w;
        if (severity(pr.verdict) > severity(row->probe_verdict)) row->probe_verdict = pr.verdict;
        if (pr.verdict != GV_PASS && !row->probe_reason[0])
            snprintf(row->probe_reason, sizeof row->probe_reason, "%s probe: %.230s",
                     gv_dist_name(pc[k].dist),
                     pr.reason[0] ? pr.reason : gv_verdict_name(pr.verdict));
    }
    /* a mode that is not in effect is not the mode measured: the row FAILs; one the library
       replaced by another path (a documented fall-back: the probe is SKIP) is not a pass of
       the mode either, and is neither timed nor on the front */
    if (row->r.verdict == GV_ERROR || row->probe_verdict == GV_PASS) return;
    if (row->probe_verdict == GV_FAIL || row->r.verdict == GV_PASS) {
        row->r.verdict = row->probe_verdict == GV_FAIL ? GV_FAIL : GV_SKIP;
        snprintf(row->r.reason, sizeof row->r.reason, "mode probe: %.200s", row->probe_reason);
    }
}

/* The expectations of this device's architecture for the fingerprint (NULL: none). */
static gv_fp_expect trade_expect;
static bool trade_have_expect;

/* The row's arithmetic fingerprint (`gpuval probe`), for GEMM rows: a few small calls of the
   row's op and mode, untimed; its features judged against the architecture's expectations. */
static void arith_row(gv_trade_row *row)
{
    const gv_case *c = &row->r.c;
    gv_fp_arith a;
    if (!gv_fp_op_probeable(c->op) || gv_fp_arith_of(c->dtype, c->mode, &a) != GV_OK) return;
    gv_fp_device dev = {.op = c->op, .dtype = c->dtype, .mode = c->mode};
    gv_fp_print fp;
    char why[256];
    if (gv_fp_measure(&a, gv_fp_device_gemm, &dev, &fp, why, sizeof why) != GV_OK) return;
    row->arith_have = true;
    snprintf(row->arith_in, sizeof row->arith_in, "%s", fp.f[GV_FP_IN_BITS_A].text);
    snprintf(row->arith_acc, sizeof row->arith_acc, "%s", fp.f[GV_FP_ACC_BITS].text);
    snprintf(row->arith_block, sizeof row->arith_block, "%s", fp.f[GV_FP_BLOCK].text);
    snprintf(row->arith_round, sizeof row->arith_round, "%s", fp.f[GV_FP_BLOCK_ROUND].text);
    snprintf(row->arith_sub, sizeof row->arith_sub, "%s/%s", fp.f[GV_FP_SUBNORMAL_IN].text,
             fp.f[GV_FP_SUBNORMAL_OUT].text);
    row->arith_fails = 0;
    row->arith_failed[0] = '\0';
    for (int f = 0; f < GV_FP_NFEATURES && trade_have_expect; f++) {
        const gv_fp_rule *rule =
            gv_fp_expect_find(&trade_expect, c->op->name, c->dtype, c->mode, f);
        if (gv_fp_judge(rule, &fp.f[f]) != GV_FP_FAIL) continue;
        size_t used = strlen(row->arith_failed);
        snprintf(row->arith_failed + used, sizeof row->arith_failed - used, "%s%s",
                 row->arith_fails++ ? "," : "", gv_fp_feature_name(f));
    }
}

static void run_group(gv_trade_group *g, const gv_bench_opts *o, bool show, const char *uuid)
{
    for (int i = 0; i < g->n; i++) { /* correctness, never timed */
        progress(show, "check", &g->rows[i]);
        gv_case c = g->rows[i].r.c; /* gv_run_case starts r afresh: not from r itself */
        gv_run_case(&c, &g->rows[i].r);
        probe_row(&g->rows[i], show);
        arith_row(&g->rows[i]);
    }
    for (int i = 0; i < g->n; i++) { /* timing, apart */
        gv_trade_row *row = &g->rows[i];
        if (!(row->r.verdict == GV_PASS || row->r.verdict == GV_FAIL)) continue;
        progress(show, "time", row);
        time_row(row, o, uuid);
    }
    if (show) fprintf(stderr, "\r%-80s\r", "");
    gv_trade_speedups(g->rows, g->n);
    gv_trade_pareto(g->rows, g->n);
    gv_trade_flag_models(g->rows, g->n);
}

/* What the command line asked for. */
typedef struct trade_args {
    gv_selection sel;
    const char *json_path, *md_path, *size_spec, *device;
    bool device_serial, quiet;
    gv_device_plan plan;
    gv_shape shapes[64]; /* sel.shapes points here after --size */
} trade_args;

/* The options into a, then the devices and outputs checked: -1 to go on, or the exit code (0
   after --help, else after a message). */
static int parse_args(int argc, char **argv, trade_args *a)
{
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_trade_options);
    int c;
    while ((c = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        switch (c) {
        case O_OP: a->sel.op_glob = optarg; break;
        case O_SIZE: a->size_spec = optarg; break;
        case O_DIST:
            if (gv_cmd_parse_dist(optarg, &a->sel.dist)) return GV_EXIT_USAGE;
            break;
        case O_SEED:
            if (gv_cmd_parse_seed(optarg, &a->sel.seed)) return GV_EXIT_USAGE;
            break;
        case O_JSON: a->json_path = optarg; break;
        case O_MD: a->md_path = optarg; break;
        case O_DEVICE: a->device = optarg; break;
        case O_SERIAL: a->device_serial = true; break;
        case 'q': a->quiet = true; break;
        case 'h': gv_cmd_help_print(stdout, &trade_help); return GV_EXIT_OK;
        default: gv_cmd_bad_option("tradeoffs", argv); return GV_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        gv_cmd_usage_cmd("tradeoffs", "tradeoffs takes no positional arguments ('%s')",
                         argv[optind]);
        return GV_EXIT_USAGE;
    }
    gv_error e;
    if (!gv_device_plan_perf(a->device, &a->plan, &e)) return gv_cmd_fail(&e);
    if (a->device_serial && a->plan.n < 2) {
        gv_usage_error("--device-serial orders the workers of --device LIST (several devices)");
        return GV_EXIT_USAGE;
    }
    if (a->plan.n > 1 && a->md_path) {
        gv_usage_error("--md takes one device's run; with several, use --json (gpuval merge --md "
                       "renders the merged view)");
        return GV_EXIT_USAGE;
    }
    if (a->size_spec && gv_cmd_parse_sizes(a->size_spec, a->shapes, 64, &a->sel) != 0)
        return GV_EXIT_USAGE;
    const char *outs[2] = {a->json_path, a->md_path}, *flags[2] = {"--json", "--md"};
    if (gv_probe_outputs(2, outs, flags) != 0) return GV_EXIT_USAGE;
    return -1;
}

/* The groups of --op (or of the default selection) into gs, which the caller frees: -1 to go
   on, or the exit code after a message. */
static int make_groups(trade_args *a, groups *gs)
{
    char err[512];
    int rc = GV_OK;
    if (a->sel.op_glob) {
        rc = select_groups(gs, &a->sel);
    } else {
        /* the default ops must exist: a renamed one is a runtime error naming the entry */
        for (int i = 0; i < N_DEFAULT && rc == GV_OK; i++) {
            if (!gv_op_find(default_sel[i].op)) {
                gv_usage_error("default selection names '%s', which is not registered",
                               default_sel[i].op);
                return GV_EXIT_RUNTIME;
            }
            gv_selection one = a->sel;
            gv_shape own;
            one.op_glob = default_sel[i].op;
            if (one.dist < 0) one.dist = GV_DIST_UNIFORM11;
            if (!a->size_spec) {
                if (gv_size_spec_parse(default_sel[i].shape, &own, 1, err, sizeof err) != 1) {
                    gv_usage_error("default selection: %s", err);
                    return GV_EXIT_RUNTIME;
                }
                one.shapes = &own;
                one.n_shapes = 1;
            }
            rc = select_groups(gs, &one);
        }
    }
    if (rc == GV_ENOMEM) return GV_EXIT_RUNTIME;
    if (rc != GV_OK) return GV_EXIT_USAGE;
    if (gs->n == 0) {
        gv_usage_error("no op matches the selection (see gpuval list)");
        return GV_EXIT_USAGE;
    }
    return -1;
}

/* Every group run on this process's device, printed and written; returns the exit code. */
static int run_groups(const trade_args *a, groups *gs, int argc, char **argv)
{
    gv_run_info info;
    gv_cmd_run_start(&info, "tradeoffs", argc, argv);
    if (info.have_device) {
        char err[700];
        trade_have_expect = gv_fp_expect_builtin(info.device.cc_major * 10 + info.device.cc_minor,
                                                 &trade_expect, err, sizeof err) == GV_OK;
    }
    gv_bench_opts o;
    gv_bench_opts_default(&o);
    o.time_cpu = false;
    o.cold = false;
    bool show = isatty(2);
    for (int k = 0; k < gs->n; k++) {
        run_group(&gs->g[k], &o, show, info.have_device ? info.device.uuid : NULL);
        char shape[64];
        if (a->quiet) continue;
        printf("\n%s %s (%s, seed %llu)\n", gs->g[k].op->name,
               gv_shape_format(&gs->g[k].shape, shape, sizeof shape), gv_dist_name(gs->g[k].dist),
               (unsigned long long)gs->g[k].seed);
        gv_trade_table(stdout, &gs->g[k]);
        fflush(stdout);
    }
    gv_trade_summary sum;
    gv_trade_summarize(gs->g, gs->n, &sum);
    printf("\n%d rows: %d passed, %d failed, %d skipped, %d errors\n", sum.rows, sum.passed,
           sum.failed, sum.skipped, sum.errors);
    bool lost = false;
    json_t *doc = a->json_path || a->md_path ? gv_trade_doc(&info, gs->g, gs->n, &sum) : NULL;
    if (a->json_path && (!doc || gv_trade_write_json(a->json_path, doc) != GV_OK)) {
        gv_write_error(a->json_path);
        lost = true;
    }
    if (a->md_path && (!doc || gv_render_write(a->md_path, doc, false) != 0)) {
        gv_write_error(a->md_path);
        lost = true;
    }
    json_decref(doc);
    free((char *)info.argv_joined);
    return gv_exit_code(sum.failed, sum.errors, sum.passed + sum.failed, info.have_device, lost);
}

int gv_cmd_tradeoffs(int argc, char **argv)
{
    trade_args a;
    memset(&a, 0, sizeof a);
    a.sel.dist = -1;
    groups gs = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc < 0) rc = make_groups(&a, &gs);
    if (rc < 0 && a.plan.n > 1) { /* the selection is good: one worker per device, the merge */
        gv_fleet_end end;
        gv_error e;
        gv_fleet_perf_run(&gv_trade_options, &a.plan, argc, argv, a.json_path, a.device_serial,
                          &gv_fleet_text_printer, &end, &e);
        rc = gv_cmd_fleet_end(&end, a.json_path, &e);
    } else if (rc < 0)
        rc = run_groups(&a, &gs, argc, argv);
    groups_free(&gs);
    return rc;
}
