/* probe.c: `gpuval probe`, the arithmetic fingerprint of every mode of a GEMM (src/probe/),
 * judged against the expectation file of the device's architecture (probe/sm_XY.expect), and
 * the replay of random dot products against the published block-FMA model of the architecture.
 * docs/probe.md describes the features, the constructions and the files. */
#include "cmd/probe.h"

#include <fnmatch.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cli.h"
#include "io/json_util.h"
#include "io/run_doc.h"
#include "probe/expect.h"
#include "probe/fprint_device.h"
#include "probe/probe_doc.h"
#include "probe/replay.h"
#include "io/schemas.h"

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
             "100000; 0: none)"},
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

/* One (op, dtype, mode): measured, judged and written through the probe wing's document
   (probe/probe_doc.h), which compare, report and merge read back. */
typedef gv_probe_row row;

static void judge_row(row *r, const gv_fp_expect *e, const gv_fp_print *first, bool count)
{
    for (int f = 0; f < GV_FP_NFEATURES; f++) {
        r->rule[f] = e ? gv_fp_expect_find(e, r->op->name, r->dtype, r->mode, f) : NULL;
        gv_fp_verdict v = gv_fp_judge(r->rule[f], &r->fp.f[f]);
        if (first && strcmp(first->f[f].text, r->fp.f[f].text) != 0) {
            r->changed[f]++;
            v = GV_FP_FAIL;
        }
        if (count && v == GV_FP_FAIL) r->fails++;
        if (!first || v == GV_FP_FAIL) r->v[f] = v;
    }
}

static int emit_json(FILE *f, void *ctx)
{
    return json_dumpf((json_t *)ctx, f, JSON_INDENT(1) | JSON_SORT_KEYS) == 0 &&
                   fputc('\n', f) != EOF
               ? 0
               : -1;
}

int gv_cmd_probe(int argc, char **argv)
{
    const char *ops = "gemm.cublas", *json_path = NULL, *expect_path = NULL;
    unsigned modes = ~0u, dtypes = (1u << GV_F32) | (1u << GV_F64);
    long repeat = 1, replay = 100000;
    bool quiet = false;
    gv_getopt g;
    gv_getopt_init(&g, &gv_probe_options);
    for (int c; (c = gv_getopt_next(&g, argc, argv)) != -1;) {
        char *end = NULL;
        switch (c) {
        case O_OP: ops = optarg; break;
        case O_MODE:
            if (gv_parse_mode_list(optarg, &modes) < 0) return GV_EXIT_USAGE;
            break;
        case O_DTYPE:
            if (gv_parse_dtype_list(optarg, &dtypes) < 0) return GV_EXIT_USAGE;
            break;
        case O_JSON: json_path = optarg; break;
        case O_EXPECT: expect_path = optarg; break;
        case O_REPEAT:
            repeat = strtol(optarg, &end, 10);
            if (!*optarg || *end || repeat < 1 || repeat > 1000) {
                gv_usage_error("--repeat takes 1..1000, not '%s'", optarg);
                return GV_EXIT_USAGE;
            }
            break;
        case O_REPLAY:
            replay = strtol(optarg, &end, 10);
            if (!*optarg || *end || replay < 0 || replay > 100000000) {
                gv_usage_error("--replay takes 0..100000000, not '%s'", optarg);
                return GV_EXIT_USAGE;
            }
            break;
        case O_QUIET: quiet = true; break;
        case 'h': gv_help_print(stdout, &probe_help); return GV_EXIT_OK;
        default: gv_bad_option("probe", argv); return GV_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        gv_usage_cmd("probe", "probe takes no operands ('%s')", argv[optind]);
        return GV_EXIT_USAGE;
    }
    const char *outs[] = {json_path};
    const char *out_opts[] = {"--json"};
    if (gv_probe_outputs(1, outs, out_opts) != 0) return GV_EXIT_USAGE;

    /* a named expectation file is the user's input: read it (a malformed one is exit 2,
       file and line named) before looking for a device, so that its faults show anywhere */
    gv_fp_expect ex;
    char err[700];
    bool have_expect = false;
    if (expect_path) {
        if (gv_fp_expect_read(expect_path, &ex, err, sizeof err) != GV_OK) {
            gv_usage_error("--expect: %s", err);
            return GV_EXIT_USAGE;
        }
        have_expect = true;
    }

    /* the selection: probeable ops matching the globs (planted ones only by exact name) */
    int cap = 64, n = 0;
    row *rows = calloc((size_t)cap, sizeof *rows);
    if (!rows) {
        if (have_expect) gv_fp_expect_free(&ex);
        return GV_EXIT_RUNTIME;
    }
    bool any_op = false;
    for (const gv_op *const *p = gv_registry(); *p; p++) {
        const gv_op *op = *p;
        bool named = false;
        if (!gv_fp_op_probeable(op) || !gv_op_matches(ops, op->name, &named)) continue;
        if (op->planted_bug && !named) continue;
        any_op = true;
        for (int t = 0; t < GV_NDTYPES; t++)
            for (int m = 0; m < GV_NMODES; m++) {
                gv_fp_arith a;
                if (!(dtypes & (1u << t)) || !(modes & (1u << m)) ||
                    !gv_mode_ok(op, (gv_dtype)t, (gv_mode)m) ||
                    gv_fp_arith_of((gv_dtype)t, (gv_mode)m, &a) != GV_OK)
                    continue;
                if (n == cap) {
                    row *grown = realloc(rows, sizeof *rows * (size_t)(cap *= 2));
                    if (!grown) {
                        if (have_expect) gv_fp_expect_free(&ex);
                        free(rows);
                        return GV_EXIT_RUNTIME;
                    }
                    rows = grown;
                }
                rows[n++] = (row){.op = op, .dtype = (gv_dtype)t, .mode = (gv_mode)m};
            }
    }
    if (!any_op || !n) {
        gv_usage_error("no probeable op and mode matches --op '%s' (gemm-family ops: C = A B)",
                       ops);
        if (have_expect) gv_fp_expect_free(&ex);
        free(rows);
        return GV_EXIT_USAGE;
    }

    gv_run_info info;
    gv_run_start(&info, "probe", argc, argv);
    if (!info.have_device) {
        if (have_expect) gv_fp_expect_free(&ex);
        fprintf(stderr, "gpuval probe: no CUDA device: nothing to probe\n");
        free(rows);
        return GV_EXIT_NODEV;
    }
    int sm = info.device.cc_major * 10 + info.device.cc_minor;
    if (!expect_path) have_expect = gv_fp_expect_builtin(sm, &ex, err, sizeof err) == GV_OK;
    if (!have_expect) {
        fprintf(stderr, "gpuval probe: no expectations for sm_%d (%s): every feature is NEW\n", sm,
                err);
    } else if (strcmp(ex.arch, "*") != 0) {
        char want[16];
        snprintf(want, sizeof want, "sm_%d", sm);
        if (strcmp(ex.arch, want) != 0)
            fprintf(stderr, "gpuval probe: %s describes %s; this device is %s\n", ex.path, ex.arch,
                    want);
    }
    printf("gpuval probe: %s (%s), expectations %s%s\n", info.device.name,
           have_expect ? ex.arch : "none", have_expect ? ex.path : "none",
           have_expect ? " (version 1)" : "");

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int total_fail = 0, total_new = 0, total_pass = 0, errors = 0, replay_bad = 0;
    for (int i = 0; i < n; i++) {
        row *r = &rows[i];
        gv_fp_arith a;
        gv_fp_arith_of(r->dtype, r->mode, &a);
        gv_fp_device dev = {.op = r->op, .dtype = r->dtype, .mode = r->mode};
        gv_fp_print first;
        for (long k = 0; k < repeat; k++) {
            int rc = gv_fp_measure(&a, gv_fp_device_gemm, &dev, &r->fp, r->why, sizeof r->why);
            snprintf(r->math_mode, sizeof r->math_mode, "%s", dev.math_mode);
            if (rc != GV_OK) {
                r->skipped = true;
                if (!dev.unsupported) errors++;
                break;
            }
            judge_row(r, have_expect ? &ex : NULL, k ? &first : NULL, true);
            if (!k) first = r->fp;
        }
        if (r->skipped) {
            printf("\n%s %s %s: %s %s\n", r->op->name, gv_dtype_name(r->dtype),
                   gv_mode_name(r->mode), dev.unsupported ? "SKIP" : "ERROR", r->why);
            continue;
        }
        r->fp = first;
        /* the replay against the architecture's published model */
        const char *fmt = r->dtype == GV_F32 ? gv_replay_format(r->mode) : NULL;
        r->model = fmt && replay > 0 ? gv_bfma_find(sm, fmt) : NULL;
        if (r->model) {
            int ks[2] = {r->model->block, 256};
            /* where the probe measured a promotion interval, the model is given it */
            double pr = r->fp.f[GV_FP_PROMOTION].num;
            int promote = isfinite(pr) && pr >= 1 && pr <= 4096 ? (int)pr : 0;
            for (int q = 0; q < 2; q++) {
                int rc =
                    gv_replay_run(&a, r->model, gv_fp_device_gemm, &dev, ks[q], promote, replay,
                                  0x5eed + (uint64_t)q, &r->replay[q], r->why, sizeof r->why);
                if (rc != GV_OK) {
                    errors++;
                    fprintf(stderr, "gpuval probe: %s %s replay: %s\n", r->op->name,
                            gv_mode_name(r->mode), r->why);
                    break;
                }
                r->n_replay++;
                if (r->replay[q].agree != r->replay[q].dots && !r->model->unconfirmed) replay_bad++;
            }
        }
        int passes, fails, news;
        gv_probe_row_counts(r, &passes, &fails, &news);
        total_fail += fails;
        total_new += news;
        total_pass += passes;
        if (quiet && !fails) continue;
        printf("\n%s %s %s  [%s]  %d PASS, %d FAIL, %d NEW\n", r->op->name, gv_dtype_name(r->dtype),
               gv_mode_name(r->mode), r->math_mode, passes, fails, news);
        for (int f = 0; f < GV_FP_NFEATURES; f++) {
            if (quiet && r->v[f] != GV_FP_FAIL) continue;
            printf("  %-14s %-12s %-12s %-4s  %s%s\n", gv_fp_feature_name(f), r->fp.f[f].text,
                   r->rule[f] ? r->rule[f]->value : "-", gv_fp_verdict_name(r->v[f]),
                   r->fp.f[f].detail, r->changed[f] ? " (changed between repeats)" : "");
        }
        for (int q = 0; q < r->n_replay; q++) {
            const gv_replay_result *p = &r->replay[q];
            printf("  replay k=%-4d %lld of %lld dot products agree bit for bit with %s%s%s", p->k,
                   (long long)p->agree, (long long)p->dots, r->model->source,
                   p->promote ? " promoted every " : "",
                   r->model->unconfirmed ? " (model unconfirmed)" : "");
            if (p->promote) printf("%d in f32", p->promote);
            if (p->first_index >= 0)
                printf("; first differs: %.9g, model %.9g", p->first_got, p->first_model);
            printf("\n");
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    int fail_runs = 0;
    for (int i = 0; i < n; i++)
        fail_runs += rows[i].fails;
    printf("\n%d rows, %d features PASS, %d FAIL, %d NEW; %ld run%s of the hand-built probes "
           "(%d FAIL verdicts in all); %d replay%s short of bit for bit; %d error%s; %.1f s\n",
           n, total_pass, total_fail, total_new, repeat, repeat == 1 ? "" : "s", fail_runs,
           replay_bad, replay_bad == 1 ? "" : "s", errors, errors == 1 ? "" : "s", secs);

    /* the replay reports how far the library follows the published model; it is no verdict:
       a kernel that adds in another order is not wrong (docs/probe.md) */
    int rc = total_fail ? GV_EXIT_FAIL : GV_EXIT_OK;
    if (errors) rc = GV_EXIT_RUNTIME;
    if (json_path) {
        /* the members every run document shares (docs/schemas.md), then the probe's own */
        char when[64];
        gv_json_now(when, sizeof when);
        json_t *shared = json_object();
        json_object_set_new(shared, "tool",
                            json_pack("{s:s, s:s}", "name", "gpuval", "version", GV_VERSION));
        json_object_set_new(shared, "command", json_string("probe"));
        json_object_set_new(shared, "argv",
                            gv_json_bytes(info.argv_joined ? info.argv_joined : ""));
        json_object_set_new(shared, "created", json_string(when));
        json_object_set_new(shared, "host", gv_json_host(info.oracle_threads));
        json_object_set_new(shared, "build", gv_json_build());
        json_object_set_new(shared, "env", gv_json_env());
        json_object_set_new(shared, "device", gv_json_device(&info.device));
        json_object_set_new(shared, "fleet", gv_fleet_info_json(&info.fleet));
        gv_probe_doc_info di = {.shared = shared,
                                .expect = have_expect ? &ex : NULL,
                                .repeat = repeat,
                                .seconds = secs,
                                .replays_short = replay_bad,
                                .errors = errors};
        json_t *doc = gv_probe_doc_json(&di, rows, n);
        if (gv_write_file(json_path, emit_json, doc) != 0) {
            fprintf(stderr, "gpuval probe: could not write %s\n", json_path);
            rc = GV_EXIT_RUNTIME;
        }
        json_decref(doc);
    }
    if (have_expect) gv_fp_expect_free(&ex);
    free(rows);
    return rc;
}
