/* junit.c: the JUnit XML writer (junit.h). Every string goes through gv_rk_esc, the escaping
 * of XML text and attributes (render/render_kit.h): no name, reason or row can close an
 * element or an attribute, and no control byte (which XML 1.0 forbids, even as a reference)
 * reaches the file. */
#include "render/junit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/registry.h"
#include "io/json_util.h"
#include "render/render_kit.h"
#include "render/run_text.h"

static void esc(FILE *f, const char *s)
{
    gv_rk_esc(f, s ? s : "");
}

/* A time as xs:decimal: digits and a point, never an exponent, NaN or a sign. */
static void put_time(FILE *f, double s)
{
    fprintf(f, "%.6f", isfinite(s) && s > 0 && s < 1e12 ? s : 0.0);
}

void gv_junit_begin(FILE *f, const gv_junit_suite *s)
{
    char stamp[32];
    /* the schema's pattern is YYYY-MM-DDThh:mm:ss with no zone: the first 19 characters */
    snprintf(stamp, sizeof stamp, "%.19s", s->timestamp ? s->timestamp : "");
    if (strlen(stamp) != 19) snprintf(stamp, sizeof stamp, "1970-01-01T00:00:00");
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n", f);
    fputs("<testsuite name=\"", f);
    esc(f, s->name && *s->name ? s->name : "gpuval");
    fputs("\" package=\"gpuval\" id=\"0\" timestamp=\"", f);
    esc(f, stamp);
    fputs("\" hostname=\"", f);
    esc(f, s->hostname && *s->hostname ? s->hostname : "localhost");
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"", s->tests,
            s->failures, s->errors, s->skipped);
    put_time(f, s->time_s);
    fputs("\">\n  <properties>\n", f);
    for (const char *const *p = s->property; p && p[0] && p[1]; p += 2) {
        fputs("    <property name=\"", f);
        esc(f, p[0]);
        fputs("\" value=\"", f);
        esc(f, p[1]);
        fputs("\"/>\n", f);
    }
    fputs("  </properties>\n", f);
}

/* text escaped line by line, the newlines between kept as newlines */
static void put_lines(FILE *f, const char *text)
{
    char line[1024];
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        size_t k = n < sizeof line - 1 ? n : sizeof line - 1;
        memcpy(line, p, k);
        line[k] = '\0';
        esc(f, line);
        p += n;
        if (*p == '\n') {
            fputc('\n', f);
            p++;
        }
    }
}

void gv_junit_case(FILE *f, const char *classname, const char *name, double time_s,
                   gv_junit_kind kind, const char *type, const char *message, const char *text)
{
    static const char *const tag[] = {NULL, "failure", "error", "skipped"};
    fputs("  <testcase classname=\"", f);
    esc(f, classname && *classname ? classname : "gpuval");
    fputs("\" name=\"", f);
    esc(f, name && *name ? name : "?");
    fputs("\" time=\"", f);
    put_time(f, time_s);
    if (kind == GV_JUNIT_PASSED) {
        fputs("\"/>\n", f);
        return;
    }
    fprintf(f, "\">\n    <%s message=\"", tag[kind]);
    esc(f, message);
    if (kind != GV_JUNIT_SKIPPED) { /* skipped has no type in the schema */
        fputs("\" type=\"", f);
        esc(f, type && *type ? type : tag[kind]);
    }
    fputs("\">", f);
    put_lines(f, text ? text : "");
    fprintf(f, "</%s>\n  </testcase>\n", tag[kind]);
}

void gv_junit_end(FILE *f)
{
    fputs("  <system-out/>\n  <system-err/>\n</testsuite>\n</testsuites>\n", f);
}

/* ---- check's run -------------------------------------------------------------------------- */

/* The row of r under the table's header, as printed by check (allocated; NULL on no memory). */
static char *row_text(const gv_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return NULL;
    gv_table_header(m);
    gv_table_row(m, r);
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int gv_junit_write_check(FILE *f, const gv_run_info *info, const gv_result *results, int n,
                         const gv_summary *sum)
{
    char when[64], host[256] = "";
    gv_json_now(when, sizeof when);
    if (info->fleet.recorded && info->fleet.host[0])
        snprintf(host, sizeof host, "%s", info->fleet.host);
    else
        gethostname(host, sizeof host - 1);
    double total = 0;
    for (int i = 0; i < n; i++) {
        double t = (results[i].oracle_ms + results[i].device_ms) / 1e3;
        if (isfinite(t) && t > 0) total += t;
    }
    const char *props[] = {"gpuval_version",
                           GV_VERSION,
                           "command",
                           info->argv_joined ? info->argv_joined : "",
                           "device",
                           info->have_device ? info->device.name : "none",
                           NULL};
    gv_junit_suite s = {.name = "gpuval check",
                        .timestamp = when,
                        .hostname = host,
                        .tests = n,
                        .failures = sum->fail,
                        .errors = sum->error,
                        .skipped = sum->skip,
                        .time_s = total,
                        .property = props};
    gv_junit_begin(f, &s);
    for (int i = 0; i < n; i++) {
        const gv_result *r = &results[i];
        const gv_case *c = &r->c;
        char shape[96], name[256];
        gv_shape_format(&c->shape, shape, sizeof shape);
        snprintf(name, sizeof name, "%s/%s/%s/%s seed %llu", gv_dtype_name(c->dtype),
                 gv_mode_name(c->mode), gv_dist_name(c->dist), shape, (unsigned long long)c->seed);
        gv_junit_kind k = r->verdict == GV_FAIL    ? GV_JUNIT_FAILURE
                          : r->verdict == GV_ERROR ? GV_JUNIT_ERROR
                          : r->verdict == GV_SKIP  ? GV_JUNIT_SKIPPED
                                                   : GV_JUNIT_PASSED;
        char *row = k == GV_JUNIT_PASSED ? NULL : row_text(r);
        char msg[512];
        snprintf(msg, sizeof msg, "%s%s%s", gv_verdict_name(r->verdict), r->reason[0] ? ": " : "",
                 r->reason);
        gv_junit_case(f, c->op ? c->op->name : "?", name, (r->oracle_ms + r->device_ms) / 1e3, k,
                      gv_verdict_name(r->verdict), msg, row);
        free(row);
    }
    gv_junit_end(f);
    return ferror(f) ? -1 : 0;
}
