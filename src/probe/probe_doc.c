/* probe_doc.c: the gpuval-probe/1 document built from the rows `gpuval probe` judged (see
 * probe_doc.h). One writer for the command and the tests, so that the readers meet what is
 * written. */
#include "probe/probe_doc.h"

#include <assert.h>
#include <math.h>

void gv_probe_row_counts(const gv_probe_row *r, int *pass, int *fail, int *news)
{
    *pass = *fail = *news = 0;
    if (r->skipped) return;
    for (int f = 0; f < GV_FP_NFEATURES; f++) {
        *fail += r->v[f] == GV_FP_FAIL;
        *news += r->v[f] == GV_FP_NEW;
    }
    *pass = GV_FP_NFEATURES - *fail - *news;
}

/* A double as JSON: a number, or the strings "inf", "-inf", "nan" every gpuval document uses
   for what JSON cannot hold (io/json_util.c's gv_json_num, spelt here: io sits above). */
static json_t *num(double x)
{
    if (isnan(x)) return json_string("nan");
    if (isinf(x)) return json_string(x > 0 ? "inf" : "-inf");
    return json_real(x);
}

json_t *gv_probe_row_json(const gv_probe_row *r)
{
    assert(r->op); /* a row is of an op the registry holds */
    json_t *o = json_object();
    json_object_set_new(o, "op", json_string(r->op->name));
    json_object_set_new(o, "dtype", json_string(gv_dtype_name(r->dtype)));
    json_object_set_new(o, "mode", json_string(gv_mode_name(r->mode)));
    json_object_set_new(o, "math_mode", json_string(r->math_mode));
    if (r->skipped) {
        json_object_set_new(o, "skipped", json_string(r->why));
        return o;
    }
    json_object_set_new(o, "calls", json_integer(r->fp.calls));
    json_t *fs = json_object();
    for (int f = 0; f < GV_FP_NFEATURES; f++) {
        json_t *x = json_object();
        json_object_set_new(x, "value", json_string(r->fp.f[f].text));
        json_object_set_new(x, "expected",
                            r->rule[f] ? json_string(r->rule[f]->value) : json_null());
        json_object_set_new(x, "verdict", json_string(gv_fp_verdict_name(r->v[f])));
        json_object_set_new(x, "detail", json_string(r->fp.f[f].detail));
        if (r->rule[f]) json_object_set_new(x, "source", json_string(r->rule[f]->source));
        json_object_set_new(x, "changed_in_repeats", json_integer(r->changed[f]));
        json_object_set_new(fs, gv_fp_feature_name(f), x);
    }
    json_object_set_new(o, "features", fs);
    if (r->n_replay) {
        assert(r->model && r->n_replay <= (int)(sizeof r->replay / sizeof r->replay[0]));
        json_t *rp = json_array();
        for (int i = 0; i < r->n_replay; i++) {
            const gv_replay_result *q = &r->replay[i];
            json_t *x = json_object();
            char model[128];
            if (q->model)
                snprintf(model, sizeof model, "%s, %s", r->model->source, q->model);
            else
                snprintf(model, sizeof model, "%s", r->model->source);
            json_object_set_new(x, "model", json_string(model));
            json_object_set_new(x, "k", json_integer(q->k));
            json_object_set_new(x, "promote", json_integer(q->promote));
            json_object_set_new(x, "dots", json_integer(q->dots));
            json_object_set_new(x, "agree", json_integer(q->agree));
            if (q->first_index >= 0) {
                json_object_set_new(x, "first_index", json_integer(q->first_index));
                json_object_set_new(x, "first_device", num(q->first_got));
                json_object_set_new(x, "first_model", num(q->first_model));
            }
            json_array_append_new(rp, x);
        }
        json_object_set_new(o, "replay", rp);
    }
    return o;
}

json_t *gv_probe_doc_json(const gv_probe_doc_info *info, const gv_probe_row *rows, int n)
{
    json_t *doc = info->shared ? info->shared : json_object();
    if (!doc) return NULL;
    json_object_set_new(doc, "schema", json_string(gv_schema(GV_DOC_PROBE)));
    const gv_fp_expect *ex = info->expect;
    json_t *e = json_object();
    json_object_set_new(e, "path", json_string(ex ? ex->path : ""));
    json_object_set_new(e, "arch", json_string(ex ? ex->arch : ""));
    json_object_set_new(e, "version", json_integer(ex ? ex->version : 0));
    json_object_set_new(doc, "expectations", e);
    json_object_set_new(doc, "repeat", json_integer(info->repeat));
    json_object_set_new(doc, "seconds", json_real(info->seconds));
    json_t *rs = json_array();
    int pass = 0, fail = 0, news = 0, fail_runs = 0;
    for (int i = 0; i < n; i++) {
        int p, f, w;
        gv_probe_row_counts(&rows[i], &p, &f, &w);
        pass += p;
        fail += f;
        news += w;
        fail_runs += rows[i].fails;
        json_array_append_new(rs, gv_probe_row_json(&rows[i]));
    }
    json_object_set_new(doc, "rows", rs);
    json_t *sum = json_object();
    json_object_set_new(sum, "pass", json_integer(pass));
    json_object_set_new(sum, "fail", json_integer(fail));
    json_object_set_new(sum, "new", json_integer(news));
    json_object_set_new(sum, "fail_verdicts_over_repeats", json_integer(fail_runs));
    json_object_set_new(sum, "replays_short", json_integer(info->replays_short));
    json_object_set_new(sum, "errors", json_integer(info->errors));
    json_object_set_new(doc, "summary", sum);
    return doc;
}
