/* screen.c: `gpuval screen`, a tier's fixed cases on every GPU of a node (fleet/screen_tiers.h),
 * one worker process per GPU as check --device LIST runs them (each worker is `gpuval screen
 * --device N`, which runs the cases through check's case runner), then the three judgements
 * (fleet/screen_judge.h, screen_golden.h, screen_out.h) and the outputs operators wire up: the exit code, the drain-reason line, a
 * Prometheus textfile, a Kubernetes node condition, the run documents. Options are checked and
 * every input file read before any GPU work. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "render/fleet_text.h"
#include "cmd/cli.h"
#include "cmd/screen.h"
#include "core/cache.h"
#include "core/fault.h"
#include "core/knobs.h"
#include "core/reference.h"
#include "core/runner.h"
#include "core/power.h"
#include "fleet/screen_golden.h"
#include "fleet/screen_health.h"
#include "fleet/screen_perf.h"
#include "fleet/screen_judge.h"
#include "fleet/screen_out.h"
#include "render/merge_text.h"
#include "render/screen_text.h"
#include "fleet/workers.h"
#include "io/json_util.h"
#include "io/run_doc.h"
#include "render/run_text.h"
#include "io/run_info.h"
#include "runs/run_files.h"

enum { O_TIER = 256, O_DEVICE, O_GOLDEN, O_RECORD, O_DRAIN, O_PROM, O_K8S, O_JSON, O_TIMEBOX };

/* The parent keeps the device list, the golden file and every output; a worker gets the tier. */
static const gv_opt screen_opts[] = {
    {.name = "tier",
     .id = O_TIER,
     .arg = "NAME",
     .help = "prolog (default: every unit once, small; 45 s for a node) or drain\n"
             "(every unit in both precisions at full size; 10 minutes)"},
    {.name = "device",
     .id = O_DEVICE,
     .arg = "SPEC",
     .parent_only = true,
     .help = "all (default), N or N,M,...: one worker process per GPU, at once"},
    {.name = "golden",
     .id = O_GOLDEN,
     .arg = "FILE",
     .parent_only = true,
     .help = "compare each deterministic case's output digest with FILE's entry\n"
             "for the GPU's model, driver, runtime and cuBLAS (no entry: said,\n"
             "not a failure)"},
    {.name = "record",
     .id = O_RECORD,
     .arg = "FILE",
     .parent_only = true,
     .help = "write the digests of a node that passed to FILE (gpuval-golden/1;\n"
             "an existing FILE keeps its other GPUs' entries)"},
    {.name = "drain-line",
     .id = O_DRAIN,
     .parent_only = true,
     .help = "standard output holds one line, the drain reason (the tables go\n"
             "to standard error)"},
    {.name = "prom",
     .id = O_PROM,
     .arg = "FILE",
     .parent_only = true,
     .help = "write a Prometheus textfile (gpuval_screen_ok per GPU, failures\n"
             "per unit, seconds) for node_exporter's textfile collector"},
    {.name = "k8s",
     .id = O_K8S,
     .arg = "FILE",
     .parent_only = true,
     .help = "write the Kubernetes node condition (type GpuvalScreen) as JSON"},
    {.name = "json",
     .id = O_JSON,
     .arg = "FILE",
     .parent_only = true,
     .help = "one GPU: its run (gpuval-run/1 with a screen block); several: the\n"
             "node's verdict (gpuval-screen/1) and NAME.devI.json per GPU"},
    {.name = "time-box",
     .id = O_TIMEBOX,
     .arg = "S",
     .parent_only = true,
     .help = "stop the screen S seconds after its start (default: the tier's\n"
             "budget, 45 s for prolog and 600 s for drain; 0: none): a GPU\n"
             "not finished by then is not judged, and the exit code is 3"},
    {.name = "quiet", .id = 'q', .help = "print only failures and the verdict"},
    {.name = "wide",
     .id = 'w',
     .help = "each row on one line; without it a row wider than 160 columns carries\n"
             "its reason and notes onto the next lines on a terminal"},
    {.name = "help", .id = 'h'},
};
_Static_assert(GV_NOPTS(screen_opts) <= GV_OPTS_MAX, "screen has more options than GV_OPTS_MAX");

const gv_opt_table gv_screen_options = {"screen", screen_opts, GV_NOPTS(screen_opts)};

static const gv_exit_line screen_exits[] = {
    {GV_EXIT_OK, "every GPU passed every judgement"},
    {GV_EXIT_FAIL, "a GPU failed a judgement (named in the drain line)"},
    {GV_EXIT_USAGE, "usage, or a bad golden file, GPUVAL_SCREEN_FAULT or output path"},
    {GV_EXIT_RUNTIME, "a GPU's worker left no run, or an output could not be written"},
    {GV_EXIT_NODEV, NULL},
};

static const char screen_head[] =
    "usage: gpuval screen [--tier prolog|drain] [--device all|LIST] [--golden FILE | --record\n"
    "                     FILE] [--drain-line] [--prom FILE] [--k8s FILE] [--json FILE]\n"
    "\n"
    "A tier's fixed cases on every GPU of the node at once, each judged three ways: by the\n"
    "oracle and error models (as check), bit for bit against a golden digest file, and\n"
    "against the node's other GPUs of the same model (as merge). Names the GPU and the unit\n"
    "(tensor cores, fp64, simt-fma, sfu, math, reduce, stencil, memory, fft) that failed.\n"
    "\n";

static const char screen_tail[] =
    "\nBeside the cases, each GPU's health (NVML: ECC, remapped rows, XID events during the\n"
    "screen) and its speed (a timed copy and f32/f64 products against the node's other GPUs\n"
    "of its model and the golden file's speeds: slower by 1.5x fails unit perf).\n"
    "\nPlanted faults, to prove the screen: GPUVAL_SCREEN_FAULT=DEV:KIND[:ARG][@GLOB], KIND\n"
    "one-in:N, mantissa[:BIT], exponent[:BIT] or constant[:V]; of the board (no @GLOB):\n"
    "slow[:F], ecc, xid[:N] (docs/fleet.md).\n";

static const gv_help screen_help = {.head = screen_head,
                                    .opts = &gv_screen_options,
                                    .col = 20,
                                    .tail = screen_tail,
                                    .exits = screen_exits,
                                    .n_exits = GV_NEXITS(screen_exits)};

typedef struct screen_job {
    const char *tier_name, *device_spec, *golden_path, *record_path, *prom_path, *k8s_path,
        *json_path;
    bool drain_line;
    const char *time_box; /* --time-box S, NULL: the tier's budget */
    int quiet;
    bool wide; /* -w: each row one line, on a terminal too */
    const gv_screen_tier *tier;
    json_t *golden, *prev_record;
    gv_device_plan plan;
    FILE *line_out; /* --drain-line: the real standard output */
} screen_job;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int parse_args(int argc, char **argv, screen_job *j)
{
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_screen_options);
    int c;
    while ((c = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        switch (c) {
        case O_TIER: j->tier_name = optarg; break;
        case O_DEVICE: j->device_spec = optarg; break;
        case O_GOLDEN: j->golden_path = optarg; break;
        case O_RECORD: j->record_path = optarg; break;
        case O_DRAIN: j->drain_line = true; break;
        case O_PROM: j->prom_path = optarg; break;
        case O_K8S: j->k8s_path = optarg; break;
        case O_JSON: j->json_path = optarg; break;
        case O_TIMEBOX: j->time_box = optarg; break;
        case 'q': j->quiet = 1; break;
        case 'w': j->wide = true; break;
        case 'h': gv_cmd_help_print(stdout, &screen_help); return GV_EXIT_OK;
        default: gv_cmd_bad_option("screen", argv); return GV_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        gv_cmd_usage_cmd("screen", "screen takes no positional arguments ('%s')", argv[optind]);
        return GV_EXIT_USAGE;
    }
    return -1;
}

/* Everything a user can get wrong, before any GPU work: -1 to go on, or the exit code. */
static int prepare(screen_job *j)
{
    j->tier = gv_screen_tier_find(j->tier_name ? j->tier_name : "prolog");
    if (!j->tier) {
        char shown[64];
        gv_cmd_usage_cmd("screen", "--tier '%s': expected prolog or drain",
                         gv_printable(j->tier_name, shown, sizeof shown));
        return GV_EXIT_USAGE;
    }
    if (j->golden_path && j->record_path) {
        gv_cmd_usage_cmd("screen", "--golden compares with a golden file and --record writes one: "
                                   "give one of them");
        return GV_EXIT_USAGE;
    }
    j->plan.time_box_s = j->tier->budget_s;
    if (j->time_box) {
        char *end;
        errno = 0;
        double s = strtod(j->time_box, &end);
        char shown[64];
        if (end == j->time_box || *end || errno || !(s >= 0 && s <= 86400)) {
            gv_cmd_usage_cmd("screen", "--time-box '%s': expected seconds from 0 (none) to 86400",
                             gv_printable(j->time_box, shown, sizeof shown));
            return GV_EXIT_USAGE;
        }
        j->plan.time_box_s = s;
    }
    const char *spec = gv_knobs()->screen_fault;
    gv_fault fault;
    char err[1024];
    if (spec && *spec && gv_fault_parse(spec, &fault, err, sizeof err) != GV_OK) {
        gv_usage_error("%s", err);
        return GV_EXIT_USAGE;
    }
    const char *outs[4] = {j->json_path, j->prom_path, j->k8s_path, j->record_path};
    const char *opts[4] = {"--json", "--prom", "--k8s", "--record"};
    const char *ins[1] = {j->golden_path};
    if (gv_probe_outputs(4, outs, opts) != 0 || gv_probe_not_inputs(4, outs, opts, 1, ins) != 0)
        return GV_EXIT_USAGE;
    if (j->golden_path &&
        gv_screen_golden_read(j->golden_path, &j->golden, err, sizeof err) != GV_OK) {
        gv_usage_error("--golden %s", err);
        return GV_EXIT_USAGE;
    }
    struct stat st;
    if (j->record_path && strcmp(j->record_path, "-") != 0 && stat(j->record_path, &st) == 0 &&
        st.st_size > 0 &&
        gv_screen_golden_read(j->record_path, &j->prev_record, err, sizeof err) != GV_OK) {
        gv_usage_error("--record %s (an existing file must be a golden file: its other entries "
                       "are kept)",
                       err);
        return GV_EXIT_USAGE;
    }
    return -1;
}

typedef struct screen_progress {
    gv_summary *sum;
    int quiet;
    int cols; /* the rows' width (GV_ROW_COLS on a terminal), 0: one line each */
} screen_progress;

static void case_done(int i, const gv_result *r, void *ctx)
{
    screen_progress *sp = ctx;
    (void)i;
    gv_summary_add(sp->sum, r);
    if (!sp->quiet || r->verdict == GV_FAIL || r->verdict == GV_ERROR)
        gv_table_row_fit(stdout, r, sp->cols);
    fflush(stdout);
}

/* The tier on this process's device: its run document (with the screen block), or NULL after a
   message. */
static json_t *run_here(screen_job *j, int argc, char **argv)
{
    gv_case *cases = NULL;
    char err[512];
    int n = gv_screen_cases(j->tier, &cases, err, sizeof err);
    if (n <= 0) {
        gv_usage_error("%s", err);
        return NULL;
    }
    gv_result *results = calloc((size_t)n, sizeof *results);
    if (!results) {
        free(cases);
        gv_usage_error("out of host memory for %d results", n);
        return NULL;
    }
    double t0 = now_s();
    gv_run_info info;
    gv_cmd_run_start_probe(&info, "screen", argc, argv, gv_isolated_device_probe);
    /* the board's account before the cases, and its critical XID events while they run */
    const char *uuid = info.have_device ? info.device.uuid : NULL;
    gv_health before, after;
    char watch_why[128] = "";
    gv_health_read(uuid, &before);
    gv_xid_watch *watch = uuid ? gv_xid_watch_start(uuid, watch_why, sizeof watch_why) : NULL;
    if (!uuid) snprintf(watch_why, sizeof watch_why, "no device");
    gv_summary sum = {0};
    screen_progress sp = {&sum, j->quiet, j->wide || !isatty(STDOUT_FILENO) ? 0 : GV_ROW_COLS};
    if (!j->quiet) gv_table_header(stdout);
    gv_runner runner = {.isolate = true,
                        .case_timeout_s = j->tier->case_timeout_s,
                        .case_timeout_given = true,
                        .repeat = 1,
                        .on_done = case_done,
                        .ctx = &sp};
    gv_cache_usable();
    gv_run_cases(cases, n, &runner, results);
    gv_summary_print(stdout, &sum);
    unsigned long long xid[GV_XID_MAX];
    int n_xid = gv_xid_watch_stop(watch, xid);
    gv_health_read(uuid, &after);
    /* then the timed copy and products, apart from the correctness runs */
    double perf[GV_SCREEN_NPERF] = {0};
    char perf_why[GV_SCREEN_NPERF][200];
    gv_fault board;
    bool planted = gv_fault_board(info.device_index, &board);
    if (uuid) {
        gv_screen_perf_measure(planted && board.kind == GV_FAULT_SLOW ? (int)board.every : 1,
                               perf, perf_why);
    } else {
        for (int i = 0; i < GV_SCREEN_NPERF; i++)
            snprintf(perf_why[i], sizeof perf_why[i], "no device");
    }
    if (planted && board.kind == GV_FAULT_ECC && after.ok) { /* a planted failing board */
        after.have_ecc = true;
        after.ecc_vol_uncorrected++;
        after.ecc_agg_uncorrected++;
    }
    if (planted && board.kind == GV_FAULT_XID) {
        if (n_xid < GV_XID_MAX) xid[n_xid] = (unsigned long long)board.every;
        n_xid++;
    }
    json_t *doc = gv_run_json(&info, results, n, &sum);
    json_t *units = json_object();
    for (int i = 0; i < n; i++) {
        char label[192];
        json_object_set_new(units, gv_case_label(&cases[i], label, sizeof label),
                            json_string(gv_screen_unit_label(j->tier->rows[i].unit)));
    }
    const char *pw[GV_SCREEN_NPERF];
    for (int i = 0; i < GV_SCREEN_NPERF; i++)
        pw[i] = perf_why[i];
    json_object_set_new(doc, "screen",
                        json_pack("{s:s, s:f, s:f, s:o, s:o, s:o}", "tier", j->tier->version,
                                  "budget_s", j->tier->budget_s, "seconds", now_s() - t0, "units",
                                  units, "health",
                                  gv_screen_health_json(&before, &after, xid, n_xid, watch_why),
                                  "perf", gv_screen_perf_json(perf, pw)));
    free((char *)info.argv_joined);
    free(results);
    free(cases);
    return doc;
}

static int emit_json(FILE *f, void *doc)
{
    if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0) return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

static int emit_prom(FILE *f, void *v)
{
    return gv_screen_write_prom(f, v);
}

/* path written with emit(ctx): true, or false after a message. */
static bool write_out(const char *path, int (*emit)(FILE *, void *), void *ctx)
{
    if (!path) return true;
    if (gv_write_file(path, emit, ctx) == 0) return true;
    gv_write_error(path);
    return false;
}

/* The runs judged, printed and written; returns the exit code. */
static int judge_and_write(screen_job *j, json_t **docs, const char *const *names, int n, double t0,
                           bool one_run)
{
    gv_screen_verdict v;
    fflush(stdout);
    gv_screen_judge(j->tier, docs, names, n, j->golden, !j->quiet, &v);
    if (v.merged) gv_fleet_merge_print(stdout, NULL, v.merged, 1);
    v.seconds = now_s() - t0;
    v.exit_code = gv_cmd_exit(v.status);
    gv_screen_print(stdout, &v);
    char line[4096];
    gv_screen_drain_line(&v, line, sizeof line);
    int rc = v.exit_code;
    bool lost = false;
    if (j->record_path) {
        if (rc != GV_EXIT_OK) {
            gv_usage_error("--record %s: not recorded, the node did not pass", j->record_path);
        } else {
            char err[1024];
            json_t *g = gv_screen_golden_record(j->prev_record, docs, n, err, sizeof err);
            if (!g) {
                gv_usage_error("--record %s: %s", j->record_path, err);
                rc = GV_EXIT_FAIL;
            } else {
                lost = !write_out(j->record_path, emit_json, g);
                if (!lost)
                    printf("golden digests of %s written to %s\n", j->tier->version,
                           j->record_path);
                json_decref(g);
            }
        }
    }
    if (one_run && j->json_path) {
        json_object_set_new(json_object_get(docs[0], "screen"), "drain_line", json_string(line));
        json_object_set_new(json_object_get(docs[0], "screen"), "exit_code", json_integer(rc));
        lost = !write_out(j->json_path, emit_json, docs[0]) || lost;
    } else if (j->json_path) {
        json_t *sd = gv_screen_doc(&v, names);
        lost = !write_out(j->json_path, emit_json, sd) || lost;
        json_decref(sd);
    }
    lost = !write_out(j->prom_path, emit_prom, &v) || lost;
    if (j->k8s_path) {
        json_t *cond = gv_screen_k8s_condition(&v);
        lost = !write_out(j->k8s_path, emit_json, cond) || lost;
        json_decref(cond);
    }
    fflush(stdout);
    FILE *lo = j->line_out ? j->line_out : stdout;
    fprintf(lo, "%s\n", line);
    fflush(lo);
    gv_screen_verdict_free(&v);
    if (lost && rc == GV_EXIT_OK) rc = GV_EXIT_RUNTIME;
    return rc;
}

/* The hard time box of a screen of one GPU, which runs in this process: at the box, the drain
   line says so and the process ends (exit 3); the case runner's child ends with it
   (core/runner.c). Several GPUs are boxed by their parent (gv_fleet_spawn). */
static int box_fd = -1;
static char box_line[256];
static size_t box_len;

static void box_expired(int sig)
{
    (void)sig;
    if (box_fd >= 0 && write(box_fd, box_line, box_len) < 0) {
        /* nothing more can be said from a signal handler */
    }
    _exit(GV_EXIT_RUNTIME);
}

static void box_arm(const screen_job *j, double t0)
{
    double left = j->plan.time_box_s - (now_s() - t0);
    if (!(j->plan.time_box_s > 0)) return;
    int n = snprintf(box_line, sizeof box_line,
                     "gpuval screen: not judged: the GPU had not finished at the time box of "
                     "%.0f s\n",
                     j->plan.time_box_s);
    box_len = n > 0 && (size_t)n < sizeof box_line ? (size_t)n : 0;
    fflush(stdout);
    box_fd = j->line_out ? fileno(j->line_out) : 1;
    signal(SIGALRM, box_expired);
    alarm(left > 1 ? (unsigned)(left + 0.5) : 1);
}

/* Each GPU of the plan by a worker process; their runs judged. */
static int run_workers(screen_job *j, int argc, char **argv, double t0)
{
    char exe[PATH_MAX];
    gv_error e = {.status = GV_ST_OK};
    if (!gv_fleet_self_exe(exe, sizeof exe, &e)) return gv_cmd_fail(&e);
    gv_fleet_runs *runs =
        gv_fleet_spawn(exe, &gv_screen_options, &j->plan, argc, argv, j->json_path, false,
                       gv_fleet_load, &gv_fleet_text_printer, &e);
    if (!runs) return gv_cmd_fail(&e);
    if (e.msg[0]) gv_cmd_fail(&e); /* the workers' directory: each GPU's run is then a hole */
    /* one slot per GPU of the plan, in its order: a worker that left no run is a hole */
    json_t *docs[GV_FLEET_MAX_DEVICES] = {0};
    const char *names[GV_FLEET_MAX_DEVICES] = {0};
    for (int i = 0; i < j->plan.n; i++)
        for (int k = 0; k < runs->n; k++)
            if (runs->names[k] == runs->paths[i]) { /* the file of the plan's GPU i */
                docs[i] = runs->docs[k];
                names[i] = j->json_path ? runs->names[k] : NULL;
            }
    int rc = judge_and_write(j, docs, names, j->plan.n, t0, false);
    gv_fleet_runs_free(runs);
    return rc;
}

int gv_cmd_screen(int argc, char **argv)
{
    double t0 = now_s();
    screen_job j;
    memset(&j, 0, sizeof j);
    int rc = parse_args(argc, argv, &j);
    if (rc < 0) rc = prepare(&j);
    gv_error e;
    double time_box_s = j.plan.time_box_s;
    if (rc < 0 && !gv_device_plan_make(j.device_spec ? j.device_spec : "all", &j.plan,
                                       gv_isolated_device_count, &e))
        rc = gv_cmd_fail(&e);
    j.plan.time_box_s = time_box_s;
    if (rc < 0 && j.drain_line) {
        /* standard output keeps the drain line alone: everything else goes to standard error,
           the workers' captured tables included */
        fflush(stdout);
        int fd = dup(1);
        j.line_out = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!j.line_out || dup2(2, 1) < 0) {
            gv_usage_error("--drain-line: cannot set standard output aside: %s", strerror(errno));
            rc = GV_EXIT_RUNTIME;
        }
    }
    if (rc < 0 && j.plan.n > 1) {
        rc = run_workers(&j, argc, argv, t0);
    } else if (rc < 0) {
        box_arm(&j, t0);
        json_t *doc = run_here(&j, argc, argv);
        alarm(0);
        const char *name = j.json_path;
        rc = doc ? judge_and_write(&j, &doc, &name, 1, t0, true) : GV_EXIT_RUNTIME;
        json_decref(doc);
    }
    if (j.line_out) fclose(j.line_out);
    json_decref(j.golden);
    json_decref(j.prev_record);
    return rc;
}
