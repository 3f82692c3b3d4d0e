/* probe.c: `gpuval probe`, the arithmetic fingerprint of every mode of a GEMM, judged against
 * the expectation file of the device's architecture (probe/sm_XY.expect, built in), and the
 * replay of random dot products against the published block-FMA model of the architecture.
 * This file parses the options, calls the probe wing (src/probe/probe_run.h: selection,
 * measurement, judgement, replay; probe_doc.h: the document) and prints through
 * src/render/probe_text.h. docs/probe.md describes the features, the constructions and the
 * files. */
#include "cmd/probe.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cli.h"
#include "io/json_util.h"
#include "io/outfile.h"
#include "io/run_doc.h"
#include "probe/probe_run.h"
#include "render/probe_text.h"

enum { O_OP = 256, O_MODE, O_DTYPE, O_JSON, O_EXPECT, O_REPEAT, O_REPLAY, O_QUIET = 'q' };

static const gv_opt probe_opts[] = {
    {.name = "op",
     .id = O_OP,
     .arg = "GLOBS",
     .help = "gemm-family ops to probe, comma-separated globs (default gemm.cublas: the\n"
             "cuBLAS call the trade-off table times). A planted impostor is probed only\n"
             "when named"},
    {.name = "mode",
     .id = O_MODE,
     .arg = "LIST",
     .help = "modes (default: every mode the op takes that has a format to probe)"},
    {.name = "dtype", .id = O_DTYPE, .arg = "LIST", .help = "f32, f64 or both (default both)"},
    {.name = "json", .id = O_JSON, .arg = "FILE", .help = "the fingerprint, schema gpuval-probe/1"},
    {.name = "expect",
     .id = O_EXPECT,
     .arg = "FILE",
     .help = "the expectation file (default: probe/sm_XY.expect of the device's compute\n"
             "capability, built into gpuval)"},
    {.name = "repeat",
     .id = O_REPEAT,
     .arg = "N",
     .help = "run the hand-built probes N times (default 1); every run is judged, and a\n"
             "value that changes between runs is a FAIL of that feature"},
    {.name = "replay",
     .id = O_REPLAY,
     .arg = "N",
     .help = "random dot products per tensor-core mode and length (one block, and 256\n"
             "products) against the published model of the architecture (default\n"
             "100000; 0: none); the scaled fp8 modes at 128 and 512 products, each\n"
             "against the block-FMA port and a second model"},
    {.name = "quiet", .id = O_QUIET, .help = "print the summary only"},
    {.name = "help", .id = 'h'},
};

const gv_opt_table gv_probe_options = {"probe", probe_opts, GV_NOPTS(probe_opts)};

static const char probe_head[] =
    "usage: gpuval probe [options]\n"
    "\n"
    "The arithmetic fingerprint of every precision mode of a GEMM, measured through the\n"
    "op's own call with hand-built operands (no oracle, no timing): the operands' bits and\n"
    "rounding, exact products, the block (fused multiply-add) size and order, extra\n"
    "alignment bits, the rounding of blocks and of carries, the accumulator's width and\n"
    "promotion, subnormals in and out, fixed-point rows (emulations), monotonicity and\n"
    "determinism. Each feature is judged against the expectation file of the device's\n"
    "architecture: PASS, FAIL (it differs), NEW (no expectation: confirm the measured value).\n"
    "\n";

static const char probe_tail[] = "\n"
                                 "Features (docs/probe.md has each construction):\n"
#define GV_FP_HELP_LINE_(e, name, help) "  " name "\n      " help "\n"
    GV_FP_FEATURES(GV_FP_HELP_LINE_)
#undef GV_FP_HELP_LINE_
    ;

static const gv_exit_line probe_exits[] = {
    {GV_EXIT_OK, "every feature PASS or NEW (the replay is reported, not judged)"},
    {GV_EXIT_FAIL, "a feature FAILed its expectation (or changed between repeats)"},
    {GV_EXIT_USAGE, NULL},
    {GV_EXIT_RUNTIME, NULL},
    {GV_EXIT_NODEV, NULL},
};

static const gv_help probe_help = {.head = probe_head,
                                   .opts = &gv_probe_options,
                                   .col = 18,
                                   .tail = probe_tail,
                                   .exits = probe_exits,
                                   .n_exits = GV_NEXITS(probe_exits)};

/* The command line, parsed. */
typedef struct probe_args {
    const char *ops, *json_path, *expect_path;
    unsigned modes, dtypes;
    long repeat, replay;
    bool quiet;
} probe_args;

/* A count option's value in lo..hi: GV_OK, or a usage error naming the option. */
static int count_arg(const char *opt, const char *text, long lo, long hi, long *out)
{
    char *end = NULL;
    *out = strtol(text, &end, 10);
    if (!*text || *end || *out < lo || *out > hi) {
        gv_usage_error("--%s takes %ld..%ld, not '%s'", opt, lo, hi, text);
        return GV_EINVAL;
    }
    return GV_OK;
}

/* -1 to go on with a, else the exit code (--help, a usage error). */
static int parse_args(int argc, char **argv, probe_args *a)
{
    *a = (probe_args){.ops = "gemm.cublas",
                      .modes = ~0u,
                      .dtypes = (1u << GV_F32) | (1u << GV_F64),
                      .repeat = 1,
                      .replay = 100000};
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_probe_options);
    for (int c; (c = gv_cmd_getopt_next(&g, argc, argv)) != -1;) {
        int rc = GV_OK;
        switch (c) {
        case O_OP: a->ops = optarg; break;
        case O_MODE: rc = gv_cmd_parse_mode_list(optarg, &a->modes) < 0 ? GV_EINVAL : GV_OK; break;
        case O_DTYPE: rc = gv_cmd_parse_dtype_list(optarg, &a->dtypes) < 0 ? GV_EINVAL : GV_OK; break;
        case O_JSON: a->json_path = optarg; break;
        case O_EXPECT: a->expect_path = optarg; break;
        case O_REPEAT: rc = count_arg("repeat", optarg, 1, 1000, &a->repeat); break;
        case O_REPLAY: rc = count_arg("replay", optarg, 0, 100000000, &a->replay); break;
        case O_QUIET: a->quiet = true; break;
        case 'h': gv_cmd_help_print(stdout, &probe_help); return GV_EXIT_OK;
        default: gv_cmd_bad_option("probe", argv); return GV_EXIT_USAGE;
        }
        if (rc != GV_OK) return GV_EXIT_USAGE;
    }
    if (optind < argc) {
        gv_cmd_usage_cmd("probe", "probe takes no operands ('%s')", argv[optind]);
        return GV_EXIT_USAGE;
    }
    const char *outs[] = {a->json_path};
    const char *out_opts[] = {"--json"};
    return gv_probe_outputs(1, outs, out_opts) != 0 ? GV_EXIT_USAGE : -1;
}

/* A glob of no registered op is read (plugins and synthetic names are legal) but judges
   nothing: a misspelt op name would leave its features NEW without a word. Each is named on
   stderr, with its line. */
static void warn_unmatched(const gv_fp_expect *ex)
{
    const gv_fp_rule *none[16];
    int k = gv_fp_expect_unmatched(ex, none, 16);
    for (int i = 0; i < k && i < 16; i++) {
        char shown[256], path[600];
        fprintf(stderr, "gpuval probe: warning: %s:%d: OPS '%s' matches no registered op\n",
                gv_printable(ex->path, path, sizeof path), none[i]->line,
                gv_printable(none[i]->ops, shown, sizeof shown));
    }
    if (k > 16) fprintf(stderr, "gpuval probe: warning: %d more such lines\n", k - 16);
}

/* The built-in expectations of compute capability sm into ex, saying on stderr where there are
   none; a user's file (read before any device is looked for) is only checked against sm. */
static bool device_expect(const probe_args *a, int sm, gv_fp_expect *ex, bool have)
{
    char err[700];
    if (!a->expect_path) have = gv_fp_expect_builtin(sm, ex, err, sizeof err) == GV_OK;
    if (!have) {
        fprintf(stderr, "gpuval probe: no expectations for sm_%d (%s): every feature is NEW\n", sm,
                err);
        return false;
    }
    char want[16];
    snprintf(want, sizeof want, "sm_%d", sm);
    if (strcmp(ex->arch, "*") != 0 && strcmp(ex->arch, want) != 0)
        fprintf(stderr, "gpuval probe: %s describes %s; this device is %s\n", ex->path, ex->arch,
                want);
    if (!a->expect_path) warn_unmatched(ex); /* a user's file was warned of when read */
    return true;
}

/* What the run counted beside the rows' verdicts. */
typedef struct probe_tally {
    int errors, replays_short;
} probe_tally;

/* Every row measured, judged, replayed and printed as it is done. */
static void probe_rows(const probe_args *a, gv_probe_row *rows, int n, const gv_fp_expect *ex,
                       int sm, probe_tally *t)
{
    for (int i = 0; i < n; i++) {
        gv_probe_row *r = &rows[i];
        if (gv_probe_measure(r, ex, a->repeat) != GV_OK) {
            if (!r->unsupported) t->errors++;
        } else if (gv_probe_replay(r, sm, a->replay) != GV_OK) {
            t->errors++;
            fprintf(stderr, "gpuval probe: %s %s replay: %s\n", r->op->name, gv_mode_name(r->mode),
                    r->why);
        }
        t->replays_short += r->skipped ? 0 : gv_probe_replays_short(r);
        json_t *row = gv_probe_row_json(r);
        gv_probe_text_row(stdout, row, r->skipped && !r->unsupported,
                          r->n_replay && r->model->unconfirmed, a->quiet);
        json_decref(row);
    }
}

static int emit_json(FILE *f, void *ctx)
{
    return json_dumpf((json_t *)ctx, f, JSON_INDENT(1) | JSON_SORT_KEYS) == 0 &&
                   fputc('\n', f) != EOF
               ? 0
               : -1;
}

/* The document of the run: its summary printed, written to --json where asked. The exit code:
   a FAIL is 1, an error 3; the replay is reported, not judged (a kernel that adds in another
   order is not wrong: docs/probe.md). */
static int finish(const probe_args *a, const gv_run_info *info, const gv_probe_row *rows, int n,
                  const gv_fp_expect *ex, const probe_tally *t, double secs)
{
    json_t *shared = json_object();
    gv_run_shared_set(shared, info);
    gv_probe_doc_info di = {.shared = shared,
                            .expect = ex,
                            .repeat = a->repeat,
                            .seconds = secs,
                            .replays_short = t->replays_short,
                            .errors = t->errors};
    json_t *doc = gv_probe_doc_json(&di, rows, n);
    if (!doc) return GV_EXIT_RUNTIME;
    gv_probe_text_summary(stdout, doc);
    int rc = gv_jint(doc, "summary.fail", 0) ? GV_EXIT_FAIL : GV_EXIT_OK;
    if (t->errors) rc = GV_EXIT_RUNTIME;
    if (a->json_path && gv_write_file(a->json_path, emit_json, doc) != 0) {
        fprintf(stderr, "gpuval probe: could not write %s\n", a->json_path);
        rc = GV_EXIT_RUNTIME;
    }
    json_decref(doc);
    return rc;
}

/* The rows on this process's device, from the head line to the document. */
static int run(const probe_args *a, gv_probe_row *rows, int n, gv_fp_expect *ex, bool have_expect,
               int argc, char **argv)
{
    gv_run_info info;
    gv_cmd_run_start(&info, "probe", argc, argv);
    if (!info.have_device) {
        fprintf(stderr, "gpuval probe: no CUDA device: nothing to probe\n");
        return GV_EXIT_NODEV;
    }
    int sm = info.device.cc_major * 10 + info.device.cc_minor;
    bool have = device_expect(a, sm, ex, have_expect);
    gv_probe_text_head(stdout, info.device.name, have ? ex->arch : NULL, have ? ex->path : NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    probe_tally t = {0};
    probe_rows(a, rows, n, have ? ex : NULL, sm, &t);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    int rc = finish(a, &info, rows, n, have ? ex : NULL, &t, secs);
    if (have && !have_expect) gv_fp_expect_free(ex);
    return rc;
}

int gv_cmd_probe(int argc, char **argv)
{
    probe_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) return rc;
    /* a named expectation file is the user's input: read it (a malformed one is exit 2,
       file and line named) before looking for a device, so that its faults show anywhere */
    gv_fp_expect ex;
    bool have_expect = false;
    if (a.expect_path) {
        char err[700];
        if (gv_fp_expect_read(a.expect_path, &ex, err, sizeof err) != GV_OK) {
            gv_usage_error("--expect: %s", err);
            return GV_EXIT_USAGE;
        }
        have_expect = true;
        warn_unmatched(&ex);
    }
    gv_probe_row *rows;
    int n;
    rc = gv_probe_select(a.ops, a.dtypes, a.modes, &rows, &n);
    if (rc == GV_EINVAL)
        gv_usage_error("no probeable op and mode matches --op '%s' (gemm-family ops: C = A B)",
                       a.ops);
    if (rc == GV_OK)
        rc = run(&a, rows, n, &ex, have_expect, argc, argv);
    else
        rc = rc == GV_EINVAL ? GV_EXIT_USAGE : GV_EXIT_RUNTIME;
    if (have_expect) gv_fp_expect_free(&ex);
    free(rows);
    return rc;
}
