/* judge_api.c: outputs computed anywhere, judged here (judge.h): the case a spec names, its
 * inputs (the generator's, or the caller's), the f64 reference and the judge of check's own
 * cases, without a device; and the 1.2 API of include/gpuval.h on top of it (gv_judge,
 * gv_make_inputs, gv_op_info). `gpuval judge` and `gpuval inputs` (judge.c) take the same
 * path. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/judge_api.h"
#include "core/inputs.h"
#include "core/judge.h"
#include "core/problem.h"
#include "core/reference.h"
#include "core/registry.h"
#include "core/run.h"
#include "io/case_io.h"
#include "io/json_util.h"
#include "io/run_doc.h"
#include "io/sha256.h"

static int say(char *err, size_t len, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int say(char *err, size_t len, int rc, const char *fmt, ...)
{
    if (err && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

const gv_op *gv_judge_find_op(const char *name)
{
    if (!name) return NULL;
    const gv_op *op = gv_op_find(name);
    return op ? op : gv_builtin_find(name);
}

/* A distribution the op's cases take: one of its own, or a mode probe it runs in this mode. */
static bool dist_ok(const gv_op *op, gv_dist d, gv_dtype t, gv_mode m)
{
    if (op->dists & (1u << d)) return true;
    const char *lists[2] = {op->mode_probes, op->test_mode_probes};
    char pat[40];
    snprintf(pat, sizeof pat, "%s:", gv_dist_name(d));
    for (int k = 0; k < 2; k++)
        if (lists[k] && strstr(lists[k], pat) && gv_probe_applies(d, t, m)) return true;
    return false;
}

int gv_judge_case_make(const char *opname, int dtype, const char *mode, const char *size,
                       const char *dist, uint64_t seed, gv_case *c, gv_layout *l, char *err,
                       size_t errlen)
{
    memset(c, 0, sizeof *c);
    memset(l, 0, sizeof *l);
    if (!opname || !opname[0]) return say(err, errlen, GV_EINVAL, "no op named (gpuval list)");
    const gv_op *op = gv_judge_find_op(opname);
    if (!op) return say(err, errlen, GV_EINVAL, "no op '%.100s' (gpuval list --all)", opname);
    if (dtype != GV_F32 && dtype != GV_F64)
        return say(err, errlen, GV_EINVAL, "%s: dtype %d is neither GV_DTYPE_F32 nor GV_DTYPE_F64",
                   op->name, dtype);
    gv_dtype t = (gv_dtype)dtype;
    if (!(op->dtypes & (1u << t)))
        return say(err, errlen, GV_EINVAL, "%s takes no %s", op->name, gv_dtype_name(t));
    gv_mode m = GV_MODE_NATIVE;
    if (mode && gv_mode_parse(mode, &m) != GV_OK)
        return say(err, errlen, GV_EINVAL, "no mode '%.60s' (gpuval list --modes)", mode);
    if (!gv_mode_ok(op, t, m))
        return say(err, errlen, GV_EINVAL, "%s has no mode %s for %s", op->name, gv_mode_name(m),
                   gv_dtype_name(t));
    if (!size || !size[0])
        return say(err, errlen, GV_EINVAL, "%s needs a size in its dims %s (e.g. %s)", op->name,
                   op->dims, op->test_shapes ? op->test_shapes : op->shapes);
    gv_shape shapes[2];
    char why[256];
    int ns = gv_size_spec_parse(size, shapes, 2, why, sizeof why);
    if (ns < 0) return say(err, errlen, GV_EINVAL, "size: %s", why);
    if (ns != 1)
        return say(err, errlen, GV_EINVAL, "size '%.60s': one shape, in %s's dims %s", size,
                   op->name, op->dims);
    if (!gv_shape_ok(op, &shapes[0], why, sizeof why))
        return say(err, errlen, GV_EINVAL, "%s", why);
    gv_dist d = op->default_dist;
    if (dist && gv_dist_parse(dist, &d) != GV_OK)
        return say(err, errlen, GV_EINVAL, "no input distribution '%.60s'", dist);
    if (!dist_ok(op, d, t, m))
        return say(err, errlen, GV_EINVAL, "%s does not take input distribution '%s'", op->name,
                   gv_dist_name(d));
    *c = (gv_case){.op = op, .dtype = t, .mode = m, .dist = d, .shape = shapes[0], .seed = seed};
    int rc = op->layout(c, l);
    if (rc != GV_OK) return say(err, errlen, rc, "%s: layout: %s", op->name, gv_strerror(rc));
    if (l->n_in < 0 || l->n_in > GV_MAX_TENSORS || l->n_out < 1 || l->n_out > GV_MAX_TENSORS)
        return say(err, errlen, GV_EINTERNAL, "%s: layout of %d inputs, %d outputs", op->name,
                   l->n_in, l->n_out);
    return GV_OK;
}

int gv_judge_tensor_shape(const gv_case *c, const gv_layout *l, bool output, int i,
                          int64_t shape[GV_MAX_DIMS])
{
    int64_t s[GV_NPY_MAX_DIMS];
    int nd = gv_tensor_shape(c, l, output, i, s);
    if (nd > GV_MAX_DIMS) { /* no op declares more; flat rather than cut */
        shape[0] = output ? l->out[i].count : l->in[i].count;
        return 1;
    }
    for (int k = 0; k < nd; k++)
        shape[k] = s[k];
    return nd;
}

static const char *tname(const gv_tensor_spec *t, char *buf, size_t len, const char *side, int i)
{
    if (t->name && t->name[0]) return t->name;
    snprintf(buf, len, "%s %d", side, i);
    return buf;
}

/* "A (m x k), B (k x n)" for messages. */
static void list_tensors(const gv_case *c, const gv_layout *l, bool output, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    int n = output ? l->n_out : l->n_in;
    for (int i = 0; i < n && used < len; i++) {
        int64_t s[GV_MAX_DIMS];
        int nd = gv_judge_tensor_shape(c, l, output, i, s);
        char nb[32];
        const gv_tensor_spec *t = output ? &l->out[i] : &l->in[i];
        used += (size_t)snprintf(buf + used, len - used, "%s%s (", i ? ", " : "",
                                 tname(t, nb, sizeof nb, output ? "output" : "input", i));
        for (int k = 0; k < nd && used < len; k++)
            used +=
                (size_t)snprintf(buf + used, len - used, "%s%lld", k ? " x " : "", (long long)s[k]);
        if (used < len) used += (size_t)snprintf(buf + used, len - used, ")");
    }
}

static json_t *array_record(const gv_array *a, const char *side, int i)
{
    gv_sha256 h;
    char hex[65];
    gv_sha256_init(&h);
    gv_sha256_update(&h, a->data, (size_t)a->count * gv_dtype_size((gv_dtype)a->dtype));
    gv_sha256_final(&h, hex);
    json_t *o =
        json_pack("{s:s, s:i, s:s, s:I, s:s}", "side", side, "index", i, "dtype",
                  gv_dtype_name((gv_dtype)a->dtype), "count", (json_int_t)a->count, "sha256", hex);
    if (o && a->name) json_object_set_new(o, "name", json_string(a->name));
    return o;
}

/* The spec's arrays against the case: counts, dtypes, data. */
static int check_arrays(const gv_judge_spec *s, const gv_case *c, const gv_layout *l, char *err,
                        size_t errlen)
{
    const char *op = c->op->name;
    if (s->n_in != l->n_in || s->n_out != l->n_out) {
        char ins[256], outs[256];
        list_tensors(c, l, false, ins, sizeof ins);
        list_tensors(c, l, true, outs, sizeof outs);
        return say(err, errlen, GV_EINVAL,
                   "%s takes %d input%s (%s) and %d output%s (%s); got %d and %d", op, l->n_in,
                   l->n_in == 1 ? "" : "s", ins, l->n_out, l->n_out == 1 ? "" : "s", outs, s->n_in,
                   s->n_out);
    }
    for (int side = 0; side < 2; side++) {
        int n = side ? s->n_out : s->n_in;
        const gv_array *arr = side ? s->out : s->in;
        for (int i = 0; i < n; i++) {
            const gv_array *a = &arr[i];
            const gv_tensor_spec *t = side ? &l->out[i] : &l->in[i];
            char nb[32], shape[128];
            const char *who = tname(t, nb, sizeof nb, side ? "output" : "input", i);
            const char *from = a->name ? a->name : "";
            if (a->count != t->count) {
                int64_t sh[GV_MAX_DIMS];
                int nd = gv_judge_tensor_shape(c, l, side, i, sh);
                size_t used = 0;
                shape[0] = '\0';
                for (int k = 0; k < nd; k++)
                    used += (size_t)snprintf(shape + used, sizeof shape - used, "%s%lld",
                                             k ? " x " : "", (long long)sh[k]);
                char sz[96];
                return say(err, errlen, GV_EINVAL,
                           "%s %s%s%s%s: %lld elements, but %s at size %s has %lld (%s)", op, who,
                           from[0] ? " (" : "", from, from[0] ? ")" : "", (long long)a->count, who,
                           gv_shape_format(&c->shape, sz, sizeof sz), (long long)t->count, shape);
            }
            if (a->dtype != (int)c->dtype)
                return say(err, errlen, GV_EINVAL,
                           "%s %s%s%s%s is %s, but the case is %s: all arrays share one dtype", op,
                           who, from[0] ? " (" : "", from, from[0] ? ")" : "",
                           a->dtype == GV_F32 || a->dtype == GV_F64
                               ? gv_dtype_name((gv_dtype)a->dtype)
                               : "of no gpuval dtype",
                           gv_dtype_name(c->dtype));
            if (!a->data && a->count > 0)
                return say(err, errlen, GV_EINVAL, "%s %s: no data", op, who);
        }
    }
    return GV_OK;
}

int gv_judge_run(const gv_judge_spec *s, gv_result *r, json_t **arrays, char *err, size_t errlen)
{
    if (arrays) *arrays = NULL;
    if (!s || !r) return say(err, errlen, GV_EINVAL, "no spec");
    if (s->n_in < 0 || s->n_in > GV_MAX_TENSORS || s->n_out < 1 || s->n_out > GV_MAX_TENSORS ||
        (s->n_in > 0 && !s->in) || !s->out)
        return say(err, errlen, GV_EINVAL,
                   "%d inputs and %d outputs: an op has 0 to %d inputs and 1 to %d outputs, "
                   "each array given",
                   s->n_in, s->n_out, GV_MAX_TENSORS, GV_MAX_TENSORS);
    int dtype = s->n_in > 0 ? s->in[0].dtype : s->out[0].dtype;
    /* "MODE+ftz": the outputs claim MODE with flush-to-zero (gv_result.ftz_allowed) */
    char mode_buf[64];
    const char *mode = s->mode;
    bool ftz = false;
    size_t ml = mode ? strlen(mode) : 0;
    if (ml >= 4 && strcmp(mode + ml - 4, "+ftz") == 0) {
        if (ml - 4 >= sizeof mode_buf || ml == 4)
            return say(err, errlen, GV_EINVAL, "no mode '%.60s' (gpuval list --modes; +ftz after one)",
                       mode);
        memcpy(mode_buf, mode, ml - 4);
        mode_buf[ml - 4] = '\0';
        mode = mode_buf;
        ftz = true;
    }
    gv_case c;
    gv_layout l;
    int rc = gv_judge_case_make(s->op, dtype, mode, s->size, s->dist, s->seed, &c, &l, err, errlen);
    if (rc != GV_OK) return rc;
    rc = check_arrays(s, &c, &l, err, errlen);
    if (rc != GV_OK) return rc;
    char why[160];
    if (gv_host_memory_check(&c, &l, why, sizeof why) != GV_OK)
        return say(err, errlen, GV_ENOMEM, "%s", why);

    gv_result_init(r, &c, &gv_default_tiers);
    r->ftz_allowed = ftz;
    if (ftz && r->bias.judged) { /* each flush errs toward zero: a lean by construction */
        r->bias.judged = false;
        snprintf(r->bias.why_not, sizeof r->bias.why_not,
                 "flush-to-zero allowed: flushed underflows lean toward zero");
    }
    /* Depths belong to the kernel that has them: these outputs come from another program,
       whose summation order need not be gpuval's kernel's tree or chunks */
    gv_result_order_free(r);
    snprintf(r->math_mode, sizeof r->math_mode, "outputs given");
    gv_problem p;
    double t0 = now_ms();
    rc = gv_problem_init(&p, &c);
    r->inputs_ms = now_ms() - t0;
    if (rc != GV_OK) {
        gv_problem_free(&p);
        if (rc == GV_ENOMEM) return say(err, errlen, rc, "too little host memory for the inputs");
        r->verdict = GV_ERROR;
        gv_oracle_reason(rc, "inputs", r->reason, sizeof r->reason);
        return GV_OK;
    }
    gv_given_inputs given;
    memset(&given, 0, sizeof given);
    given.n = s->n_in;
    for (int i = 0; i < s->n_in; i++) {
        given.data[i] = s->in[i].data;
        given.count[i] = s->in[i].count;
    }
    if (s->dist) {
        /* a generated case: judged as gpuval's own only on gpuval's own inputs */
        given.inputs = GV_INPUTS_GENERATED;
        if (!gv_given_match(&p, &given)) {
            gv_problem_free(&p);
            char sz[96];
            return say(err, errlen, GV_EINVAL,
                       "the inputs are not the ones gpuval generates for %s %s %s %s seed %llu "
                       "(gpuval inputs writes those); leave the distribution out to judge them "
                       "as given data",
                       c.op->name, gv_dtype_name(c.dtype), gv_dist_name(c.dist),
                       gv_shape_format(&c.shape, sz, sizeof sz), (unsigned long long)c.seed);
        }
        gv_result_set_inputs(r, GV_INPUTS_GENERATED);
    } else {
        given.inputs = GV_INPUTS_GIVEN;
        if (gv_problem_given(&p, &given, r) != GV_OK) {
            gv_problem_free(&p);
            return say(err, errlen, GV_EINTERNAL, "the inputs do not fit the layout");
        }
    }
    rc = gv_problem_oracle(&p, r);
    if (rc == GV_OK) {
        for (int i = 0; i < s->n_out; i++)
            memcpy(p.out[i].data, s->out[i].data, (size_t)p.out[i].count * gv_dtype_size(c.dtype));
        t0 = now_ms();
        gv_judge_problem(&p, r);
        r->judge_ms = now_ms() - t0;
    }
    gv_problem_free(&p);
    if (arrays) {
        json_t *ins = json_array(), *outs = json_array();
        for (int i = 0; i < s->n_in; i++)
            json_array_append_new(ins, array_record(&s->in[i], "input", i));
        for (int i = 0; i < s->n_out; i++)
            json_array_append_new(outs, array_record(&s->out[i], "output", i));
        *arrays = json_pack("{s:o, s:o}", "inputs", ins, "outputs", outs);
    }
    return GV_OK;
}

/* ---- the public API -------------------------------------------------------------------- */

static void judgement_from(const gv_result *r, gv_judgement *j)
{
    j->verdict = (int)r->verdict;
    snprintf(j->reason, sizeof j->reason, "%s", r->reason);
    bool judged = r->verdict == GV_PASS || r->verdict == GV_FAIL;
    j->max_rel = j->normwise = j->bits = j->ratio = j->r_max = j->r_rms = NAN;
    if (!judged) return;
    j->max_rel = r->m.max_rel;
    j->normwise = r->m.normwise_rel;
    j->bits = r->m.bits;
    j->ratio = r->m.ratio;
    if (r->prob.on) {
        j->r_max = r->m.prob_max;
        if (r->m.prob_n >= GV_PROB_RMS_MIN_N) j->r_rms = r->m.prob_rms;
    }
    for (int k = 0; k < r->tiers.n; k++) {
        if (r->tiers.t[k] == 1e-8) j->meets_1e8 = gv_tier_met(&r->m, k);
        if (r->tiers.t[k] == 1e-4) j->meets_1e4 = gv_tier_met(&r->m, k);
    }
}

int gv_judge(const gv_judge_spec *spec, gv_judgement *j)
{
    if (!j) return GV_API_EINVAL;
    memset(j, 0, sizeof *j);
    j->verdict = GV_VERDICT_ERROR;
    j->max_rel = j->normwise = j->bits = j->ratio = j->r_max = j->r_rms = NAN;
    gv_result *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(j->reason, sizeof j->reason, "out of host memory");
        return GV_API_ENOMEM;
    }
    json_t *arrays = NULL;
    int rc = gv_judge_run(spec, r, &arrays, j->reason, sizeof j->reason);
    if (rc != GV_OK) {
        free(r);
        return rc == GV_ENOMEM ? GV_API_ENOMEM : GV_API_EINVAL;
    }
    judgement_from(r, j);
    json_t *o = gv_result_json(r);
    if (o && arrays) json_object_set(o, "arrays", arrays);
    /* the row as check and judge print it, from their one formatter (io/run_doc.c), so that a
       binding shows the same line instead of formatting its own */
    char *row = NULL;
    size_t row_len = 0;
    FILE *mf = open_memstream(&row, &row_len);
    if (mf) {
        gv_table_row(mf, r);
        fclose(mf);
        if (row && row_len && row[row_len - 1] == '\n') row[row_len - 1] = '\0';
        if (o && row) json_object_set_new(o, "row", json_string(row));
    }
    free(row);
    j->json = o ? json_dumps(o, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(o);
    json_decref(arrays);
    free(r);
    if (!j->json) {
        snprintf(j->reason, sizeof j->reason, "out of host memory for the case's JSON");
        return GV_API_ENOMEM;
    }
    return GV_API_OK;
}

void gv_judgement_free(gv_judgement *j)
{
    if (!j) return;
    free(j->json);
    j->json = NULL;
}

int gv_make_inputs(const char *op, int dtype, const char *mode, const char *size, const char *dist,
                   uint64_t seed, gv_case_inputs *ci, char *err, size_t errlen)
{
    if (!ci) return say(err, errlen, GV_API_EINVAL, "no gv_case_inputs to fill");
    memset(ci, 0, sizeof *ci);
    gv_case c;
    gv_layout l;
    int rc = gv_judge_case_make(op, dtype, mode, size, dist, seed, &c, &l, err, errlen);
    if (rc != GV_OK) return rc == GV_ENOMEM ? GV_API_ENOMEM : GV_API_EINVAL;
    char why[160];
    if (gv_host_memory_check(&c, &l, why, sizeof why) != GV_OK)
        return say(err, errlen, GV_API_ENOMEM, "%s", why);
    gv_problem p;
    rc = gv_problem_init(&p, &c);
    if (rc != GV_OK) {
        gv_problem_free(&p);
        char reason[256];
        gv_oracle_reason(rc, "inputs", reason, sizeof reason);
        return say(err, errlen, rc == GV_ENOMEM ? GV_API_ENOMEM : GV_API_EINVAL, "%s: %s",
                   c.op->name, reason);
    }
    size_t es = gv_dtype_size(c.dtype);
    ci->dtype = (int)c.dtype;
    ci->n_in = p.l.n_in;
    ci->n_out = p.l.n_out;
    for (int i = 0; i < p.l.n_in; i++) {
        ci->in_count[i] = p.in[i].count;
        ci->in_names[i] = p.l.in[i].name;
        ci->in_ndim[i] = gv_judge_tensor_shape(&c, &p.l, false, i, ci->in_shape[i]);
        ci->in[i] = malloc(p.in[i].count > 0 ? (size_t)p.in[i].count * es : 1);
        if (!ci->in[i]) {
            gv_problem_free(&p);
            gv_case_inputs_free(ci);
            return say(err, errlen, GV_API_ENOMEM, "out of host memory for the inputs");
        }
        memcpy(ci->in[i], p.in[i].data, (size_t)p.in[i].count * es);
    }
    for (int i = 0; i < p.l.n_out; i++) {
        ci->out_count[i] = p.out[i].count;
        ci->out_names[i] = p.l.out[i].name;
        ci->out_ndim[i] = gv_judge_tensor_shape(&c, &p.l, true, i, ci->out_shape[i]);
    }
    gv_problem_free(&p);
    return GV_API_OK;
}

void gv_case_inputs_free(gv_case_inputs *ci)
{
    if (!ci) return;
    for (int i = 0; i < GV_API_MAX_TENSORS; i++) {
        free(ci->in[i]);
        ci->in[i] = NULL;
    }
}

static json_t *mask_json(unsigned mask, int n, const char *(*name)(int))
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        if (mask & (1u << i)) json_array_append_new(a, json_string(name(i)));
    return a;
}
static const char *dtype_i(int i)
{
    return gv_dtype_name((gv_dtype)i);
}
static const char *mode_i(int i)
{
    return gv_mode_name((gv_mode)i);
}
static const char *dist_i(int i)
{
    return gv_dist_name((gv_dist)i);
}
/* A descriptor's text, lossless (a plugin's bytes need not be UTF-8), or null. */
static json_t *str_or_null(const char *s)
{
    return s ? gv_json_bytes(s) : json_null();
}

json_t *gv_op_json(const gv_op *op)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", gv_json_bytes(op->name));
    json_object_set_new(o, "family", str_or_null(op->family));
    json_object_set_new(o, "summary", str_or_null(op->summary));
    json_object_set_new(o, "dims", str_or_null(op->dims));
    json_object_set_new(o, "in_dims", str_or_null(op->in_dims));
    json_object_set_new(o, "out_dims", str_or_null(op->out_dims));
    json_object_set_new(o, "dtypes", mask_json(op->dtypes, GV_NDTYPES, dtype_i));
    json_object_set_new(o, "modes", mask_json(op->modes, GV_NMODES, mode_i));
    json_object_set_new(o, "shapes", str_or_null(op->shapes));
    json_object_set_new(o, "test_shapes", str_or_null(op->test_shapes));
    json_object_set_new(o, "large_shapes", str_or_null(op->large_shapes));
    json_object_set_new(o, "dists", mask_json(op->dists, GV_NDISTS, dist_i));
    json_object_set_new(o, "default_dist", json_string(gv_dist_name(op->default_dist)));
    json_object_set_new(o, "canaries", str_or_null(op->canaries));
    json_object_set_new(o, "test_canaries", str_or_null(op->test_canaries));
    json_object_set_new(o, "mode_probes", str_or_null(op->mode_probes));
    json_object_set_new(o, "error_model", str_or_null(op->error_model));
    json_object_set_new(o, "planted_bug", str_or_null(op->planted_bug));
    json_object_set_new(o, "planted_slow", str_or_null(op->planted_slow));
    json_object_set_new(o, "nondeterministic", str_or_null(op->nondeterministic));
    json_object_set_new(o, "takes_inputs", json_boolean(op->in_dims != NULL));
    return o;
}

int gv_op_info(const char *name, char **json)
{
    if (json) *json = NULL;
    const gv_op *op = gv_judge_find_op(name);
    if (!op || !json) return GV_API_EINVAL;
    json_t *o = gv_op_json(op);
    *json = json_dumps(o, JSON_INDENT(1));
    json_decref(o);
    return *json ? GV_API_OK : GV_API_ENOMEM;
}

void gv_free(void *p)
{
    free(p);
}
