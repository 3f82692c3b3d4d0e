/* escape.c: the escaping of every text format gpuval writes (see escape.h): HTML and XML,
 * Markdown, the terminal. One copy, below render/ and runs/ alike. */
#include "render/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the well-formed UTF-8 character at p if it is a printable one (U+00A0 or
   above: no overlong form, no surrogate, at most U+10FFFF), else 0. C1 controls (U+0080 to
   U+009F, which some terminals obey), stray and cut bytes give 0. The same rule as
   gv_printable's (core/gv.c). */
static int utf8_char_len(const unsigned char *p)
{
    int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || p[0] >= 0xf5) return 0;
    uint32_t cp = n == 4 ? p[0] & 0x07u : n == 3 ? p[0] & 0x0fu : p[0] & 0x1fu;
    for (int k = 1; k < n; k++) {
        if ((p[k] & 0xc0) != 0x80) return 0; /* also stops at the terminating NUL */
        cp = cp << 6 | (p[k] & 0x3fu);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0) return 0;
    return n;
}

/* Copy the printable character at *p to f and step past it; a byte that is not one (a control
   byte, DEL, C1, a byte outside well-formed UTF-8) is written as the text \xNN. Returns false
   (writing nothing) for a printable ASCII byte, which the caller writes or escapes itself. */
static bool put_unprintable(FILE *f, const unsigned char **p)
{
    const unsigned char *c = *p;
    if (*c >= 0x20 && *c < 0x7f) return false;
    int u = *c >= 0x80 ? utf8_char_len(c) : 0;
    if (u > 0) {
        fwrite(c, 1, (size_t)u, f);
        *p += u - 1;
    } else
        fprintf(f, "\\x%02x", *c);
    return true;
}

void gv_esc_html(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if (put_unprintable(f, &p)) continue;
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*p, f);
        }
    }
}

void gv_esc_md(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if (put_unprintable(f, &p)) continue;
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case ']':
            /* "](" and "][" would close a link's text: "[x](url)", "![x](url)", "[x][ref]" */
            if (p[1] == '(' || p[1] == '[') fputc('\\', f);
            fputc(*p, f);
            break;
        case '\\':
        case '|':
        case '`':
        case '#':
            fputc('\\', f);
            fputc(*p, f);
            break;
        default: fputc(*p, f);
        }
    }
}

void gv_esc_term(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if (put_unprintable(f, &p)) continue;
        if (*p == '\\') fputc('\\', f);
        fputc(*p, f);
    }
}

char *gv_esc_term_str(const char *s, char *buf, size_t len)
{
    if (!len) return buf;
    buf[0] = '\0';
    FILE *m = fmemopen(buf, len, "w");
    if (!m) return buf;
    setvbuf(m, NULL, _IONBF, 0);
    gv_esc_term(m, s);
    fclose(m);
    buf[len - 1] = '\0';
    /* the escaped text is ASCII and whole characters: anything else is one cut at the end */
    for (unsigned char *p = (unsigned char *)buf; *p; p++) {
        if (*p < 0x80) continue;
        int u = utf8_char_len(p);
        if (!u) {
            *p = '\0';
            break;
        }
        p += u - 1;
    }
    return buf;
}

/* s escaped by esc into a new string; NULL on no memory. */
static char *esc_dup(void (*esc)(FILE *, const char *), const char *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    if (!m) return NULL;
    esc(m, s ? s : "");
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

char *gv_esc_md_dup(const char *s)
{
    return esc_dup(gv_esc_md, s);
}

char *gv_esc_term_dup(const char *s)
{
    return esc_dup(gv_esc_term, s);
}
