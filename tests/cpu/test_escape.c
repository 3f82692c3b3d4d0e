/* test_escape.c: no string from a run file can inject anything into a report (render/). A
 * property test over generated hostile strings — every byte 0..255 alone and in company, tags,
 * quotes, newlines followed by '#', table pipes, backticks, link brackets, terminal escapes
 * (ESC and the C1 CSI), cut UTF-8, a trailing backslash, very long strings and a seeded random
 * mix — first through each format's one escaping function (gv_rk_esc, gv_rk_md_esc,
 * gv_rk_term_esc), then through the whole renderers: every string (and, in a second pass, every
 * number) of the fixture run files replaced by hostile strings, rendered as HTML and Markdown,
 * and compare's Markdown, JUnit and terminal table of two such files. No output may hold a raw
 * tag, a broken table row, a heading, code span or link started by the data, or a control byte
 * the data brought. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/compare.h"
#include "io/json_util.h"
#include "render/render.h"
#include "render/render_kit.h"
#include "runs/compare_runs.h"

/* ---- the hostile strings ------------------------------------------------------------------ */

static const char *const fixed[] = {
    "<script>alert(1)</script>",
    "\"><img src=x onerror=alert(1)>",
    "'><gvx onload=1>",
    "x\n# INJ heading",
    "x\r\n# INJ heading",
    "\n| INJ | row |",
    "a|b|c",
    "`INJcode`",
    "trail\\",
    "\\|",
    "[INJlink](https://example.invalid/)",
    "![INJimg](https://example.invalid/x.png)",
    "\x1b[2J\x1b]0;title\x07",
    "\xc2\x9b"
    "31m",          /* C1 CSI as UTF-8 */
    "\xff\xfe\x80", /* not UTF-8 */
    "\xe2\x82",     /* cut */
    "\xed\xa0\x80", /* a surrogate */
    "\xc0\xbc"
    "gvx>", /* an overlong '<' */
    "&lt;gvx&gt;",
    "<!-- INJ -->",
    "<![CDATA[INJ]]>",
    "--><gvx>",
    "\t#INJ",
    "#INJ",
    "",
};

/* The i-th generated string into buf (len >= 8192): the fixed ones, every byte 1..255 between
   letters, every byte next to a '<' and a '|', a long run, then seeded random mixes. */
#define N_STRINGS (int)(sizeof fixed / sizeof fixed[0] + 255 + 255 + 4 + 400)

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64 (Steele, Lea, Flood 2014): enough for spreading bytes */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static const char *hostile(int i, char *buf, size_t len)
{
    int nf = (int)(sizeof fixed / sizeof fixed[0]);
    if (i < nf) return fixed[i];
    i -= nf;
    if (i < 255) {
        snprintf(buf, len, "a%cb", i + 1);
        return buf;
    }
    i -= 255;
    if (i < 255) {
        snprintf(buf, len, "<%c|%c#\n%c", i + 1, i + 1, i + 1);
        return buf;
    }
    i -= 255;
    if (i < 4) {
        static const char unit[4][8] = {"<gvx>", "|", "\n#", "`"};
        size_t u = strlen(unit[i]), n = 0;
        while (n + u < len - 1 && n < 6000) {
            memcpy(buf + n, unit[i], u);
            n += u;
        }
        buf[n] = '\0';
        return buf;
    }
    i -= 4;
    uint64_t s = 0x5eed0000u + (uint64_t)i;
    static const char pieces[] = "<>|`#[]()\\\"'&\n\r\t!-;/=ab ";
    size_t n = 1 + rng_next(&s) % 64;
    for (size_t k = 0; k < n && k < len - 1; k++) {
        uint64_t r = rng_next(&s);
        buf[k] = r % 3 ? pieces[(r >> 8) % (sizeof pieces - 1)] : (char)(1 + (r >> 8) % 255);
    }
    buf[n < len - 1 ? n : len - 1] = '\0';
    return buf;
}

/* ---- what an output may not hold --------------------------------------------------------- */

/* The length of the well-formed UTF-8 character at p of a code point from U+00A0 on (0 for
   anything else: ASCII, C1 controls, stray, cut, overlong or surrogate bytes). Written here
   again, not borrowed from render_kit.c, so a mistake there is not repeated here. */
static int utf8_len(const unsigned char *p)
{
    int n;
    uint32_t cp;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2, cp = p[0] & 0x1fu;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3, cp = p[0] & 0x0fu;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4, cp = p[0] & 0x07u;
    else
        return 0;
    for (int k = 1; k < n; k++) {
        if ((p[k] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (p[k] & 0x3fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0)
        return 0;
    return n;
}

/* The first byte of out that is a control byte (other than the newline and tab of allow_nl),
   DEL, a C1 control or not part of well-formed UTF-8; NULL if none. */
static const char *bad_byte(const char *out, bool allow_nl)
{
    for (const unsigned char *p = (const unsigned char *)out; *p; p++) {
        if (*p >= 0x80) {
            int u = utf8_len(p);
            if (!u) return (const char *)p;
            p += u - 1;
        } else if ((*p < 0x20 && !(allow_nl && (*p == '\n' || *p == '\t'))) || *p == 0x7f)
            return (const char *)p;
    }
    return NULL;
}

static char *escaped(void (*esc)(FILE *, const char *), const char *s, size_t *n)
{
    char *out = NULL;
    FILE *m = open_memstream(&out, n);
    cr_assert_not_null(m);
    esc(m, s);
    fclose(m);
    return out;
}

static void show(char *buf, size_t len, const char *s)
{
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && k + 5 < len && k < 120; p++)
        k += (size_t)snprintf(buf + k, len - k, *p >= 0x20 && *p < 0x7f ? "%c" : "\\x%02x", *p);
    buf[k] = '\0';
}

Test(escape, html_text_holds_no_markup)
{
    char buf[8192], shown[700];
    for (int i = 0; i < N_STRINGS; i++) {
        const char *s = hostile(i, buf, sizeof buf);
        size_t n;
        char *out = escaped(gv_rk_esc, s, &n);
        show(shown, sizeof shown, s);
        cr_assert_null(bad_byte(out, false), "html of '%s' holds a raw control byte", shown);
        cr_assert_null(strpbrk(out, "<>\"'"), "html of '%s' holds a raw < > \" or '", shown);
        for (const char *a = strchr(out, '&'); a; a = strchr(a + 1, '&'))
            cr_assert(strncmp(a, "&amp;", 5) == 0 || strncmp(a, "&lt;", 4) == 0 ||
                          strncmp(a, "&gt;", 4) == 0 || strncmp(a, "&quot;", 6) == 0 ||
                          strncmp(a, "&#39;", 5) == 0,
                      "html of '%s': a bare & that is not one of the escapes", shown);
        free(out);
    }
}

/* Markdown: every character that can start structure is escaped by an unescaped backslash. */
static const char *md_unescaped(const char *out)
{
    for (const char *p = out; *p; p++) {
        if (*p == '\\') {
            if (!p[1]) return p; /* a trailing backslash would escape the cell's closing | */
            p++;
            continue;
        }
        if (strchr("|`#<", *p)) return p;
        if (*p == ']' && (p[1] == '(' || p[1] == '[')) return p; /* a link's text closed */
    }
    return NULL;
}

Test(escape, markdown_cell_holds_no_structure)
{
    char buf[8192], shown[700];
    for (int i = 0; i < N_STRINGS; i++) {
        const char *s = hostile(i, buf, sizeof buf);
        size_t n;
        char *out = escaped(gv_rk_md_esc, s, &n);
        show(shown, sizeof shown, s);
        cr_assert_null(bad_byte(out, false), "markdown of '%s' holds a raw control byte", shown);
        const char *u = md_unescaped(out);
        cr_assert_null(u, "markdown of '%s' holds an unescaped '%c'", shown, u ? *u : ' ');
        free(out);
    }
}

Test(escape, terminal_text_holds_no_control_byte)
{
    char buf[8192], shown[700];
    for (int i = 0; i < N_STRINGS; i++) {
        const char *s = hostile(i, buf, sizeof buf);
        size_t n;
        char *out = escaped(gv_rk_term_esc, s, &n);
        show(shown, sizeof shown, s);
        cr_assert_null(bad_byte(out, false), "terminal text of '%s' holds a control byte", shown);
        /* nothing is dropped: printable ASCII (less the backslash) comes through as it is */
        size_t plain = 0, kept = 0;
        for (const char *p = s; *p; p++)
            if (*p >= 0x20 && *p < 0x7f && *p != '\\') plain++;
        for (const char *p = out; *p; p++)
            if (*p >= 0x20 && *p < 0x7f && *p != '\\') kept++;
        cr_assert_geq(kept, plain, "terminal text of '%s' lost characters", shown);
        free(out);
    }
}

/* ---- the whole renderers ------------------------------------------------------------------ */

static json_t *fixture(const char *name)
{
    const char *root = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(root, "GPUVAL_SRCDIR names the source tree (tests/meson.build)");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/%s", root, name);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    cr_assert_not_null(doc, "%s: %s", path, err.text);
    return doc;
}

/* Every string of v (numbers too, when numbers) replaced by the next hostile string, the
   document's "schema" and the verdicts kept so that it still renders as what it is. */
static void poison(json_t *v, int *next, bool numbers, const char *key)
{
    char buf[8192];
    if (json_is_object(v)) {
        const char *k;
        json_t *m;
        json_object_foreach(v, k, m)
        {
            if (strcmp(k, "schema") == 0 || strcmp(k, "verdict") == 0) continue;
            if (json_is_string(m) || (numbers && json_is_number(m))) {
                const char *s = hostile((*next)++ % N_STRINGS, buf, sizeof buf);
                json_object_set_new(v, k, json_stringn_nocheck(s, strlen(s)));
            } else
                poison(m, next, numbers, k);
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *m;
        json_array_foreach(v, i, m)
        {
            if (json_is_string(m) || (numbers && json_is_number(m))) {
                const char *s = hostile((*next)++ % N_STRINGS, buf, sizeof buf);
                json_array_set_new(v, i, json_stringn_nocheck(s, strlen(s)));
            } else
                poison(m, next, numbers, key);
        }
    }
}

/* Every member name of the objects the report lists as they are (device, host, summary, env):
   a hostile name in their place. */
static void poison_keys(json_t *doc, int *next)
{
    static const char *const objs[] = {"device", "host", "summary", "env"};
    char buf[8192];
    for (size_t o = 0; o < sizeof objs / sizeof objs[0]; o++) {
        json_t *obj = json_object_get(doc, objs[o]);
        if (!json_is_object(obj)) continue;
        json_t *copy = json_object();
        const char *k;
        json_t *m;
        json_object_foreach(obj, k, m)
        {
            const char *s = hostile((*next)++ % N_STRINGS, buf, sizeof buf);
            char key[9000];
            snprintf(key, sizeof key, "%s%d", s, *next); /* unique */
            json_object_set_nocheck(copy, key, m);
        }
        json_object_set_new(doc, objs[o], copy);
    }
}

static char *render(const json_t *doc, bool html)
{
    char *out = NULL;
    size_t n;
    FILE *m = open_memstream(&out, &n);
    cr_assert_not_null(m);
    (html ? gv_render_html : gv_render_md)(m, doc);
    fclose(m);
    return out;
}

static bool has_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (strncasecmp(p, needle, n) == 0) return true;
    return false;
}

/* What the hostile strings would leave in any output if one got through raw (markup: tags
   too, for HTML, XML and Markdown; the terminal shows a tag as text). */
static void assert_no_injection(const char *out, const char *what, bool markup)
{
    const char *b = bad_byte(out, true);
    char around[700] = "";
    if (b) show(around, sizeof around, b - out > 60 ? b - 60 : out);
    cr_assert_null(b, "%s: a raw byte 0x%02x at offset %zu, in '%s'", what,
                   b ? (unsigned char)*b : 0, b ? (size_t)(b - out) : 0, around);
    static const char *const tags[] = {"<script", "<img", "<gvx", "<!-- INJ", "<![CDATA"};
    for (size_t i = 0; markup && i < sizeof tags / sizeof tags[0]; i++)
        cr_assert(!has_ci(out, tags[i]), "%s: a raw %s", what, tags[i]);
    cr_assert_null(strstr(out, "\n# INJ"), "%s: an injected heading", what);
    cr_assert_null(strstr(out, "\n#INJ"), "%s: an injected heading", what);
    cr_assert_null(strstr(out, "\n| INJ"), "%s: an injected table row", what);
    cr_assert_null(strstr(out, "\nINJ"), "%s: a line started by the data", what);
}

/* Markdown's own structure: a code span, a link or an image opened by the data is escaped,
   and every row of a table has its header's number of cells. */
static void assert_markdown_tables(const char *out, const char *what)
{
    for (const char *p = strstr(out, "INJcode"); p; p = strstr(p + 1, "INJcode"))
        cr_assert(p - out >= 2 && p[-1] == '`' && p[-2] == '\\', "%s: an unescaped code span",
                  what);
    cr_assert_null(strstr(out, "INJlink]("), "%s: an unescaped link", what);
    cr_assert_null(strstr(out, "INJimg]("), "%s: an unescaped image", what);
    int cells = -1, line_no = 0;
    for (const char *line = out; *line; line_no++) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > 0 && line[0] == '|') {
            int n = 0;
            for (size_t k = 0; k < len; k++) {
                if (line[k] == '\\') {
                    k++;
                    continue;
                }
                if (line[k] == '|') n++;
            }
            if (cells < 0) cells = n; /* the header row */
            cr_assert_eq(n, cells, "%s: line %d has %d pipes, its table's header %d: %.*s", what,
                         line_no + 1, n, cells, (int)(len < 200 ? len : 200), line);
        } else
            cells = -1;
        line = end ? end + 1 : line + len;
    }
}

static void render_poisoned(const char *name, bool numbers, bool keys)
{
    json_t *doc = fixture(name);
    int next = 0;
    poison(doc, &next, numbers, "");
    if (keys) poison_keys(doc, &next);
    char what[160];
    snprintf(what, sizeof what, "%s (strings%s%s) as HTML", name, numbers ? ", numbers" : "",
             keys ? ", names" : "");
    char *html = render(doc, true);
    cr_assert_gt(strlen(html), 1000, "%s: rendered", what);
    assert_no_injection(html, what, true);
    free(html);
    snprintf(what, sizeof what, "%s (strings%s%s) as Markdown", name, numbers ? ", numbers" : "",
             keys ? ", names" : "");
    char *md = render(doc, false);
    cr_assert_gt(strlen(md), 100, "%s: rendered", what);
    assert_no_injection(md, what, false);
    /* the tags outside the fenced code blocks (whose text Markdown shows as it is) */
    char *outside = strdup(md);
    bool fenced = false;
    for (char *line = outside; line && *line;) {
        char *end = strchr(line, '\n');
        bool fence = strncmp(line, "```", 3) == 0;
        if (fenced && !fence)
            for (char *p = line; p < (end ? end : line + strlen(line)); p++)
                *p = ' ';
        if (fence) fenced = !fenced;
        line = end ? end + 1 : NULL;
    }
    assert_no_injection(outside, what, true);
    free(outside);
    assert_markdown_tables(md, what);
    free(md);
    json_decref(doc);
}

Test(escape, check_report_injects_nothing)
{
    render_poisoned("check-h100.json", false, false);
    render_poisoned("check-h100.json", true, false);
    render_poisoned("check-h100.json", false, true);
}

Test(escape, bench_report_injects_nothing)
{
    render_poisoned("bench-synthetic.json", false, false);
    render_poisoned("bench-synthetic.json", true, false);
    render_poisoned("bench-synthetic.json", false, true);
}

Test(escape, tradeoffs_report_injects_nothing)
{
    render_poisoned("tradeoffs-synthetic.json", false, false);
    render_poisoned("tradeoffs-synthetic.json", true, false);
    render_poisoned("tradeoffs-synthetic.json", false, true);
}

/* compare's three outputs: the cases' op and name, and the numbers, hostile in both runs (the
   new run's reasons and numbers differ, so that every case has rows). */
Test(escape, compare_outputs_inject_nothing)
{
    json_t *base = fixture("check-h100.json"), *new_doc = fixture("check-h100.json");
    json_t *cases[2] = {json_object_get(base, "cases"), json_object_get(new_doc, "cases")};
    char buf[8192];
    int next = 0;
    size_t i;
    json_t *c;
    json_array_foreach(cases[0], i, c)
    {
        json_t *c2 = json_array_get(cases[1], i);
        const char *s = hostile(next++ % N_STRINGS, buf, sizeof buf);
        json_object_set_new(c, "op", json_stringn_nocheck(s, strlen(s)));
        json_object_set_new(c2, "op", json_stringn_nocheck(s, strlen(s)));
        s = hostile(next++ % N_STRINGS, buf, sizeof buf);
        json_object_set_new(c, "mode", json_stringn_nocheck(s, strlen(s)));
        json_object_set_new(c2, "mode", json_stringn_nocheck(s, strlen(s)));
        json_object_set_new(c2, "verdict", json_string("FAIL"));
        json_object_set_new(c2, "accurate_bits", json_real(1.0));
    }
    /* a case on one side only, named by the data */
    json_t *only = json_deep_copy(json_array_get(cases[1], 0));
    json_object_set_new(only, "op", json_string("only\n# INJ <gvx> `INJcode`"));
    json_array_append_new(cases[1], only);
    gv_cmp_opts o = GV_CMP_OPTS_DEFAULT;
    gv_cmp_result r;
    char err[256] = "";
    if (gv_compare_runs(base, new_doc, &o, &r, err, sizeof err) != 0) {
        /* a stricter reader may refuse names like these: then nothing is rendered at all */
        cr_log_info("compare refused the hostile runs: %s", err);
        json_decref(base);
        json_decref(new_doc);
        return;
    }
    cr_assert_gt(r.n_cases, 0);
    char *out = NULL;
    size_t n;
    FILE *m = open_memstream(&out, &n);
    gv_cmd_compare_print(m, &r);
    fclose(m);
    assert_no_injection(out, "compare's table", false);
    free(out);
    for (int k = 0; k < 2; k++) {
        out = NULL;
        m = open_memstream(&out, &n);
        cr_assert_eq(gv_cmd_compare_write(m, &r, k == 0), 0);
        fclose(m);
        assert_no_injection(out, k == 0 ? "compare --md" : "compare --junit", true);
        if (k == 0) assert_markdown_tables(out, "compare --md");
        free(out);
    }
    gv_cmp_result_free(&r);
    json_decref(base);
    json_decref(new_doc);
}

/* ---- provenance: strings from outside recorded losslessly --------------------------------- */

/* Every hostile string (bytes that are not UTF-8 among them) becomes a JSON string, never NULL
   (which once dropped the env, host or argv block), survives a dump and a load, and unescapes
   to the very bytes it was. */
Test(escape, outside_strings_are_recorded_losslessly)
{
    char buf[8192], shown[700];
    static char back[4 * 8192];
    for (int i = 0; i < N_STRINGS; i++) {
        const char *s = hostile(i, buf, sizeof buf);
        show(shown, sizeof shown, s);
        json_t *v = gv_json_bytes(s);
        cr_assert(json_is_string(v), "'%s' is recorded as a string", shown);
        json_t *doc = json_pack("{s:o}", "env", v);
        char *text = json_dumps(doc, 0);
        cr_assert_not_null(text, "'%s': the document dumps", shown);
        json_error_t err;
        json_t *again = json_loads(text, 0, &err);
        cr_assert_not_null(again, "'%s': %s", shown, err.text);
        gv_bytes_unescape(json_string_value(json_object_get(again, "env")), back);
        cr_assert_str_eq(back, s, "'%s' comes back as it was", shown);
        free(text);
        json_decref(doc);
        json_decref(again);
    }
    cr_assert(json_is_null(gv_json_bytes(NULL)));
}
