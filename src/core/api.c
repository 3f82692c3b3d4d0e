/* api.c: the public descriptors of include/gpuval.h turned into gpuval's own op descriptors
 * (src/core/op.h): checking a family, building one gv_op and gk_op per gv_op_desc, and the hooks
 * that translate between the two (layout, inputs, reference, gauge, depth, device launch).
 * A user's op then runs through the very path of a built-in: gk_run's red zones, poisoned
 * outputs and input checks, gv_judge_problem's error model and tiers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/api.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"

_Static_assert(GV_DTYPE_F32 == GV_F32 && GV_DTYPE_F64 == GV_F64, "public dtype numbers");
_Static_assert(GV_API_MAX_TENSORS == GK_MAX_TENSORS, "public tensor count");
_Static_assert(GV_API_MAX_DIMS == GV_MAX_DIMS, "public dim count");
_Static_assert(GV_API_OK == GV_OK && GV_API_EINVAL == GV_EINVAL && GV_API_ENOMEM == GV_ENOMEM,
               "public error numbers");

int gv_api_version(void)
{
    return GPUVAL_API_VERSION;
}

const char *gv_api_strerror(int rc)
{
    switch (rc) {
    case GV_API_EABI: return "built against an incompatible gpuval API version";
    case GV_API_EEXIST: return "an op of that name is already registered";
    default: return gv_strerror(rc);
    }
}

/* One registered public op: gpuval's descriptor first, so a gv_op pointer (c->op) or a
   gk_op pointer (L->op) leads back to it. */
typedef struct api_op {
    gv_op op;
    gk_op dev;
    const gv_op_desc *desc;
    const gv_op *as; /* judge_as: the built-in whose model is used */
} api_op;

static const api_op *api_of_case(const gv_case *c)
{
    return (const api_op *)(const void *)c->op;
}

static const api_op *api_of_launch(const gk_launch *L)
{
    return (const api_op *)(const void *)((const char *)L->op - offsetof(api_op, dev));
}

static gv_case_info case_info(const gv_case *c)
{
    gv_case_info ci = {.dtype = (int)c->dtype,
                       .mode = gv_mode_name(c->mode),
                       .dist = gv_dist_name(c->dist),
                       .nd = c->shape.nd,
                       .seed = c->seed};
    for (int i = 0; i < c->shape.nd; i++)
        ci.dims[i] = c->shape.d[i];
    return ci;
}

/* ---- hooks of an op with its own model ------------------------------------------------- */

static int api_layout(const gv_case *c, gv_layout *l)
{
    const gv_op_desc *d = api_of_case(c)->desc;
    gv_case_info ci = case_info(c);
    gv_layout_info li;
    memset(&li, 0, sizeof li);
    int rc = d->layout(&ci, &li, d->user);
    if (rc != GV_API_OK) return GV_EINVAL;
    memset(l, 0, sizeof *l);
    l->n_in = d->n_in;
    l->n_out = d->n_out;
    for (int i = 0; i < d->n_in; i++) {
        if (li.in_count[i] < 0) return GV_EINVAL;
        l->in[i] = (gv_tensor_spec){d->in_names[i] ? d->in_names[i] : "", li.in_count[i]};
    }
    for (int i = 0; i < d->n_out; i++) {
        if (li.out_count[i] < 0) return GV_EINVAL;
        l->out[i] = (gv_tensor_spec){d->out_names[i] ? d->out_names[i] : "", li.out_count[i]};
    }
    if (li.workspace_bytes < 0) return GV_EINVAL;
    l->workspace_bytes = li.workspace_bytes;
    return GV_OK;
}

static double api_flops(const gv_case *c)
{
    const gv_op_desc *d = api_of_case(c)->desc;
    gv_case_info ci = case_info(c);
    return d->flops ? d->flops(&ci, d->user) : 0.0;
}

static double api_bytes(const gv_case *c)
{
    const gv_op_desc *d = api_of_case(c)->desc;
    gv_case_info ci = case_info(c);
    return d->bytes ? d->bytes(&ci, d->user) : 0.0;
}

static double api_depth(const gv_case *c)
{
    const gv_op_desc *d = api_of_case(c)->desc;
    gv_case_info ci = case_info(c);
    return d->depth(&ci, d->user);
}

/* judge_as with a depth of the user's kernel (declared) or the operation's order-free one:
   the f64 oracle is still the built-in's, and sums in the built-in's order (its own
   oracle_depth, else its native depth), whatever the depth the user's kernel is judged at. */
static double api_as_oracle_depth(const gv_case *c)
{
    const gv_op *as = api_of_case(c)->as;
    if (as->oracle_depth) return as->oracle_depth(c);
    gv_case native = *c;
    native.mode = GV_MODE_NATIVE;
    return as->depth(&native);
}

static int api_inputs(gv_problem *p)
{
    const gv_op_desc *d = api_of_case(&p->c)->desc;
    if (!d->make_inputs) {
        for (int i = 0; i < p->l.n_in; i++)
            gv_fill(p, i, p->c.dist);
        return GV_OK;
    }
    gv_case_info ci = case_info(&p->c);
    double *in[GV_MAX_TENSORS] = {0};
    int64_t count[GV_MAX_TENSORS] = {0};
    for (int i = 0; i < p->l.n_in; i++) {
        in[i] = p->in[i].ref;
        count[i] = p->in[i].count;
    }
    if (d->make_inputs(&ci, in, count, d->user) != GV_API_OK) return GV_EINVAL;
    for (int i = 0; i < p->l.n_in; i++)
        gv_store_rounded(p, i);
    return GV_OK;
}

static int api_reference(gv_problem *p)
{
    const gv_op_desc *d = api_of_case(&p->c)->desc;
    gv_case_info ci = case_info(&p->c);
    const double *in[GV_MAX_TENSORS] = {0};
    double *out[GV_MAX_TENSORS] = {0};
    for (int i = 0; i < p->l.n_in; i++)
        in[i] = p->in[i].ref;
    for (int i = 0; i < p->l.n_out; i++)
        out[i] = p->out[i].ref;
    return d->reference(&ci, in, out, d->user) == GV_API_OK ? GV_OK : GV_EINVAL;
}

static int api_gauge(gv_problem *p)
{
    const gv_op_desc *d = api_of_case(&p->c)->desc;
    if (!d->gauge) {
        for (int i = 0; i < p->l.n_out; i++)
            for (int64_t k = 0; k < p->out[i].count; k++)
                p->out[i].gauge[k] = fabs(p->out[i].ref[k]);
        return GV_OK;
    }
    gv_case_info ci = case_info(&p->c);
    const double *in[GV_MAX_TENSORS] = {0}, *ref[GV_MAX_TENSORS] = {0};
    double *gauge[GV_MAX_TENSORS] = {0};
    for (int i = 0; i < p->l.n_in; i++)
        in[i] = p->in[i].ref;
    for (int i = 0; i < p->l.n_out; i++) {
        ref[i] = p->out[i].ref;
        gauge[i] = p->out[i].gauge;
    }
    return d->gauge(&ci, in, ref, gauge, d->user) == GV_API_OK ? GV_OK : GV_EINVAL;
}

/* ---- the device side: gk_launch to gv_launch_args ---------------------------------------- */

static int api_launch(gk_launch *L)
{
    const api_op *a = api_of_launch(L);
    gv_launch_args g;
    memset(&g, 0, sizeof g);
    g.dtype = L->dtype;
    g.mode = gv_mode_name((gv_mode)L->mode);
    g.nd = L->nd;
    for (int i = 0; i < L->nd && i < GV_API_MAX_DIMS; i++)
        g.dims[i] = L->dims[i];
    g.n_in = L->n_in;
    g.n_out = L->n_out;
    for (int i = 0; i < L->n_in; i++) {
        g.in[i] = L->in[i];
        g.in_count[i] = L->in_count[i];
    }
    for (int i = 0; i < L->n_out; i++) {
        g.out[i] = L->out[i];
        g.out_count[i] = L->out_count[i];
    }
    g.stream = L->stream;
    g.workspace = L->workspace;
    g.workspace_bytes = L->workspace_bytes;
    g.user = a->desc->user;
    snprintf(L->math_mode, sizeof L->math_mode, "user kernel");
    char where[96];
    snprintf(where, sizeof where, "the launch hook of %.60s", a->op.name);
    return gk_hook_status(a->desc->launch(&g), where);
}

/* ---- checking a descriptor --------------------------------------------------------------- */

static int fail(char *err, size_t errlen, const char *who, const char *what, const char *arg)
{
    snprintf(err, errlen, "%s: %s%s%s%s", who && who[0] ? who : "(unnamed op)", what,
             arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
    return GV_EINVAL;
}

/* "f32,f64" (or modes, dists) into a bit mask through parse; GV_EINVAL with the bad name. */
static int parse_names(const char *list, int (*parse)(const char *, int *), unsigned *mask,
                       int *first, char *bad, size_t badlen)
{
    char buf[256];
    if (strlen(list) >= sizeof buf || !list[0]) {
        snprintf(bad, badlen, "%.60s", list);
        return GV_EINVAL;
    }
    snprintf(buf, sizeof buf, "%s", list);
    *mask = 0;
    *first = -1;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int v = -1;
        if (parse(tok, &v) != GV_OK) {
            snprintf(bad, badlen, "%.60s", tok);
            return GV_EINVAL;
        }
        if (*first < 0) *first = v;
        *mask |= 1u << v;
    }
    return *mask ? GV_OK : GV_EINVAL;
}

static int parse_dtype_i(const char *s, int *v)
{
    gv_dtype t;
    int rc = gv_dtype_parse(s, &t);
    *v = (int)t;
    return rc;
}
static int parse_mode_i(const char *s, int *v)
{
    gv_mode m;
    int rc = gv_mode_parse(s, &m);
    *v = (int)m;
    return rc;
}
static int parse_dist_i(const char *s, int *v)
{
    gv_dist d;
    int rc = gv_dist_parse(s, &d);
    *v = (int)d;
    return rc;
}

static int count_names(const char *dims)
{
    int n = 1;
    for (const char *p = dims; *p; p++)
        n += *p == ',';
    return n;
}

/* Check the shapes SPEC against the dims count (and the built-in's shape rule). */
static int check_spec(const gv_op *op, const char *spec, const char *field, char *err,
                      size_t errlen)
{
    gv_shape shapes[32];
    char why[200];
    int n = gv_size_spec_parse(spec, shapes, 32, why, sizeof why);
    if (n < 1) return fail(err, errlen, op->name, field, why[0] ? why : spec);
    for (int i = 0; i < n; i++)
        if (!gv_shape_ok(op, &shapes[i], why, sizeof why))
            return fail(err, errlen, op->name, why, NULL);
    return GV_OK;
}

/* op takes the built-in's model whole (d->judge_as); the user's name, sizes, dtypes, modes and
   kernel stay. */
static int as_builtin(api_op *a, const gv_op_desc *d, char *err, size_t errlen)
{
    const char *name = d->name;
    gv_op *op = &a->op;
    const gv_op *as = gv_builtin_find(d->judge_as);
    if (!as) return fail(err, errlen, name, "judge_as names no built-in op or family", d->judge_as);
    if (d->n_in || d->n_out || d->layout || d->flops || d->bytes || d->make_inputs ||
        d->reference || d->gauge || d->ratio_bound != 0)
        return fail(err, errlen, name,
                    "judge_as takes the built-in's model: leave n_in, n_out, layout, flops, "
                    "bytes, make_inputs, reference, gauge and ratio_bound zero (depth: your "
                    "kernel's own, or zero for the operation's order-free depth)",
                    NULL);
    if (d->dims && strcmp(d->dims, as->dims) != 0)
        return fail(err, errlen, name, "dims differ from the built-in's", as->dims);
    a->as = as;
    /* the built-in's model, whole; the user's name, sizes, dtypes, modes and kernel */
    op->dims = as->dims;
    op->error_model = d->error_model ? d->error_model : as->error_model;
    op->dists = as->dists;
    op->default_dist = as->default_dist;
    op->check_shape = as->check_shape;
    op->mode_valid = as->mode_valid;
    op->layout = as->layout;
    op->flops = as->flops;
    op->bytes = as->bytes;
    op->make_inputs = as->make_inputs;
    op->shared_input_key = as->shared_input_key; /* the same inputs, the same entry */
    op->oracle = as->oracle;
    op->gauge = as->gauge;
    /* Depths belong to the kernel that has them: the built-in's may be its own order (a
       tree, chunks), which the user's kernel need not share. The user's declared depth,
       else the operation's depth in any order (docs/error-models.md, "Data gpuval did
       not make"). The oracle keeps its own. */
    op->depth = d->depth ? api_depth : as->order_free_depth ? as->order_free_depth : as->depth;
    op->unit_roundoff = as->unit_roundoff;
    op->ratio_bound = as->ratio_bound;
    op->expected_tier = as->expected_tier;
    op->pgauge = as->pgauge;
    op->oracle_depth = op->depth == as->depth ? as->oracle_depth : api_as_oracle_depth;
    op->exact = as->exact;
    op->measure = as->measure;
    op->envelope = as->envelope; /* the same sums, judged order-free on given inputs */
    if ((op->dtypes & ~as->dtypes) != 0)
        return fail(err, errlen, name, "a dtype the built-in does not take:", d->dtypes);
    if ((op->modes & ~as->modes) != 0)
        return fail(err, errlen, name, "a mode the built-in does not take:", d->modes);
    return GV_OK;
}

/* op's model is the user's own: its layout, reference, gauge and depth through the api_
   hooks. */
static int own_model(api_op *a, const gv_op_desc *d, char *err, size_t errlen)
{
    const char *name = d->name;
    gv_op *op = &a->op;
    char bad[64];
    int first;
    if (!d->dims || !d->dims[0]) return fail(err, errlen, name, "dims is required", NULL);
    if (count_names(d->dims) > GV_API_MAX_DIMS)
        return fail(err, errlen, name, "more than 4 dims:", d->dims);
    if (d->n_in < 0 || d->n_in > GV_API_MAX_TENSORS || d->n_out < 1 ||
        d->n_out > GV_API_MAX_TENSORS)
        return fail(err, errlen, name, "n_in must be 0..6 and n_out 1..6", NULL);
    if (!d->layout) return fail(err, errlen, name, "layout is required", NULL);
    if (!d->reference)
        return fail(err, errlen, name, "reference is required without judge_as", NULL);
    if (!d->depth) return fail(err, errlen, name, "depth is required without judge_as", NULL);
    if (!(d->ratio_bound >= 0)) return fail(err, errlen, name, "ratio_bound must be >= 0", NULL);
    op->dims = d->dims;
    op->error_model = d->error_model ? d->error_model : "(the op's own)";
    if (parse_names(d->dists ? d->dists : "uniform01,uniform11,smallint,offgrid,wide", parse_dist_i,
                    &op->dists, &first, bad, sizeof bad) != GV_OK)
        return fail(err, errlen, name, "unknown input distribution", bad);
    op->default_dist = (gv_dist)first;
    op->layout = api_layout;
    op->flops = api_flops;
    op->bytes = api_bytes;
    op->make_inputs = api_inputs;
    op->user_inputs = d->make_inputs != NULL; /* else gpuval's generator (api_inputs) */
    op->oracle = api_reference;
    op->gauge = api_gauge;
    op->depth = api_depth;
    op->ratio_bound = d->ratio_bound;
    return GV_OK;
}

/* Build a's gv_op from its descriptor d, checking every field; GV_OK or GV_EINVAL in err. */
static int build_op(api_op *a, const gv_op_desc *d, char *err, size_t errlen)
{
    const char *name = d->name;
    char bad[64];
    int first;
    memset(a, 0, sizeof *a);
    a->desc = d;
    if (!name || !name[0]) return fail(err, errlen, NULL, "name is required", NULL);
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            return fail(err, errlen, NULL,
                        "op names take letters, digits, '.', '_' and '-':", name);
    if (!d->shapes) return fail(err, errlen, name, "shapes (a size SPEC) is required", NULL);
    gv_op *op = &a->op;
    op->name = name;
    op->family = "user";
    op->summary = d->summary ? d->summary : "";
    op->planted_bug = d->planted_bug;
    op->shapes = d->shapes;
    op->test_shapes = d->test_shapes ? d->test_shapes : d->shapes;
    if (parse_names(d->dtypes ? d->dtypes : "f32", parse_dtype_i, &op->dtypes, &first, bad,
                    sizeof bad) != GV_OK)
        return fail(err, errlen, name, "unknown dtype", bad);
    if (parse_names(d->modes ? d->modes : "native", parse_mode_i, &op->modes, &first, bad,
                    sizeof bad) != GV_OK)
        return fail(err, errlen, name, "unknown mode", bad);

    int rc = d->judge_as ? as_builtin(a, d, err, errlen) : own_model(a, d, err, errlen);
    if (rc != GV_OK) return rc;
    /* some pair of dtype and mode must exist */
    bool any = false;
    for (int t = 0; t < GV_NDTYPES; t++)
        for (int m = 0; m < GV_NMODES; m++)
            any = any || gv_mode_ok(op, (gv_dtype)t, (gv_mode)m);
    if (!any) return fail(err, errlen, name, "no valid (dtype, mode) pair among", d->modes);
    rc = check_spec(op, op->shapes, "bad shapes", err, errlen);
    if (rc == GV_OK) rc = check_spec(op, op->test_shapes, "bad test_shapes", err, errlen);
    if (rc != GV_OK) return rc;
    a->dev.launch = api_launch;
    op->device = d->launch ? &a->dev : NULL;
    return GV_OK;
}

int gv_register_family(const gv_family *family, char *err, size_t errlen)
{
    if (errlen) err[0] = '\0';
    if (!family) {
        snprintf(err, errlen, "no family (NULL)");
        return GV_EINVAL;
    }
    int major = family->api_version / 1000, minor = family->api_version % 1000;
    if (major != GPUVAL_API_VERSION_MAJOR || minor > GPUVAL_API_VERSION_MINOR) {
        snprintf(err, errlen,
                 "family '%s' was built against gpuval API %d.%d; this library is %d.%d "
                 "(rebuild it against this gpuval.h)",
                 family->name ? family->name : "?", major, minor, GPUVAL_API_VERSION_MAJOR,
                 GPUVAL_API_VERSION_MINOR);
        return GV_API_EABI;
    }
    if (!family->ops) {
        snprintf(err, errlen, "family '%s' has no ops list", family->name ? family->name : "?");
        return GV_EINVAL;
    }
    int n = 0;
    while (family->ops[n])
        n++;
    if (n == 0) {
        snprintf(err, errlen, "family '%s' has no ops", family->name ? family->name : "?");
        return GV_EINVAL;
    }
    /* one allocation for the ops and the NULL-terminated list the registry keeps; kept for
       the life of the process, as the registry refers to it */
    api_op *ops = calloc((size_t)n, sizeof *ops);
    const gv_op **list = calloc((size_t)n + 1, sizeof *list);
    if (!ops || !list) {
        free(ops);
        free(list);
        snprintf(err, errlen, "out of host memory registering family '%s'", family->name);
        return GV_ENOMEM;
    }
    int rc = GV_OK;
    for (int i = 0; i < n && rc == GV_OK; i++) {
        rc = build_op(&ops[i], family->ops[i], err, errlen);
        if (rc != GV_OK) break;
        const char *name = ops[i].op.name;
        bool dup = gv_op_find(name) || gv_builtin_find(name);
        for (int j = 0; j < i; j++)
            dup = dup || strcmp(ops[j].op.name, name) == 0;
        if (dup) {
            snprintf(err, errlen, "%s: an op of that name is already registered", name);
            rc = GV_API_EEXIST;
        }
        list[i] = &ops[i].op;
    }
    if (rc == GV_OK && gv_registry_add(list) != GV_OK) {
        snprintf(err, errlen, "family '%s': more ops than the registry holds", family->name);
        rc = GV_ENOMEM;
    }
    if (rc != GV_OK) {
        free(ops);
        free(list);
    }
    return rc;
}
