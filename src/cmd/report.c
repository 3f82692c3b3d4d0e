/* report.c: the `report` subcommand (see report.h). Outputs are probed before anything
 * is read, the input is parsed and its schema checked before anything is written. */
#include "cmd/report.h"
#include "io/infile.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "io/run_read.h"
#include "render/render.h"

/* The parser's labels for report's options. */
enum { O_HTML = 256, O_MD };

/* report's options, once: its parser and its --help read this table. */
static const gv_opt report_opts[] = {
    {.name = "html",
     .id = O_HTML,
     .arg = "FILE",
     .help = "one self-contained HTML page: tables and inline SVG charts, no script,\n"
             "nothing fetched; every number is the file's (each cell's data-v)"},
    {.name = "md",
     .id = O_MD,
     .arg = "FILE",
     .help = "Markdown tables for a pull request; - is stdout"},
    {.name = "help", .id = 'h'},
};
const gv_opt_table gv_report_options = {"report", report_opts, GV_NOPTS(report_opts)};

static const char report_head[] =
    "usage: gpuval report RUN.json [--html FILE] [--md FILE]\n"
    "\n"
    "Render a gpuval document for people, by its \"schema\": check, judge, bench,\n"
    "trade-offs and probe runs with their own charts; any other document gpuval writes\n"
    "(merge, compare, screen, collectives, list --json, case.json) as its tables. Every\n"
    "report opens with what failed.\n";

static const char report_tail[] =
    "At least one of --html and --md. Files are written whole (temporary file + rename).\n";

static const gv_exit_line report_exits[] = {
    {GV_EXIT_OK, "rendered"},
    {GV_EXIT_USAGE, "bad usage, an unreadable or invalid file, an unknown schema, or a bad output"},
    {GV_EXIT_RUNTIME, "a file could not be written (the disk full, an I/O error)"},
};

static const gv_help report_help = {.head = report_head,
                                    .opts = &gv_report_options,
                                    .col = 15,
                                    .tail = report_tail,
                                    .exits = report_exits,
                                    .n_exits = GV_NEXITS(report_exits)};

int gv_cmd_report(int argc, char **argv)
{
    const char *html = NULL, *md = NULL;
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_report_options);
    int c;
    while ((c = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        switch (c) {
        case O_HTML: html = optarg; break;
        case O_MD: md = optarg; break;
        case 'h': gv_cmd_help_print(stdout, &report_help); return GV_EXIT_OK;
        default: gv_cmd_bad_option("report", argv); return GV_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        gv_cmd_usage_cmd("report", "report takes one run file (%d given)", argc - optind);
        return GV_EXIT_USAGE;
    }
    if (!html && !md) {
        gv_usage_error("report needs --html FILE or --md FILE");
        return GV_EXIT_USAGE;
    }
    const char *outs[2] = {html, md}, *out_opts[2] = {"--html", "--md"};
    const char *in = argv[optind];
    if (gv_probe_outputs(2, outs, out_opts) != 0 ||
        gv_probe_not_inputs(2, outs, out_opts, 1, &in) != 0)
        return GV_EXIT_USAGE;
    char err[1024];
    json_t *doc;
    if (gv_doc_read(in, &doc, err, sizeof err) != GV_OK) { /* the strict reader */
        gv_usage_error("%s", err);
        return GV_EXIT_USAGE;
    }
    int rc = GV_EXIT_OK;
    if (gv_render_kind_of(doc) == GV_RENDER_UNKNOWN) {
        const char *s = json_string_value(json_object_get(doc, "schema"));
        static const gv_doc_kind docs[] = GV_RENDER_DOCS;
        char known[256] = "";
        for (size_t k = 0, used = 0; k < sizeof docs / sizeof docs[0] && used < sizeof known; k++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", k ? " " : "",
                                     gv_schema(docs[k]));
        if (s)
            gv_usage_error("%s: unknown schema '%s' (known: %s)", in, s, known);
        else
            gv_usage_error("%s: no \"schema\" string; not a gpuval run file (known: %s)", in,
                           known);
        rc = GV_EXIT_USAGE;
    }
    if (rc == GV_EXIT_OK && html && gv_render_write(html, doc, true) != 0) {
        rc = gv_write_exit_code(errno);
        gv_write_error(html);
    }
    if (rc == GV_EXIT_OK && md && gv_render_write(md, doc, false) != 0) {
        rc = gv_write_exit_code(errno);
        gv_write_error(md);
    }
    json_decref(doc);
    return rc;
}
