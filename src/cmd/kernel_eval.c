/* kernel_eval.c: `gpuval kernel-eval` — the generated-kernel gate from the command line. The
 * gate is the Python package's (python/src/gpuval/kernel_eval.py); this command checks the
 * command line against the gate's options (the same table prints --help), then runs the gate
 * with the arguments as given, over this build's libgpuval (api/kernel_eval.h says how the
 * library and the package are found), and exits with the gate's code. */
#include "cmd/kernel_eval.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/kernel_eval.h"
#include "cmd/cli.h"
#include "io/infile.h"

/* The parser's labels for kernel-eval's options. */
enum { O_OP = 256, O_CANDIDATE, O_DTYPE, O_SEEDS, O_SIZES, O_DISTS, O_FRAMEWORK, O_ALLOW, O_JSON };

/* The gate's options (its argparse in kernel_eval.py), once: this parser and --help read it. */
static const gv_opt kernel_eval_opts[] = {
    {.name = "op", .id = O_OP, .arg = "OP", .help = "the op the candidate computes (gpuval list)"},
    {.name = "candidate",
     .id = O_CANDIDATE,
     .arg = "SPEC",
     .help = "MODULE:CALLABLE or FILE.py:CALLABLE: called with the op's inputs,\n"
             "returns its outputs"},
    {.name = "dtype", .id = O_DTYPE, .arg = "T", .help = "f32 (default) or f64"},
    {.name = "seeds",
     .id = O_SEEDS,
     .arg = "N",
     .help = "seeds drawn at random from the operating system (>= 2; default 3)"},
    {.name = "sizes",
     .id = O_SIZES,
     .arg = "SPEC",
     .help = "sizes (default: every test shape of the op)"},
    {.name = "dists",
     .id = O_DISTS,
     .arg = "LIST",
     .help = "dists (default: every dist the op takes)"},
    {.name = "framework",
     .id = O_FRAMEWORK,
     .arg = "F",
     .help = "numpy (default), torch or cupy: the arrays the candidate gets"},
    {.name = "allow", .id = O_ALLOW, .arg = "ftz", .help = "the candidate flushes subnormals"},
    {.name = "json",
     .id = O_JSON,
     .arg = "OUT",
     .help = "write the verdicts (schema gpuval-kernel-eval/1; '-' is stdout)"},
    {.name = "quiet", .id = 'q', .help = "print only what failed"},
    {.name = "help", .id = 'h'},
};
const gv_opt_table gv_kernel_eval_options = {"kernel-eval", kernel_eval_opts,
                                             GV_NOPTS(kernel_eval_opts)};
_Static_assert(GV_NOPTS(kernel_eval_opts) <= GV_OPTS_MAX, "kernel-eval's options fit the parser");

static const char kernel_eval_head[] =
    "usage: gpuval kernel-eval --op OP --candidate MODULE:CALLABLE [options]\n"
    "\n"
    "A correctness gate for generated kernels that the kernel cannot game. The candidate runs\n"
    "in a child process that never sees the oracle, a reference or a verdict: it gets gpuval's\n"
    "inputs for each case, on seeds drawn at random here and on every test shape of the op,\n"
    "and returns its outputs and its inputs as it left them. Each output is judged by the op's\n"
    "f64 oracle and error model, with the harness's rules besides: inputs left unchanged,\n"
    "outputs fresh (no answer cached from another input), NaN never passing, nothing timed.\n"
    "\n"
    "The gate is the Python package's (python3 -m gpuval.kernel_eval, with numpy): this command\n"
    "runs it with the arguments as given, over this gpuval's libgpuval (GPUVAL_LIB: the one\n"
    "beside this program, BIN/include/libgpuval.so in a build directory or BIN/../lib in an\n"
    "install) and the package beside it (BIN/../python/src, put first on PYTHONPATH) or the\n"
    "installed one. See docs/kernel-eval.md.\n"
    "\n";

static const gv_exit_line kernel_eval_exits[] = {
    {GV_EXIT_OK, "every case of the candidate PASSed"},
    {GV_EXIT_FAIL, "a case FAILed (its reason printed)"},
    {GV_EXIT_USAGE, "bad usage; python3 not on PATH; the Python package or numpy missing"},
    {GV_EXIT_RUNTIME, "the candidate could not run (its import failed, its process ended)"},
};

static const gv_help kernel_eval_help = {.head = kernel_eval_head,
                                         .opts = &gv_kernel_eval_options,
                                         .col = 22,
                                         .exits = kernel_eval_exits,
                                         .n_exits = GV_NEXITS(kernel_eval_exits)};

int gv_cmd_kernel_eval(int argc, char **argv)
{
    /* getopt_long permutes argv: the gate gets the arguments in the order they were given */
    char **given = malloc(sizeof *given * (size_t)(argc + 1));
    if (!given) {
        gv_error e;
        gv_err_set(&e, GV_ST_RUNTIME, "kernel-eval: out of memory");
        return gv_cmd_fail(&e);
    }
    memcpy(given, argv, sizeof *given * (size_t)argc);
    bool have_op = false, have_candidate = false;
    const char *candidate = NULL, *json_path = NULL;
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_kernel_eval_options);
    int c;
    while ((c = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        switch (c) {
        case O_OP: have_op = true; break;
        case O_CANDIDATE:
            have_candidate = true;
            candidate = optarg;
            break;
        case O_JSON: json_path = optarg; break;
        case O_DTYPE:
        case O_SEEDS:
        case O_SIZES:
        case O_DISTS:
        case O_FRAMEWORK:
        case O_ALLOW:
        case 'q': break; /* the gate checks their values */
        case 'h':
            free(given);
            gv_cmd_help_print(stdout, &kernel_eval_help);
            return GV_EXIT_OK;
        default:
            free(given);
            gv_cmd_bad_option("kernel-eval", argv);
            return GV_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        free(given);
        gv_cmd_usage_cmd("kernel-eval", "kernel-eval takes options only, not '%s'", argv[optind]);
        return GV_EXIT_USAGE;
    }
    if (!have_op || !have_candidate) {
        free(given);
        gv_cmd_usage_cmd("kernel-eval", "kernel-eval needs --op and --candidate");
        return GV_EXIT_USAGE;
    }
    /* before python3 starts: a FIFO or a directory as the candidate's file or as --json would
       hang or fail inside the gate; the gate itself writes "-" to its standard output */
    const char *colon = strrchr(candidate, ':');
    if (colon && colon > candidate) {
        char file[4096];
        snprintf(file, sizeof file, "%.*s", (int)(colon - candidate), candidate);
        size_t fl = strlen(file);
        if (strchr(file, '/') || (fl > 3 && strcmp(file + fl - 3, ".py") == 0)) {
            char why[256];
            FILE *f = gv_fopen_regular(file, why, sizeof why);
            if (!f) {
                free(given);
                gv_usage_error("kernel-eval: --candidate %s: %s", file, why);
                return GV_EXIT_USAGE;
            }
            fclose(f);
        }
    }
    const char *outs[1] = {json_path}, *out_opts[1] = {"--json"};
    if (json_path && strcmp(json_path, "-") != 0 && gv_probe_outputs(1, outs, out_opts) != 0) {
        free(given);
        return GV_EXIT_USAGE;
    }
    gv_kernel_eval_paths paths;
    gv_kernel_eval_locate(&paths);
    gv_error e;
    gv_status st = gv_kernel_eval_run(&paths, argc - 1, given + 1, &e);
    free(given);
    return gv_cmd_end(st, &e);
}
