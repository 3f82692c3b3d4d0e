/* render_kit.h: the pieces every report renderer shares (render_kit.c): reading numbers out of
 * a run document, HTML and Markdown escaping, table cells that carry their JSON value, the page
 * frame with its inline CSS, and inline-SVG plot axes. Nothing here fetches anything: the page
 * is one self-contained file. */
#ifndef GV_RENDER_KIT_H
#define GV_RENDER_KIT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* The one escaping function of each output format (render/escape.h says what each escapes; they
 * are gv_esc_html, gv_esc_md, gv_esc_term and gv_esc_term_str there). Every string that comes
 * from a run file, a case, an op or the environment reaches a page, a Markdown report or the
 * terminal through one of them. */
void gv_rk_esc(FILE *f, const char *s);
void gv_rk_md_esc(FILE *f, const char *s);
void gv_rk_term_esc(FILE *f, const char *s);
char *gv_rk_term_str(const char *s, char *buf, size_t len);

/* The fixed display formats of numbers. */
typedef enum gv_rk_fmt {
    GV_RK_SCI, /* %.2e: relative errors */
    GV_RK_F1,  /* %.1f: bits */
    GV_RK_F2,  /* %.2f: ratios */
    GV_RK_G3,  /* %.3g: times, speed-ups, rates */
    GV_RK_INT  /* integers */
} gv_rk_fmt;

/* v's display text in fmt: "inf"/"nan" as such, "-" for null or absent. */
void gv_rk_fmtnum(char *buf, size_t len, const json_t *v, gv_rk_fmt fmt);
/* The exact JSON value of v for a data-v attribute: %.17g for reals, the integer, the string of
 * "inf"/"nan", "null", or compact JSON for an array or object. */
void gv_rk_jsonval(char *buf, size_t len, const json_t *v);
/* A numeric table cell: <td class="n" data-k="PTR" data-v="VALUE">TEXT</td>, PTR being v's JSON
 * pointer in the document. Absent v: a plain "-" cell with no data attributes. */
void gv_rk_td(FILE *f, const json_t *v, gv_rk_fmt fmt, const char *ptr);
/* A cell holding a JSON array (shape, tiers), shown joined by sep, each element in fmt. */
void gv_rk_td_list(FILE *f, const json_t *arr, gv_rk_fmt fmt, const char *sep, const char *ptr);
/* A text cell; cls may be NULL. */
void gv_rk_td_str(FILE *f, const char *s, const char *cls);
/* Markdown: one number cell " TEXT |", one list cell, one text cell. */
void gv_rk_md_num(FILE *f, const json_t *v, gv_rk_fmt fmt);
void gv_rk_md_list(FILE *f, const json_t *arr, gv_rk_fmt fmt, const char *sep);
void gv_rk_md_str(FILE *f, const char *s);
/* A Markdown header row and its separator from "|"-separated names ("op|dtype|bits"), after a
 * blank line. */
void gv_rk_md_head(FILE *f, const char *names);
/* The same with each column's alignment: align[i] 'r' right-aligns column i (numbers), any other
 * letter, or none past the end, leaves it left ("lllr"). */
void gv_rk_md_head_aligned(FILE *f, const char *names, const char *align);

/* The page frame: doctype, inline CSS, title; and its close. */
void gv_rk_page_begin(FILE *f, const char *title);
void gv_rk_page_end(FILE *f);
/* The run's header: h1 (what and device), the command line, created, host, build and tool, and
 * the device fingerprint table. It is gv_rk_run_title then gv_rk_run_tables (the device, host
 * and summary tables), which a renderer calls apart to put something between them (check's
 * failures, before the summary). */
void gv_rk_run_header(FILE *f, const json_t *doc, const char *what);
void gv_rk_run_title(FILE *f, const json_t *doc, const char *what);
void gv_rk_run_tables(FILE *f, const json_t *doc);
/* A two-column table of obj's members (numbers with their data attributes; nested values as
 * compact JSON text); ptr is obj's JSON pointer. Nothing when obj is not an object. */
void gv_rk_kv_table(FILE *f, const json_t *obj, const char *ptr, const char *caption);

/* ---- inline SVG plots ---- */

typedef struct gv_rk_plot {
    int W, H;       /* the svg's size in px */
    int L, R, T, B; /* margins */
    double x0, x1;  /* data range on x (decades' bounds when logx) */
    double y0, y1;
    bool logx, logy;
} gv_rk_plot;

double gv_rk_px(const gv_rk_plot *p, double x);
double gv_rk_py(const gv_rk_plot *p, double y);
/* <svg> with width, height and viewBox, a role and an aria-label; and its close. */
void gv_rk_svg_begin(FILE *f, const gv_rk_plot *p, const char *label);
void gv_rk_svg_end(FILE *f);
/* Frame, grid, ticks and axis titles: linear axes step by ystep (xstep), log axes by decade. */
void gv_rk_axes(FILE *f, const gv_rk_plot *p, const char *xtitle, const char *ytitle, double xstep,
                double ystep);
/* A horizontal line at data y across the plot, labelled at its right end (in the margin). */
void gv_rk_hline(FILE *f, const gv_rk_plot *p, double y, const char *cls, const char *label);
/* The tolerance tiers as horizontal lines at -log2(tier) bits, labelled "1e-8 (26.6 bits)";
 * tiers is a JSON array of tiers, or NULL for the default 1e-8 and 1e-4. */
void gv_rk_tier_lines(FILE *f, const gv_rk_plot *p, const json_t *tiers);
/* A legend box at (x, y): n entries of colour swatch and name. */
void gv_rk_legend(FILE *f, double x, double y, const char *const *names, const char *const *colours,
                  int n);
/* The fill colour for a dtype name. */
const char *gv_rk_dtype_colour(const char *dtype);
/* Round a range out to whole decades (log axes) or to multiples of step. */
void gv_rk_decades(double *lo, double *hi);

#endif
