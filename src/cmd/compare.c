/* compare.c: the `compare` subcommand (see compare.h). Output paths are probed before
 * anything is read; both files are parsed and their schemas checked before anything is
 * written; files are written whole (temporary file + rename). */
#include "cmd/compare.h"
#include "io/infile.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "runs/compare_probe.h"
#include "runs/compare_runs.h"
#include "runs/run_files.h"
#include "io/outfile.h"
#include "io/probe_read.h"
#include "io/run_read.h"
#include "io/json_util.h"
#include "render/junit.h"
#include "render/render_kit.h"
#include "io/schemas.h"

/* The parser's labels for compare's options. */
enum { O_BITS = 256, O_RATIO, O_FORCE, O_MD, O_JUNIT, O_JSON };

/* compare's options, once: its parser and its --help read this table. */
static const gv_opt compare_opts[] = {
    {.name = "bits",
     .id = O_BITS,
     .arg = "N",
     .help = "accurate bits that may be lost (default 1)"},
    {.name = "ratio",
     .id = O_RATIO,
     .arg = "X",
     .help = "factor an error ratio may grow by (default 2)"},
    {.name = "force",
     .id = O_FORCE,
     .help = "judge timing even when the device fingerprints (name, uuid, driver,\n"
             "cuBLAS) differ; without it timing is INCONCLUSIVE there"},
    {.name = "md",
     .id = O_MD,
     .arg = "FILE",
     .help = "a Markdown summary for a pull-request comment; - is stdout"},
    {.name = "json",
     .id = O_JSON,
     .arg = "FILE",
     .help = "the comparison as JSON (schema gpuval-compare/1; - is stdout): each\n"
             "case's outcome and items, the overall outcome and the exit code"},
    {.name = "junit",
     .id = O_JUNIT,
     .arg = "FILE",
     .help = "JUnit XML: one testcase per matched case, failure = regressed,\n"
             "skipped = inconclusive"},
    {.name = "quiet",
     .id = 'q',
     .help = "print only what changed (each item that regressed or improved, the cases\n"
             "on one side only) and one summary line: the counts, the geometric mean of\n"
             "new/base (kernel time, error ratio) and the outcome"},
    {.name = "help", .id = 'h'},
};
const gv_opt_table gv_compare_options = {"compare", compare_opts, GV_NOPTS(compare_opts)};

static const char compare_head[] =
    "usage: gpuval compare BASE.json NEW.json [--json FILE] [--junit FILE] [--md FILE]\n"
    "                      [--bits N] [--ratio X] [--force] [-q]\n"
    "\n"
    "Regression-check NEW against BASE: two run files of one schema (gpuval check --json or\n"
    "gpuval bench --json). Cases are matched by (op, dtype, mode, dist, shape, seed); cases on\n"
    "one side only are listed. Per case:\n"
    "  accuracy  verdict PASS->FAIL regressed (FAIL->PASS improved); accurate bits lost\n"
    "            (gained) beyond --bits; error-model ratio or probabilistic R max grown\n"
    "            (shrunk) beyond --ratio times\n"
    "  timing    (bench) the hot kernel's raw samples: Mann-Whitney U test (two-sided) and\n"
    "            the ratio of medians; regressed when p < 0.01 and the new median is slower by\n"
    "            more than max(3 %, measured noise); inconclusive under 5 samples a side\n"
    "Two probe documents (gpuval probe --json): rows matched by (op, dtype, mode), features\n"
    "by name; a feature whose measured value changed is REGRESSED (\"CHANGED\", with the\n"
    "expectation and each side's verdict), even where both sides still meet the expectation;\n"
    "a row or feature on one side only, or skipped on one side, is INCONCLUSIVE. --bits,\n"
    "--ratio and --force do not apply. A probe document and a run are not compared (exit 2).\n";

static const gv_exit_line compare_exits[] = {
    {GV_EXIT_OK, "SAME or IMPROVED"},
    {GV_EXIT_USAGE,
     "usage or bad input (unreadable or invalid file, unknown or different schemas)"},
    {GV_EXIT_RUNTIME, NULL},
    {GV_EXIT_REGRESSED, "REGRESSED"},
    {GV_EXIT_INCONCLUSIVE,
     "INCONCLUSIVE (a case BASE ran is a SKIP, an ERROR after a FAIL or missing in NEW; "
     "or every timing inconclusive and nothing else decided; probe documents: a row or "
     "feature on one side only)"},
};

static const gv_help compare_help = {.head = compare_head,
                                     .opts = &gv_compare_options,
                                     .col = 16,
                                     .exits = compare_exits,
                                     .n_exits = GV_NEXITS(compare_exits)};

/* ---- the table ---------------------------------------------------------------------------- */

/* The items worth a row: those not SAME, else the case's first item. */
static bool shown(const gv_cmp_case *c, int i)
{
    if (c->outcome == GV_CMP_SAME) return i == 0;
    return c->items[i].outcome != GV_CMP_SAME;
}

/* s escaped for the terminal into buf, cut to fit. */
static const char *term(const char *s, char *buf, size_t len)
{
    return gv_rk_term_str(s, buf, len);
}

static void print_table(FILE *f, const gv_cmp_result *r, bool changed_only)
{
    int wc = 4, ww = 12, wb = 4;
    char bn[400], name[400], what[128], base[160], new_[160], why[400];
    for (int k = 0; k < r->n_cases; k++) {
        const gv_cmp_case *c = &r->cases[k];
        if (changed_only && c->outcome == GV_CMP_SAME) continue;
        term(c->op, base, sizeof base);
        term(c->name, new_, sizeof new_);
        int l = (int)(strlen(base) + 1 + strlen(new_));
        if (l > wc) wc = l;
        for (int i = 0; i < c->n_items; i++) {
            if (!shown(c, i)) continue;
            const gv_cmp_item *it = &c->items[i];
            int lw = (int)strlen(term(it->what, what, sizeof what));
            if (lw > ww) ww = lw;
            l = snprintf(bn, sizeof bn, "%s -> %s", term(it->base, base, sizeof base),
                         term(it->new_, new_, sizeof new_));
            if (l > wb) wb = l;
        }
    }
    fprintf(f, "%-*s  %-*s  %-*s  %s\n", wc, "case", ww, "what changed", wb, "base -> new",
            "outcome");
    for (int k = 0; k < r->n_cases; k++) {
        const gv_cmp_case *c = &r->cases[k];
        if (changed_only && c->outcome == GV_CMP_SAME) continue;
        snprintf(name, sizeof name, "%s %s", term(c->op, base, sizeof base),
                 term(c->name, new_, sizeof new_));
        if (c->n_items == 0) fprintf(f, "%-*s  %-*s  %-*s  SAME\n", wc, name, ww, "-", wb, "");
        for (int i = 0; i < c->n_items; i++) {
            if (!shown(c, i)) continue;
            const gv_cmp_item *it = &c->items[i];
            snprintf(bn, sizeof bn, "%s -> %s", term(it->base, base, sizeof base),
                     term(it->new_, new_, sizeof new_));
            fprintf(f, "%-*s  %-*s  %-*s  %s%s%s\n", wc, name, ww,
                    term(it->what, what, sizeof what), wb, bn, gv_cmp_outcome_name(it->outcome),
                    it->why[0] ? "  " : "", term(it->why, why, sizeof why));
        }
    }
}

/* The geometric means of new / base (gv_cmp_result) in words, into buf: "geomean new/base:
   kernel time x0.981 (12 cases), error ratio x1.000 (12 cases)", or why there is none. */
static void geomean_text(const gv_cmp_result *r, char *buf, size_t len)
{
    if (r->probe) {
        snprintf(buf, len, "no geomean (probe features are values, not ratios)");
        return;
    }
    if (r->across_seeds) {
        snprintf(buf, len,
                 "runs of different seeds (base %s, new %s): no geomean (the metrics measure "
                 "other inputs)",
                 r->seed_base, r->seed_new);
        return;
    }
    if (!r->n_geomean_time && !r->n_geomean_error) {
        snprintf(buf, len, "geomean new/base: none (no case has a ratio on both sides)");
        return;
    }
    int used = snprintf(buf, len, "geomean new/base:");
    if (r->n_geomean_time && used >= 0 && (size_t)used < len)
        used += snprintf(buf + used, len - (size_t)used, " kernel time x%.3f (%d case%s)",
                         r->geomean_time, r->n_geomean_time, r->n_geomean_time == 1 ? "" : "s");
    if (r->n_geomean_error && used >= 0 && (size_t)used < len)
        snprintf(buf + used, len - (size_t)used, "%s error ratio x%.3f (%d case%s)",
                 r->n_geomean_time ? "," : "", r->geomean_error, r->n_geomean_error,
                 r->n_geomean_error == 1 ? "" : "s");
}

/* One line per item that regressed or improved: -q's account of what changed. */
static void print_changes(FILE *f, const gv_cmp_result *r)
{
    char op[400], name[400], what[128], base[160], new_[160], why[400];
    for (int k = 0; k < r->n_cases; k++) {
        const gv_cmp_case *c = &r->cases[k];
        for (int i = 0; i < c->n_items; i++) {
            const gv_cmp_item *it = &c->items[i];
            if (it->outcome != GV_CMP_REGRESSED && it->outcome != GV_CMP_IMPROVED) continue;
            fprintf(f, "%-9s %s %s%s%s: %s %s -> %s%s%s%s\n", gv_cmp_outcome_name(it->outcome),
                    term(c->op, op, sizeof op), term(c->name, name, sizeof name),
                    c->seed[0] ? " seed " : "", c->seed, term(it->what, what, sizeof what),
                    term(it->base, base, sizeof base), term(it->new_, new_, sizeof new_),
                    it->why[0] ? " (" : "", term(it->why, why, sizeof why), it->why[0] ? ")" : "");
        }
    }
}

static void print_one_sided(FILE *f, const gv_cmp_result *r)
{
    for (int i = 0; i < r->n_only_base; i++) {
        fputs("only in base: ", f);
        gv_rk_term_esc(f, r->only_base[i]);
        fputs(r->only_base_ran && r->only_base_ran[i] ? "  (ran in the base: INCONCLUSIVE)\n"
                                                      : "\n",
              f);
    }
    for (int i = 0; i < r->n_only_new; i++) {
        fputs("only in new:  ", f);
        gv_rk_term_esc(f, r->only_new[i]);
        fputc('\n', f);
    }
}

/* -q: what changed (the items that regressed or improved, the cases on one side only) and one
   summary line: the counts, the geometric means and the outcome. */
static void print_quiet(FILE *f, const gv_cmp_result *r)
{
    char geomean[400];
    geomean_text(r, geomean, sizeof geomean);
    print_changes(f, r);
    print_one_sided(f, r);
    fprintf(f,
            "%d matched: %d regressed, %d improved, %d same, %d inconclusive; %d only in base, "
            "%d only in new",
            r->n_cases, r->count[GV_CMP_REGRESSED], r->count[GV_CMP_IMPROVED],
            r->count[GV_CMP_SAME], r->count[GV_CMP_INCONCLUSIVE], r->n_only_base, r->n_only_new);
    if (r->n_not_run > 0) fprintf(f, "; %d ran in the base and not in the new run", r->n_not_run);
    fprintf(f, "; %s; outcome: %s\n", geomean, gv_cmp_outcome_name(r->overall));
}

/* The table of changed cases, the counts, the one-sided cases, the geometric means and the
   outcome; -q: print_quiet. */
static void print_result(FILE *f, const gv_cmp_result *r, bool quiet)
{
    if (quiet) {
        print_quiet(f, r);
        return;
    }
    if (r->count[GV_CMP_SAME] < r->n_cases) print_table(f, r, true); /* changed */
    fprintf(f, "%d matched: %d regressed, %d improved, %d same, %d inconclusive\n", r->n_cases,
            r->count[GV_CMP_REGRESSED], r->count[GV_CMP_IMPROVED], r->count[GV_CMP_SAME],
            r->count[GV_CMP_INCONCLUSIVE]);
    print_one_sided(f, r);
    if (r->n_not_run > 0)
        fprintf(f, "%d case%s ran in the base and %s no verdict of %s own in the new run\n",
                r->n_not_run, r->n_not_run == 1 ? "" : "s", r->n_not_run == 1 ? "has" : "have",
                r->n_not_run == 1 ? "its" : "their");
    if (!r->probe && !r->across_seeds) { /* those two say why there is none where they begin */
        char geomean[400];
        geomean_text(r, geomean, sizeof geomean);
        fprintf(f, "%s\n", geomean);
    }
    fprintf(f, "outcome: %s\n", gv_cmp_outcome_name(r->overall));
}

void gv_cmd_compare_print(FILE *f, const gv_cmp_result *r)
{
    print_result(f, r, false);
}

/* ---- Markdown ----------------------------------------------------------------------------- */

/* One Markdown table cell's text: the report's escaping (render/render_kit.h). */
static void md_cell(FILE *f, const char *s)
{
    gv_rk_md_esc(f, s);
}

static void write_md(FILE *f, const gv_cmp_result *r)
{
    fprintf(f, "### gpuval compare: %s\n\n", gv_cmp_outcome_name(r->overall));
    fprintf(f, "%d matched cases (%s): %d regressed, %d improved, %d same, %d inconclusive.\n",
            r->n_cases,
            r->probe   ? "probe features"
            : r->bench ? "bench"
                       : "check",
            r->count[GV_CMP_REGRESSED], r->count[GV_CMP_IMPROVED], r->count[GV_CMP_SAME],
            r->count[GV_CMP_INCONCLUSIVE]);
    if (r->device_differs) {
        fputs("\n> **Warning:** the device fingerprints differ (", f);
        gv_rk_md_esc(f, r->device_why);
        fputs(").\n", f);
    }
    if (r->count[GV_CMP_SAME] < r->n_cases) {
        fputs("\n| case | what changed | base | new | outcome | why |\n"
              "|---|---|---|---|---|---|\n",
              f);
        for (int k = 0; k < r->n_cases; k++) {
            const gv_cmp_case *c = &r->cases[k];
            if (c->outcome == GV_CMP_SAME) continue;
            for (int i = 0; i < c->n_items; i++) {
                const gv_cmp_item *it = &c->items[i];
                if (it->outcome == GV_CMP_SAME) continue;
                fputs("| ", f);
                md_cell(f, c->op);
                fputc(' ', f);
                md_cell(f, c->name);
                fputs(" | ", f);
                md_cell(f, it->what);
                fputs(" | ", f);
                md_cell(f, it->base);
                fputs(" | ", f);
                md_cell(f, it->new_);
                fprintf(f, " | **%s** | ", gv_cmp_outcome_name(it->outcome));
                md_cell(f, it->why);
                fputs(" |\n", f);
            }
        }
    }
    if (r->n_only_base + r->n_only_new > 0) {
        fputs("\nCases on one side only:\n\n", f);
        for (int i = 0; i < r->n_only_base; i++) {
            fputs("- base only: ", f);
            md_cell(f, r->only_base[i]);
            fputs(r->only_base_ran && r->only_base_ran[i] ? " (ran in the base: **INCONCLUSIVE**)\n"
                                                          : "\n",
                  f);
        }
        for (int i = 0; i < r->n_only_new; i++) {
            fputs("- new only: ", f);
            md_cell(f, r->only_new[i]);
            fputc('\n', f);
        }
    }
}

/* ---- JUnit -------------------------------------------------------------------------------- */

/* "what: base -> new (why); ..." for the items of outcome o, into buf. */
static void item_message(const gv_cmp_case *c, gv_cmp_outcome o, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->n_items; i++) {
        const gv_cmp_item *it = &c->items[i];
        if (it->outcome != o) continue;
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s: %s -> %s (%s)",
                                 used ? "; " : "", it->what, it->base, it->new_, it->why);
    }
}

/* The comparison through the one JUnit writer (render/junit.h): a matched case per testcase,
   REGRESSED a <failure>, INCONCLUSIVE <skipped>; a case the base ran that the new run lacks is
   a <skipped> testcase of its own (INCONCLUSIVE, docs/regression.md), never a pass. */
static void write_junit(FILE *f, const gv_cmp_result *r)
{
    char when[64];
    gv_json_now(when, sizeof when);
    int lost = 0;
    for (int i = 0; i < r->n_only_base; i++)
        lost += r->only_base_ran && r->only_base_ran[i];
    gv_junit_suite s = {.name = "gpuval compare",
                        .timestamp = when,
                        .tests = r->n_cases + lost,
                        .failures = r->count[GV_CMP_REGRESSED],
                        .skipped = r->count[GV_CMP_INCONCLUSIVE] + lost};
    gv_junit_begin(f, &s);
    for (int k = 0; k < r->n_cases; k++) {
        const gv_cmp_case *c = &r->cases[k];
        char name[200], msg[GV_CMP_MAX_ITEMS * 320];
        snprintf(name, sizeof name, "%s%s%s", c->name, c->seed[0] ? " seed " : "", c->seed);
        gv_junit_kind kind = c->outcome == GV_CMP_REGRESSED      ? GV_JUNIT_FAILURE
                             : c->outcome == GV_CMP_INCONCLUSIVE ? GV_JUNIT_SKIPPED
                                                                 : GV_JUNIT_PASSED;
        item_message(c, c->outcome, msg, sizeof msg);
        gv_junit_case(f, c->op, name, 0, kind, gv_cmp_outcome_name(c->outcome), msg, msg);
    }
    for (int i = 0; i < r->n_only_base; i++)
        if (r->only_base_ran && r->only_base_ran[i])
            gv_junit_case(f, "gpuval compare", r->only_base[i], 0, GV_JUNIT_SKIPPED, NULL,
                          "ran in the base run, missing from the new run", NULL);
    gv_junit_end(f);
}

/* ---- JSON --------------------------------------------------------------------------------- */

/* The exit code of an outcome (compare's table of exit codes). */
static int outcome_exit(gv_cmp_outcome o)
{
    return o == GV_CMP_REGRESSED      ? GV_EXIT_REGRESSED
           : o == GV_CMP_INCONCLUSIVE ? GV_EXIT_INCONCLUSIVE
                                      : GV_EXIT_OK;
}

static json_t *one_sided_json(char **keys, const bool *ran, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(
            a, json_pack("{s:o, s:b}", "case", gv_json_bytes(keys[i]), "ran", ran ? ran[i] : 0));
    return a;
}

/* {"schema": "gpuval-compare/1", "kind", "outcome", "exit_code", "counts", "not_run",
   "device_differs", "device_why", "cases": [{"op", "name", "seed", "outcome", "items": [{"what",
   "base", "new", "outcome", "why"}]}], "only_base": [{"case", "ran"}], "only_new": [...]} */
static json_t *compare_json(const gv_cmp_result *r)
{
    json_t *cases = json_array();
    for (int k = 0; k < r->n_cases; k++) {
        const gv_cmp_case *c = &r->cases[k];
        json_t *items = json_array();
        for (int i = 0; i < c->n_items; i++) {
            const gv_cmp_item *it = &c->items[i];
            json_array_append_new(
                items,
                json_pack("{s:o, s:o, s:o, s:s, s:o}", "what", gv_json_bytes(it->what), "base",
                          gv_json_bytes(it->base), "new", gv_json_bytes(it->new_), "outcome",
                          gv_cmp_outcome_name(it->outcome), "why", gv_json_bytes(it->why)));
        }
        json_array_append_new(cases, json_pack("{s:o, s:o, s:o, s:s, s:o}", "op",
                                               gv_json_bytes(c->op), "name", gv_json_bytes(c->name),
                                               "seed", gv_json_bytes(c->seed), "outcome",
                                               gv_cmp_outcome_name(c->outcome), "items", items));
    }
    json_t *counts = json_object();
    for (int o = 0; o < 4; o++)
        json_object_set_new(counts, gv_cmp_outcome_name((gv_cmp_outcome)o),
                            json_integer(r->count[o]));
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string(gv_schema(GV_DOC_COMPARE)));
    json_object_set_new(doc, "kind",
                        json_string(r->probe   ? "probe"
                                    : r->bench ? "bench"
                                               : "check"));
    json_object_set_new(doc, "outcome", json_string(gv_cmp_outcome_name(r->overall)));
    json_object_set_new(doc, "exit_code", json_integer(outcome_exit(r->overall)));
    json_object_set_new(doc, "matched", json_integer(r->n_cases));
    json_object_set_new(doc, "counts", counts);
    json_object_set_new(doc, "not_run", json_integer(r->n_not_run));
    json_object_set_new(doc, "device_differs", json_boolean(r->device_differs));
    json_object_set_new(doc, "device_why", gv_json_bytes(r->device_why));
    json_object_set_new(doc, "across_seeds",
                        r->across_seeds
                            ? json_pack("{s:s, s:s}", "base", r->seed_base, "new", r->seed_new)
                            : json_null());
    json_object_set_new(doc, "cases", cases);
    json_object_set_new(doc, "only_base",
                        one_sided_json(r->only_base, r->only_base_ran, r->n_only_base));
    json_object_set_new(doc, "only_new", one_sided_json(r->only_new, NULL, r->n_only_new));
    return doc;
}

static void write_json(FILE *f, const gv_cmp_result *r)
{
    json_t *doc = compare_json(r);
    if (json_dumpf(doc, f, JSON_INDENT(1)) == 0) fputc('\n', f);
    json_decref(doc);
}

struct emit_ctx {
    void (*fn)(FILE *, const gv_cmp_result *);
    const gv_cmp_result *r;
};

static int emit(FILE *f, void *ctx)
{
    const struct emit_ctx *c = ctx;
    c->fn(f, c->r);
    return ferror(f) ? -1 : 0;
}

int gv_cmd_compare_write(FILE *f, const gv_cmp_result *r, bool markdown)
{
    (markdown ? write_md : write_junit)(f, r);
    return ferror(f) ? -1 : 0;
}

/* Write path whole through gv_write_file ("-" is stdout). 0 or -1 with errno. */
static int write_file(const char *path, void (*fn)(FILE *, const gv_cmp_result *),
                      const gv_cmp_result *r)
{
    struct emit_ctx c = {fn, r};
    return gv_write_file(path, emit, &c);
}

/* ---- the command -------------------------------------------------------------------------- */

/* A run through the strict reader (io/run_read.h): NULL, said, when the file breaks it. */
static json_t *load(const char *path)
{
    const char *const schemas[] = {gv_schema(GV_DOC_RUN), gv_schema(GV_DOC_BENCH),
                                   gv_schema(GV_DOC_PROBE), NULL};
    char err[1024];
    json_t *doc;
    if (gv_run_read(path, schemas, &doc, err, sizeof err) != GV_OK) gv_usage_error("%s", err);
    return doc;
}

static int parse_pos(const char *s, const char *opt, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0) || v > 1e300) {
        gv_usage_error("%s wants a non-negative number ('%s')", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* The two loaded runs (named names[0] and names[1]) compared, printed and written to the files
   asked for; returns the exit code. */
static int compare_docs(json_t *base, json_t *new_doc, const gv_cmp_opts *o, char **names,
                        const char *md, const char *junit, const char *json, bool quiet)
{
    gv_cmp_result r;
    char err[512] = "";
    const char *sb = gv_jstr(base, "schema"), *sn = gv_jstr(new_doc, "schema");
    bool pb = strcmp(sb, gv_schema(GV_DOC_PROBE)) == 0,
         pn = strcmp(sn, gv_schema(GV_DOC_PROBE)) == 0;
    if (pb != pn) { /* a fingerprint and a run measure different things */
        gv_usage_error("compare %s %s: cannot compare a probe document (%s) with a %s run (%s)",
                       names[0], names[1], gv_schema(GV_DOC_PROBE),
                       gv_schema_is(pb ? sn : sb, GV_DOC_BENCH) ? "bench" : "check", pb ? sn : sb);
        return GV_EXIT_USAGE;
    }
    int rc = pb ? gv_compare_probes(base, new_doc, &r, err, sizeof err)
                : gv_compare_runs(base, new_doc, o, &r, err, sizeof err);
    if (rc == GV_EINVAL) {
        gv_usage_error("compare %s %s: %s", names[0], names[1], err);
        return GV_EXIT_USAGE;
    }
    if (rc != GV_OK) {
        gv_usage_error("compare: out of memory");
        return GV_EXIT_RUNTIME;
    }
    if (r.device_differs)
        fprintf(stderr, "gpuval: warning: device fingerprints differ (%s)%s\n", r.device_why,
                r.bench && !o->force ? "; timing is INCONCLUSIVE (--force to judge it)" : "");
    if (r.across_seeds && !quiet) /* -q: in its summary line */
        printf("runs of different seeds (base %s, new %s): cases matched without their seed; "
               "verdicts judged, the metrics of other inputs shown and not judged\n",
               r.seed_base, r.seed_new);
    if (r.probe && !quiet) { /* across a driver or library update the fingerprints are the point */
        char dev[400];
        gv_fleet_model_text(base, dev, sizeof dev);
        fputs("base: ", stdout);
        gv_rk_term_esc(stdout, dev);
        gv_fleet_model_text(new_doc, dev, sizeof dev);
        fputs("\nnew:  ", stdout);
        gv_rk_term_esc(stdout, dev);
        fputc('\n', stdout);
    }
    print_result(stdout, &r, quiet);
    int exit_rc = outcome_exit(r.overall);
    if (json && write_file(json, write_json, &r) != 0) {
        exit_rc = gv_write_exit_code(errno);
        gv_write_error(json);
    }
    if (md && write_file(md, write_md, &r) != 0) {
        exit_rc = gv_write_exit_code(errno);
        gv_write_error(md);
    }
    if (junit && write_file(junit, write_junit, &r) != 0) {
        exit_rc = gv_write_exit_code(errno);
        gv_write_error(junit);
    }
    gv_cmp_result_free(&r);
    return exit_rc;
}

int gv_cmd_compare(int argc, char **argv)
{
    const char *md = NULL, *junit = NULL, *json = NULL;
    bool quiet = false;
    gv_cmp_opts o = GV_CMP_OPTS_DEFAULT;
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_compare_options);
    int c;
    while ((c = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        switch (c) {
        case O_JUNIT: junit = optarg; break;
        case O_JSON: json = optarg; break;
        case O_MD: md = optarg; break;
        case O_BITS:
            if (parse_pos(optarg, "--bits", &o.bits)) return GV_EXIT_USAGE;
            break;
        case O_RATIO:
            if (parse_pos(optarg, "--ratio", &o.ratio)) return GV_EXIT_USAGE;
            if (o.ratio < 1) {
                gv_usage_error("--ratio wants a factor >= 1 ('%s')", optarg);
                return GV_EXIT_USAGE;
            }
            break;
        case O_FORCE: o.force = true; break;
        case 'q': quiet = true; break;
        case 'h': gv_cmd_help_print(stdout, &compare_help); return GV_EXIT_OK;
        default: gv_cmd_bad_option("compare", argv); return GV_EXIT_USAGE;
        }
    }
    if (optind != argc - 2) {
        gv_cmd_usage_cmd("compare", "compare takes two run files, BASE and NEW (%d given)",
                         argc - optind);
        return GV_EXIT_USAGE;
    }
    const char *outs[3] = {md, junit, json}, *names[3] = {"--md", "--junit", "--json"};
    const char *ins[2] = {argv[optind], argv[optind + 1]};
    if (gv_probe_outputs(3, outs, names) != 0 || gv_probe_not_inputs(3, outs, names, 2, ins) != 0)
        return GV_EXIT_USAGE;
    json_t *base = load(argv[optind]);
    json_t *new_doc = base ? load(argv[optind + 1]) : NULL;
    int rc = base && new_doc
                 ? compare_docs(base, new_doc, &o, argv + optind, md, junit, json, quiet)
                 : GV_EXIT_USAGE;
    json_decref(base);
    json_decref(new_doc);
    return rc;
}
