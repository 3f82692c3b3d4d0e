/* strbuf.h: a string that grows as text is appended (strbuf.c), for the wings that return text
 * instead of printing it: a table row, a Markdown section. */
#ifndef GV_STRBUF_H
#define GV_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gv_strbuf {
    char *s; /* malloc'ed, NUL-terminated; NULL before the first append */
    size_t len, cap;
    bool lost; /* an append found no memory: s holds what came before it */
} gv_strbuf;

/* Append printf's text of fmt, whole however long (a long case key once cut a row short).
   b NULL appends nothing. */
void gv_strbuf_printf(gv_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
