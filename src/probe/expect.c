/* expect.c: expectation files of `gpuval probe` (expect.h). */
#include "probe/expect.h"

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

void gv_fp_expect_path(int sm, char *path, size_t len)
{
    snprintf(path, len, "%s/sm_%d.expect", GV_PROBE_DIR, sm);
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
    char line[1024];
    int ln = 0, cap = 0, rc = GV_OK;
    while (fgets(line, sizeof line, f)) {
        ln++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(err, len, "%s:%d: line longer than %zu bytes", path, ln, sizeof line - 2);
            rc = GV_EINVAL;
            break;
        }
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
        if (n <= 0) continue;
        if (strcmp(w[0], "version") == 0 && n == 2) {
            if (e->version) {
                snprintf(err, len, "%s:%d: a second 'version' line", path, ln);
                rc = GV_EINVAL;
                break;
            }
            e->version = strcmp(w[1], "1") == 0 ? 1 : -1; /* "1x", "01", " 1": not version 1 */
            if (e->version != 1) {
                snprintf(err, len, "%s:%d: version %s, this gpuval reads version 1", path, ln,
                         w[1]);
                rc = GV_EINVAL;
                break;
            }
            continue;
        }
        if (!e->version) {
            snprintf(err, len, "%s:%d: the first line must be 'version 1'", path, ln);
            rc = GV_EINVAL;
            break;
        }
        if (strcmp(w[0], "arch") == 0 && n == 2) {
            if (e->arch[0] || !arch_ok(w[1])) {
                snprintf(err, len, "%s:%d: %s '%.40s%s': one 'arch sm_XY' line (or 'arch *')", path,
                         ln, e->arch[0] ? "a second arch line," : "architecture", w[1],
                         strlen(w[1]) > 40 ? "..." : "");
                rc = GV_EINVAL;
                break;
            }
            snprintf(e->arch, sizeof e->arch, "%.15s", w[1]); /* arch_ok: under 16 */
            continue;
        }
        if (strcmp(w[0], "version") == 0 || strcmp(w[0], "arch") == 0) {
            snprintf(err, len, "%s:%d: '%s' takes one word, got %d", path, ln, w[0], n - 1);
            rc = GV_EINVAL;
            break;
        }
        if (n != 5) {
            snprintf(err, len, "%s:%d: expected OPS DTYPE MODE FEATURE VALUE, got %d words", path,
                     ln, n);
            rc = GV_EINVAL;
            break;
        }
        bool dtype_ok = false, mode_ok = false;
        for (int d = 0; d < GV_NDTYPES; d++)
            dtype_ok |= fnmatch(w[1], gv_dtype_name((gv_dtype)d), 0) == 0;
        for (int q = 0; q < GV_NMODES; q++)
            mode_ok |= fnmatch(w[2], gv_mode_name((gv_mode)q), 0) == 0;
        const char *bad = NULL;
        if (strlen(w[0]) >= sizeof e->rules->ops)
            bad = "OPS longer than 63 bytes";
        else if (strlen(w[1]) >= sizeof e->rules->dtype || !dtype_ok)
            bad = "unknown DTYPE";
        else if (strlen(w[2]) >= sizeof e->rules->mode || !mode_ok)
            bad = "unknown MODE";
        else if (strcmp(w[3], "*") != 0 && gv_fp_feature_parse(w[3]) < 0)
            bad = "unknown FEATURE";
        else if (strlen(w[4]) >= sizeof e->rules->value || !value_ok(w[4]))
            bad = "bad VALUE (a word, >=N, N..M, alternatives joined by '|', or ?)";
        if (bad) {
            snprintf(err, len, "%s:%d: %s in '%.24s %.8s %.16s %.24s %.48s'", path, ln, bad, w[0],
                     w[1], w[2], w[3], w[4]);
            rc = GV_EINVAL;
            break;
        }
        if (e->n == cap) {
            cap = cap ? 2 * cap : 64;
            gv_fp_rule *g = realloc(e->rules, sizeof *g * (size_t)cap);
            if (!g) {
                rc = GV_ENOMEM;
                snprintf(err, len, "%s: out of memory", path);
                break;
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
        r->line = ln;
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
