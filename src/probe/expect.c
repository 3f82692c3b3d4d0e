/* expect.c: expectation files of `gpuval probe` (expect.h). */
#include "probe/expect.h"
#include "probe/expect_files.h"

#include "core/registry.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *gv_fp_verdict_name(gv_fp_verdict v)
{
    return v == GV_FP_PASS ? "PASS" : v == GV_FP_FAIL ? "FAIL" : "NEW";
}

void gv_fp_expect_free(gv_fp_expect *e)
{
    free(e->rules);
    memset(e, 0, sizeof *e);
}

/* A number of a VALUE: all of text[0..n) read, finite. */
static bool number_ok(const char *text, size_t n)
{
    char buf[48], *end;
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, text, n);
    buf[n] = '\0';
    double x = strtod(buf, &end);
    return *end == '\0' && isfinite(x) && !isspace((unsigned char)buf[0]);
}

/* One alternative of a VALUE, a[0..n): ">=N", "N..M" (N <= M), or a literal word of letters,
   digits and "/_-+." ("11", "RNE", "n/a"). Anything else (">=11x", "1..", "8..4", "<=3") is a
   typo that would judge every measurement FAIL, or PASS, for a reason nobody wrote down. */
static bool alt_ok_syntax(const char *a, size_t n)
{
    if (n >= 2 && strncmp(a, ">=", 2) == 0) return number_ok(a + 2, n - 2);
    for (size_t i = 0; i + 1 < n; i++)
        if (a[i] == '.' && a[i + 1] == '.') {
            char lo[48], hi[48];
            if (!number_ok(a, i) || !number_ok(a + i + 2, n - i - 2)) return false;
            snprintf(lo, sizeof lo, "%.*s", (int)i, a);
            snprintf(hi, sizeof hi, "%.*s", (int)(n - i - 2), a + i + 2);
            return strtod(lo, NULL) <= strtod(hi, NULL);
        }
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)a[i]) && !strchr("/_-+.", a[i])) return false;
    return true;
}

/* VALUE: '?' alone, or alternatives joined by '|', none empty. */
static bool value_ok(const char *v)
{
    if (strcmp(v, "?") == 0) return true;
    for (const char *a = v;; a++) {
        size_t n = strcspn(a, "|");
        if (!alt_ok_syntax(a, n)) return false;
        a += n;
        if (!*a) return true;
    }
}

/* "sm_XY" (digits, an optional letter: sm_90a) or "*", shorter than gv_fp_expect.arch. */
static bool arch_ok(const char *a)
{
    if (strcmp(a, "*") == 0) return true;
    if (strncmp(a, "sm_", 3) != 0 || !isdigit((unsigned char)a[3])) return false;
    size_t d = 3 + strspn(a + 3, "0123456789");
    if (d - 3 > 4) return false;
    if (islower((unsigned char)a[d])) d++;
    return a[d] == '\0';
}

/* Where a file's lines are read: its name for the messages, the line number, the error. */
typedef struct reader {
    const char *path;
    int ln, cap;
    char *err;
    size_t len;
} reader;

static int fault(reader *rd, const char *what)
{
    snprintf(rd->err, rd->len, "%s:%d: %s", rd->path, rd->ln, what);
    return GV_EINVAL;
}

/* "version N" and "arch sm_XY": GV_OK, or GV_EINVAL with the line named. */
static int header_line(reader *rd, gv_fp_expect *e, char w[][80], int n)
{
    char what[160];
    if ((strcmp(w[0], "version") == 0 || strcmp(w[0], "arch") == 0) && n != 2) {
        /* the word count first: "version 1 2" is a version line with a stray word, not a file
           that lacks its version line */
        snprintf(what, sizeof what, "'%s' takes one word, got %d", w[0], n - 1);
        return fault(rd, what);
    }
    if (strcmp(w[0], "version") == 0 && n == 2) {
        if (e->version) return fault(rd, "a second 'version' line");
        e->version = strcmp(w[1], "1") == 0 ? 1 : -1; /* "1x", "01", " 1": not version 1 */
        if (e->version != 1) {
            snprintf(what, sizeof what, "version %s, this gpuval reads version 1", w[1]);
            return fault(rd, what);
        }
        return GV_OK;
    }
    if (!e->version) return fault(rd, "the first line must be 'version 1'");
    if (strcmp(w[0], "arch") == 0 && n == 2) {
        if (e->arch[0] || !arch_ok(w[1])) {
            snprintf(what, sizeof what, "%s '%.40s%s': one 'arch sm_XY' line (or 'arch *')",
                     e->arch[0] ? "a second arch line," : "architecture", w[1],
                     strlen(w[1]) > 40 ? "..." : "");
            return fault(rd, what);
        }
        snprintf(e->arch, sizeof e->arch, "%.15s", w[1]); /* arch_ok: under 16 */
        return GV_OK;
    }
    snprintf(what, sizeof what, "'%s' takes one word, got %d", w[0], n - 1);
    return fault(rd, what);
}

/* What is wrong with the words of "OPS DTYPE MODE FEATURE VALUE", or NULL. */
static const char *rule_fault(const gv_fp_expect *e, char w[][80])
{
    bool dtype_ok = false, mode_ok = false;
    for (int d = 0; d < GV_NDTYPES; d++)
        dtype_ok |= fnmatch(w[1], gv_dtype_name((gv_dtype)d), 0) == 0;
    for (int q = 0; q < GV_NMODES; q++)
        mode_ok |= fnmatch(w[2], gv_mode_name((gv_mode)q), 0) == 0;
    if (strlen(w[0]) >= sizeof e->rules->ops) return "OPS longer than 63 bytes";
    if (strlen(w[1]) >= sizeof e->rules->dtype || !dtype_ok) return "unknown DTYPE";
    if (strlen(w[2]) >= sizeof e->rules->mode || !mode_ok) return "unknown MODE";
    if (strcmp(w[3], "*") != 0 && gv_fp_feature_parse(w[3]) < 0) return "unknown FEATURE";
    if (strlen(w[4]) >= sizeof e->rules->value || !value_ok(w[4]))
        return "bad VALUE (a word, >=N, N..M, alternatives joined by '|', or ?)";
    return NULL;
}

/* An expectation line: its rule appended, or GV_EINVAL / GV_ENOMEM with the line named. */
static int rule_line(reader *rd, gv_fp_expect *e, char w[][80], int n, const char *src)
{
    if (n != 5) {
        snprintf(rd->err, rd->len, "%s:%d: expected OPS DTYPE MODE FEATURE VALUE, got %d words",
                 rd->path, rd->ln, n);
        return GV_EINVAL;
    }
    const char *bad = rule_fault(e, w);
    if (bad) {
        snprintf(rd->err, rd->len, "%s:%d: %s in '%.24s %.8s %.16s %.24s %.48s'", rd->path, rd->ln,
                 bad, w[0], w[1], w[2], w[3], w[4]);
        return GV_EINVAL;
    }
    if (e->n == rd->cap) {
        rd->cap = rd->cap ? 2 * rd->cap : 64;
        gv_fp_rule *g = realloc(e->rules, sizeof *g * (size_t)rd->cap);
        if (!g) {
            snprintf(rd->err, rd->len, "%s: out of memory", rd->path);
            return GV_ENOMEM;
        }
        e->rules = g;
    }
    gv_fp_rule *r = &e->rules[e->n++];
    memset(r, 0, sizeof *r);
    /* each length was checked above: the precisions only tell the compiler so */
    snprintf(r->ops, sizeof r->ops, "%.63s", w[0]);
    snprintf(r->dtype, sizeof r->dtype, "%.7s", w[1]);
    snprintf(r->mode, sizeof r->mode, "%.15s", w[2]);
    snprintf(r->feature, sizeof r->feature, "%.23s", w[3]);
    snprintf(r->value, sizeof r->value, "%.47s", w[4]);
    snprintf(r->source, sizeof r->source, "%s", src);
    r->line = rd->ln;
    return GV_OK;
}

/* One line less its newline: a comment's text into src, then the header or a rule. */
static int one_line(reader *rd, gv_fp_expect *e, char *line)
{
    char *hash = strchr(line, '#'), src[200] = "";
    if (hash) {
        char *s = hash + 1;
        while (*s == ' ')
            s++;
        snprintf(src, sizeof src, "%.*s", (int)strcspn(s, "\r\n"), s);
        *hash = '\0';
    }
    char w[6][80];
    int n = sscanf(line, "%79s %79s %79s %79s %79s %79s", w[0], w[1], w[2], w[3], w[4], w[5]);
    if (n <= 0) return GV_OK;
    if (!e->version || strcmp(w[0], "version") == 0 || strcmp(w[0], "arch") == 0)
        return header_line(rd, e, w, n);
    return rule_line(rd, e, w, n, src);
}

/* The lines of f, named path in the messages; f is closed. The file is read whole or not at
   all (e is freed on a fault). */
static int read_stream(FILE *f, const char *path, gv_fp_expect *e, char *err, size_t len)
{
    reader rd = {.path = path, .err = err, .len = len};
    char line[1024];
    int rc = GV_OK;
    while (rc == GV_OK && fgets(line, sizeof line, f)) {
        rd.ln++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(err, len, "%s:%d: line longer than %zu bytes", path, rd.ln, sizeof line - 2);
            rc = GV_EINVAL;
            break;
        }
        rc = one_line(&rd, e, line);
    }
    if (ferror(f) && rc == GV_OK) {
        snprintf(err, len, "%s: read error", path);
        rc = GV_EIO;
    }
    fclose(f);
    if (rc == GV_OK && !e->arch[0]) {
        snprintf(err, len, "%s: no 'arch' line", path);
        rc = GV_EINVAL;
    }
    if (rc != GV_OK) gv_fp_expect_free(e);
    return rc;
}

int gv_fp_expect_read(const char *path, gv_fp_expect *e, char *err, size_t len)
{
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, len, "%s: %s", path,
                 errno && stat(path, &st) != 0 ? strerror(errno) : "not a regular file");
        return GV_EIO;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        return GV_EIO;
    }
    return read_stream(f, e->path, e, err, len);
}

const char *gv_fp_expect_builtin_text(int sm)
{
    char name[32];
    snprintf(name, sizeof name, "sm_%d.expect", sm);
    for (const gv_embedded_file *x = gv_expect_files; x->name; x++)
        if (strcmp(x->name, name) == 0) return x->text;
    return NULL;
}

int gv_fp_expect_builtin(int sm, gv_fp_expect *e, char *err, size_t len)
{
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "probe/sm_%d.expect (built in)", sm);
    const char *text = gv_fp_expect_builtin_text(sm);
    if (!text) {
        snprintf(err, len, "probe/sm_%d.expect: none is built in", sm);
        return GV_EIO;
    }
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    if (!f) {
        snprintf(err, len, "%s: %s", e->path, strerror(errno));
        return GV_ENOMEM;
    }
    return read_stream(f, e->path, e, err, len);
}

const gv_fp_rule *gv_fp_expect_find(const gv_fp_expect *e, const char *op, gv_dtype t, gv_mode m,
                                    int feature)
{
    const gv_fp_rule *hit = NULL;
    for (int i = 0; i < e->n; i++) {
        const gv_fp_rule *r = &e->rules[i];
        if (fnmatch(r->ops, op, 0) != 0) continue;
        if (fnmatch(r->dtype, gv_dtype_name(t), 0) != 0) continue;
        if (fnmatch(r->mode, gv_mode_name(m), 0) != 0) continue;
        if (strcmp(r->feature, "*") != 0 && strcmp(r->feature, gv_fp_feature_name(feature)) != 0)
            continue;
        hit = r;
    }
    return hit;
}

/* One alternative of an expectation against the measured value. */
static bool alt_ok(const char *want, const gv_fp_value *v)
{
    char *end;
    if (strncmp(want, ">=", 2) == 0) {
        double lo = strtod(want + 2, &end);
        if (*end) return false;
        if (strncmp(v->text, ">=", 2) == 0) return strtod(v->text + 2, NULL) >= lo;
        return isfinite(v->num) && v->num >= lo && strcmp(v->text, "n/a") != 0;
    }
    const char *dots = strstr(want, "..");
    if (dots) {
        char left[48];
        snprintf(left, sizeof left, "%.*s", (int)(dots - want), want);
        double lo = strtod(left, &end);
        if (end == left || *end) return false;
        double hi = strtod(dots + 2, &end);
        if (*end) return false;
        return isfinite(v->num) && v->num >= lo && v->num <= hi && strncmp(v->text, ">=", 2) != 0;
    }
    /* a numeric feature's literal is a number: "8" and "8.0" (or "1e1" and "10") are the same
       value, where comparing text would FAIL a measurement written one way against a rule
       written the other; words ("RNE", "kept", "n/a") compare as text */
    if (number_ok(want, strlen(want)) && number_ok(v->text, strlen(v->text)))
        return strtod(want, NULL) == strtod(v->text, NULL);
    return strcmp(want, v->text) == 0;
}

gv_fp_verdict gv_fp_judge(const gv_fp_rule *r, const gv_fp_value *v)
{
    if (!r || strcmp(r->value, "?") == 0) return GV_FP_NEW;
    char buf[sizeof r->value];
    snprintf(buf, sizeof buf, "%s", r->value);
    for (char *save = NULL, *a = strtok_r(buf, "|", &save); a; a = strtok_r(NULL, "|", &save))
        if (alt_ok(a, v)) return GV_FP_PASS;
    return GV_FP_FAIL;
}

int gv_fp_expect_unmatched(const gv_fp_expect *e, const gv_fp_rule **out, int max)
{
    int n = 0;
    for (int i = 0; i < e->n; i++) {
        bool hit = false;
        for (const gv_op *const *p = gv_registry(); *p && !hit; p++)
            hit = fnmatch(e->rules[i].ops, (*p)->name, 0) == 0;
        if (hit) continue;
        if (n < max) out[n] = &e->rules[i];
        n++;
    }
    return n;
}
