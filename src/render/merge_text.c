/* merge_text.c: `gpuval merge`'s tables on the terminal and in Markdown (see merge_text.h). */
#include "render/merge_text.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json_util.h" /* gv_jnum, gv_jstr */
#include "render/escape.h"
#include "io/strbuf.h"
#include "runs/run_files.h"

/* ---- probe documents (runs/merge_probe.h) ------------------------------------------------ */

/* The counts a merge ends with, as the lines below say them. */
typedef struct gv_probe_tally {
    int features, disagree, fails;
} gv_probe_tally;

/* Strings from the documents reach the terminal through gv_esc_term and Markdown through
   gv_esc_md (render/escape.h, the functions render/ uses): no document can start a line, a
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

/* ---- check runs (runs/merge_check.h) ------------------------------------------------------ */

/* Strings from the run files (labels, hosts, models, case keys, verdicts, digests) reach the
   terminal through gv_esc_term and the Markdown through gv_esc_md (render/escape.h): a device
   name cannot move the cursor, nor a case key open a heading, a link or a table row. Each call
   gives a new string, kept until eight later calls (one line's worth) or esc_ring_free. */
static char *esc_ring[8];
static int esc_next;

static const char *esc_keep(char *s)
{
    free(esc_ring[esc_next]);
    esc_ring[esc_next] = s;
    esc_next = (esc_next + 1) % 8;
    return s ? s : "(out of memory)";
}

static const char *T(const char *s)
{
    return esc_keep(gv_esc_term_dup(s));
}

static const char *M(const char *s)
{
    return esc_keep(gv_esc_md_dup(s));
}

static void esc_ring_free(void)
{
    for (int i = 0; i < 8; i++) {
        free(esc_ring[i]);
        esc_ring[i] = NULL;
    }
}

/* The model groups and the device table (terminal and Markdown). */
static void fleet_devices(FILE *out, gv_strbuf *mb, const gv_fleet_merged *m)
{
    fprintf(out, "\nfleet: %d run%s, %d device model%s\n", m->n, m->n == 1 ? "" : "s", m->n_groups,
            m->n_groups == 1 ? "" : "s");
    for (int g = 0; g < m->n_groups; g++)
        fprintf(out, "  model %d: %s\n", g, T(m->groups[g]));
    fprintf(out, "%-16s %-16s %5s %-36s %-10s %-12s %5s %5s %5s %5s %11s %9s %8s\n", "device",
            "host", "model", "uuid", "pcie", "sm MHz/max", "pass", "fail", "skip", "err",
            "device ms", "vs median", "outliers");
    gv_strbuf_printf(
        mb, "| device | host | model | uuid | PCIe | SM MHz/max | pass | fail | skip | errors | "
            "device ms | vs node median | outlier cases |\n|---|---|---|---|---|---|---|---|---|"
            "---|---|---|---|\n");
    for (int d = 0; d < m->n; d++) {
        const gv_fm_dev *v = &m->devs[d];
        int g = v->model;
        char link[48], clk[32], tms[32] = "-", vsm[32] = "-";
        gv_fleet_link_text(v->doc, link, sizeof link);
        gv_fleet_clock_text(v->doc, clk, sizeof clk);
        if (isfinite(v->vs_median)) {
            snprintf(tms, sizeof tms, "%.1f", v->time_ms);
            snprintf(vsm, sizeof vsm, "%+.1f%%%s", 100 * v->vs_median, v->slow ? " SLOW" : "");
        }
        const char *uuid = gv_jstr(v->doc, "device.uuid");
        fprintf(out, "%-16s %-16.16s %5d %-36s %-10s %-12s %5d %5d %5d %5d %11s %9s %8d\n",
                T(v->label), T(v->host), g, uuid[0] ? T(uuid) : "-", T(link), T(clk), v->pass,
                v->fail, v->skip, v->error, tms, vsm, v->outlier_cases);
        gv_strbuf_printf(mb, "| %s | %s | %d | %s | %s | %s | %d | %d | %d | %d | %s | %s | %d |\n",
                         M(v->label), M(v->host), g, uuid[0] ? M(uuid) : "-", M(link), M(clk),
                         v->pass, v->fail, v->skip, v->error, tms, vsm, v->outlier_cases);
    }
}

/* The case table (quiet: only the cases that did not agree or did not pass everywhere). */
static void fleet_cases(FILE *out, gv_strbuf *mb, const gv_fleet_merged *m, int quiet)
{
    fprintf(out, "\n%-56s", "case");
    gv_strbuf_printf(mb, "\n| case |");
    for (int d = 0; d < m->n; d++) {
        fprintf(out, " %-7.16s", T(m->devs[d].label));
        gv_strbuf_printf(mb, " %s |", M(m->devs[d].label));
    }
    fprintf(out, "  outputs\n");
    gv_strbuf_printf(mb, " outputs |\n|---|");
    for (int d = 0; d <= m->n; d++)
        gv_strbuf_printf(mb, "---|");
    gv_strbuf_printf(mb, "\n");
    for (int k = 0; k < m->n_keys; k++) {
        const gv_fm_case *fc = &m->fcs[k];
        char label[512];
        gv_fleet_case_label(fc->key, label, sizeof label);
        if (!quiet || !fc->all_pass || strncmp(fc->agreement, "DIFFER", 6) == 0) {
            fprintf(out, "%-56.56s", T(label));
            gv_strbuf_printf(mb, "| %s |", M(label));
            for (int d = 0; d < m->n; d++) {
                const json_t *c = json_object_get(m->devs[d].cases, fc->key);
                fprintf(out, " %-7s", c ? T(gv_jstr(c, "verdict")) : "absent");
                gv_strbuf_printf(mb, " %s |", c ? M(gv_jstr(c, "verdict")) : "absent");
            }
            fprintf(out, "  %s\n", fc->agreement);
            gv_strbuf_printf(mb, " %s |\n", fc->agreement);
        }
    }
}

/* A case's outlier devices (every device that has it, when undecided), each with its numbers
   against the reference. */
static void fleet_case_outliers(FILE *out, gv_strbuf *mb, const gv_fleet_merged *m,
                                const gv_fm_case *fc)
{
    char label[512];
    gv_fleet_case_label(fc->key, label, sizeof label);
    const gv_fm_dev *ref = fc->reference >= 0 ? &m->devs[fc->reference] : NULL;
    const json_t *rc = ref ? json_object_get(ref->cases, fc->key) : NULL;
    for (int d = 0; d < m->n; d++) {
        if (!gv_fleet_case_outlier(m, fc, d)) continue;
        const json_t *c = json_object_get(m->devs[d].cases, fc->key);
        char line[1024];
        snprintf(line, sizeof line,
                 "%s: %s%s digest %s, max_rel %.3g, normwise %.3g, worst element %lld = %.17g "
                 "(oracle %.17g)",
                 label, m->devs[d].label, fc->undecided ? " (undecided)" : "",
                 gv_jstr(c, "output_hash"), gv_jnum(c, "metrics.max_rel"),
                 gv_jnum(c, "metrics.normwise_rel"), (long long)gv_jnum(c, "metrics.worst_index"),
                 gv_jnum(c, "metrics.worst_value"), gv_jnum(c, "metrics.worst_ref"));
        char refs[256] = "";
        if (rc)
            snprintf(refs, sizeof refs, "; reference %s: digest %s, max_rel %.3g, normwise %.3g",
                     ref->label, gv_jstr(rc, "output_hash"), gv_jnum(rc, "metrics.max_rel"),
                     gv_jnum(rc, "metrics.normwise_rel"));
        fprintf(out, "  %s%s\n", T(line), T(refs));
        gv_strbuf_printf(mb, "- %s%s\n", M(line), M(refs));
    }
}

/* The outliers, with their numbers against the reference. */
static void fleet_outliers(FILE *out, gv_strbuf *mb, const gv_fleet_merged *m)
{
    bool any_outlier = false;
    for (int k = 0; k < m->n_keys; k++) {
        const gv_fm_case *fc = &m->fcs[k];
        bool here = false;
        for (int d = 0; d < m->n; d++)
            here = here || gv_fleet_case_outlier(m, fc, d);
        if (!here) continue;
        if (!any_outlier) {
            fprintf(out, "\noutliers (output digest differs from its model's reference):\n");
            gv_strbuf_printf(
                mb, "\n**Outliers** (output digest differs from its model's reference):\n\n");
        }
        any_outlier = true;
        fleet_case_outliers(out, mb, m, fc);
    }
}

/* The notes, then the summary line. */
static void fleet_notes_summary(FILE *out, gv_strbuf *mb, const gv_fleet_merged *m)
{
    size_t i;
    json_t *nv;
    if (json_array_size(m->notes)) gv_strbuf_printf(mb, "\n");
    json_array_foreach(m->notes, i, nv)
    {
        fprintf(out, "note: %s\n", T(json_string_value(nv)));
        gv_strbuf_printf(mb, "Note: %s\n\n", M(json_string_value(nv)));
    }
    int outlier_devices = 0;
    for (int d = 0; d < m->n; d++)
        outlier_devices += m->devs[d].outlier_cases > 0;
    fprintf(out,
            "\n%d cases on %d runs: %d identical, %d differ, %d not compared; %d outlier "
            "device%s\n",
            m->n_keys, m->n, m->identical, m->differ, m->not_compared, outlier_devices,
            outlier_devices == 1 ? "" : "s");
}

void gv_fleet_merge_print(FILE *out, char **md, const gv_fleet_merged *m, int quiet)
{
    gv_strbuf mdb = {0}, *mb = md ? &mdb : NULL;
    fleet_devices(out, mb, m);
    fleet_cases(out, mb, m, quiet);
    fleet_outliers(out, mb, m);
    fleet_notes_summary(out, mb, m);
    esc_ring_free();
    if (md) *md = mdb.s;
}

/* ---- bench and tradeoffs runs (runs/merge_perf.h) ------------------------------------------ */

static void num_text(const json_t *v, const char *fmt, char *buf, size_t len)
{
    double x = v ? gv_jnum(v, "") : NAN; /* a number, or the strings "inf", "nan" */
    if (isnan(x))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fmt, x);
}

static void clocks_text(const json_t *clk, char *mhz, size_t mlen, char *thr, size_t tlen)
{
    if (!json_is_object(clk)) {
        snprintf(mhz, mlen, "-");
        snprintf(thr, tlen, "-");
        return;
    }
    snprintf(mhz, mlen, "%d/%d", gv_jint(clk, "sm_mhz_before", 0), gv_jint(clk, "sm_mhz_after", 0));
    long long r = (long long)json_integer_value(json_object_get(clk, "throttle_reasons"));
    bool slowed = json_is_true(json_object_get(clk, "throttled"));
    if (r)
        snprintf(thr, tlen, "0x%llx%s", r, slowed ? " !" : "");
    else
        snprintf(thr, tlen, "-");
}

/* The device table and the item table, as text. */
static void perf_tables(const gv_perf_merged *m, FILE *f)
{
    fprintf(f,
            "\n%s on %d device%s; time: %s; vs node: time / median of the devices of one "
            "host and model - 1, flagged over +%.0f%%\n",
            m->trade ? "tradeoffs" : "bench", m->n, m->n == 1 ? "" : "s",
            m->trade ? "hot kernel-only scope, median per call"
                     : "kernel_hot (else kernel_cold, else e2e), median",
            100 * GV_FLEET_SLOW_FRACTION);
    fprintf(f, "%-16s %-16s %-36s %-10s %-12s %6s %5s %10s  %s\n", "device", "host", "uuid", "pcie",
            "sm MHz/max", "timed", "slow", "vs node", "model");
    for (int d = 0; d < m->n; d++) {
        const gv_pf_dev *v = &m->devs[d];
        char link[48], clk[32], vs[32] = "-";
        gv_fleet_link_text(v->doc, link, sizeof link);
        gv_fleet_clock_text(v->doc, clk, sizeof clk);
        if (v->n_ratios)
            snprintf(vs, sizeof vs, "%+.1f%%", 100 * (exp(v->log_ratio_sum / v->n_ratios) - 1));
        const char *uuid = gv_jstr(v->doc, "device.uuid");
        /* every string from the documents through gv_esc_term (render/escape.h) */
        char el[256], eh[256], eu[256], ek[64], ec[64], em[512];
        fprintf(f, "%-16s %-16.16s %-36s %-10s %-12s %6d %5d %10s  %s\n",
                gv_esc_term_str(v->label, el, sizeof el), gv_esc_term_str(v->host, eh, sizeof eh),
                uuid[0] ? gv_esc_term_str(uuid, eu, sizeof eu) : "-",
                gv_esc_term_str(link, ek, sizeof ek), gv_esc_term_str(clk, ec, sizeof ec), v->timed,
                v->slow_cases, vs, gv_esc_term_str(v->model, em, sizeof em));
    }
    fprintf(f, "\n%-48s %-10s %-7s %7s %11s %-25s %-13s %-11s %s\n", "case", "device", "verdict",
            "bits", "median ms", "95% interval ms", "vs node", "SM MHz b/a",
            m->trade ? "throttle   agreement" : "throttle");
    for (int k = 0; k < m->n_keys; k++) {
        const gv_pf_key *key = &m->keys[k];
        bool first = true;
        for (int d = 0; d < m->n; d++) {
            if (!key->present[d]) continue;
            const gv_pf_item *it = &key->dev[d];
            char bits[32], med[32], ci[64] = "-", vs[32] = "-", mhz[32], thr[32];
            num_text(it->bits, "%.2f", bits, sizeof bits);
            num_text(it->median, "%.4g", med, sizeof med);
            if (it->ci)
                snprintf(ci, sizeof ci, "[%.4g, %.4g]", gv_jat(it->ci, 0), gv_jat(it->ci, 1));
            if (isfinite(it->vs))
                snprintf(vs, sizeof vs, "%+.1f%%%s", 100 * it->vs, it->slow ? " SLOW" : "");
            clocks_text(it->clocks, mhz, sizeof mhz, thr, sizeof thr);
            char line[1024], el[256], ed[256], ev[64];
            int w = snprintf(line, sizeof line,
                             "%-48.48s %-10s %-7s %7s %11s %-25s %-13s %-11s %-10s %s",
                             first ? gv_esc_term_str(key->label, el, sizeof el) : "",
                             gv_esc_term_str(m->devs[d].label, ed, sizeof ed),
                             it->verdict[0] ? gv_esc_term_str(it->verdict, ev, sizeof ev) : "-",
                             bits, med, ci, vs, mhz, thr,
                             !m->trade     ? ""
                             : first       ? key->agreement
                             : it->outlier ? "OUTLIER"
                                           : "");
            size_t end = w < 0 ? 0 : (size_t)w < sizeof line ? (size_t)w : sizeof line - 1;
            while (end > 0 && line[end - 1] == ' ')
                end--; /* no trailing blanks where a column is empty */
            fprintf(f, "%.*s\n", (int)end, line);
            first = false;
        }
    }
}

static void perf_notes(FILE *f, const json_t *notes)
{
    size_t i;
    json_t *nv;
    json_array_foreach(notes, i, nv)
    {
        fputs("note: ", f);
        gv_esc_term(f, json_string_value(nv));
        fputc('\n', f);
    }
}

/* text in a fence longer than any run of backticks in it: no string in it (a device label that
   is "```") can close the fence and go on as Markdown. NULL when out of memory. */
static char *fenced(const char *text)
{
    size_t run = 0, fence = 3;
    for (const char *p = text ? text : ""; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run >= fence) fence = run + 1;
    }
    size_t body = text ? strlen(text) : 0;
    char *md = malloc(body + 2 * fence + 3);
    if (!md) return NULL;
    char *q = md;
    memset(q, '`', fence);
    q += fence;
    *q++ = '\n';
    if (body) memcpy(q, text, body);
    q += body;
    memset(q, '`', fence);
    q += fence;
    *q++ = '\n';
    *q = '\0';
    return md;
}

void gv_perf_merge_print(FILE *out, char **md, const gv_perf_merged *m)
{
    perf_tables(m, out);
    perf_notes(out, m->notes);
    fprintf(out, "\n%d cases on %d runs: %d slow flags%s", m->n_keys, m->n, m->slow_flags,
            m->trade ? "" : "\n");
    if (m->trade)
        fprintf(out, ", %d row%s differ%s between devices\n", m->differ, m->differ == 1 ? "" : "s",
                m->differ == 1 ? "s" : "");
    if (!md) return;
    char *text = NULL;
    size_t text_len = 0;
    FILE *mem = open_memstream(&text, &text_len);
    *md = NULL;
    if (!mem) return;
    perf_tables(m, mem);
    perf_notes(mem, m->notes);
    fclose(mem);
    *md = fenced(text);
    free(text);
}
