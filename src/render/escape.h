/* escape.h: escaping text for the formats gpuval writes (escape.c): HTML and XML, Markdown and
 * the terminal. In render/, with the printers that write through it (and cmd/, which also
 * prints), one copy; render_kit.h's gv_rk_* names are the same functions. */
#ifndef GV_ESCAPE_H
#define GV_ESCAPE_H

#include <stdio.h>

/* The one escaping function of each output format. Every string that comes from a run file, a
 * case, an op or the environment reaches a page, a Markdown report or the terminal through one of
 * them. In all three a byte that is not printable text (a control byte, newlines included, DEL,
 * a C1 control, a byte outside well-formed UTF-8) is written as the visible text \xNN, so no
 * string can start a line, move the cursor or end a table row.
 *  - gv_esc_html: HTML and XML text and quoted attributes: & < > " ' as entities; no string can
 *    open or close a tag or leave an attribute.
 *  - gv_esc_md: Markdown (one table cell's text, or a line's): \ | ` # backslash-escaped,
 *    a ] before ( or [ too, & and < as entities; no string can break a table row, open a
 *    heading, a code span, a link, an image or an HTML tag.
 *  - gv_esc_term: the terminal, as gv_printable (core/gv.h) without a length limit: \ as \\,
 *    so a printed \xNN is never ambiguous. */
void gv_esc_html(FILE *f, const char *s);
void gv_esc_md(FILE *f, const char *s);
void gv_esc_term(FILE *f, const char *s);
/* gv_esc_term's text of s in buf (cut to len - 1 bytes at most); returns buf. For cells that
 * are padded to a width. */
char *gv_esc_term_str(const char *s, char *buf, size_t len);

/* gv_esc_md's and gv_esc_term's text of s (NULL: "") whole, in a new string the caller frees;
 * NULL on no memory. For text built up before it is written (merge's Markdown). */
char *gv_esc_md_dup(const char *s);
char *gv_esc_term_dup(const char *s);

#endif
