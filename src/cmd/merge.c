/* merge.c: `gpuval merge RUN.json...` — run files of one selection (one per GPU of a node, or
 * per rank of a launch) as one fleet table: check runs through runs/merge_check.h, bench and
 * tradeoffs runs through runs/merge_perf.h, the ranks of a collectives job through
 * runs/merge_coll.h. */
#include "cmd/merge.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "io/infile.h"
#include "io/outfile.h"
#include "io/run_doc.h"
#include "render/coll_text.h"
#include "render/merge_text.h"
#include "runs/merge_check.h"
#include "runs/merge_coll.h"
#include "runs/merge_perf.h"
#include "runs/merge_probe.h"
#include "runs/run_files.h"

static int emit_json(FILE *f, void *doc)
{
    return json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
}

/* The parser's labels for merge's options. */
enum { O_JSON = 256, O_MD };

/* merge's options, once: its parser and its --help read this table. */
static const gv_opt merge_opts[] = {
    {.name = "json",
     .id = O_JSON,
     .arg = "OUT",
     .help = "write the fleet (schema gpuval-fleet/1; gpuval-fleet-perf/1 for bench\n"
             "and tradeoffs; gpuval-fleet-probe/1 for probe documents)"},
    {.name = "md",
     .id = O_MD,
     .arg = "OUT",
     .help = "write the tables as Markdown ('-' is stdout)"},
    {.name = "quiet",
     .id = 'q',
     .help = "check runs: list only the cases that did not pass everywhere or did not\n"
             "agree (probe documents: the features that disagree or FAIL somewhere)"},
    {.name = "help", .id = 'h'},
};
const gv_opt_table gv_merge_options = {"merge", merge_opts, GV_NOPTS(merge_opts)};

static const char merge_head[] =
    "usage: gpuval merge RUN.json... [--json OUT] [--md OUT] [-q]\n"
    "\n"
    "Combine run files of one selection (--json from every GPU of a node, or from every rank\n"
    "of an srun/mpirun launch) into one fleet table. The files must be of one kind: check runs\n"
    "(gpuval-run/1), bench runs (gpuval-bench/1), tradeoffs runs (gpuval-tradeoffs/1), probe\n"
    "documents (gpuval-probe/1) or the ranks of one collectives job; a mix is a usage error.\n"
    "\n"
    "collectives runs (one file per MPI rank): one table of\n"
    "every collective's verdict, #wrong and median time on each rank, the job's worst\n"
    "verdict, summed #wrong and busbw from the slowest rank, and ranks whose summed time is\n"
    "more than 10% over the ranks' median flagged SLOW.\n"
    "\n"
    "check runs: each case's verdict on every device, and whether the devices agree bit for\n"
    "bit. Devices are grouped by model, SM count, driver, runtime and cuBLAS version; within a\n"
    "group, every deterministic op's output digest must be identical. A device that differs\n"
    "from the majority (or, without one, the digest farther from the f64 oracle) is named as\n"
    "the outlier with its worst element. A GPU whose summed case time is more than 10% over\n"
    "its node's median is flagged SLOW with its PCIe link and clocks (a flag only: these are\n"
    "correctness-run times).\n"
    "\n"
    "bench and tradeoffs runs: per case and device the median time and its 95% interval, the\n"
    "time against the median of the devices of one host and model (more than 10% over it:\n"
    "SLOW, a flag only), the SM clock before/after and throttle reasons the run recorded, and\n"
    "the device's PCIe link; for tradeoffs the verdict and accurate bits per device, which must\n"
    "agree (with the output digest) across devices of one model for deterministic ops.\n"
    "\n"
    "probe documents (gpuval probe --json, one per GPU): per op, dtype, mode and feature each\n"
    "device's measured value; within a group of one model and software, a device whose value\n"
    "differs from the majority is named as the outlier with its value and the majority's (exit\n"
    "6, which outranks a FAIL of an expectation: the outlier is what the merge is for).\n"
    "\n";

static const gv_exit_line merge_exits[] = {
    {GV_EXIT_OK, "all passed and agreed"},
    {GV_EXIT_FAIL, "a case failed on some device"},
    {GV_EXIT_USAGE, "bad usage, an invalid run file or runs of different kinds"},
    {GV_EXIT_RUNTIME, "a case was an ERROR or an output was not written"},
    {GV_EXIT_OUTLIER, "a device's output differs (an outlier); probe documents: a feature's "
                      "value"},
    {GV_EXIT_NODEV, "nothing judged and no device in any run"},
};

static const gv_help merge_help = {.head = merge_head,
                                   .opts = &gv_merge_options,
                                   .col = 15,
                                   .exits = merge_exits,
                                   .n_exits = GV_NEXITS(merge_exits)};

static int emit_text(FILE *f, void *s)
{
    return fputs(s, f) < 0 ? -1 : 0;
}

/* The run files files[0..n) into docs (the caller frees them, loaded or not) and names: 0, or
   -1 after a message when one is unreadable, invalid or of another kind than the first. */
static int load_runs(char **files, int n, json_t **docs, const char **names)
{
    for (int i = 0; i < n; i++) {
        char err[512];
        names[i] = files[i];
        /* a FIFO, a directory or a device is refused before the reader could wait on it */
        FILE *probe = gv_fopen_regular(names[i], err, sizeof err);
        if (!probe) {
            gv_usage_error("%s: %s", names[i], err);
            return -1;
        }
        fclose(probe);
        if (gv_fleet_load_any(names[i], &docs[i], err, sizeof err) != GV_OK) {
            gv_usage_error("%s", err);
            return -1;
        }
        const char *first = json_string_value(json_object_get(docs[0], "schema"));
        const char *kind = json_string_value(json_object_get(docs[i], "schema"));
        if (strcmp(kind, first) != 0) {
            gv_usage_error("merge takes runs of one kind: %s is %s, %s is %s", names[0], first,
                           names[i], kind);
            return -1;
        }
    }
    return 0;
}

/* Check runs merged, their tables printed (and, when asked, written as Markdown). */
static gv_status merge_checks(json_t **docs, const char **names, int n, int quiet, json_t **fleet,
                              char **md, gv_error *e)
{
    gv_fleet_merged m;
    gv_status st = gv_fleet_merge(docs, names, n, &m, fleet, e);
    if (!e->msg[0]) gv_fleet_merge_print(stdout, md, &m, quiet);
    gv_fleet_merged_free(&m);
    return st;
}

/* Bench or tradeoffs runs merged, their tables printed (and, when asked, written as Markdown). */
static gv_status merge_perf(json_t **docs, const char **names, int n, json_t **fleet, char **md,
                            gv_error *e)
{
    gv_perf_merged *m = NULL;
    gv_status st = gv_fleet_perf_merge(docs, names, n, &m, fleet, e);
    if (m) gv_perf_merge_print(stdout, md, m);
    gv_perf_merged_free(m);
    return st;
}

/* Probe documents merged, their tables printed (and, when asked, written as Markdown). */
static gv_status merge_probes(json_t **docs, const char **names, int n, int quiet, json_t **fleet,
                              char **md)
{
    gv_probe_merged pm;
    gv_status st = gv_probe_merge(docs, names, n, &pm, fleet);
    if (!pm.keys) {
        fprintf(stderr, "gpuval merge: out of memory\n");
        return st;
    }
    gv_probe_merge_print(stdout, &pm, quiet);
    if (md) *md = gv_probe_merge_md(&pm);
    gv_probe_merged_free(&pm);
    return st;
}

/* The loaded runs merged (check runs, or bench and tradeoffs runs), printed and written to the
   files asked for; returns the exit code. */
static int merge_runs(json_t **docs, const char **names, int n, int quiet, const char *json_path,
                      const char *md_path)
{
    json_t *fleet = NULL;
    char *md = NULL;
    const char *schema = json_string_value(json_object_get(docs[0], "schema"));
    bool check_runs = gv_schema_is(schema, GV_DOC_RUN);
    bool probes = gv_schema_is(schema, GV_DOC_PROBE);
    gv_error e = {.status = GV_ST_OK};
    gv_status st =
        check_runs ? merge_checks(docs, names, n, quiet, json_path ? &fleet : NULL,
                                  md_path ? &md : NULL, &e)
        : probes
            ? merge_probes(docs, names, n, quiet, json_path ? &fleet : NULL, md_path ? &md : NULL)
            : merge_perf(docs, names, n, json_path ? &fleet : NULL, md_path ? &md : NULL, &e);
    if (e.msg[0]) return gv_cmd_fail(&e); /* refused before anything was merged */
    gv_cmd_record_exit(json_object_get(fleet, "summary"), st);
    bool lost = false;
    if (json_path && fleet && gv_write_file(json_path, emit_json, fleet) != 0) {
        gv_write_error(json_path);
        lost = true;
    }
    if (md_path && gv_write_file(md_path, emit_text, md ? md : (char *)"") != 0) {
        gv_write_error(md_path);
        lost = true;
    }
    json_decref(fleet);
    free(md);
    if (lost && (st == GV_ST_OK || st == GV_ST_OUTLIER)) st = GV_ST_RUNTIME;
    return gv_cmd_exit(st);
}

int gv_cmd_merge(int argc, char **argv)
{
    const char *json_path = NULL, *md_path = NULL;
    int quiet = 0;
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_merge_options);
    int c;
    while ((c = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        switch (c) {
        case O_JSON: json_path = optarg; break;
        case O_MD: md_path = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': gv_cmd_help_print(stdout, &merge_help); return GV_EXIT_OK;
        default: gv_cmd_bad_option("merge", argv); return GV_EXIT_USAGE;
        }
    }
    int n = argc - optind;
    if (n < 1) {
        gv_cmd_usage_cmd("merge", "merge needs at least one run file");
        return GV_EXIT_USAGE;
    }
    if (n > GV_FLEET_MAX_DEVICES) {
        gv_usage_error("merge takes at most %d run files, not %d", GV_FLEET_MAX_DEVICES, n);
        return GV_EXIT_USAGE;
    }
    const char *outs[2] = {json_path, md_path}, *out_opts[2] = {"--json", "--md"};
    if (gv_probe_outputs(2, outs, out_opts) != 0 ||
        gv_probe_not_inputs(2, outs, out_opts, n, (const char *const *)argv + optind) != 0)
        return GV_EXIT_USAGE;
    if (gv_coll_merge_is_collectives(argv[optind])) { /* collectives run as MPI ranks */
        if (json_path || md_path) {
            gv_usage_error("merge of collectives runs prints its table only (no --json, --md)");
            return GV_EXIT_USAGE;
        }
        gv_error e = {.status = GV_ST_OK};
        gv_coll_merged m;
        gv_status st = gv_coll_merge((const char *const *)argv + optind, n, &m, &e);
        if (m.merged) gv_coll_merge_print(stdout, &m, quiet);
        gv_coll_merged_free(&m);
        return gv_cmd_end(st, &e);
    }
    json_t *docs[GV_FLEET_MAX_DEVICES] = {NULL};
    const char *names[GV_FLEET_MAX_DEVICES];
    int rc = load_runs(argv + optind, n, docs, names) == 0
                 ? merge_runs(docs, names, n, quiet, json_path, md_path)
                 : GV_EXIT_USAGE;
    for (int i = 0; i < n; i++)
        json_decref(docs[i]);
    return rc;
}
