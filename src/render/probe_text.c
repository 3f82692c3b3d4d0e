/* probe_text.c: `gpuval probe`'s terminal lines from its document (see probe_text.h). */
#include "render/probe_text.h"

#include <string.h>

#include "io/json_util.h"

void gv_probe_text_head(FILE *f, const char *device, const char *arch, const char *path)
{
    fprintf(f, "gpuval probe: %s (%s), expectations %s%s\n", device, arch ? arch : "none",
            path ? path : "none", path ? " (version 1)" : "");
}

static int count_verdict(const json_t *features, const char *verdict)
{
    int n = 0;
    const char *name;
    const json_t *x;
    json_object_foreach((json_t *)features, name, x) n +=
        strcmp(gv_jstr(x, "verdict"), verdict) == 0;
    return n;
}

static void feature_lines(FILE *f, const json_t *features, bool quiet)
{
    const char *name;
    const json_t *x;
    json_object_foreach((json_t *)features, name, x)
    {
        const char *verdict = gv_jstr(x, "verdict");
        if (quiet && strcmp(verdict, "FAIL") != 0) continue;
        const char *expected = json_string_value(json_object_get(x, "expected"));
        fprintf(f, "  %-14s %-12s %-12s %-4s  %s%s\n", name, gv_jstr(x, "value"),
                expected ? expected : "-", verdict, gv_jstr(x, "detail"),
                gv_jint(x, "changed_in_repeats", 0) ? " (changed between repeats)" : "");
    }
}

static void replay_lines(FILE *f, const json_t *replays, bool unconfirmed)
{
    size_t i;
    const json_t *p;
    json_array_foreach(replays, i, p)
    {
        int promote = gv_jint(p, "promote", 0);
        fprintf(f, "  replay k=%-4d %lld of %lld dot products agree bit for bit with %s%s%s",
                gv_jint(p, "k", 0), (long long)json_integer_value(json_object_get(p, "agree")),
                (long long)json_integer_value(json_object_get(p, "dots")), gv_jstr(p, "model"),
                promote ? " promoted every " : "", unconfirmed ? " (model unconfirmed)" : "");
        if (promote) fprintf(f, "%d in f32", promote);
        if (json_object_get(p, "first_index"))
            fprintf(f, "; first differs: %.9g, model %.9g", gv_jnum(p, "first_device"),
                    gv_jnum(p, "first_model"));
        fprintf(f, "\n");
    }
}

void gv_probe_text_row(FILE *f, const json_t *row, bool error, bool unconfirmed, bool quiet)
{
    const char *op = gv_jstr(row, "op"), *dtype = gv_jstr(row, "dtype"),
               *mode = gv_jstr(row, "mode");
    if (json_object_get(row, "skipped")) {
        fprintf(f, "\n%s %s %s: %s %s\n", op, dtype, mode, error ? "ERROR" : "SKIP",
                gv_jstr(row, "skipped"));
        return;
    }
    const json_t *features = json_object_get(row, "features");
    int fails = count_verdict(features, "FAIL"), news = count_verdict(features, "NEW");
    int passes = (int)json_object_size(features) - fails - news;
    if (quiet && !fails) return;
    fprintf(f, "\n%s %s %s  [%s]  %d PASS, %d FAIL, %d NEW\n", op, dtype, mode,
            gv_jstr(row, "math_mode"), passes, fails, news);
    feature_lines(f, features, quiet);
    replay_lines(f, json_object_get(row, "replay"), unconfirmed);
}

void gv_probe_text_summary(FILE *f, const json_t *doc)
{
    const json_t *s = json_object_get(doc, "summary");
    long repeat = (long)json_integer_value(json_object_get(doc, "repeat"));
    int replays_short = gv_jint(s, "replays_short", 0), errors = gv_jint(s, "errors", 0);
    fprintf(f,
            "\n%d rows, %d features PASS, %d FAIL, %d NEW; %ld run%s of the hand-built probes "
            "(%d FAIL verdicts in all); %d replay%s short of bit for bit; %d error%s; %.1f s\n",
            (int)json_array_size(json_object_get(doc, "rows")), gv_jint(s, "pass", 0),
            gv_jint(s, "fail", 0), gv_jint(s, "new", 0), repeat, repeat == 1 ? "" : "s",
            gv_jint(s, "fail_verdicts_over_repeats", 0), replays_short,
            replays_short == 1 ? "" : "s", errors, errors == 1 ? "" : "s", gv_jnum(doc, "seconds"));
}
