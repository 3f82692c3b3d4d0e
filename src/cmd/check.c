/* check.c: `gpuval check`, the correctness run. Validates every option before any work,
 * runs each selected case (never timing it), prints one row per case and a summary, and
 * writes the run as JSON when asked. */
#include <cblas.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "render/fleet_text.h"
#include "io/case_io.h"
#include "io/infile.h"
#include "core/cache.h"
#include "cmd/check.h"
#include "cmd/compare.h"
#include "runs/compare_runs.h"
#include "cmd/cli.h"
#include "core/runner.h"
#include "fleet/workers.h"
#include "io/json_util.h"
#include "core/registry.h"
#include "io/run_doc.h"
#include "render/run_text.h"
#include "io/run_read.h"
#include "io/sha256.h"
#include "core/judge.h"
#include "core/judge_memo.h"
#include "core/knobs.h"
#include "core/problem.h"
#include "core/reference.h"
#include "core/run.h"
#include "probe/probe_check.h"
#include "probe/probe_run.h"
#include "render/junit.h"
#include "render/progress.h"

/* The parser's labels for check's options without a short form. */
enum {
    O_OP = 256,
    O_DTYPE,
    O_MODE,
    O_SIZE,
    O_DIST,
    O_SEED,
    O_PLANTED,
    O_TEST,
    O_LARGE,
    O_JSON,
    O_SAVE,
    O_BASELINE,
    O_INPUTS,
    O_PROB_MODEL,
    O_DUMP,
    O_FORCE,
    O_REPEAT,
    O_CASE_TIMEOUT,
    O_NO_ISOLATE,
    O_JOBS,
    O_AS,
    O_NOCACHE,
    O_DEVICE,
    O_JUNIT
};

/* check's options, once: the parser (parse_args), --help and the workers of --device LIST
   (fleet/workers.h) all read this table. The parent keeps its outputs, its baseline and the
   device list; every worker gets the selection and the way to run it. */
static const gv_opt check_opts[] = {
    {.name = "op",
     .id = O_OP,
     .arg = "GLOBS",
     .help = "ops whose name matches one of the comma-separated fnmatch globs\n"
             "(e.g. 'gemm.*' or 'diffusion.fixed,vadd')"},
    {.name = "dtype", .id = O_DTYPE, .arg = "LIST", .help = "f32,f64"},
    {.name = "mode",
     .id = O_MODE,
     .arg = "LIST",
     .help = "modes by name (gpuval list --modes); default: each op's modes that\n"
             "the mode table marks for check (the emulation sweep and 16-bit\n"
             "storage modes run when named)"},
    {.name = "size",
     .id = O_SIZE,
     .arg = "SPEC",
     .help = "sizes: dims joined by 'x', sizes by ',' (1e5 | 64x48x32 | 2^20,1e6)"},
    {.name = "dist",
     .id = O_DIST,
     .arg = "NAME",
     .help = "inputs: uniform01 uniform11 smallint special offgrid tie perm2 wide;\n"
             "the edges tiny huge sparse-special (docs/error-models.md);\n"
             "the mode probes narrow and width (gemm; docs/error-models.md);\n"
             "wide in gemm's scaled fp8 modes is their mode probe (magnitudes by\n"
             "row, column and K-block)\n"
             "(default: each op's own, plus its canaries and mode probes)"},
    {.name = "seed",
     .id = O_SEED,
     .arg = "N",
     .help = "input seed (default 0): decimal digits or 0x and hex, up to 2^64-1;\n"
             "inputs are identical on every machine"},
    {.name = "planted",
     .id = O_PLANTED,
     .help = "include planted-bug variants (wrong on purpose: expect FAIL)"},
    {.name = "test-sizes",
     .id = O_TEST,
     .help = "use each op's small test sizes instead of its default sizes"},
    {.name = "large",
     .id = O_LARGE,
     .help = "the large tier: each op that has one at shapes whose flat index or\n"
             "cell count passes 2^31 (where a 32-bit index wraps), native mode;\n"
             "a case the host's or the device's memory cannot hold is a SKIP\n"
             "with both numbers (the memory each needs: below)"},
    {.name = "json",
     .id = O_JSON,
     .arg = "FILE",
     .parent_only = true,
     .help = "write the run (schema gpuval-run/1) to FILE"},
    {.name = "junit",
     .id = O_JUNIT,
     .arg = "FILE",
     .parent_only = true,
     .help = "write the run as JUnit XML to FILE (- is stdout): one testcase per\n"
             "case; FAIL a <failure>, ERROR an <error>, SKIP <skipped>, each with\n"
             "its reason and its row. With --json - or --junit -, the table goes\n"
             "to stderr and stdout holds the document only"},
    {.name = "save",
     .id = O_SAVE,
     .arg = "FILE",
     .parent_only = true,
     .help = "the same, as a baseline: an existing FILE is replaced only with --force"},
    {.name = "baseline",
     .id = O_BASELINE,
     .arg = "FILE",
     .parent_only = true,
     .help = "compare this run with a saved one afterwards (as gpuval compare):\n"
             "exit 4 when a case regressed and none failed, 5 when a case the\n"
             "baseline ran has no verdict here (docs/regression.md)"},
    {.name = "inputs",
     .id = O_INPUTS,
     .arg = "A.npy,B.npy",
     .help = "run --op (one op, named exactly) on these arrays instead of\n"
             "generated inputs: one .npy per input in the op's order; the dtype\n"
             "and the dims come from the files (little-endian <f4 or <f8, C or\n"
             "Fortran order). The worst-case model and the tiers it guarantees\n"
             "judge them; the probabilistic model's R is reported, not judged"},
    {.name = "prob-model",
     .id = O_PROB_MODEL,
     .help = "with --inputs: declare the arrays independent draws (what the\n"
             "probabilistic model assumes), so that its R judges them too; structured\n"
             "data (bases, smooth signals, contrasts) may then FAIL a correct kernel"},
    {.name = "dump-failures",
     .id = O_DUMP,
     .arg = "DIR",
     .per_device = true,
     .help = "write each FAIL and ERROR case to DIR/CASE/: its inputs, GPU and\n"
             "oracle outputs as .npy and case.json (gpuval replay DIR/CASE reruns it);\n"
             "with --device LIST, device N's cases go to DIR/devN/CASE/"},
    {.name = "force",
     .id = O_FORCE,
     .parent_only = true,
     .help = "let --save replace an existing baseline, and --dump-failures an\n"
             "existing case directory"},
    {.name = "repeat",
     .id = O_REPEAT,
     .arg = "N",
     .help = "launch every case N times on the same inputs (default 1): ops that\n"
             "declare themselves deterministic FAIL on any bit that differs; the\n"
             "others report the spread (extra.repeat_* in the JSON)"},
    {.name = "case-timeout",
     .id = O_CASE_TIMEOUT,
     .arg = "S",
     .help = "seconds one case may take before its worker process is killed and\n"
             "the case is an ERROR (default 600; 0: no limit). Without it a planted\n"
             "fault (vadd.hang, a hang by design) gets 20"},
    {.name = "no-isolate",
     .id = O_NO_ISOLATE,
     .help = "run every case in this process (for debuggers and sanitizers). By\n"
             "default worker processes run the cases (--jobs); a crash, a hang or\n"
             "an ERROR (a CUDA context that may be lost) ends its worker, and a\n"
             "fresh worker takes the cases after that one, so that a fault fails\n"
             "its own case only"},
    {.name = "jobs",
     .id = O_JOBS,
     .arg = "N",
     .help = "worker processes at once on the device, each taking the next waiting\n"
             "case (default auto: 1 on hosts of fewer than 8 cores, else\n"
             "min(4, cores/4); up to 64; 1 with --no-isolate and per device under\n"
             "--device LIST). Each gets cores/N OpenMP threads unless\n"
             "OMP_NUM_THREADS or OPENBLAS_NUM_THREADS is set; the oracle's BLAS\n"
             "and LAPACK calls run on 4 threads whatever N, so that results and\n"
             "references are the same bits at every N. A case whose device memory\n"
             "does not fit beside the others' runs alone at the end"},
    {.name = "as",
     .id = O_AS,
     .arg = "OP",
     .help = "run the one selected op (a variant of OP's family with OP's oracle)\n"
             "under OP's name, so that compare matches it with OP's baseline"},
    {.name = "no-cache",
     .id = O_NOCACHE,
     .help = "compute every oracle afresh: neither read nor write the oracle cache\n"
             "($XDG_CACHE_HOME/gpuval; gpuval cache info)"},
    {.name = "device",
     .id = O_DEVICE,
     .arg = "SPEC",
     .parent_only = true,
     .help = "the GPU to run on: N, a list N,M,... or all; a list runs one worker\n"
             "process per device in parallel (each with its own CPU oracle) and\n"
             "merges them as gpuval merge does (--json then writes the fleet and\n"
             "NAME.devI.json per device). Under srun or mpirun the local rank picks\n"
             "the device and --json/--save gain .rankN (or replace %r in the path)"},
    {.name = "quiet", .id = 'q', .help = "print only failures and the summary"},
    {.name = "wide",
     .id = 'w',
     .help = "each row on one line; without it a row wider than 160 columns carries\n"
             "its reason and notes onto the next lines on a terminal (never into a\n"
             "file or a pipe)"},
    {.name = "help", .id = 'h'},
};
_Static_assert(GV_NOPTS(check_opts) <= GV_OPTS_MAX, "check has more options than GV_OPTS_MAX");

const gv_opt_table gv_check_options = {"check", check_opts, GV_NOPTS(check_opts)};

static const gv_exit_line check_exits[] = {
    {GV_EXIT_OK, NULL},
    {GV_EXIT_FAIL, NULL},
    {GV_EXIT_USAGE, NULL},
    {GV_EXIT_RUNTIME, NULL},
    {GV_EXIT_REGRESSED, "a case regressed against --baseline, and none failed"},
    {GV_EXIT_INCONCLUSIVE, "a case --baseline ran has no verdict in this run, none failed"},
    {GV_EXIT_OUTLIER, "--device LIST: a device's output differs from the others'"},
    {GV_EXIT_NODEV, NULL},
};

static const char check_head[] =
    "usage: gpuval check [options]\n"
    "\n"
    "Run each selected case on the GPU and judge it against the float64 CPU oracle.\n"
    "Without options: every op of the catalogue at its default sizes, all its dtypes and\n"
    "modes (planted-bug variants excluded).\n"
    "\n";

static const char check_tail[] =
    "\n"
    "Columns: max_rel max |c-r|/|r|; normwise ||c-r||/||r||; bits -log2(normwise);\n"
    "ratio the error model's max |c-r|/(u g d); 1e-8, 1e-4 whether each allclose tier\n"
    "(|c-r| <= t(1+|r|)) is met. Expected: f64 1e-8, f32 1e-4 (native mode).\n";

static const gv_help check_help = {.head = check_head,
                                   .opts = &gv_check_options,
                                   .col = 19,
                                   .tail = check_tail,
                                   .exits = check_exits,
                                   .n_exits = GV_NEXITS(check_exits)};

/* The large tier's cases and the memory each needs, from the registry (the same sums the run
   checks them with: gv_case_host_bytes, gv_device_bytes), after check_tail in --help. */
static void large_tier_text(char *buf, size_t len)
{
    size_t at = 0;
    int n = snprintf(buf, len,
                     "%s\nThe large tier (--large; --planted adds its planted bugs), the memory "
                     "each case needs:\n  %-24s %-18s %-5s %9s %10s\n",
                     check_tail, "op", "shape", "dtype", "host GB", "device GB");
    at = n > 0 && (size_t)n < len ? (size_t)n : len;
    for (const gv_op *const *opp = gv_registry(); *opp && at < len; opp++) {
        const gv_op *op = *opp;
        gv_shape shapes[8];
        char err[256];
        int ns =
            op->large_shapes ? gv_size_spec_parse(op->large_shapes, shapes, 8, err, sizeof err) : 0;
        for (int s = 0; s < ns; s++)
            for (int t = 0; t < GV_NDTYPES; t++) {
                if (!gv_mode_ok(op, (gv_dtype)t, GV_MODE_NATIVE)) continue;
                gv_problem p;
                memset(&p, 0, sizeof p);
                p.c = (gv_case){op, (gv_dtype)t, GV_MODE_NATIVE, op->default_dist, shapes[s], 0};
                if (op->layout(&p.c, &p.l) != GV_OK) continue;
                char shape[64];
                n = snprintf(buf + at, len - at, "  %-24s %-18s %-5s %9.1f %10.1f\n", op->name,
                             gv_shape_format(&shapes[s], shape, sizeof shape),
                             gv_dtype_name((gv_dtype)t), gv_case_host_bytes(&p.c, &p.l) / 1e9,
                             (double)gv_device_bytes(&p) / 1e9);
                at = n > 0 && (size_t)n < len - at ? at + (size_t)n : len;
            }
    }
    if (at < len)
        snprintf(buf + at, len - at,
                 "Host memory counts every f64 copy the oracle keeps, the op's scratch and 1 GiB "
                 "for the\nprocess; a case is a SKIP when it needs more than MemAvailable.\n");
}

static void print_check_help(FILE *f)
{
    static char tail[8192];
    large_tier_text(tail, sizeof tail);
    gv_help h = check_help;
    h.tail = tail;
    gv_cmd_help_print(f, &h);
}

/* Parse a non-negative number of seconds (at most a day) for --case-timeout. */
static int parse_timeout(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= 0 && v <= 86400)) {
        char buf[64];
        gv_usage_error("--case-timeout '%s': expected seconds from 0 (no limit) to 86400",
                       gv_printable(s, buf, sizeof buf));
        return -1;
    }
    *out = v;
    return 0;
}

/* Parse --repeat: an integer from 1 to 1000. */
/* check's line on the judgement memo (core/judge_memo.h), where it was on: how many outputs
   were judged and how many judgements were taken from the cache. */
static void judge_memo_line(const gv_result *results, int n)
{
    int count[GV_JUDGE_MEMO_MISS + 1] = {0};
    for (int i = 0; i < n; i++)
        if (results[i].judge_memo >= 0 && results[i].judge_memo <= GV_JUDGE_MEMO_MISS)
            count[results[i].judge_memo]++;
    int on = count[GV_JUDGE_MEMO_HIT] + count[GV_JUDGE_MEMO_STORED] + count[GV_JUDGE_MEMO_MISS];
    if (on == 0) return;
    fprintf(stderr,
            "gpuval: judgements: %d taken from the cache (the same case, inputs and output bytes "
            "judged before by this host code), %d judged and stored, %d judged and not stored, "
            "%d judged outside it\n",
            count[GV_JUDGE_MEMO_HIT], count[GV_JUDGE_MEMO_STORED], count[GV_JUDGE_MEMO_MISS],
            count[GV_JUDGE_MEMO_OFF]);
}

/* The host's cores as this process may use them. */
static int host_cores(void)
{
    cpu_set_t set;
    long cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                             : sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

/* --jobs auto: one worker where cores are few (CI runners, laptops: as before there was a
   choice); on bigger hosts up to four, each with at least four cores for its oracles. On an
   H100 host of 16 cores the device phase is idle CPU and the small oracles do not use 16
   threads, so the phases of cases in different workers overlap (docs/performance.md). */
static int auto_jobs(void)
{
    int cores = host_cores();
    if (cores < 8) return 1;
    return cores / 4 < 4 ? cores / 4 : 4;
}

/* --jobs VALUE: 1..GV_JOBS_MAX, or 0 for auto. */
static int parse_jobs(const char *s, int *out)
{
    if (strcmp(s, "auto") == 0) {
        *out = 0;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < 1 || v > GV_JOBS_MAX || s[0] == '+' || s[0] == ' ') {
        char buf[64];
        gv_usage_error("--jobs '%s': expected auto or an integer from 1 to %d",
                       gv_printable(s, buf, sizeof buf), GV_JOBS_MAX);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* The threads of one of jobs workers (in the worker, forked: OpenBLAS and OpenMP read their
   variables when they load, so the count is set here, before the worker's first oracle; the
   parent never starts an OpenMP team, which would not survive the fork). The user's own
   choice stands. */
static void worker_threads(int jobs, void *ctx)
{
    (void)ctx;
    if (gv_env("OMP_NUM_THREADS") || gv_env("OPENBLAS_NUM_THREADS")) return;
    int share = host_cores() / jobs > 1 ? host_cores() / jobs : 1;
    omp_set_num_threads(share);
    openblas_set_num_threads(share);
}

static int parse_repeat(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < 1 || v > 1000 || s[0] == '+' || s[0] == ' ') {
        char buf[64];
        gv_usage_error("--repeat '%s': expected an integer from 1 to 1000",
                       gv_printable(s, buf, sizeof buf));
        return -1;
    }
    *out = (int)v;
    return 0;
}

typedef struct check_progress {
    const gv_case *cases;
    int n, quiet;
    bool progress;  /* the progress line: stderr is a terminal and no -q */
    double start_s; /* the monotonic clock when the first case started */
    gv_summary *sum;
    /* --dump-failures: where, and what case.json records */
    const char *dump_dir, *inputs_list;
    const gv_run_info *info;
    bool force, lost;
    FILE *table; /* stdout, or stderr when stdout carries a document */
    int cols;    /* the rows' width (GV_ROW_COLS on a terminal), 0: one line each */
} check_progress;

static double monotonic_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void case_started(int i, void *ctx)
{
    check_progress *cp = ctx;
    if (!cp->progress) return;
    if (i == 0) cp->start_s = monotonic_s();
    char label[160], line[GV_PROGRESS_COLS + 1];
    gv_progress_line(line, sizeof line, i, cp->n, monotonic_s() - cp->start_s,
                     gv_case_label(&cp->cases[i], label, sizeof label));
    fprintf(stderr, "\r%-*s", GV_PROGRESS_COLS, line);
    fflush(stderr);
}

/* Runs where the case ran (its child process, when isolated): a FAIL or ERROR case is
   written to the --dump-failures directory. Returns -1 when it could not be. */
static int case_kept(int i, const gv_problem *kept, const gv_result *r, void *ctx)
{
    check_progress *cp = ctx;
    (void)i;
    if (r->verdict != GV_FAIL && r->verdict != GV_ERROR) return 0;
    char err[512];
    if (gv_dump_case(cp->dump_dir, kept, r, cp->info, cp->inputs_list, cp->force, err,
                     sizeof err) != 0) {
        gv_usage_error("%s", err);
        return -1;
    }
    return 0;
}

static void case_done(int i, const gv_result *r, void *ctx)
{
    check_progress *cp = ctx;
    (void)i;
    if (r->output_lost) cp->lost = true;
    if (cp->progress) fprintf(stderr, "\r%-*s\r", GV_PROGRESS_COLS, "");
    gv_summary_add(cp->sum, r);
    if (!cp->quiet || r->verdict == GV_FAIL || r->verdict == GV_ERROR)
        gv_table_row_fit(cp->table, r, cp->cols);
    fflush(cp->table);
}

/* When no op matches the --op glob, name the ones that exist. */
static void print_valid_ops(const char *glob)
{
    for (const gv_op *const *op = gv_registry(); *op; op++)
        if (gv_op_matches(glob, (*op)->name, NULL)) return;
    fputs("gpuval: valid ops:", stderr);
    for (const gv_op *const *op = gv_registry(); *op; op++)
        fprintf(stderr, " %s", (*op)->name);
    fputc('\n', stderr);
}

/* One check: what the command line asked for, then what was made of it before any case ran.
   check_job_free frees what it owns, on every path. */
typedef struct check_job {
    gv_selection sel;
    const char *json_path, *save_path, *size_spec, *baseline_path, *inputs_list, *dump_dir;
    const char *junit_path;
    const char *as_name, *device_spec;
    bool force, isolate, case_timeout_given, prob_model;
    int quiet, repeat;
    bool wide; /* -w: every row one line, on a terminal too */
    double case_timeout_s;
    int jobs;        /* --jobs; 0: auto */
    bool jobs_given; /* --jobs was given */

    gv_device_plan plan;
    char json_buf[4096], save_buf[4096]; /* the per-rank paths */
    gv_shape shapes[64], given_shape;    /* sel.shapes points into one of them */
    json_t *baseline;                    /* --baseline, loaded */
    gv_npy arrays[GV_MAX_TENSORS];       /* --inputs, loaded */
    int n_arrays;
    gv_case *cases; /* the selection */
    int n;
} check_job;

static void check_job_free(check_job *j)
{
    json_decref(j->baseline);
    j->baseline = NULL;
    for (int i = 0; i < j->n_arrays; i++)
        gv_npy_free(&j->arrays[i]);
    j->n_arrays = 0;
    free(j->cases);
    j->cases = NULL;
    j->n = 0;
}

/* The options into j: -1 to go on, or the exit code (0 after --help, 2 after a message). */
static int parse_args(int argc, char **argv, check_job *j)
{
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_check_options);
    int c;
    while ((c = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        switch (c) {
        case O_OP: j->sel.op_glob = optarg; break;
        case O_DTYPE:
            if (gv_cmd_parse_dtype_list(optarg, &j->sel.dtypes)) return GV_EXIT_USAGE;
            break;
        case O_MODE:
            if (gv_cmd_parse_mode_list(optarg, &j->sel.modes)) return GV_EXIT_USAGE;
            break;
        case O_SIZE: j->size_spec = optarg; break;
        case O_DIST:
            if (gv_cmd_parse_dist(optarg, &j->sel.dist)) return GV_EXIT_USAGE;
            break;
        case O_SEED:
            if (gv_cmd_parse_seed(optarg, &j->sel.seed)) return GV_EXIT_USAGE;
            break;
        case O_PLANTED: j->sel.planted = true; break;
        case O_JSON: j->json_path = optarg; break;
        case O_SAVE: j->save_path = optarg; break;
        case O_JUNIT: j->junit_path = optarg; break;
        case O_BASELINE: j->baseline_path = optarg; break;
        case O_FORCE: j->force = true; break;
        case O_INPUTS: j->inputs_list = optarg; break;
        case O_PROB_MODEL: j->prob_model = true; break;
        case O_DUMP: j->dump_dir = optarg; break;
        case O_AS: j->as_name = optarg; break;
        case O_NOCACHE: gv_cache_enable(false); break;
        case O_DEVICE: j->device_spec = optarg; break;
        case O_TEST: j->sel.test_shapes = true; break;
        case O_LARGE: j->sel.large = true; break;
        case O_REPEAT:
            if (parse_repeat(optarg, &j->repeat)) return GV_EXIT_USAGE;
            break;
        case O_CASE_TIMEOUT:
            if (parse_timeout(optarg, &j->case_timeout_s)) return GV_EXIT_USAGE;
            j->case_timeout_given = true;
            break;
        case O_NO_ISOLATE: j->isolate = false; break;
        case O_JOBS:
            if (parse_jobs(optarg, &j->jobs)) return GV_EXIT_USAGE;
            j->jobs_given = true;
            break;
        case 'q': j->quiet = 1; break;
        case 'w': j->wide = true; break;
        case 'h': print_check_help(stdout); return GV_EXIT_OK;
        default: gv_cmd_bad_option("check", argv); return GV_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        gv_cmd_usage_cmd("check", "check takes no positional arguments ('%s')", argv[optind]);
        return GV_EXIT_USAGE;
    }
    if (!j->isolate && j->jobs > 1) {
        gv_usage_error("--jobs %d runs isolated worker processes; --no-isolate runs every case "
                       "in this one",
                       j->jobs);
        return GV_EXIT_USAGE;
    }
    return -1;
}

/* --baseline FILE into j->baseline: 0, or -1 after a message. */
static int load_baseline(check_job *j)
{
    const char *const schemas[] = {gv_schema(GV_DOC_RUN), NULL};
    char err[1024];
    if (gv_run_read(j->baseline_path, schemas, &j->baseline, err, sizeof err) != GV_OK) {
        gv_usage_error("--baseline %s (check --json or --save writes one)", err);
        return -1;
    }
    return 0;
}

/* --inputs A.npy,B.npy into j->arrays, and the selection narrowed to their dtype and dims: 0,
   or -1 after a message. */
static int load_inputs(check_job *j)
{
    char err[512] = "";
    const gv_op *op = j->sel.op_glob ? gv_op_find(j->sel.op_glob) : NULL;
    gv_dtype dt = GV_F32;
    if (!op) {
        gv_usage_error("--inputs needs --op naming one op exactly (gpuval list --all)");
        return -1;
    }
    if (j->size_spec) {
        gv_usage_error("--inputs takes the dims from the files: no --size");
        return -1;
    }
    if (gv_inputs_load(op, j->inputs_list, j->arrays, &j->n_arrays, &dt, &j->given_shape, err,
                       sizeof err) != GV_OK) {
        gv_usage_error("%s", err);
        return -1;
    }
    if (j->sel.dtypes && !(j->sel.dtypes & (1u << dt))) {
        gv_usage_error("--inputs are %s, which --dtype leaves out", gv_dtype_name(dt));
        return -1;
    }
    j->sel.dtypes = 1u << dt;
    j->sel.shapes = &j->given_shape;
    j->sel.n_shapes = 1;
    return 0;
}

/* Everything checked and loaded before any case runs, in the order the messages are given:
   the devices, the outputs, the baseline, the dump directory, the inputs, the selection.
   -1 to go on (j->cases holds the selection), or the exit code after a message. */
static int prepare(check_job *j)
{
    /* isolated cases run in forked children: this process counts devices through a child of
       its own, so that CUDA is never initialised before a fork */
    gv_error e;
    if (!gv_device_plan_make(j->device_spec, &j->plan,
                             j->isolate ? gv_isolated_device_count : gk_device_count, &e))
        return gv_cmd_fail(&e);
    if (j->plan.n > 1 && (j->save_path || j->baseline_path)) {
        gv_usage_error("--save and --baseline take one device's run; with several, use --json");
        return GV_EXIT_USAGE;
    }
    bool json_ok = gv_device_plan_path(&j->plan, &j->json_path, j->json_buf, sizeof j->json_buf, &e);
    if (!json_ok) gv_cmd_fail(&e);
    bool save_ok = gv_device_plan_path(&j->plan, &j->save_path, j->save_buf, sizeof j->save_buf, &e);
    if (!save_ok) gv_cmd_fail(&e);
    if (!json_ok || !save_ok) return GV_EXIT_USAGE;
    if (j->size_spec && gv_cmd_parse_sizes(j->size_spec, j->shapes, 64, &j->sel) != 0)
        return GV_EXIT_USAGE;
    struct stat st_save;
    if (j->save_path && !j->force && stat(j->save_path, &st_save) == 0) {
        gv_usage_error("--save %s exists: a baseline is replaced only with --force", j->save_path);
        return GV_EXIT_USAGE;
    }
    const char *outs[3] = {j->json_path, j->save_path, j->junit_path};
    const char *out_opts[3] = {"--json", "--save", "--junit"};
    const char *ins[1] = {j->baseline_path};
    if (gv_probe_outputs(3, outs, out_opts) != 0 ||
        gv_probe_not_inputs(3, outs, out_opts, 1, ins) != 0)
        return GV_EXIT_USAGE;
    if (j->plan.n > 1 && j->junit_path) {
        gv_usage_error("--junit takes one device's run; with several, use --json");
        return GV_EXIT_USAGE;
    }
    if (j->baseline_path && load_baseline(j) != 0) return GV_EXIT_USAGE;
    char err[512] = "";
    if (j->dump_dir && gv_probe_dump_dir(j->dump_dir, err, sizeof err) != 0) {
        gv_usage_error("%s", err);
        return GV_EXIT_USAGE;
    }
    if (j->prob_model && !j->inputs_list) {
        gv_usage_error("--prob-model declares --inputs arrays fit for the probabilistic model; "
                       "generated inputs are already");
        return GV_EXIT_USAGE;
    }
    if (j->sel.large && (j->size_spec || j->sel.test_shapes || j->inputs_list)) {
        gv_usage_error("--large runs each op's large shapes: no --size, --test-sizes or --inputs");
        return GV_EXIT_USAGE;
    }
    if (j->inputs_list && load_inputs(j) != 0) return GV_EXIT_USAGE;
    int n = gv_select(&j->sel, &j->cases, err, sizeof err);
    if (n < 0) {
        gv_usage_error("%s", err);
        if (j->sel.op_glob) print_valid_ops(j->sel.op_glob);
        return GV_EXIT_USAGE;
    }
    j->n = n;
    if (n == 0) {
        gv_usage_error("no case matches the selection (an op's dtypes and modes: gpuval list)");
        return GV_EXIT_USAGE;
    }
    if (j->dump_dir && !j->force && gv_dump_taken(j->dump_dir, j->cases, n, err, sizeof err)) {
        gv_usage_error("%s", err);
        return GV_EXIT_USAGE;
    }
    if (j->as_name && gv_select_as(j->cases, n, j->as_name, err, sizeof err) != GV_OK) {
        gv_usage_error("%s", err);
        return GV_EXIT_USAGE;
    }
    return -1;
}

struct junit_ctx {
    const gv_run_info *info;
    const gv_result *results;
    int n;
    const gv_summary *sum;
};

static int emit_junit(FILE *f, void *ctx)
{
    const struct junit_ctx *c = ctx;
    return gv_junit_write_check(f, c->info, c->results, c->n, c->sum);
}

/* The run as JUnit XML at path, whole (gv_write_file; - is stdout): 0, or -1 with errno. */
static int write_junit(const char *path, const gv_run_info *info, const gv_result *results, int n,
                       const gv_summary *sum)
{
    struct junit_ctx c = {info, results, n, sum};
    return gv_write_file(path, emit_junit, &c);
}

/* The mode fingerprint measured beside the cases. It took 1.2 s after the cases of the default
   catalogue on an H100 (21 rows, one process, the device otherwise idle), all of it added to
   the run's wall time. Its rows depend on the verdicts only through which cases ran, so the
   rows the cases call for if each runs are measured in a process of their own while the
   workers run the cases (the command's own process never starts the device: the workers are
   forked from it), and the rows of the cases that did run are taken from them afterwards. A
   row that is not among them, or a child that did not report, is measured after the cases as
   before: the same rows, measured by the same calls. The expectations are loaded before the
   fork, so the rules a row points to are at the same addresses in both processes. */
typedef struct fp_early {
    pid_t pid; /* the measuring process; -1: none */
    int fd;    /* its pipe, read after the cases */
    gv_fp_expect ex;
    bool have_ex;       /* ex loaded (else: no expectations for the device, err says why) */
    char err[700];      /* why none were loaded */
    gv_probe_row *rows; /* the candidate rows, filled from the pipe */
    int *rc;            /* each candidate's gv_probe_measure result */
    bool *got;          /* the row came back whole */
    int nrows;
    double secs; /* the child's measuring time */
} fp_early;

/* In the child: measure every candidate, write the time and each row's result and row to fd. */
static _Noreturn void fp_child(int fd, fp_early *e)
{
    double t0 = monotonic_s();
    for (int k = 0; k < e->nrows; k++)
        e->rc[k] = gv_probe_measure(&e->rows[k], &e->ex, 1);
    double secs = monotonic_s() - t0;
    bool ok = gv_write_full(fd, &secs, sizeof secs) == 0;
    for (int k = 0; k < e->nrows && ok; k++)
        ok = gv_write_full(fd, &e->rc[k], sizeof e->rc[k]) == 0 &&
             gv_write_full(fd, &e->rows[k], sizeof e->rows[k]) == 0;
    _exit(ok ? 0 : 1);
}

/* Start measuring the rows of j's cases beside them (check with a device, isolated workers,
   generated inputs); e->pid -1 where it does not. */
static void fp_early_start(check_job *j, const gv_run_info *info, fp_early *e)
{
    memset(e, 0, sizeof *e);
    e->pid = -1;
    e->fd = -1;
    if (!info->have_device || j->inputs_list || !j->isolate) return;
    int sm = info->device.cc_major * 10 + info->device.cc_minor;
    e->have_ex = gv_fp_expect_builtin(sm, &e->ex, e->err, sizeof e->err) == GV_OK;
    if (!e->have_ex) return;
    if (gv_probe_check_rows(j->cases, NULL, j->n, &e->rows, &e->nrows) != GV_OK || e->nrows == 0)
        return;
    e->rc = calloc((size_t)e->nrows, sizeof *e->rc);
    e->got = calloc((size_t)e->nrows, sizeof *e->got);
    int fds[2];
    if (!e->rc || !e->got || pipe(fds) != 0) return;
    /* room for every row (5 KB each), so that the child writes them, exits and gives its
       device context back while the cases still run; where the pipe cannot grow, the child
       waits to be read after the cases instead */
    size_t want = sizeof(double) + (size_t)e->nrows * (sizeof(int) + sizeof(gv_probe_row));
    if (want <= ((size_t)1 << 20)) (void)fcntl(fds[1], F_SETPIPE_SZ, (int)want);
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        fp_child(fds[1], e);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return;
    }
    e->pid = pid;
    e->fd = fds[0];
}

/* After the cases: the child's rows read back (those that came whole marked in e->got). */
static void fp_early_collect(fp_early *e)
{
    if (e->pid < 0) return;
    bool ok = gv_read_full(e->fd, &e->secs, sizeof e->secs) == sizeof e->secs;
    for (int k = 0; k < e->nrows && ok; k++) {
        gv_probe_row row;
        int rc;
        ok = gv_read_full(e->fd, &rc, sizeof rc) == sizeof rc &&
             gv_read_full(e->fd, &row, sizeof row) == sizeof row;
        if (!ok) break;
        e->rows[k] = row;
        e->rc[k] = rc;
        e->got[k] = true;
    }
    close(e->fd);
    int st;
    while (waitpid(e->pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (!ok || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        memset(e->got, 0, sizeof *e->got * (size_t)e->nrows); /* measured again, after */
    e->pid = -1;
}

static void fp_early_free(fp_early *e)
{
    if (e->pid > 0) fp_early_collect(e);
    if (e->have_ex) gv_fp_expect_free(&e->ex);
    free(e->rows);
    free(e->rc);
    free(e->got);
    memset(e, 0, sizeof *e);
}

/* Row r measured: taken from the child's rows where one of the same op, dtype and mode came
   back, else measured here; gv_probe_measure's result. */
static int fp_measure(gv_probe_row *r, const gv_fp_expect *ex, const fp_early *e)
{
    for (int k = 0; k < e->nrows; k++)
        if (e->got[k] && e->rows[k].op == r->op && e->rows[k].dtype == r->dtype &&
            e->rows[k].mode == r->mode) {
            *r = e->rows[k];
            return e->rc[k];
        }
    return gv_probe_measure(r, ex, 1);
}

/* The mode fingerprint of every (op, dtype, mode) the cases ran that `gpuval probe` measures
   (src/probe/probe_check.h): each row probed once, judged against the device's built-in
   expectations; a FAILed row FAILs its cases (their rows printed PASS above), a line each, and
   the summary is counted again. Returns false where a row could not be measured (an error,
   not the device lacking the mode): a check that was not done. Rows measured beside the cases
   come from e (fp_early_start). */
static bool fingerprint(check_job *j, const gv_run_info *info, gv_result *results, gv_summary *sum,
                        FILE *table, fp_early *e)
{
    if (!info->have_device || j->inputs_list) return true;
    gv_probe_row *rows;
    int nrows;
    if (gv_probe_check_rows(j->cases, results, j->n, &rows, &nrows) != GV_OK) {
        gv_usage_error("out of host memory for the mode fingerprint");
        return false;
    }
    if (nrows == 0) {
        free(rows);
        return true;
    }
    int sm = info->device.cc_major * 10 + info->device.cc_minor;
    gv_fp_expect own, *ex = &own;
    char err[700];
    if (e->have_ex) {
        ex = &e->ex;
    } else if (gv_fp_expect_builtin(sm, &own, err, sizeof err) != GV_OK) {
        fprintf(stderr, "gpuval: mode fingerprint: no expectations for sm_%d (%s): not judged\n",
                sm, err);
        free(rows);
        return true;
    }
    double t0 = monotonic_s();
    bool beside = e->pid > 0;
    fp_early_collect(e);
    int failed = 0, skipped = 0, errors = 0, taken = 0;
    for (int k = 0; k < nrows; k++) {
        gv_probe_row *r = &rows[k];
        int rc = fp_measure(r, ex, e);
        for (int c = 0; c < e->nrows; c++)
            taken += e->got[c] && e->rows[c].op == r->op && e->rows[c].dtype == r->dtype &&
                     e->rows[c].mode == r->mode;
        if (rc != GV_OK) {
            skipped += r->unsupported;
            errors += !r->unsupported;
            if (!r->unsupported)
                fprintf(stderr, "gpuval: mode fingerprint of %s %s %s: %s\n", r->op->name,
                        gv_dtype_name(r->dtype), gv_mode_name(r->mode), r->why);
            continue;
        }
        if (r->fails == 0) continue;
        char reason[512];
        gv_probe_check_reason(r, reason, sizeof reason);
        fprintf(table, "FAIL %s %s %s: %s\n", r->op->name, gv_dtype_name(r->dtype),
                gv_mode_name(r->mode), reason);
        failed++;
    }
    int changed = gv_probe_check_apply(rows, nrows, j->cases, results, j->n);
    char when[96] = "";
    if (beside && taken > 0)
        snprintf(when, sizeof when, " (%d measured beside the cases in %.2f s)", taken, e->secs);
    fprintf(stderr,
            "gpuval: mode fingerprint: %d (op, dtype, mode) rows probed against %s, %d FAIL, "
            "%d SKIP, %d errors, %.2f s after the cases%s\n",
            nrows, ex->path, failed, skipped, errors, monotonic_s() - t0, when);
    if (ex == &own) gv_fp_expect_free(&own);
    free(rows);
    if (changed) {
        *sum = (gv_summary){0};
        for (int i = 0; i < j->n; i++)
            gv_summary_add(sum, &results[i]);
    }
    return errors == 0;
}

/* The cases of j run into results[j->n], printed, compared with the baseline and written;
   returns the exit code. */
static int run_cases(check_job *j, const gv_run_info *info, gv_result *results)
{
    int n = j->n;
    gv_given_inputs given;
    /* the arrays are the user's: which models may judge them is this caller's to say */
    gv_inputs_given(j->arrays, j->n_arrays, j->prob_model ? GV_INPUTS_DECLARED : GV_INPUTS_GIVEN,
                    &given);
    gv_summary sum = {0};
    FILE *table = stdout; /* stderr's copy when a document goes to stdout (gv_probe_outputs) */
    /* the progress line only for a person watching: never with -q, never into a file */
    check_progress cp = {.cases = j->cases,
                         .n = n,
                         .quiet = j->quiet,
                         .progress = !j->quiet && isatty(2),
                         .start_s = monotonic_s(),
                         .sum = &sum,
                         .dump_dir = j->dump_dir,
                         .inputs_list = j->inputs_list,
                         .info = info,
                         .force = j->force,
                         .lost = false,
                         .table = table,
                         .cols = j->wide || !isatty(fileno(table)) ? 0 : GV_ROW_COLS};
    if (!j->quiet) gv_table_header(table);
    gv_runner runner = {.isolate = j->isolate,
                        .jobs = j->jobs,
                        .on_worker = worker_threads,
                        .case_timeout_s = j->case_timeout_s,
                        .case_timeout_given = j->case_timeout_given,
                        .repeat = j->repeat,
                        .given = j->inputs_list ? &given : NULL,
                        .on_kept = j->dump_dir ? case_kept : NULL,
                        .on_start = case_started,
                        .on_done = case_done,
                        .ctx = &cp};
    gv_cache_memo_enable(true); /* costly inputs (the solve matrices) kept with the references */
    gv_judge_memo_enable(true); /* and judgements of outputs judged before (core/judge_memo.h) */
    gv_cache_usable();          /* an unusable cache said here, once, not by every isolated case */
    fp_early early;
    fp_early_start(j, info, &early); /* the mode fingerprint, measured beside the cases */
    gv_run_cases(j->cases, n, &runner, results); /* every case has a result, ERROR if need be */
    bool lost = cp.lost; /* a failure that could not be dumped is a lost output */
    if (!fingerprint(j, info, results, &sum, table, &early)) lost = true;
    fp_early_free(&early);
    gv_summary_print(table, &sum);
    gv_cache_counts cc = {0}; /* counted where each case ran (a child, isolated) */
    for (int i = 0; i < n; i++) {
        cc.hits += results[i].cache.hits;
        cc.misses += results[i].cache.misses;
        cc.stored += results[i].cache.stored;
        cc.rejected += results[i].cache.rejected;
        cc.cheap += results[i].cache.cheap;
    }
    if (cc.hits + cc.misses > 0) {
        char line[512];
        gv_cache_counts_line(&cc, line, sizeof line);
        fprintf(stderr, "gpuval: %s\n", line); /* with -q too: every miss explained */
        judge_memo_line(results, n);
        gv_cache_note_run("check", results, n); /* and by op in `gpuval cache info` */
    }
    if (j->save_path && gv_json_write(j->save_path, info, results, n, &sum) != GV_OK) {
        gv_write_error(j->save_path);
        lost = true;
    }
    int regressed = 0;
    if (j->baseline) {
        json_t *doc = gv_run_json(info, results, n, &sum);
        gv_cmp_opts co = GV_CMP_OPTS_DEFAULT;
        gv_cmp_result cr;
        char cerr[256];
        if (gv_compare_runs(j->baseline, doc, &co, &cr, cerr, sizeof cerr) == GV_OK) {
            fprintf(table, "\nagainst the baseline %s:\n", j->baseline_path);
            gv_cmd_compare_print(table, &cr);
            regressed = cr.overall == GV_CMP_REGRESSED      ? GV_EXIT_REGRESSED
                        : cr.overall == GV_CMP_INCONCLUSIVE ? GV_EXIT_INCONCLUSIVE
                                                            : 0;
            gv_cmp_result_free(&cr);
        } else {
            gv_usage_error("comparing with %s: %s", j->baseline_path, cerr);
            lost = true;
        }
        json_decref(doc);
    }
    if (j->json_path && gv_json_write(j->json_path, info, results, n, &sum) != GV_OK) {
        gv_write_error(j->json_path);
        lost = true; /* a lost result file is a runtime error, even when every case SKIPped */
    }
    if (j->junit_path && write_junit(j->junit_path, info, results, n, &sum) != 0) {
        gv_write_error(j->junit_path);
        lost = true;
    }
    int rc = gv_exit_code(sum.fail, sum.error, sum.pass, info->have_device, lost);
    if (rc == GV_EXIT_OK && regressed) rc = regressed; /* compare's exit code */
    return rc;
}

/* The names and SHA-256 digests of the --inputs files (list as given, already loaded) into
   files[GV_MAX_TENSORS]: 0, or -1 after a message. */
static int hash_inputs(const char *list, gv_input_file *files, int *n)
{
    *n = 0;
    char *copy = strdup(list), *rest = copy;
    if (!copy) return -1;
    for (char *tok = strsep(&rest, ","); tok && *n < GV_MAX_TENSORS; tok = strsep(&rest, ",")) {
        gv_input_file *f = &files[(*n)++];
        snprintf(f->name, sizeof f->name, "%s", tok);
        if (gv_sha256_file(tok, f->sha256) != 0) {
            gv_usage_error("--inputs %s: reading it for its SHA-256: %s", tok, strerror(errno));
            free(copy);
            return -1;
        }
    }
    free(copy);
    return 0;
}

/* The run on this process's device: its start (the device line), the cases, the exit code. */
static int run_check(check_job *j, int argc, char **argv)
{
    gv_run_info info;
    if (j->isolate)
        gv_cmd_run_start_probe(&info, "check", argc, argv, gv_isolated_device_probe);
    else
        gv_cmd_run_start(&info, "check", argc, argv);
    if (j->jobs == 0) j->jobs = j->isolate ? auto_jobs() : 1;
    if (j->jobs > 1 && !gv_env("OMP_NUM_THREADS") && !gv_env("OPENBLAS_NUM_THREADS"))
        info.oracle_threads = host_cores() / j->jobs > 1 ? host_cores() / j->jobs : 1;
    gv_input_file files[GV_MAX_TENSORS];
    if (j->inputs_list) {
        if (hash_inputs(j->inputs_list, files, &info.n_input_files) != 0) {
            free((char *)info.argv_joined);
            return GV_EXIT_RUNTIME;
        }
        info.input_files = files;
    }
    int rc = GV_EXIT_RUNTIME;
    gv_result *results = calloc((size_t)j->n, sizeof *results);
    if (results)
        rc = run_cases(j, &info, results);
    else
        gv_usage_error("out of host memory for the results of %d cases", j->n);
    free(results);
    free((char *)info.argv_joined);
    return rc;
}

int gv_cmd_check(int argc, char **argv)
{
    check_job j;
    memset(&j, 0, sizeof j);
    j.sel.dist = -1;
    j.isolate = true;
    j.repeat = 1;
    /* auto unless asked: references are the same bits at every worker count (the oracle's
       BLAS on a fixed thread count, oracle/go.h's GO_BLAS_THREADS; tests/cpu/
       test_ref_threads.c), so a run's worker count is a matter of speed alone */
    j.jobs = 0;
    j.case_timeout_s = GV_CASE_TIMEOUT_DEFAULT_S;
    int rc = parse_args(argc, argv, &j);
    if (rc < 0) rc = prepare(&j);
    if (rc < 0 && j.plan.n > 1 && j.dump_dir && mkdir(j.dump_dir, 0777) != 0 && errno != EEXIST) {
        gv_usage_error("--dump-failures %s: %s", j.dump_dir, strerror(errno)); /* DIR/devN below */
        rc = GV_EXIT_USAGE;
    }
    if (rc < 0 && j.plan.n > 1) {
        check_job_free(&j); /* each worker selects and loads for itself */
        gv_fleet_end end;
        gv_error e;
        /* one worker per device already shares the host: each runs its cases one at a time
           unless --jobs says otherwise (it is passed through as given) */
        char **wargv = calloc((size_t)argc + 3, sizeof *wargv);
        int wargc = argc;
        if (wargv) {
            memcpy(wargv, argv, (size_t)argc * sizeof *wargv);
            if (!j.jobs_given) {
                wargv[wargc++] = "--jobs";
                wargv[wargc++] = "1";
            }
        }
        gv_fleet_check(&gv_check_options, &j.plan, wargv ? wargc : argc, wargv ? wargv : argv,
                       j.json_path, j.quiet, &gv_fleet_text_printer, &end, &e);
        free(wargv);
        rc = gv_cmd_fleet_end(&end, j.json_path, &e);
    } else if (rc < 0) {
        rc = run_check(&j, argc, argv);
    }
    check_job_free(&j);
    return rc;
}
