/* merge_text.c: `gpuval merge`'s tables on the terminal and in Markdown (see merge_text.h). */
#include "render/merge_text.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/escape.h"

/* ---- probe documents (runs/merge_probe.h) ------------------------------------------------ */

/* The counts a merge ends with, as the lines below say them. */
typedef struct gv_probe_tally {
    int features, disagree, fails;
} gv_probe_tally;

/* Strings from the documents reach the terminal through gv_esc_term and Markdown through
   gv_esc_md (io/escape.h, the functions render/ uses): no document can start a line, a
   heading, a table cell, a link or a tag. */
static void term_esc(FILE *f, const char *s)
{
    gv_esc_term(f, s ? s : "");
}

static void md_esc(FILE *f, const char *s)
{
    gv_esc_md(f, s ? s : "");
}

/* s for a padded terminal cell: gv_esc_term's text cut to len - 1 bytes */
static const char *cell_of(const char *s, char *buf, size_t len)
{
    return gv_esc_term_str(s ? s : "", buf, len);
}

static void key_name(const gv_pm_key *k, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", k->row, k->feature[0] ? " " : "", k->feature);
}

/* The outlier lines of key k (terminal or Markdown list items). */
static void print_outliers(FILE *f, const gv_pm_key *k, const gv_pm_dev *devs, int n, bool md)
{
    char name[400];
    key_name(k, name, sizeof name);
    for (int d = 0; d < n; d++) {
        if (!k->outlier[d]) continue;
        fputs(md ? "- **" : "OUTLIER ", f);
        (md ? md_esc : term_esc)(f, devs[d].label);
        fputs(md ? "** (" : " (", f);
        (md ? md_esc : term_esc)(f, devs[d].file);
        fputs("): ", f);
        (md ? md_esc : term_esc)(f, name);
        fputs(" = ", f);
        (md ? md_esc : term_esc)(f, k->value[d]);
        fputs("; the others of its group: ", f);
        (md ? md_esc : term_esc)(f, k->majority[d]);
        fputc('\n', f);
    }
    if (k->undecided) {
        fputs(md ? "- undecided (no majority): " : "UNDECIDED (no majority) ", f);
        (md ? md_esc : term_esc)(f, name);
        fputs(":", f);
        for (int d = 0; d < n; d++) {
            if (!k->value[d] || k->majority[d] || k->outlier[d]) continue;
            fputc(' ', f);
            (md ? md_esc : term_esc)(f, devs[d].label);
            fputc('=', f);
            (md ? md_esc : term_esc)(f, k->value[d]);
        }
        fputc('\n', f);
    }
}

static void print_table(FILE *f, const gv_pm_key *keys, int m, const gv_pm_dev *devs, int n,
                        int quiet)
{
    int w = 12;
    char name[400], cell[64];
    for (int k = 0; k < m; k++) {
        key_name(&keys[k], name, sizeof name);
        int l = (int)strlen(cell_of(name, cell, sizeof cell));
        if (l > w) w = l;
    }
    fprintf(f, "%-*s", w, "row feature");
    for (int d = 0; d < n; d++)
        fprintf(f, "  %-10s", cell_of(devs[d].label, cell, 11));
    fputs("  agreement\n", f);
    for (int k = 0; k < m; k++) {
        const gv_pm_key *p = &keys[k];
        if (quiet && !p->disagree && !p->any_fail) continue;
        key_name(p, name, sizeof name);
        fprintf(f, "%-*s", w, cell_of(name, cell, sizeof cell));
        for (int d = 0; d < n; d++) {
            char v[40];
            snprintf(v, sizeof v, "%s%s", p->value[d] ? p->value[d] : "-", p->fail[d] ? "!" : "");
            fprintf(f, "  %-10s", cell_of(v, cell, sizeof cell));
        }
        fputs(p->undecided ? "  UNDECIDED\n" : p->disagree ? "  OUTLIER\n" : "  agree\n", f);
    }
}

/* A device's line: label, file, model and group, on the terminal or as a Markdown row. */
static void print_device(FILE *f, const gv_pm_dev *v, bool md)
{
    void (*esc)(FILE *, const char *) = md ? md_esc : term_esc;
    const char *sep = md ? " | " : "  ";
    fputs(md ? "| " : "  ", f);
    esc(f, v->label);
    fputs(sep, f);
    esc(f, v->file);
    fputs(sep, f);
    esc(f, v->model);
    if (md)
        fprintf(f, " | %d |\n", v->group);
    else
        fprintf(f, "  (group %d)\n", v->group);
}

void gv_probe_merge_print(FILE *out, const gv_probe_merged *pm, int quiet)
{
    const gv_pm_key *keys = pm->keys;
    const gv_pm_dev *devs = pm->devs;
    int n = pm->n;
    gv_probe_tally t = {pm->n_keys, pm->disagree, pm->fails};
    fprintf(out, "gpuval merge: %d probe document%s\n", n, n == 1 ? "" : "s");
    for (int d = 0; d < n; d++)
        print_device(out, &devs[d], false);
    fputc('\n', out);
    print_table(out, keys, t.features, devs, n, quiet);
    fputc('\n', out);
    for (int k = 0; k < t.features; k++)
        print_outliers(out, &keys[k], devs, n, false);
    int groups = 0;
    for (int d = 0; d < n; d++)
        groups += devs[d].group == d;
    if (groups > 1)
        fprintf(out,
                "note: %d groups of model and software: devices are compared within their "
                "group only\n",
                groups);
    fprintf(out, "%d row features on %d devices: %d agree, %d disagree, %d FAIL somewhere\n",
            t.features, n, t.features - t.disagree, t.disagree, t.fails);
}

char *gv_probe_merge_md(const gv_probe_merged *pm)
{
    const gv_pm_key *keys = pm->keys;
    const gv_pm_dev *devs = pm->devs;
    int n = pm->n;
    gv_probe_tally t = {pm->n_keys, pm->disagree, pm->fails};
    char *md = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&md, &size);
    if (!f) return NULL;
    fprintf(f, "## gpuval merge: %d probe documents\n\n", n);
    fputs("| device | file | model | group |\n|---|---|---|---|\n", f);
    for (int d = 0; d < n; d++)
        print_device(f, &devs[d], true);
    fprintf(f, "\n%d row features: %d agree, %d disagree, %d FAIL somewhere.\n\n", t.features,
            t.features - t.disagree, t.disagree, t.fails);
    for (int k = 0; k < t.features; k++)
        print_outliers(f, &keys[k], devs, n, true);
    fclose(f);
    return md;
}
