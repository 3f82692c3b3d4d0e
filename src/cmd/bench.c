/* bench.c: `gpuval bench`, the timed run. Its own entry point, apart from `check`: options
 * and presets are validated before any work (exit 2 with a message), the ceilings are
 * measured once, then each case is timed (bench/bench_case.c), crossover sweeps are run, and
 * the run's JSON document (bench/bench_json.c) is printed to the terminal and to the files
 * asked for by the printers of src/render/ (bench_text.c, bench_seeds.c, bench_files.c). Ops
 * are found through the registry only, so later ops are benched too. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cblas.h>
#include <omp.h>

#include "cmd/bench.h"
#include "render/fleet_text.h"
#include "core/knobs.h"
#include "io/json_util.h"
#include "bench/bench_json.h"
#include "bench/bench_plan.h"
#include "bench/bench_result.h"
#include "bench/bench_targets.h"
#include "io/run_doc.h"
#include "cmd/cli.h"
#include "fleet/perf_workers.h"
#include "core/reference.h"
#include "core/registry.h"
#include "render/bench_files.h"
#include "render/bench_seeds.h"
#include "render/bench_text.h"

/* The parser's labels for bench's options. */
enum {
    O_OP = 256,
    O_DTYPE,
    O_MODE,
    O_SIZE,
    O_DIST,
    O_SEED,
    O_PRESET,
    O_XO,
    O_SWEEP,
    O_SBASE,
    O_FACTOR,
    O_REFINE,
    O_SPREAD,
    O_CAP,
    O_MINS,
    O_BUDGET,
    O_HOT,
    O_COLD,
    O_NOCPU,
    O_REPEAT,
    O_DEVICE,
    O_SERIAL,
    O_JSON,
    O_CSV,
    O_MD,
    O_SAVE,
    O_FORCE,
    O_AS
};

/* bench's options, once: the parser (parse_cli), --help and the workers of --device LIST
   (fleet/perf_workers.h) all read this table. The parent keeps its outputs and the device
   list; every worker gets the selection and the method. */
static const gv_opt bench_opts[] = {
    {.name = "op",
     .id = O_OP,
     .arg = "GLOBS",
     .heading = "selection (as for check; default: every op at its default sizes)",
     .help = "ops whose name matches one of the comma-separated globs"},
    {.name = "dtype", .id = O_DTYPE, .arg = "LIST", .help = "f32,f64"},
    {.name = "mode", .id = O_MODE, .arg = "LIST", .help = "modes by name (gpuval list --modes)"},
    {.name = "size", .id = O_SIZE, .arg = "SPEC", .help = "e.g. 1e5,2^28 or 4096x4096x4096"},
    {.name = "dist", .id = O_DIST, .arg = "NAME", .help = "input distribution"},
    {.name = "seed", .id = O_SEED, .arg = "N", .help = "input seed (default 0)"},
    {.name = "preset",
     .id = O_PRESET,
     .arg = "NAME",
     .help = "seed000  vadd at 1e5, 1.15e7; sin_iter at k = 1, 10, 100, 1000 and\n"
             "         its crossover in k (seed 000)\n"
             "seed002  matmul_colsum and einsum.colsum, 10000x5000x7000, f32 and\n"
             "         f64, in the seed's layout with the 1e-8 / 1e-4 verdicts\n"
             "targets  vadd f32 2^28, einsum.colsum and reduce.colsum at the seed\n"
             "         sizes, gemm.tiled, gemm.regblock and gemm.cublas at 4096^3,\n"
             "         one diffusion step on 8192^2, against the measured ceilings\n"
             "short    a few small cases and a small sweep (meson test --benchmark)"},
    {.name = "crossover",
     .id = O_XO,
     .arg = "OP",
     .heading = "crossover",
     .help = "sweep one dim geometrically; find the smallest size where the GPU,\n"
             "end to end, beats the CPU (with --dtype/--mode: their first value)"},
    {.name = "sweep",
     .id = O_SWEEP,
     .arg = "DIM=LO..HI",
     .help = "the dim and range (default: the first dim, up to the base's value)"},
    {.name = "sweep-base",
     .id = O_SBASE,
     .arg = "SHAPE",
     .help = "the other dims (default: the op's largest default shape)"},
    {.name = "sweep-factor", .id = O_FACTOR, .arg = "F", .help = "ratio of sizes (default 2)"},
    {.name = "refine",
     .id = O_REFINE,
     .arg = "N",
     .help = "bisections between the last loss and the first win (default 3)"},
    {.name = "target-spread",
     .id = O_SPREAD,
     .arg = "X",
     .heading = "method",
     .help = "stop when the median's 95% interval half-width / median <= X (0.01)"},
    {.name = "cap",
     .id = O_CAP,
     .arg = "SECONDS",
     .help = "time cap per scope and case, > 0 (0.5)"},
    {.name = "min-samples", .id = O_MINS, .arg = "N", .help = "never fewer samples, N >= 10 (10)"},
    {.name = "cpu-budget",
     .id = O_BUDGET,
     .arg = "S",
     .help = "the CPU may stop below --min-samples when one more run would pass\n"
             "S seconds (20; 0: no budget)"},
    {.name = "hot", .id = O_HOT, .help = "the kernel-only scope of launches back to back"},
    {.name = "cold",
     .id = O_COLD,
     .help = "the kernel-only scope with the L2 flushed before each sample; with\n"
             "--hot or --cold only the scopes named are timed (default: both)"},
    {.name = "no-cpu",
     .id = O_NOCPU,
     .help = "do not time the CPU oracle (it still runs once, for the reference)"},
    {.name = "repeat-check",
     .id = O_REPEAT,
     .help = "time every case's hot scope twice (default: the first timed case)"},
    {.name = "device",
     .id = O_DEVICE,
     .arg = "SPEC",
     .parent_only = true,
     .heading = "output",
     .help = "the GPU: N, a list N,M,... or all (default: the first, or a rank's\n"
             "local rank). A list runs one worker process per device, each\n"
             "writing NAME.devI.json beside --json, then merges them as gpuval\n"
             "merge does: per case and device the median and interval, the time\n"
             "against the node's median (over +10%: SLOW), SM clock, throttle\n"
             "reasons and PCIe link; --json then writes the merged view"},
    {.name = "device-serial",
     .id = O_SERIAL,
     .parent_only = true,
     .help = "with a list: run the devices one after another. Default: all at\n"
             "once, so the node is measured as it runs loaded and in the time of\n"
             "one device; the workers then share the host's cores and PCIe, which\n"
             "slows the CPU oracle's timings and e2e. Serial gives clean timings\n"
             "for comparing against another node or a baseline"},
    {.name = "json",
     .id = O_JSON,
     .arg = "FILE",
     .parent_only = true,
     .help = "the run (schema gpuval-bench/1, raw samples included)"},
    {.name = "csv", .id = O_CSV, .arg = "FILE", .parent_only = true, .help = "one row per case"},
    {.name = "md", .id = O_MD, .arg = "FILE", .parent_only = true, .help = "Markdown report"},
    {.name = "save",
     .id = O_SAVE,
     .arg = "FILE",
     .parent_only = true,
     .help = "the --json document, as a baseline for gpuval compare: an existing\n"
             "FILE is replaced only with --force"},
    {.name = "force",
     .id = O_FORCE,
     .parent_only = true,
     .help = "let --save replace an existing baseline"},
    {.name = "as",
     .id = O_AS,
     .arg = "OP",
     .help = "time the one selected op under OP's name (a variant with OP's\n"
             "oracle), so that compare matches it with OP's baseline"},
    {.name = "quiet",
     .id = 'q',
     .help = "print no table of cases: the device lines, the summary and the\n"
             "decisions (targets, crossover) only"},
    {.name = "help", .id = 'h'},
};
_Static_assert(GV_NOPTS(bench_opts) <= GV_OPTS_MAX, "bench has more options than GV_OPTS_MAX");

const gv_opt_table gv_bench_options = {"bench", bench_opts, GV_NOPTS(bench_opts)};

static const gv_exit_line bench_exits[] = {
    {GV_EXIT_OK, "every timed case sane (skips allowed)"},
    {GV_EXIT_FAIL, "a sanity check failed"},
    {GV_EXIT_USAGE, NULL},
    {GV_EXIT_RUNTIME, NULL},
    {GV_EXIT_NODEV, NULL},
};

static const char bench_head[] =
    "usage: gpuval bench [options]\n"
    "\n"
    "Time the selected cases on the GPU and the float64 CPU oracle on the same inputs, side by\n"
    "side. A timed run never replaces `gpuval check`: it records a cheap sanity verdict only\n"
    "(the output of the timed path judged against the oracle), and marks a case that fails it.\n"
    "\n";

static const char bench_tail[] =
    "\n"
    "Scopes: hot = kernel only, launches back to back; cold = kernel only, L2 flushed before\n"
    "each sample; e2e = pinned H2D + kernel + D2H. Speed-up = CPU median / GPU median, with a\n"
    "95% interval. GFLOP/s and GB/s come from the op's flop and byte counts, as fractions of\n"
    "ceilings measured in the same run (a D2D copy, bytes read + written; a cuBLAS gemm at\n"
    "8192^3 per dtype: f32 in pedantic math, f64 in default math, the faster IEEE f64\n"
    "product on cuBLAS 13). An interval marked * holds below 95%: a CPU budget\n"
    "cut the oracle's runs. Progress goes to stderr when it is a terminal.\n";

static const gv_help bench_help = {.head = bench_head,
                                   .opts = &gv_bench_options,
                                   .col = 21,
                                   .tail = bench_tail,
                                   .exits = bench_exits,
                                   .n_exits = GV_NEXITS(bench_exits)};

#define MAX_SHAPES 64

static int parse_pos_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return (end == s || *end || errno || !isfinite(*v)) ? -1 : 0;
}

static int parse_int(const char *s, long lo, long hi, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end || errno || x < lo || x > hi) return -1;
    *v = (int)x;
    return 0;
}

typedef struct run_state {
    const gv_bench_opts *o;
    gv_ceiling_values ceil;
    bool progress;
    bool repeat_pending; /* the first timed case is timed twice */
    int done, total;
} run_state;

static void time_case(run_state *st, const gv_case *c, gv_bench_case_result *r)
{
    char label[192];
    if (st->progress) {
        fprintf(stderr, "\r[%d/%d] %-70.70s", ++st->done, st->total,
                gv_case_label(c, label, sizeof label));
        fflush(stderr);
    }
    gv_bench_case bc;
    gv_bench_run_case(c, st->o, st->repeat_pending || st->o->repeat_all, &bc);
    if (bc.timed) st->repeat_pending = false;
    gv_bench_result_make(r, &bc, &st->ceil, st->o->gpu.conf);
    if (st->progress) fprintf(stderr, "\r%-80s\r", "");
}

static int run_sweep(run_state *st, const gv_sweep *sw, const int64_t *sizes, int n,
                     gv_bench_crossover *xo)
{
    gv_case c = {sw->op, sw->dtype, sw->mode, sw->op->default_dist, sw->base, 0};
    gv_bench_case_result r;
    gv_bench_crossover_init(xo, &c, sw->dim, sw->lo, sw->hi, sw->factor);
    for (int i = 0; i < n; i++) {
        c.shape.d[sw->dim] = sizes[i];
        time_case(st, &c, &r);
        if (gv_bench_crossover_add(xo, sizes[i], &r) != GV_OK) return GV_ENOMEM;
        /* the last three points won with intervals above 1: larger sizes add cost, not
           answers */
        if (i + 1 < n && gv_bench_crossover_three_confident_wins(xo)) {
            xo->stopped_early = true;
            break;
        }
    }
    /* Bisect (geometrically) between the last loss and the first win. */
    for (int k = 0; k < sw->refine; k++) {
        gv_bench_crossover_finish(xo);
        double a = xo->last_loss_size, b = xo->first_win_size;
        if (xo->timed_points == 0 || xo->status != GV_XO_FOUND || b - a < 2 || b / a < 1.1) break;
        int64_t mid = (int64_t)llround(sqrt(a * b));
        if (mid <= (int64_t)a || mid >= (int64_t)b) break;
        c.shape.d[sw->dim] = mid;
        st->total++;
        time_case(st, &c, &r);
        if (gv_bench_crossover_add(xo, mid, &r) != GV_OK) return GV_ENOMEM;
    }
    gv_bench_crossover_finish(xo);
    return GV_OK;
}

/* Everything the command line set, before presets and defaults are merged. */
typedef struct cli {
    gv_selection sel;
    const char *size_spec, *preset, *crossover, *sweep, *sweep_base, *as_name;
    const char *out[4]; /* json, csv, md, save (json) */
    const char *device; /* --device SPEC */
    bool device_serial; /* --device-serial */
    bool quiet;         /* -q: no table of cases */
    double spread, cap, cpu_budget, factor;
    int min_samples, refine;
    bool hot, cold, no_cpu, repeat_all, selection_given, force;
} cli;

static int parse_cli(int argc, char **argv, cli *a)
{
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_bench_options);
    int c;
    while ((c = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        switch (c) {
        case O_OP:
            a->sel.op_glob = optarg;
            a->selection_given = true;
            break;
        case O_DTYPE:
            if (gv_cmd_parse_dtype_list(optarg, &a->sel.dtypes)) return -1;
            break;
        case O_MODE:
            if (gv_cmd_parse_mode_list(optarg, &a->sel.modes)) return -1;
            break;
        case O_SIZE:
            a->size_spec = optarg;
            a->selection_given = true;
            break;
        case O_DIST:
            if (gv_cmd_parse_dist(optarg, &a->sel.dist)) return -1;
            a->selection_given = true;
            break;
        case O_SEED:
            if (gv_cmd_parse_seed(optarg, &a->sel.seed)) return -1;
            break;
        case O_PRESET: a->preset = optarg; break;
        case O_XO: a->crossover = optarg; break;
        case O_SWEEP: a->sweep = optarg; break;
        case O_SBASE: a->sweep_base = optarg; break;
        case O_FACTOR:
            if (parse_pos_double(optarg, &a->factor) || !(a->factor > 1.0) || a->factor > 1e3) {
                gv_usage_error("--sweep-factor takes a number in (1, 1000], not '%s'", optarg);
                return -1;
            }
            break;
        case O_REFINE:
            if (parse_int(optarg, 0, 10, &a->refine)) {
                gv_usage_error("--refine takes an integer 0..10, not '%s'", optarg);
                return -1;
            }
            break;
        case O_SPREAD:
            if (parse_pos_double(optarg, &a->spread) || !(a->spread > 0) || !(a->spread < 1)) {
                gv_usage_error("--target-spread takes a fraction in (0, 1), not '%s'", optarg);
                return -1;
            }
            break;
        case O_CAP:
            if (parse_pos_double(optarg, &a->cap) || !(a->cap > 0) || a->cap > 3600) {
                gv_usage_error("--cap takes seconds > 0 (at most 3600), not '%s'", optarg);
                return -1;
            }
            break;
        case O_MINS:
            if (parse_int(optarg, 10, 10000, &a->min_samples)) {
                gv_usage_error("--min-samples takes an integer 10..10000, not '%s'", optarg);
                return -1;
            }
            break;
        case O_BUDGET:
            if (parse_pos_double(optarg, &a->cpu_budget) || a->cpu_budget < 0) {
                gv_usage_error("--cpu-budget takes seconds >= 0, not '%s'", optarg);
                return -1;
            }
            break;
        case O_HOT: a->hot = true; break;
        case O_COLD: a->cold = true; break;
        case O_NOCPU: a->no_cpu = true; break;
        case O_REPEAT: a->repeat_all = true; break;
        case O_JSON: a->out[0] = optarg; break;
        case O_CSV: a->out[1] = optarg; break;
        case O_MD: a->out[2] = optarg; break;
        case O_SAVE: a->out[3] = optarg; break;
        case O_FORCE: a->force = true; break;
        case O_AS: a->as_name = optarg; break;
        case O_DEVICE: a->device = optarg; break;
        case O_SERIAL: a->device_serial = true; break;
        case 'q': a->quiet = true; break;
        case 'h': gv_cmd_help_print(stdout, &bench_help); return 1;
        default: gv_cmd_bad_option("bench", argv); return -1;
        }
    }
    if (optind < argc) {
        gv_cmd_usage_cmd("bench", "bench takes no positional arguments ('%s')", argv[optind]);
        return -1;
    }
    return 0;
}

/* Merge defaults, the preset's and the command line's settings (in that order). */
static void apply_cli(const cli *a, gv_bench_opts *o)
{
    if (a->spread > 0) o->gpu.target_spread = o->cpu.target_spread = a->spread;
    if (a->cap > 0) o->gpu.cap_s = o->cpu.cap_s = a->cap;
    if (a->min_samples > 0) o->gpu.min_samples = o->cpu.min_samples = a->min_samples;
    if (a->cpu_budget >= 0) o->cpu.budget_s = a->cpu_budget;
    if (a->hot || a->cold) {
        o->hot = a->hot;
        o->cold = a->cold;
    }
    if (a->no_cpu) o->time_cpu = false;
    if (a->repeat_all) o->repeat_all = true;
}

/* --crossover OP with its options into sw. */
static int crossover_req(const cli *a, gv_sweep *sw)
{
    const gv_op *op = gv_op_find(a->crossover);
    if (!op) {
        gv_usage_error("--crossover: no op '%s' (gpuval list shows the ops)", a->crossover);
        return -1;
    }
    memset(sw, 0, sizeof *sw);
    sw->op = op;
    sw->factor = a->factor > 0 ? a->factor : 2.0;
    sw->refine = a->refine >= 0 ? a->refine : 3;
    bool found = false; /* the first dtype and mode asked for (default native) the op has */
    for (int t = 0; t < GV_NDTYPES * GV_NMODES && !found; t++) {
        gv_dtype dt = (gv_dtype)(t / GV_NMODES);
        gv_mode md = (gv_mode)(t % GV_NMODES);
        if (a->sel.dtypes && !(a->sel.dtypes & (1u << dt))) continue;
        if (a->sel.modes ? !(a->sel.modes & (1u << md)) : md != GV_MODE_NATIVE) continue;
        if (!gv_mode_ok(op, dt, md)) continue;
        sw->dtype = dt;
        sw->mode = md;
        found = true;
    }
    if (!found) {
        gv_usage_error("--crossover %s: the op has no such dtype and mode (gpuval list)", op->name);
        return -1;
    }
    char why[512] = "";
    if (a->sweep_base) {
        if (gv_size_spec_parse(a->sweep_base, &sw->base, 1, why, sizeof why) != 1) {
            gv_usage_error("--sweep-base: %s (one shape)", why);
            return -1;
        }
    } else if (gv_op_default_shape(op, -1, &sw->base) != GV_OK) {
        gv_usage_error("--crossover %s: the op has no default shape; give --sweep-base", op->name);
        return -1;
    }
    if (!gv_shape_ok(op, &sw->base, why, sizeof why)) {
        gv_usage_error("--crossover %s: base shape: %s", op->name, why);
        return -1;
    }
    if (a->sweep) {
        if (gv_sweep_parse(sw, a->sweep, why, sizeof why) == GV_OK) return 0;
        gv_usage_error("%s", why);
        return -1;
    }
    sw->hi = sw->base.d[0]; /* default: the first dim, up to the base's value */
    sw->lo = sw->hi / 4096 > 1 ? sw->hi / 4096 : 1;
    return 0;
}

/* The cases of --op/--size/... (as for check), each checked to fit this machine. */
static int selected_cases(cli *a, const gv_bench_opts *o, gv_case_list *cases)
{
    char err[512] = "";
    gv_shape shapes[MAX_SHAPES];
    if (a->size_spec) {
        int ns = gv_size_spec_parse(a->size_spec, shapes, MAX_SHAPES, err, sizeof err);
        if (ns < 0) {
            gv_usage_error("%s", err);
            return -1;
        }
        a->sel.shapes = shapes;
        a->sel.n_shapes = ns;
    }
    gv_case *sel = NULL;
    int n = gv_select(&a->sel, &sel, err, sizeof err);
    a->sel.shapes = NULL;
    if (n < 0) {
        gv_usage_error("%s", err);
        return -1;
    }
    int rc = n == 0 ? -1 : 0;
    if (n == 0)
        gv_usage_error("no case matches the selection (an op's dtypes and modes: gpuval list)");
    if (rc == 0 && a->as_name && gv_select_as(sel, n, a->as_name, err, sizeof err) != GV_OK) {
        gv_usage_error("%s", err);
        rc = -1;
    }
    for (int i = 0; i < n && rc == 0; i++) {
        if (gv_bench_fits(&sel[i], o, err, sizeof err) != GV_OK) {
            gv_usage_error("%s", err);
            rc = -1;
        } else if (gv_case_list_add(cases, &sel[i]) != GV_OK) {
            gv_usage_error("out of host memory listing the cases");
            rc = -1;
        }
    }
    free(sel);
    return rc;
}

/* Everything a run will time, validated: cases, at most one sweep and its sizes, notes. */
typedef struct plan {
    gv_case_list cases;
    gv_sweep sw;
    bool have_sweep;
    int64_t sizes[GV_MAX_SWEEP];
    int nsizes;
    gv_notes notes;
} plan;

static int make_plan(cli *a, gv_bench_opts *o, plan *p)
{
    char why[512] = "";
    if (a->as_name && (!a->sel.op_glob || a->preset)) {
        gv_usage_error("--as %s renames the cases of one --op (not a preset's)", a->as_name);
        return -1;
    }
    if (!a->crossover && (a->sweep || a->sweep_base)) { /* never ignored in silence */
        gv_usage_error("%s needs --crossover OP", a->sweep ? "--sweep" : "--sweep-base");
        return -1;
    }
    if (a->preset) {
        if (a->selection_given || a->sel.dtypes || a->sel.modes || a->crossover) {
            gv_usage_error("--preset %s sets its own cases: drop --op/--size/--dtype/--mode/"
                           "--dist/--crossover",
                           a->preset);
            return -1;
        }
        int rc = gv_bench_preset(a->preset, &p->cases, &p->sw, &p->have_sweep, o, &p->notes);
        if (rc == GV_EINVAL)
            gv_usage_error("unknown preset '%s'; valid: %s", a->preset, gv_bench_preset_names());
        else if (rc != GV_OK)
            gv_usage_error("--preset %s: %s", a->preset, gv_strerror(rc));
        if (rc != GV_OK) return -1;
    } else if (a->crossover && a->size_spec && !a->sel.op_glob) {
        gv_usage_error("--size picks sizes for --op; a sweep's other dims come from "
                       "--sweep-base");
        return -1;
    } else if (a->selection_given || !a->crossover) {
        if (selected_cases(a, o, &p->cases)) return -1;
    }
    if (a->crossover) {
        if (crossover_req(a, &p->sw)) return -1;
        p->have_sweep = true;
    }
    if (p->have_sweep) {
        p->nsizes = gv_sweep_sizes(&p->sw, o, p->sizes, why, sizeof why);
        if (p->nsizes < 0) {
            gv_usage_error("%s", why);
            return -1;
        }
    }
    struct stat st_save;
    if (a->out[3] && !a->force && stat(a->out[3], &st_save) == 0) {
        gv_usage_error("--save %s exists: a baseline is replaced only with --force", a->out[3]);
        return -1;
    }
    static const char *const opts[4] = {"--json", "--csv", "--md", "--save"};
    if (gv_probe_outputs(4, a->out, opts) != 0) return -1;
    return 0;
}

/* What the run is on, before any case: the plan's notes, the device (or why none), the
   environment's warnings and the CPU oracle. */
static void print_run_header(const plan *p, const gv_bench_run_info *info)
{
    for (int i = 0; i < p->notes.n; i++)
        fprintf(stderr, "gpuval: %s\n", p->notes.text[i]);
    const gk_device_info *d = &info->device;
    if (info->have_device)
        printf("device: %s (cc %d.%d, %d SMs, %d/%d MHz, %.1f GiB, L2 %.0f MiB, ECC %s; driver %d, "
               "runtime %d, cuBLAS %d)\n",
               d->name, d->cc_major, d->cc_minor, d->sm_count, d->sm_clock_mhz, d->mem_clock_mhz,
               (double)d->mem_total_bytes / 1073741824.0, (double)d->l2_bytes / 1048576.0,
               d->ecc_enabled ? "on" : "off", d->driver_version, d->runtime_version,
               d->cublas_version);
    else
        printf("device: none (%s)\n", gk_device_count() ? gk_last_error() : "no CUDA device");
    gv_env_warn(stdout);
    char cpu[256];
    gv_bench_cpu_model(cpu, sizeof cpu);
    printf("CPU oracle: f64 on %s, %d OpenBLAS threads\n", cpu, info->oracle_threads);
}

/* The dtypes of the plan's cases and sweep, one bit each: the ceilings to measure. */
static unsigned plan_dtypes(const plan *p)
{
    unsigned dtypes = 0;
    for (int i = 0; i < p->cases.n; i++)
        dtypes |= 1u << p->cases.v[i].dtype;
    if (p->have_sweep) dtypes |= 1u << p->sw.dtype;
    return dtypes;
}

/* What a run measured and decided, for its one document. */
typedef struct run_outcome {
    const gv_ceilings *ceil;
    const gv_bench_case_result *res; /* one per planned case */
    const gv_bench_crossover *xo;
    const gv_bench_target *targets;
    int ntargets;
    gv_bench_summary sum;
} run_outcome;

/* The one JSON document, from the structs, and its renderings on stdout, the count last. */
static json_t *run_document(const cli *a, const plan *p, const gv_bench_run_info *info,
                            const run_outcome *out)
{
    json_t *doc = gv_bench_doc_new(info);
    for (int i = 0; i < p->notes.n; i++)
        json_array_append_new(json_object_get(doc, "notes"), json_string(p->notes.text[i]));
    json_object_set_new(doc, "ceilings", gv_bench_ceilings_json(out->ceil, info->opts->gpu.conf));
    for (int i = 0; i < p->cases.n; i++)
        json_array_append_new(json_object_get(doc, "cases"), gv_bench_case_json(&out->res[i]));
    if (p->have_sweep) {
        json_t *xj = gv_bench_crossover_json(out->xo);
        json_array_append_new(json_object_get(doc, "crossovers"), xj);
        gv_bench_render_crossover(stdout, xj);
    }
    json_object_set_new(doc, "targets", gv_bench_targets_json(out->targets, out->ntargets));
    json_object_set_new(doc, "summary", gv_bench_summary_json(&out->sum));
    gv_bench_render_targets(stdout, doc);
    gv_bench_render_repeat(stdout, doc);
    gv_bench_render_bytes_models(stdout, doc);
    if (a->preset && strcmp(a->preset, "seed002") == 0) gv_bench_render_seed002(stdout, doc);
    if (a->preset && strcmp(a->preset, "seed000") == 0) gv_bench_render_seed000(stdout, doc);
    const gv_bench_summary *s = &out->sum;
    printf("%d timed cases: %d sane, %d sanity failed, %d skipped, %d errors\n",
           s->sane + s->failed + s->skipped + s->errors, s->sane, s->failed, s->skipped, s->errors);
    return doc;
}

/* The plan's cases in turn, each row printed as it ends (none with -q). */
static void time_cases(const cli *a, run_state *st, const plan *p, gv_bench_case_result *res)
{
    if (p->cases.n && !a->quiet) gv_bench_render_header(stdout);
    for (int i = 0; i < p->cases.n; i++) {
        time_case(st, &p->cases.v[i], &res[i]);
        if (!a->quiet) gv_bench_render_row_result(stdout, &res[i]);
        fflush(stdout);
    }
}

/* The run itself: ceilings, cases, the sweep; the decisions (targets, counts, exit code)
   from their structs; then the one JSON document, its renderings and the files. */
static int run_plan(const cli *a, const gv_bench_opts *o, const plan *p, const char *argv_joined)
{
    gv_bench_run_info info = {.argv_joined = argv_joined,
                              .preset = a->preset,
                              .oracle_threads = openblas_get_num_threads(),
                              .opts = o};
    info.device_count = gk_device_count();
    info.have_device = info.device_count > 0 && gk_device_info_get(&info.device) == GV_OK;
    info.device_index = info.have_device ? gk_device_current() : -1;
    gv_bench_opts run_o = *o; /* NVML's clocks around each case need the device's UUID */
    run_o.uuid = info.have_device ? info.device.uuid : NULL;
    o = &run_o;
    print_run_header(p, &info);
    gv_ceilings ceil;
    gv_bench_ceilings(o, info.have_device ? plan_dtypes(p) : 0, &ceil);
    gv_bench_render_ceilings_of(stdout, &ceil, o->gpu.conf);

    run_state st = {.o = o,
                    .progress = isatty(2) != 0,
                    .repeat_pending = true,
                    .total = p->cases.n + p->nsizes};
    gv_ceiling_values_of(&ceil, o->gpu.conf, &st.ceil);
    gv_bench_case_result *res = calloc((size_t)p->cases.n + 1, sizeof *res);
    gv_bench_crossover xo;
    memset(&xo, 0, sizeof xo);
    gv_bench_target *targets = calloc((size_t)p->cases.n + 1, sizeof *targets);
    if (!res || !targets) {
        free(res);
        free(targets);
        gv_ceilings_free(&ceil);
        return GV_EXIT_RUNTIME;
    }
    time_cases(a, &st, p, res);
    bool lost = false; /* no memory for a sweep's point: an output lost */
    if (p->have_sweep && run_sweep(&st, &p->sw, p->sizes, p->nsizes, &xo) != GV_OK) lost = true;

    /* Decisions, from the structs. */
    run_outcome out = {.ceil = &ceil, .res = res, .xo = &xo, .targets = targets};
    out.ntargets = gv_bench_targets_eval(res, p->cases.n, &st.ceil, targets, p->cases.n);
    for (int i = 0; i < p->cases.n; i++)
        gv_bench_summary_add(&out.sum, &res[i]);
    for (int i = 0; i < xo.n; i++)
        gv_bench_summary_add(&out.sum, &xo.pts[i]);
    json_t *doc = run_document(a, p, &info, &out);
    const gv_bench_format fmts[4] = {GV_FMT_JSON, GV_FMT_CSV, GV_FMT_MD, GV_FMT_JSON};
    for (int k = 0; k < 4; k++)
        if (a->out[k] && gv_bench_write(a->out[k], fmts[k], doc) != GV_OK) {
            gv_write_error(a->out[k]);
            lost = true;
        }
    const gv_bench_summary *s = &out.sum;
    int rc = gv_exit_code(s->failed, s->errors, s->sane + s->failed, info.have_device, lost);
    json_decref(doc);
    free(targets);
    for (int i = 0; i < p->cases.n; i++)
        gv_bench_result_free(&res[i]);
    free(res);
    gv_bench_crossover_free(&xo);
    gv_ceilings_free(&ceil);
    return rc;
}

static int no_device(void)
{
    return 0;
}

int gv_cmd_bench(int argc, char **argv)
{
    cli a;
    memset(&a, 0, sizeof a);
    a.sel.dist = -1;
    a.cpu_budget = -1;
    a.refine = -1;
    int prc = parse_cli(argc, argv, &a);
    if (prc) return prc > 0 ? GV_EXIT_OK : GV_EXIT_USAGE;
    gv_device_plan dplan;
    gv_error e;
    if (!gv_device_plan_perf(a.device, &dplan, &e)) return gv_cmd_fail(&e);
    if (a.device_serial && dplan.n < 2) {
        gv_usage_error("--device-serial orders the workers of --device LIST (several devices)");
        return GV_EXIT_USAGE;
    }
    if (dplan.n > 1 && (a.out[1] || a.out[2] || a.out[3])) {
        gv_usage_error("--csv, --md and --save take one device's run; with several, use --json "
                       "(gpuval merge --md renders the merged view)");
        return GV_EXIT_USAGE;
    }
    /* The presets' and targets' tables name ops and shapes: a renamed op is gpuval's own
       error, said loudly, before any work. */
    char why[512] = "";
    if (gv_bench_presets_check(why, sizeof why) != GV_OK ||
        gv_bench_targets_check(why, sizeof why) != GV_OK) {
        fprintf(stderr, "gpuval: internal error: %s\n", why);
        return GV_EXIT_RUNTIME;
    }
    /* The timed CPU side keeps the element-wise oracles (sin_iter, vadd, stencils) on one core,
       as the seeds' NumPy baselines run; OMP_NUM_THREADS chooses otherwise. */
    if (!gv_env("OMP_NUM_THREADS")) omp_set_num_threads(1);
    /* and its BLAS on the OpenBLAS threads recorded in the run (host.oracle_threads) */
    gv_oracle_blas_fixed(false);
    gv_bench_opts o;
    gv_bench_opts_default(&o);
    plan *p = calloc(1, sizeof *p);
    if (!p) return GV_EXIT_RUNTIME;
    int rc = GV_EXIT_USAGE;
    /* with several devices this process only plans and starts the workers: it must not create
       a CUDA context, so the plan sees no device (each worker checks its own memory) */
    gv_bench_device planner = *gv_bench_device_of(&o);
    planner.count = no_device;
    if (dplan.n > 1) o.device = &planner;
    if (make_plan(&a, &o, p) != 0) {
        /* a usage error, said */
    } else if (dplan.n > 1) {
        gv_fleet_end end;
        gv_fleet_perf_run(&gv_bench_options, &dplan, argc, argv, a.out[0], a.device_serial,
                          &gv_fleet_text_printer, &end, &e);
        rc = gv_cmd_fleet_end(&end, a.out[0], &e);
    } else {
        apply_cli(&a, &o); /* the command line overrides a preset's method settings */
        char *joined = gv_cmd_join_args(argc, argv);
        rc = run_plan(&a, &o, p, joined);
        free(joined);
    }
    free(p->cases.v);
    free(p);
    return rc;
}
