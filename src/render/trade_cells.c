/* trade_cells.c: a trade-off row's cells and its group's notes, from the document (see
 * trade_cells.h). The document keeps null for what was not measured and the strings "inf",
 * "nan" for numbers that are not finite, so the text is the same whether the row comes from
 * the run's structs (through gv_trade_group_json) or from a file read back. */
#include "render/trade_cells.h"

#include <string.h>

#include "io/json_util.h"
#include "render/render_kit.h"

const char *const gv_trade_col_names[GV_TRADE_NCOL] = {
    "op",       "size",         "dtype",  "mode",  "math mode", "verdict", "bits",
    "claimed",  "CR %",         "probe",  "arith", "R_max",     "R_rms",   "median ms [lo, hi]",
    "x vs f64", "x vs default", "J/call", "pareto"};

/* v in fmt, or "-" when the document has no number there (null or absent). */
static void num_cell(char *buf, const json_t *v, const char *fmt)
{
    if (!v || json_is_null(v))
        snprintf(buf, GV_TRADE_CELL, "-");
    else
        snprintf(buf, GV_TRADE_CELL, fmt, gv_jval(v));
}

void gv_trade_cells(const json_t *group, const json_t *row, char c[GV_TRADE_NCOL][GV_TRADE_CELL])
{
    gv_rk_term_str(gv_jstr(group, "op"), c[0], GV_TRADE_CELL);
    size_t i, used = 0;
    const json_t *d;
    c[1][0] = '\0';
    json_array_foreach(json_object_get(group, "shape"), i, d)
    {
        if (used >= GV_TRADE_CELL) break;
        int w = snprintf(c[1] + used, GV_TRADE_CELL - used, "%s%lld", i ? "x" : "",
                         (long long)json_integer_value(d));
        if (w < 0) break;
        used += (size_t)w;
    }
    const char *mm = gv_jstr(row, "math_mode");
    gv_rk_term_str(gv_jstr(row, "dtype"), c[2], GV_TRADE_CELL);
    gv_rk_term_str(gv_jstr(row, "mode"), c[3], GV_TRADE_CELL);
    gv_rk_term_str(*mm ? mm : "-", c[4], GV_TRADE_CELL);
    gv_rk_term_str(gv_jstr(row, "verdict"), c[5], GV_TRADE_CELL);
    num_cell(c[6], json_object_get(row, "accurate_bits"), "%.1f");
    num_cell(c[7], json_object_get(row, "claimed_bits"), "%.0f");
    const json_t *cr = json_object_get(row, "correctly_rounded");
    if (cr && !json_is_null(cr))
        snprintf(c[8], GV_TRADE_CELL, "%.1f", 100.0 * gv_jval(cr));
    else
        snprintf(c[8], GV_TRADE_CELL, "-");
    /* the mode probes: what they measured, "-" for a mode without one */
    const json_t *probe = json_object_get(row, "probe");
    gv_rk_term_str(probe && !json_is_null(probe) ? gv_jstr(probe, "what") : "-", c[9],
                   GV_TRADE_CELL);
    /* the arithmetic fingerprint: operand bits / accumulated bits, block, rounding, and the
       subnormals where flushed; '!' first where a feature FAILed its expectation */
    const json_t *ar = json_object_get(row, "arith");
    if (ar && !json_is_null(ar)) {
        char a[GV_TRADE_CELL];
        const char *sub = gv_jstr(ar, "subnormals");
        snprintf(a, sizeof a, "%s%s/%s b%s %s%s%s", gv_jint(ar, "fails", 0) ? "!" : "",
                 gv_jstr(ar, "in_bits"), gv_jstr(ar, "acc_bits"), gv_jstr(ar, "block"),
                 gv_jstr(ar, "rounding"), strstr(sub, "flushed") ? " sub:" : "",
                 strstr(sub, "flushed") ? sub : "");
        gv_rk_term_str(a, c[10], GV_TRADE_CELL);
    } else {
        snprintf(c[10], GV_TRADE_CELL, "-");
    }
    num_cell(c[11], json_object_get(row, "prob_max"), "%.3g");
    num_cell(c[12], json_object_get(row, "prob_rms"), "%.3g");
    const json_t *t = json_object_get(row, "time_ms");
    if (t && !json_is_null(t)) {
        bool slow = json_is_true(json_object_get(json_object_get(row, "clocks"), "throttled"));
        snprintf(c[13], GV_TRADE_CELL, "%.4g [%.4g, %.4g]%s", gv_jnum(t, "median"),
                 gv_jnum(t, "lo"), gv_jnum(t, "hi"), slow ? " !throttled" : "");
    } else {
        snprintf(c[13], GV_TRADE_CELL, "-");
    }
    num_cell(c[14], json_object_get(row, "speedup_vs_f64"), "%.3g");
    num_cell(c[15], json_object_get(row, "speedup_vs_default"), "%.3g");
    num_cell(c[16], json_object_get(row, "energy_j"), "%.3g");
    const json_t *p = json_object_get(row, "pareto");
    snprintf(c[17], GV_TRADE_CELL, "%s", json_is_true(p) ? "yes" : json_is_false(p) ? "no" : "-");
}

void gv_trade_notes(FILE *f, const json_t *group, bool md)
{
    const json_t *rows = json_object_get(group, "rows"), *r;
    size_t i;
    bool first = true;
    json_array_foreach(rows, i, r)
    {
        const char *verdict = gv_jstr(r, "verdict"), *reason = gv_jstr(r, "reason"),
                   *time_why = gv_jstr(r, "time_why");
        const json_t *t = json_object_get(r, "time_ms");
        bool failed = strcmp(verdict, "PASS") != 0 && *reason;
        bool untimed = (!t || json_is_null(t)) && *time_why;
        if (!failed && !untimed) continue;
        if (first && md) fputc('\n', f);
        first = false;
        void (*esc)(FILE *, const char *) = md ? gv_rk_md_esc : gv_rk_term_esc;
        fputs(md ? "- " : "  ", f);
        esc(f, gv_jstr(r, "dtype"));
        fputc(' ', f);
        esc(f, gv_jstr(r, "mode"));
        fputc(' ', f);
        esc(f, verdict);
        fputs(failed ? ": " : ": not timed: ", f);
        esc(f, failed ? reason : time_why);
        fputc('\n', f);
    }
    json_array_foreach(rows, i, r)
    {
        const char *flag = gv_jstr(r, "model_flag");
        if (!*flag) continue;
        if (first && md) fputc('\n', f);
        first = false;
        void (*esc)(FILE *, const char *) = md ? gv_rk_md_esc : gv_rk_term_esc;
        fputs(md ? "- Warn: " : "  Warn: ", f);
        esc(f, gv_jstr(r, "dtype"));
        fputc(' ', f);
        esc(f, gv_jstr(r, "mode"));
        fputs(": ", f);
        esc(f, flag);
        fputc('\n', f);
    }
}
