/* check.c: `gpuval check`, the correctness run. Validates every option before any work,
 * runs each selected case (never timing it), prints one row per case and a summary, and
 * writes the run as JSON when asked. */
#include <cblas.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "compare_cmd.h"
#include "compare_runs.h"
#include "cli.h"
#include "fleet_cmd.h"
#include "json_util.h"
#include "registry.h"
#include "report.h"
#include "run.h"

static const char check_help[] =
    "usage: gpuval check [options]\n"
    "\n"
    "Run each selected case on the GPU and judge it against the float64 CPU oracle.\n"
    "Without options: every op of the catalogue at its default sizes, all its dtypes and\n"
    "modes (planted-bug variants excluded).\n"
    "\n"
    "  --op GLOB        ops whose name matches GLOB (fnmatch, e.g. 'gemm.*')\n"
    "  --dtype LIST     f32,f64\n"
    "  --mode LIST      modes by name (gpuval list --modes); default: each op's modes that\n"
    "                   the mode table marks for check (the emulation sweep and 16-bit\n"
    "                   storage modes run when named)\n"
    "  --size SPEC      sizes: dims joined by 'x', sizes by ',' (1e5 | 64x48x32 | 2^20,1e6)\n"
    "  --dist NAME      inputs: uniform01 uniform11 smallint special offgrid tie perm2 wide\n"
    "                   (default: each op's own, plus its canaries)\n"
    "  --seed N         input seed (default 0): decimal digits or 0x and hex, up to 2^64-1;\n"
    "                   inputs are identical on every machine\n"
    "  --planted        include planted-bug variants (wrong on purpose: expect FAIL)\n"
    "  --test-sizes     use each op's small test sizes instead of its default sizes\n"
    "  --json FILE      write the run (schema gpuval-run/1) to FILE\n"
    "  --save FILE      the same, as a baseline: an existing FILE is replaced only with --force\n"
    "  --baseline FILE  compare this run with a saved one afterwards (as gpuval compare):\n"
    "                   exit 4 when a case regressed and none failed\n"
    "  --force          let --save replace an existing baseline\n"
    "  --device SPEC    the GPU to run on: N, a list N,M,... or all; a list runs one worker\n"
    "                   process per device in parallel (each with its own CPU oracle) and\n"
    "                   merges them as gpuval merge does (--json then writes the fleet and\n"
    "                   NAME.devI.json per device). Under srun or mpirun the local rank picks\n"
    "                   the device and --json/--save gain .rankN (or replace %%r in the path)\n"
    "  -q, --quiet      print only failures and the summary\n"
    "\n"
    "Columns: max_rel max |c-r|/|r|; normwise ||c-r||/||r||; bits -log2(normwise);\n"
    "ratio the error model's max |c-r|/(u g d); 1e-8, 1e-4 whether each allclose tier\n"
    "(|c-r| <= t(1+|r|)) is met. Expected: f64 1e-8, f32 1e-4 (native mode).\n"
    "\n"
    "exit: 0 all passed (skips allowed), 1 a case failed, 2 bad usage, 3 a runtime error,\n"
    "      4 regressed against --baseline, 6 --device LIST: a device's output differs,\n"
    "      77 nothing could run (no CUDA device)\n";

/* When no op matches the --op glob, name the ones that exist. */
static void print_valid_ops(const char *glob)
{
    for (const gv_op *const *op = gv_registry(); *op; op++)
        if (fnmatch(glob, (*op)->name, 0) == 0) return;
    fputs("gpuval: valid ops:", stderr);
    for (const gv_op *const *op = gv_registry(); *op; op++)
        fprintf(stderr, " %s", (*op)->name);
    fputc('\n', stderr);
}

int gv_cmd_check(int argc, char **argv)
{
    gv_selection sel = {.dist = -1};
    const char *json_path = NULL, *size_spec = NULL, *save_path = NULL, *baseline_path = NULL,
               *device_spec = NULL;
    bool force = false;
    int quiet = 0;
    enum {
        O_OP = 256,
        O_DTYPE,
        O_MODE,
        O_SIZE,
        O_DIST,
        O_SEED,
        O_PLANTED,
        O_JSON,
        O_TEST,
        O_SAVE,
        O_BASELINE,
        O_FORCE,
        O_DEVICE
    };
    static const struct option opts[] = {
        {"op", required_argument, 0, O_OP},     {"dtype", required_argument, 0, O_DTYPE},
        {"mode", required_argument, 0, O_MODE}, {"size", required_argument, 0, O_SIZE},
        {"dist", required_argument, 0, O_DIST}, {"seed", required_argument, 0, O_SEED},
        {"planted", no_argument, 0, O_PLANTED}, {"json", required_argument, 0, O_JSON},
        {"save", required_argument, 0, O_SAVE}, {"baseline", required_argument, 0, O_BASELINE},
        {"force", no_argument, 0, O_FORCE},     {"device", required_argument, 0, O_DEVICE},
        {"test-sizes", no_argument, 0, O_TEST}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0; /* gv_bad_option names a bad option, escaped */
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case O_OP: sel.op_glob = optarg; break;
        case O_DTYPE:
            if (gv_parse_dtype_list(optarg, &sel.dtypes)) return GV_EXIT_USAGE;
            break;
        case O_MODE:
            if (gv_parse_mode_list(optarg, &sel.modes)) return GV_EXIT_USAGE;
            break;
        case O_SIZE: size_spec = optarg; break;
        case O_DIST:
            if (gv_parse_dist(optarg, &sel.dist)) return GV_EXIT_USAGE;
            break;
        case O_SEED:
            if (gv_parse_seed(optarg, &sel.seed)) return GV_EXIT_USAGE;
            break;
        case O_PLANTED: sel.planted = true; break;
        case O_JSON: json_path = optarg; break;
        case O_SAVE: save_path = optarg; break;
        case O_BASELINE: baseline_path = optarg; break;
        case O_FORCE: force = true; break;
        case O_DEVICE: device_spec = optarg; break;
        case O_TEST: sel.test_shapes = true; break;
        case 'q': quiet = 1; break;
        case 'h': fputs(check_help, stdout); return GV_EXIT_OK;
        default:
            gv_bad_option("check", argv);
            fputs(check_help, stderr);
            return GV_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        gv_usage_error("check takes no positional arguments ('%s'); see gpuval check --help",
                       argv[optind]);
        return GV_EXIT_USAGE;
    }
    gv_device_plan plan;
    int plan_rc = gv_device_plan_make(device_spec, &plan);
    if (plan_rc >= 0) return plan_rc;
    if (plan.n > 1 && (save_path || baseline_path)) {
        gv_usage_error("--save and --baseline take one device's run; with several, use --json");
        return GV_EXIT_USAGE;
    }
    char json_buf[4096], save_buf[4096];
    const char *json_asked = json_path, *save_asked = save_path;
    json_path = gv_device_plan_path(&plan, json_path, json_buf, sizeof json_buf);
    save_path = gv_device_plan_path(&plan, save_path, save_buf, sizeof save_buf);
    if ((json_asked && !json_path) || (save_asked && !save_path)) return GV_EXIT_USAGE;
    char err[512] = "";
    gv_shape shapes[64];
    if (size_spec && gv_parse_sizes(size_spec, shapes, 64, &sel) != 0) return GV_EXIT_USAGE;
    struct stat st_save;
    if (save_path && !force && stat(save_path, &st_save) == 0) {
        gv_usage_error("--save %s exists: a baseline is replaced only with --force", save_path);
        return GV_EXIT_USAGE;
    }
    const char *outs[2] = {json_path, save_path}, *out_opts[2] = {"--json", "--save"};
    if (gv_probe_outputs(2, outs, out_opts) != 0) return GV_EXIT_USAGE;
    json_t *baseline = NULL;
    if (baseline_path) {
        json_error_t jerr;
        baseline = json_load_file(baseline_path, 0, &jerr);
        const char *schema =
            baseline ? json_string_value(json_object_get(baseline, "schema")) : NULL;
        if (!baseline || !schema || strcmp(schema, GV_SCHEMA) != 0) {
            if (!baseline)
                gv_usage_error("--baseline %s: %s (line %d, column %d)", baseline_path, jerr.text,
                               jerr.line, jerr.column);
            else
                gv_usage_error("--baseline %s is not a %s run (check --json or --save writes one)",
                               baseline_path, GV_SCHEMA);
            json_decref(baseline);
            return GV_EXIT_USAGE;
        }
    }
    gv_case *cases = NULL;
    int n = gv_select(&sel, &cases, err, sizeof err);
    if (n < 0) {
        gv_usage_error("%s", err);
        if (sel.op_glob) print_valid_ops(sel.op_glob);
        return GV_EXIT_USAGE;
    }
    if (n == 0) {
        gv_usage_error("no case matches the selection (an op's dtypes and modes: gpuval list)");
        free(cases);
        return GV_EXIT_USAGE;
    }

    if (plan.n > 1) {
        free(cases);
        json_decref(baseline);
        return gv_fleet_check(&plan, argc, argv, json_path, quiet);
    }
    gv_run_info info;
    gv_run_start(&info, "check", argc, argv);
    char *joined = (char *)info.argv_joined;

    gv_result *results = calloc((size_t)n, sizeof *results);
    if (!results) {
        free(cases);
        free(joined);
        return GV_EXIT_RUNTIME;
    }
    gv_summary sum = {0};
    bool progress = isatty(2);
    if (!quiet) gv_table_header(stdout);
    for (int i = 0; i < n; i++) {
        if (progress) {
            char label[160];
            fprintf(stderr, "\r[%d/%d] %-70s", i + 1, n,
                    gv_case_label(&cases[i], label, sizeof label));
            fflush(stderr);
        }
        gv_run_case(&cases[i], &gv_default_tiers, &results[i]);
        if (progress) fprintf(stderr, "\r%-80s\r", "");
        gv_summary_add(&sum, &results[i]);
        if (!quiet || results[i].verdict == GV_FAIL || results[i].verdict == GV_ERROR)
            gv_table_row(stdout, &results[i]);
        fflush(stdout);
    }
    gv_summary_print(stdout, &sum);
    bool lost = false;
    if (save_path && gv_json_write(save_path, &info, results, n, &sum) != GV_OK) {
        gv_usage_error("could not write %s", save_path);
        lost = true;
    }
    int regressed = 0;
    if (baseline) {
        json_t *doc = gv_run_json(&info, results, n, &sum);
        gv_cmp_opts co = GV_CMP_OPTS_DEFAULT;
        gv_cmp_result cr;
        char cerr[256];
        if (gv_compare_runs(baseline, doc, &co, &cr, cerr, sizeof cerr) == GV_OK) {
            printf("\nagainst the baseline %s:\n", baseline_path);
            gv_compare_print(stdout, &cr);
            regressed = cr.overall == GV_CMP_REGRESSED;
            gv_cmp_result_free(&cr);
        } else {
            gv_usage_error("comparing with %s: %s", baseline_path, cerr);
            lost = true;
        }
        json_decref(doc);
        json_decref(baseline);
    }
    if (json_path && gv_json_write(json_path, &info, results, n, &sum) != GV_OK) {
        gv_usage_error("could not write %s", json_path);
        lost = true; /* a lost result file is a runtime error, even when every case SKIPped */
    }
    int rc = gv_exit_code(sum.fail, sum.error, sum.pass, info.have_device, lost);
    if (rc == GV_EXIT_OK && regressed) rc = GV_EXIT_REGRESSED; /* compare's exit code */
    free(results);
    free(cases);
    free(joined);
    return rc;
}
