/* report_cmd.c: the `report` subcommand (see report_cmd.h). Outputs are probed before anything
 * is read, the input is parsed and its schema checked before anything is written. */
#include "cmd/report.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "render/render.h"

static const char report_help[] =
    "usage: gpuval report RUN.json [--html FILE] [--md FILE]\n"
    "\n"
    "Render a gpuval run file (check, bench or trade-offs: by its \"schema\") for people.\n"
    "  --html FILE  one self-contained HTML page: tables and inline SVG charts, no script,\n"
    "               nothing fetched; every number is the file's (each cell's data-v)\n"
    "  --md FILE    Markdown tables for a pull request; - is stdout\n"
    "At least one of --html and --md. Files are written whole (temporary file + rename).\n"
    "Exits 2 on bad usage, an unreadable or invalid file, or an unknown schema.\n";

int gv_cmd_report(int argc, char **argv)
{
    const char *html = NULL, *md = NULL;
    static const struct option opts[] = {{"html", required_argument, 0, 'H'},
                                         {"md", required_argument, 0, 'm'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0; /* gv_bad_option names a bad option, escaped */
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'H': html = optarg; break;
        case 'm': md = optarg; break;
        case 'h': fputs(report_help, stdout); return GV_EXIT_OK;
        default:
            gv_bad_option("report", argv);
            fputs(report_help, stderr);
            return GV_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        gv_usage_error("report takes one run file (%d given)", argc - optind);
        fputs(report_help, stderr);
        return GV_EXIT_USAGE;
    }
    if (!html && !md) {
        gv_usage_error("report needs --html FILE or --md FILE");
        return GV_EXIT_USAGE;
    }
    const char *outs[2] = {html, md}, *out_opts[2] = {"--html", "--md"};
    if (gv_probe_outputs(2, outs, out_opts) != 0) return GV_EXIT_USAGE;
    const char *in = argv[optind];
    json_error_t err;
    json_t *doc = json_load_file(in, 0, &err);
    if (!doc) {
        if (err.line < 0) /* not parsed at all: unreadable */
            gv_usage_error("%s: %s", in, err.text);
        else
            gv_usage_error("%s: line %d, column %d: %s", in, err.line, err.column, err.text);
        return GV_EXIT_USAGE;
    }
    if (gv_render_kind_of(doc) == GV_RENDER_UNKNOWN) {
        const char *s = json_string_value(json_object_get(doc, "schema"));
        if (s)
            gv_usage_error("%s: unknown schema '%s' (known: %s)", in, s, GV_RENDER_SCHEMAS);
        else
            gv_usage_error("%s: no \"schema\" string; not a gpuval run file (known: %s)", in,
                           GV_RENDER_SCHEMAS);
        json_decref(doc);
        return GV_EXIT_USAGE;
    }
    int rc = GV_EXIT_OK;
    if (html && gv_render_write(html, doc, true) != 0) {
        gv_usage_error("writing %s: %s", html, strerror(errno));
        rc = GV_EXIT_RUNTIME;
    }
    if (rc == GV_EXIT_OK && md && gv_render_write(md, doc, false) != 0) {
        gv_usage_error("writing %s: %s", md, strerror(errno));
        rc = GV_EXIT_RUNTIME;
    }
    json_decref(doc);
    return rc;
}
