/* main.c: the gpuval command line — dispatch to subcommands, the main help, and `list` and
 * `info`. `check` lives in check.c, `bench` in bench.c, the shared option parsers in cli.c.
 * The process entry is gpuval_main.c (the command) or gv_main (a user's program, gv_main.c),
 * both through gv_cmd_main. */
#include <cblas.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/bench.h"
#include "core/knobs.h"
#include "cmd/cache.h"
#include "cmd/check.h"
#include "cmd/collectives.h"
#include "cmd/cli.h"
#include "cmd/compare.h"
#include "cmd/judge.h"
#include "cmd/kernel_eval.h"
#include "api/op_info.h"
#include "cmd/main.h"
#include "cmd/merge.h"
#include "cmd/plugin.h"
#include "fleet/workers.h"
#include "core/registry.h"
#include "cmd/replay.h"
#include "render/escape.h"
#include "io/json_util.h"
#include "io/run_doc.h"
#include "render/run_text.h"
#include "cmd/report.h"
#include "cmd/screen.h"
#include "cmd/probe.h"
#include "cmd/tradeoffs.h"
#include "../../include/gpuval.h" /* GPUVAL_API_VERSION */
#include "io/schemas.h"

#ifndef GV_VERSION
#define GV_VERSION "unknown"
#endif

static void mask_names(char *buf, size_t len, unsigned mask, const char *(*name)(int), int n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        if (mask & (1u << i))
            used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
                                     used ? "," : "", name(i));
}

static const char *dtype_name_i(int i)
{
    return gv_dtype_name((gv_dtype)i);
}
static const char *mode_name_i(int i)
{
    return gv_mode_name((gv_mode)i);
}

/* The parser's labels for list's options without a short form. */
enum { O_MODES = 256, O_JSON };

/* list's options, once: its parser and its --help read this table. */
static const gv_opt list_opts[] = {
    {.name = "all",
     .id = 'a',
     .help = "include planted variants (bugs the oracle must FAIL; slowdowns compare must\n"
             "call REGRESSED)"},
    {.name = "modes",
     .id = O_MODES,
     .help = "the precision modes instead: dtypes, input precision, the tier each promises,\n"
             "whether `check` runs it by default or only when named"},
    {.name = NULL, .id = 'v', .help = "also print each op's error model and its source"},
    {.name = "json",
     .id = O_JSON,
     .arg = "FILE",
     .help = "the ops as JSON (schema gpuval-ops/1) to FILE; - is stdout: name,\n"
             "family, summary, dims, dtypes, modes, shapes, test_shapes, dists,\n"
             "planted_bug, error_model (with --all, the planted variants too)"},
    {.name = "help", .id = 'h'},
};
const gv_opt_table gv_list_options = {"list", list_opts, GV_NOPTS(list_opts)};

static const gv_exit_line list_exits[] = {{GV_EXIT_OK, "listed"}, {GV_EXIT_USAGE, NULL}};

static const char list_head[] =
    "usage: gpuval list [--all] [--modes] [-v] [--json FILE]\n"
    "\n"
    "List the registered operations: name, dtypes, modes, shape dims, default sizes.\n";

static const gv_help list_help = {.head = list_head,
                                  .opts = &gv_list_options,
                                  .col = 13,
                                  .exits = list_exits,
                                  .n_exits = GV_NEXITS(list_exits)};

/* The registry as a document: {"schema": "gpuval-ops/1", "ops": [...]}. */
static json_t *ops_json(bool all)
{
    json_t *ops = json_array();
    for (const gv_op *const *opp = gv_registry(); *opp; opp++) {
        const gv_op *op = *opp;
        if ((op->planted_bug || op->planted_slow) && !all) continue;
        json_t *o = gv_op_json(op);
        json_array_append_new(ops, o);
    }
    return json_pack("{s:s, s:s, s:o}", "schema", gv_schema(GV_DOC_OPS), "version", GV_VERSION,
                     "ops", ops);
}

static int emit_doc(FILE *f, void *doc)
{
    if (json_dumpf(doc, f, JSON_INDENT(1)) != 0) return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

/* The op column's width: the longest name listed (as the terminal gets it, escaped), at least
   the 24 columns the table was laid out for, so that a longer name shifts every row alike. */
static int name_width(int all)
{
    int w = 24;
    for (const gv_op *const *opp = gv_registry(); *opp; opp++) {
        const gv_op *op = *opp;
        if ((op->planted_bug || op->planted_slow) && !all) continue;
        char name[256];
        int len = (int)strlen(gv_esc_term_str(op->name, name, sizeof name));
        if (len > w) w = len;
    }
    return w;
}

static int cmd_list(int argc, char **argv)
{
    int all = 0, verbose = 0, modes = 0;
    const char *json_path = NULL;
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_list_options);
    int c;
    while ((c = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        switch (c) {
        case 'a': all = 1; break;
        case O_MODES: modes = 1; break;
        case 'v': verbose = 1; break;
        case O_JSON: json_path = optarg; break;
        case 'h': gv_cmd_help_print(stdout, &list_help); return GV_EXIT_OK;
        default: gv_cmd_bad_option("list", argv); return GV_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        gv_cmd_usage_cmd("list", "list takes no arguments ('%s')", argv[optind]);
        return GV_EXIT_USAGE;
    }
    if (json_path) {
        if (modes || verbose) {
            gv_usage_error("list --json writes the ops: no --modes or -v");
            return GV_EXIT_USAGE;
        }
        const char *outs[1] = {json_path}, *opts[1] = {"--json"};
        if (gv_probe_outputs(1, outs, opts) != 0) return GV_EXIT_USAGE;
        json_t *doc = ops_json(all);
        int rc = gv_write_file(json_path, emit_doc, doc);
        json_decref(doc);
        if (rc != 0) {
            int e = errno;
            gv_write_error(json_path);
            return gv_write_exit_code(e);
        }
        return GV_EXIT_OK;
    }
    if (modes) {
        /* the mode table itself (abi/gv_abi.h) */
        printf("%-10s %-8s %-10s %-8s %-7s %-8s %-7s %s\n", "mode", "dtypes", "input bits",
               "acc bits", "tier", "rounds", "check", "what");
        for (int m = 0; m < GV_NMODES; m++) {
            const gv_mode_info *mi = gv_mode_get(m);
            char dt[32], bits[16], acc[16];
            mask_names(dt, sizeof dt, mi->dtypes, dtype_name_i, GV_NDTYPES);
            snprintf(bits, sizeof bits, "%d", mi->input_bits);
            snprintf(acc, sizeof acc, "%d", mi->acc_bits);
            printf("%-10s %-8s %-10s %-8s %-7s %-8s %-7s %s\n", mi->name, dt,
                   mi->input_bits ? bits : "dtype's", mi->acc_bits ? acc : "dtype's",
                   mi->promises_tier ? "dtype's" : "none", mi->promises_rn ? "nearest" : "-",
                   mi->catalogue ? "default" : "named", mi->what);
        }
        return GV_EXIT_OK;
    }
    int w = name_width(all);
    printf("%-*s %-8s %-20s %-14s %-40s %s\n", w, "op", "dtypes", "modes", "dims",
           "default sizes", "summary");
    for (const gv_op *const *opp = gv_registry(); *opp; opp++) {
        const gv_op *op = *opp;
        if ((op->planted_bug || op->planted_slow) && !all) continue;
        char dt[32], md[512];
        mask_names(dt, sizeof dt, op->dtypes, dtype_name_i, GV_NDTYPES);
        mask_names(md, sizeof md, op->modes, mode_name_i, GV_NMODES);
        bool long_modes = strlen(md) > 20; /* the whole list goes on a line of its own */
        /* a plugin's names and texts reach the terminal escaped (render/escape.h) */
        char name[256], dims[256], shapes[512];
        printf("%-*s %-8s %-20s %-14s %-40s %s", w, gv_esc_term_str(op->name, name, sizeof name), dt,
               long_modes ? "(below)" : md, gv_esc_term_str(op->dims, dims, sizeof dims),
               gv_esc_term_str(op->shapes, shapes, sizeof shapes),
               op->planted_bug    ? "[planted bug] "
               : op->planted_slow ? "[planted slow] "
                                  : "");
        gv_esc_term(stdout, op->summary);
        putchar('\n');
        if (long_modes) printf("%*s modes: %s\n", w, "", md);
        if (verbose) {
            printf("%*s error model: ", w, "");
            gv_esc_term(stdout, op->error_model);
            putchar('\n');
        }
        if (verbose) {
            char takes[64]; /* the operand layouts its interface takes (abi/layout.h) */
            printf("%*s operands: %s\n", w, "",
                   gk_takes_layouts_text(op->takes_layouts, takes, sizeof takes));
        }
    }
    return GV_EXIT_OK;
}

/* info takes no options but --help, which it reads itself: its help has no option table. */
static const gv_exit_line info_exits[] = {
    {GV_EXIT_OK, "printed"},
    {GV_EXIT_USAGE, NULL},
    {GV_EXIT_RUNTIME, "the device query failed"},
    {GV_EXIT_NODEV, "no CUDA device"},
};

static const char info_head[] =
    "usage: gpuval info\n"
    "\n"
    "Print the device fingerprint (name, compute capability, SMs, clocks, memory, L2, ECC,\n"
    "driver, runtime and cuBLAS versions).\n";

static const gv_help info_help = {
    .head = info_head, .exits = info_exits, .n_exits = GV_NEXITS(info_exits)};

static int cmd_info(int argc, char **argv)
{
    if (argc > 1) {
        if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
            gv_cmd_help_print(stdout, &info_help);
            return GV_EXIT_OK;
        }
        gv_cmd_usage_cmd("info", "info takes no arguments ('%s')", argv[1]);
        return GV_EXIT_USAGE;
    }
#ifdef GV_HAVE_CUDA
    printf("build            CUDA, architectures %s (sm_: SASS, compute_: PTX)\n", GV_CUDA_ARCH);
#else
    printf("build            without CUDA\n");
#endif
    const char *from = gv_knobs()->openblas_core_from;
    printf("oracle BLAS      %s, %d threads, core %s", openblas_get_config(),
           openblas_get_num_threads(), openblas_get_corename());
    if (from) { /* from the environment: escaped */
        printf(" (named by gpuval: OpenBLAS had detected ");
        gv_esc_term(stdout, from);
        printf(")");
    }
    printf("\n");
    if (gk_device_count() == 0) {
        printf("no CUDA device\n");
        return GV_EXIT_NODEV;
    }
    gk_device_info d;
    if (gk_device_info_get(&d) != GV_OK) {
        gv_usage_error("device query failed: %s", gk_last_error());
        return GV_EXIT_RUNTIME;
    }
    gv_device_print(stdout, &d);
    return GV_EXIT_OK;
}

/* Every exit code, in the words of GV_EXIT_CODES (core/gv.h). */
static const gv_exit_line main_exits[] = {
#define GV_EXIT_LINE_(name, code, status, what) {code, NULL},
    GV_EXIT_CODES(GV_EXIT_LINE_)
#undef GV_EXIT_LINE_
};

static const char main_head[] =
    "usage: gpuval <command> [options]\n"
    "\n"
    "gpuval runs GPU operations against a float64 CPU oracle and judges each result at the\n"
    "tolerance tiers 1e-8 and 1e-4 and by the operation's own error model.\n"
    "\n"
    "commands:\n"
    "  list     the registered operations\n"
    "  info     the CUDA device's fingerprint\n"
    "  check    correctness run: every case of the catalogue (or a selection), one row each\n"
    "  bench    timed run: CPU oracle and GPU side by side, speed-ups, crossover, presets\n"
    "  report   a run file as one self-contained HTML page and/or Markdown tables\n"
    "  tradeoffs every mode of an op: accuracy (bits, verdict) against speed, Pareto front\n"
    "  probe    the arithmetic fingerprint of every mode of a GEMM, judged per architecture\n"
    "  compare  regression check of a run file against a baseline: accuracy and timing\n"
    "  replay   rerun a case dumped by check --dump-failures, same inputs, same bits\n"
    "  judge    judge outputs computed anywhere (.npy) by an op's oracle; no GPU needed\n"
    "  kernel-eval the generated-kernel gate: a candidate callable in a child process,\n"
    "           unpredictable seeds, judged by the op's oracle (runs the Python gate)\n"
    "  inputs   write the inputs gpuval generates for one case as .npy, with case.json\n"
    "  cache    the oracle cache: info, clear\n"
    "  merge    run files of several GPUs or ranks as one fleet: agreement, outliers\n"
    "  collectives NCCL all-reduce, all-gather, reduce-scatter, broadcast: judged, timed\n"
    "  screen   every GPU of a node, a fixed tier of cases: names the GPU computing wrong\n"
    "  help CMD the options of CMD (same as CMD --help); help env: the environment variables\n"
    "\n"
    "  --plugin FILE  (with any command) load the ops of a plugin built against\n"
    "                 include/gpuval.h (exports gpuval_plugin_v1); may be repeated\n"
    "  -V, --version  the version, the API version (include/gpuval.h), the build's CUDA\n"
    "                 architecture, commit and compilers\n";

/* `gpuval help env`: every GPUVAL_* variable from the one knob table (core/knobs.h), then the
   others gpuval reads (through gv_env), so that the list cannot drift from what is read. */
static void print_wrapped(FILE *f, const char *text, int indent, int width)
{
    int col = 0;
    for (const char *w = text; *w;) {
        while (*w == ' ')
            w++;
        size_t n = strcspn(w, " ");
        if (!n) break;
        if (col > 0 && col + 1 + (int)n > width) {
            fputc('\n', f);
            col = 0;
        }
        if (col == 0) col = fprintf(f, "%*s", indent, "");
        else col += fprintf(f, " ");
        col += fprintf(f, "%.*s", (int)n, w);
        w += n;
    }
    fputc('\n', f);
}

static void print_env_help(FILE *f)
{
    fputs("GPUVAL_* variables (read once a process; core/knobs.h):\n", f);
#define GV_KNOB_HELP_(field, var, kind, what)                                                      \
    fprintf(f, "  %s (%s)\n", var,                                                                \
            strcmp(#kind, "FLAG") == 0  ? "1: on"                                                 \
            : strcmp(#kind, "INT") == 0 ? "an integer"                                            \
                                        : "text");                                                \
    print_wrapped(f, what, 6, 92);
    GV_KNOBS(GV_KNOB_HELP_)
#undef GV_KNOB_HELP_
    fputs("\nOthers gpuval reads:\n"
          "  XDG_CACHE_HOME, HOME     where the oracle cache lives (XDG_CACHE_HOME/gpuval, else\n"
          "                           HOME/.cache/gpuval)\n"
          "  TMPDIR                   where the workers of --device LIST write their runs\n"
          "  OPENBLAS_CORETYPE        OpenBLAS's kernels; unset, gpuval names the CPU's own where\n"
          "                           OpenBLAS fell back to Prescott's\n"
          "  OMP_WAIT_POLICY          unset, check and screen (and every --device worker) run with\n"
          "                           passive waits (docs/performance.md)\n"
          "  OPENBLAS_THREAD_TIMEOUT  unset, check and screen run with 20: OpenBLAS's idle threads\n"
          "                           sleep after 2^20 cycles rather than spin for 2^28\n"
          "  OMP_NUM_THREADS, OPENBLAS_NUM_THREADS  the oracle's threads (recorded in each run)\n"
          "  CUDA_VISIBLE_DEVICES     the GPUs gpuval sees\n"
          "  NVIDIA_TF32_OVERRIDE, CUBLAS_*, CUDA_FORCE_PTX_JIT  the libraries' own switches,\n"
          "                           recorded in each run's env block\n",
          f);
}

static const gv_help main_help = {
    .head = main_head, .exits = main_exits, .n_exits = GV_NEXITS(main_exits)};

/* A command's exit code, made a runtime error (3) when its standard output was lost (a full
 * disk, a closed pipe, /dev/full): a table nobody got is not a success. */
static int stdout_checked(int rc)
{
    errno = 0;
    bool flush_failed = fflush(stdout) != 0;
    if (!flush_failed && !ferror(stdout)) return rc;
    fprintf(stderr, "gpuval: writing standard output failed: %s\n",
            flush_failed && errno ? strerror(errno) : "write error");
    return rc == GV_EXIT_OK || rc == GV_EXIT_FAIL ? GV_EXIT_RUNTIME : rc;
}

/* -V, --version: "gpuval 1.3.0" first (meson's project version; scripts read that line), then
   the rest of the build. */
static void print_version(FILE *f)
{
    fprintf(f, "gpuval %s\n", GV_VERSION);
    fprintf(f, "api %d.%d (GPUVAL_API_VERSION %d)\n", GPUVAL_API_VERSION_MAJOR,
            GPUVAL_API_VERSION_MINOR, GPUVAL_API_VERSION);
#ifdef GV_HAVE_CUDA
    fprintf(f, "cuda arch %s (nvcc %s)\n", GV_CUDA_ARCH,
            gv_build_nvcc() ? gv_build_nvcc() : "unknown");
#else
    fputs("cuda arch none (built without CUDA)\n", f);
#endif
    fprintf(f, "commit %s\n", gv_build_commit());
    fprintf(f, "cc %s\n", gv_build_cc());
}

/* info and cache read their words themselves; their table holds what every command takes. */
static const gv_opt help_only_opts[] = {{.name = "help", .id = 'h'}};
static const gv_opt_table info_options = {"info", help_only_opts, GV_NOPTS(help_only_opts)};
static const gv_opt_table cache_options = {"cache", help_only_opts, GV_NOPTS(help_only_opts)};

/* Every command's option table: the command line is checked against it before the command
   (or any plugin) runs. */
static const struct {
    const char *name;
    const gv_opt_table *opts;
} cmd_opts[] = {{"list", &gv_list_options},        {"check", &gv_check_options},
                {"bench", &gv_bench_options},      {"report", &gv_report_options},
                {"tradeoffs", &gv_trade_options},  {"compare", &gv_compare_options},
                {"replay", &gv_replay_options},    {"judge", &gv_judge_options},
                {"inputs", &gv_inputs_options},    {"merge", &gv_merge_options},
                {"collectives", &gv_coll_options}, {"probe", &gv_probe_options},
                {"info", &info_options},           {"cache", &cache_options},
                {"screen", &gv_screen_options},    {"kernel-eval", &gv_kernel_eval_options}};

/* check_options_first's answer when the command line asks for the version. */
enum { VERSION_ASKED = -1 };

/* The command line's form, checked in one place before the command or any plugin's code runs:
   the options the command takes (its table and what gv_cmd_getopt_init adds to every table), each
   with its value. A bad option is one line and a pointer to the command's help (gv_cmd_bad_option);
   -V or --version anywhere an option may stand is the version, whatever else the line holds.
   (What the values name, an op of a plugin included, is the command's to check.) GV_EXIT_OK,
   GV_EXIT_USAGE after a message, or VERSION_ASKED; a copy of argv is parsed, so the command's
   own parse sees it as given. */
static int check_options_first(int argc, char **argv)
{
    if (argc < 2) return GV_EXIT_OK;
    for (size_t i = 0; i < sizeof cmd_opts / sizeof cmd_opts[0]; i++) {
        if (strcmp(argv[1], cmd_opts[i].name) != 0) continue;
        int n = argc - 1;
        char **copy = malloc(sizeof *copy * (size_t)(n + 1));
        if (!copy) return GV_EXIT_RUNTIME;
        memcpy(copy, argv + 1, sizeof *copy * (size_t)(n + 1));
        gv_getopt g;
        gv_cmd_getopt_init(&g, cmd_opts[i].opts);
        int c, rc = GV_EXIT_OK;
        while (rc == GV_EXIT_OK && (c = gv_cmd_getopt_next(&g, n, copy)) != -1)
            if (c == GV_OPT_VERSION) {
                rc = VERSION_ASKED;
            } else if (c == '?') {
                gv_cmd_bad_option(cmd_opts[i].name, copy);
                rc = GV_EXIT_USAGE;
            }
        free(copy);
        optind = 1;
        return rc;
    }
    return GV_EXIT_OK;
}

int gv_cmd_main(int argc, char **argv)
{
    const char *plugins[GV_PLUGINS_MAX];
    int n_plugins = 0;
    int prc = gv_cmd_plugin_args(&argc, argv, plugins, &n_plugins);
    if (prc != GV_EXIT_OK) return prc;
    /* no plugin code before the command line is checked; an unknown command is refused
       below without loading any */
    static const char *const others[] = {"info", "probe",  "cache", "help",
                                         "-h",   "--help", "-V",    "--version"};
    bool known = false;
    for (size_t i = 0; argc >= 2 && i < sizeof cmd_opts / sizeof cmd_opts[0]; i++)
        known = known || strcmp(argv[1], cmd_opts[i].name) == 0;
    for (size_t i = 0; argc >= 2 && i < sizeof others / sizeof others[0]; i++)
        known = known || strcmp(argv[1], others[i]) == 0;
    if (known) {
        prc = check_options_first(argc, argv);
        if (prc == VERSION_ASKED) {
            print_version(stdout);
            return stdout_checked(GV_EXIT_OK);
        }
        if (prc == GV_EXIT_OK && n_plugins) prc = gv_cmd_plugins_load(plugins, n_plugins);
        if (prc != GV_EXIT_OK) return prc;
    }
    if (argc < 2) {
        fputs("usage: gpuval <command> [options]\n", stderr);
        gv_cmd_usage_try(NULL);
        return GV_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        gv_cmd_help_print(stdout, &main_help);
        return stdout_checked(GV_EXIT_OK);
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        if (argc > 2) {
            gv_usage_error("%s takes no arguments ('%s')", cmd, argv[2]);
            return GV_EXIT_USAGE;
        }
        print_version(stdout);
        return stdout_checked(GV_EXIT_OK);
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {{"list", cmd_list},        {"info", cmd_info},
                {"check", gv_cmd_check},   {"bench", gv_cmd_bench},
                {"report", gv_cmd_report}, {"tradeoffs", gv_cmd_tradeoffs},
                {"probe", gv_cmd_probe},   {"compare", gv_cmd_compare},
                {"replay", gv_cmd_replay}, {"judge", gv_cmd_judge},
                {"inputs", gv_cmd_inputs}, {"cache", gv_cmd_cache},
                {"merge", gv_cmd_merge},   {"collectives", gv_cmd_collectives},
                {"screen", gv_cmd_screen}, {"kernel-eval", gv_cmd_kernel_eval}};
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            gv_cmd_help_print(stdout, &main_help);
            return stdout_checked(GV_EXIT_OK);
        }
        if (strcmp(argv[2], "env") == 0) {
            print_env_help(stdout);
            return stdout_checked(GV_EXIT_OK);
        }
        for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
            if (strcmp(argv[2], cmds[i].name) == 0) {
                char *help_argv[] = {argv[2], "--help", NULL};
                return stdout_checked(cmds[i].fn(2, help_argv));
            }
        char shown[256];
        fprintf(stderr,
                "gpuval: no command '%s'; valid:", gv_printable(argv[2], shown, sizeof shown));
        for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
            fprintf(stderr, " %s", cmds[i].name);
        fputc('\n', stderr);
        gv_cmd_usage_try(NULL);
        return GV_EXIT_USAGE;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(cmd, cmds[i].name) == 0) {
            gv_cmd_set_current(cmds[i].name);
            return stdout_checked(cmds[i].fn(argc - 1, argv + 1));
        }
    /* the valid names from the table itself: a command added there is named here */
    char shown[256];
    fprintf(stderr, "gpuval: unknown command '%s'; valid:", gv_printable(cmd, shown, sizeof shown));
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        fprintf(stderr, " %s", cmds[i].name);
    fputs(" help\n", stderr);
    gv_cmd_usage_try(NULL);
    return GV_EXIT_USAGE;
}
