/* case_io.c: a case's tensors as .npy files (case_io.h): the tensor shapes of the families whose
 * inputs are plain arrays of their dims, the user's inputs for `check --inputs`, and the dump of
 * a failing case that `gpuval replay` (replay.c) reads back. */
#include "io/case_io.h"

#include "core/registry.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/json_util.h"
#include "io/outfile.h"

#ifndef GV_VERSION
#define GV_VERSION "unknown"
#endif

/* The name of dim d of "m,k,n" into buf. */
static const char *dim_name(const char *dims, int d, char *buf, size_t len)
{
    const char *p = dims;
    for (int k = 0; k < d && p; k++) {
        p = strchr(p, ',');
        if (p) p++;
    }
    size_t n = p ? strcspn(p, ",") : 0;
    if (n >= len) n = len - 1;
    if (p) memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

static int count_dims(const char *dims)
{
    int n = 1;
    for (const char *p = dims; *p; p++)
        n += *p == ',';
    return n;
}

static int say(char *err, size_t len, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int say(char *err, size_t len, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return rc;
}

static void format_dims(const gv_npy *a, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < a->nd && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%lld", i ? ", " : "",
                                 (long long)a->shape[i]);
    if (used < len) snprintf(buf + used, len - used, a->nd == 1 ? ",)" : ")");
}

static int infer_dims(const gv_op *op, const char *const *paths, const gv_npy *arrays, int n,
                      gv_shape *shape, char *err, size_t errlen)
{
    int nd = count_dims(op->dims);
    int from[GV_MAX_DIMS];
    for (int d = 0; d < GV_MAX_DIMS; d++)
        from[d] = -1;
    shape->nd = nd;
    for (int i = 0; i < n; i++) {
        char expr[64], have[160];
        int idx[GV_NPY_MAX_DIMS];
        gv_dims_field(op->in_dims, i, expr, sizeof expr);
        /* an empty entry carries none of the op's dims (a half spectrum, sparse values):
           its shape is checked against the case once the dims are known */
        if (!expr[0]) continue;
        int want = gv_dims_expr(op->dims, expr, idx);
        format_dims(&arrays[i], have, sizeof have);
        /* a complex input's (re, im) pairs are its last dim (gv_npy_complex_view) */
        bool cplx = gv_tensor_complex(op, false, i);
        if (cplx && (arrays[i].nd != want + 1 || arrays[i].shape[want] != 2))
            return say(err, errlen, GV_EINVAL,
                       "%s: shape %s; input %d of %s is complex (%s), a complex64 or complex128 "
                       "array of %d dims",
                       paths[i], have, i + 1, op->name, expr, want);
        if (!cplx && arrays[i].nd != want)
            return say(err, errlen, GV_EINVAL,
                       "%s: shape %s has %d dims; input %d of %s is (%s), %d dims", paths[i], have,
                       arrays[i].nd, i + 1, op->name, expr, want);
        for (int k = 0; k < want; k++) {
            int d = idx[k];
            int64_t v = arrays[i].shape[k];
            if (GV_DIM_IS_FIXED(d)) { /* a side the op fixes (a window's): no dim of the case */
                if (v != GV_DIM_FIXED_SIDE(d))
                    return say(err, errlen, GV_EINVAL,
                               "%s: shape %s; axis %d of input %d of %s is fixed at %lld (%s)",
                               paths[i], have, k, i + 1, op->name, (long long)GV_DIM_FIXED_SIDE(d),
                               expr);
                continue;
            }
            assert(d >= 0 && d < nd); /* in_dims names the op's own dims (gv_tensor_shape) */
            if (v < 1)
                return say(err, errlen, GV_EINVAL,
                           "%s: shape %s has an empty dim (gpuval's sizes are positive)", paths[i],
                           have);
            if (from[d] < 0) {
                shape->d[d] = v;
                from[d] = i;
            } else if (shape->d[d] != v) {
                char dn[32];
                return say(err, errlen, GV_EINVAL,
                           "%s: shape %s gives %s's dim %s = %lld, but %s gives %lld", paths[i],
                           have, op->name, dim_name(op->dims, d, dn, sizeof dn), (long long)v,
                           paths[from[d]], (long long)shape->d[d]);
            }
        }
    }
    for (int d = 0; d < nd; d++)
        if (from[d] < 0) {
            char dn[32];
            return say(err, errlen, GV_EINVAL, "%s: no input carries its dim %s", op->name,
                       dim_name(op->dims, d, dn, sizeof dn));
        }
    return GV_OK;
}

static int inputs_load(const gv_op *op, const char *files, gv_npy *arrays, int *n, gv_dtype *dtype,
                       gv_shape *shape, bool lowp, char *err, size_t errlen)
{
    *n = 0;
    if (!op->in_dims) {
        char those[1024];
        size_t used = 0;
        those[0] = '\0';
        for (const gv_op *const *o = gv_registry(); *o && used + 1 < sizeof those; o++)
            if ((*o)->in_dims && !(*o)->planted_bug && !(*o)->planted_slow)
                used += (size_t)snprintf(those + used, sizeof those - used, "%s%s",
                                         used ? ", " : "", (*o)->name);
        return say(err, errlen, GV_EINVAL,
                   "--inputs: %s takes no .npy inputs (its dims %s are not all the shapes of plain "
                   "input arrays); those that do: %s",
                   op->name, op->dims, those);
    }
    int want = 1;
    for (const char *p = op->in_dims; *p; p++)
        want += *p == ';';
    /* strtok_r would drop an empty item ("a.npy,,b.npy", a trailing comma) without a word */
    size_t flen = strlen(files);
    if (flen == 0 || files[0] == ',' || files[flen - 1] == ',' || strstr(files, ",,"))
        return say(err, errlen, GV_EINVAL,
                   "--inputs: an empty file name in '%s' (FILE,FILE,...: one .npy per input)",
                   files);
    char *copy = strdup(files), *save = NULL;
    const char *paths[GV_MAX_TENSORS];
    int got = 0;
    if (!copy) return GV_ENOMEM;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (got == GV_MAX_TENSORS) {
            got++;
            break;
        }
        paths[got++] = tok;
    }
    int rc = GV_OK, first_real = -1;
    if (got != want) {
        rc = say(err, errlen, GV_EINVAL, "--inputs: %s takes %d input files (%s), not %d", op->name,
                 want, op->in_dims, got);
        goto out;
    }
    for (int i = 0; i < got; i++) {
        rc = gv_npy_read(paths[i], &arrays[i], err, errlen);
        if (rc != GV_OK) goto out;
        *n = i + 1;
        /* a complex tensor is a complex file, or its reals with a last dim of 2 (as a dumped
           case holds it: infer_dims checks that dim); a complex file for a real one is no
           array of the op's */
        if (gv_npy_type_complex(arrays[i].type) && !gv_tensor_complex(op, false, i)) {
            rc = say(err, errlen, GV_EINVAL, "%s: dtype %s, but input %d of %s is real", paths[i],
                     gv_npy_type_name(arrays[i].type), i + 1, op->name);
            goto out;
        }
        rc = gv_npy_complex_view(paths[i], &arrays[i], err, errlen);
        if (rc != GV_OK) goto out;
        gv_npy_type t = arrays[i].type;
        if (lowp && (t == GV_NPY_F16 || t == GV_NPY_BF16 || t == GV_NPY_U8 || t == GV_NPY_U16))
            continue; /* judged beside the compute dtype's arrays (api/lowp.h) */
        if (t != GV_NPY_F32 && t != GV_NPY_F64) {
            rc = say(err, errlen, GV_EINVAL,
                     "%s: dtype %s (%s) has no gpuval storage dtype: check runs f32 (<f4) and "
                     "f64 (<f8)",
                     paths[i], gv_npy_type_name(t), gv_npy_descr(t));
            goto out;
        }
        if (first_real < 0) first_real = i;
        if (t != arrays[first_real].type) {
            rc = say(err, errlen, GV_EINVAL, "%s: dtype %s, but %s is %s: all inputs share one",
                     paths[i], gv_npy_type_name(t), paths[first_real],
                     gv_npy_type_name(arrays[first_real].type));
            goto out;
        }
    }
    *dtype = first_real < 0 || arrays[first_real].type == GV_NPY_F32 ? GV_F32 : GV_F64;
    if (!(op->dtypes & (1u << *dtype))) {
        rc = say(err, errlen, GV_EINVAL, "%s: dtype %s, which %s does not run", paths[0],
                 gv_dtype_name(*dtype), op->name);
        goto out;
    }
    rc = infer_dims(op, paths, arrays, got, shape, err, errlen);
out:
    if (rc != GV_OK) {
        for (int i = 0; i < *n; i++)
            gv_npy_free(&arrays[i]);
        *n = 0;
    }
    free(copy);
    return rc;
}

void gv_inputs_given(const gv_npy *arrays, int n, gv_inputs in, gv_given_inputs *given)
{
    memset(given, 0, sizeof *given);
    given->n = n;
    given->inputs = in;
    for (int i = 0; i < n; i++) {
        given->data[i] = arrays[i].data;
        given->count[i] = arrays[i].count;
    }
}

char *gv_dump_name(const gv_case *c, char *buf, size_t len)
{
    char shape[96];
    snprintf(buf, len, "%s-%s-%s-%s-%s-s%llu", c->op->name, gv_dtype_name(c->dtype),
             gv_mode_name(c->mode), gv_dist_name(c->dist),
             gv_shape_format(&c->shape, shape, sizeof shape), (unsigned long long)c->seed);
    /* one path component whatever an op is called: only [A-Za-z0-9._-] */
    for (char *p = buf; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-') *p = '_';
    if (buf[0] == '.') buf[0] = '_';
    return buf;
}

int gv_probe_dump_dir(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return say(err, errlen, -1, "--dump-failures %s exists and is not a directory", dir);
        if (access(dir, W_OK | X_OK) != 0)
            return say(err, errlen, -1, "--dump-failures %s: %s", dir, strerror(errno));
        return 0;
    }
    if (gv_probe_writable(dir) != 0)
        return say(err, errlen, -1, "--dump-failures %s cannot be created: %s", dir,
                   strerror(errno));
    return 0;
}

int gv_dump_taken(const char *dir, const gv_case *cases, int n, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        char name[256], path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, gv_dump_name(&cases[i], name, sizeof name));
        if (stat(path, &st) == 0)
            return say(err, errlen, -1,
                       "--dump-failures: %s exists (a dumped case is replaced only with --force)",
                       path);
    }
    return 0;
}

static int emit_json(FILE *f, void *doc)
{
    return json_dumpf((json_t *)doc, f, JSON_INDENT(2) | JSON_SORT_KEYS) == 0 &&
                   fwrite("\n", 1, 1, f) == 1
               ? 0
               : -1;
}

static json_t *shape_json(const int64_t *shape, int nd)
{
    json_t *a = json_array();
    for (int i = 0; i < nd; i++)
        json_array_append_new(a, json_integer(shape[i]));
    return a;
}

/* case.json: the case, its verdict and metrics (the result object of gpuval-run/1), the
   files, the build and the device. */
static json_t *case_json(const gv_problem *p, const gv_result *r, const gv_run_info *info,
                         const char *inputs)
{
    json_t *o = json_object();
    json_object_set_new(o, "schema", json_string(gv_schema(GV_DOC_CASE)));
    json_object_set_new(o, "gpuval_version", json_string(GV_VERSION));
    json_object_set_new(o, "op", json_string(r->c.op->name));
    json_object_set_new(o, "dtype", json_string(gv_dtype_name(r->c.dtype)));
    json_object_set_new(o, "mode", json_string(gv_mode_name(r->c.mode)));
    json_object_set_new(o, "dist", json_string(gv_dist_name(r->c.dist)));
    json_object_set_new(o, "dims", json_string(r->c.op->dims));
    json_object_set_new(o, "shape", shape_json(r->c.shape.d, r->c.shape.nd));
    json_object_set_new(o, "seed", gv_json_seed(r->c.seed));
    json_object_set_new(o, "verdict", json_string(gv_verdict_name(r->verdict)));
    json_object_set_new(o, "reason", json_string(r->reason));
    json_object_set_new(o, "inputs_from",
                        inputs ? gv_json_bytes(inputs) : json_string("generated"));
    json_object_set_new(o, "result", gv_result_json(r));
    json_object_set_new(o, "build", gv_json_build());
    json_object_set_new(o, "device",
                        info && info->have_device ? gv_json_device(&info->device) : json_null());
    json_t *files = json_object(), *in = json_array(), *out = json_array();
    for (int i = 0; i < p->l.n_in; i++) {
        char name[128];
        snprintf(name, sizeof name, "in_%s.npy", p->in[i].name);
        json_t *t = json_object();
        json_object_set_new(t, "name", json_string(p->in[i].name));
        json_object_set_new(t, "file", json_string(name));
        json_array_append_new(in, t);
    }
    for (int i = 0; i < p->l.n_out; i++) {
        char gpu[128], ref[128];
        snprintf(gpu, sizeof gpu, "out_%s.gpu.npy", p->out[i].name);
        snprintf(ref, sizeof ref, "out_%s.oracle.npy", p->out[i].name);
        json_t *t = json_object();
        json_object_set_new(t, "name", json_string(p->out[i].name));
        json_object_set_new(t, "gpu", json_string(gpu));
        json_object_set_new(t, "oracle", json_string(ref));
        json_array_append_new(out, t);
    }
    json_object_set_new(files, "inputs", in);
    json_object_set_new(files, "outputs", out);
    json_object_set_new(o, "files", files);
    return o;
}

static gv_npy_type npy_type(gv_dtype t)
{
    return t == GV_F32 ? GV_NPY_F32 : GV_NPY_F64;
}

int gv_dump_case(const char *dir, const gv_problem *p, const gv_result *r, const gv_run_info *info,
                 const char *inputs, bool force, char *err, size_t errlen)
{
    char name[256], path[4096];
    gv_dump_name(&r->c, name, sizeof name);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return say(err, errlen, -1, "--dump-failures %s: %s", dir, strerror(errno));
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (mkdir(path, 0777) != 0) {
        struct stat st;
        if (errno != EEXIST || stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
            return say(err, errlen, -1, "%s: %s", path, strerror(errno));
        if (!force)
            return say(err, errlen, -1, "%s exists: a dumped case is replaced only with --force",
                       path);
    }
    int64_t shape[GV_NPY_MAX_DIMS];
    const gv_case *c = &r->c;
    for (int i = 0; i < p->l.n_in; i++) {
        int nd = gv_tensor_shape(c, &p->l, false, i, shape);
        snprintf(path, sizeof path, "%s/%s/in_%s.npy", dir, name, p->in[i].name);
        if (gv_npy_write(path, npy_type(c->dtype), nd, shape, p->in[i].data) != 0)
            return say(err, errlen, -1, "%s: %s", path, strerror(errno));
    }
    for (int i = 0; i < p->l.n_out; i++) {
        int nd = gv_tensor_shape(c, &p->l, true, i, shape);
        snprintf(path, sizeof path, "%s/%s/out_%s.gpu.npy", dir, name, p->out[i].name);
        if (gv_npy_write(path, npy_type(c->dtype), nd, shape, p->out[i].data) != 0)
            return say(err, errlen, -1, "%s: %s", path, strerror(errno));
        snprintf(path, sizeof path, "%s/%s/out_%s.oracle.npy", dir, name, p->out[i].name);
        if (gv_npy_write(path, GV_NPY_F64, nd, shape, p->out[i].ref) != 0)
            return say(err, errlen, -1, "%s: %s", path, strerror(errno));
    }
    json_t *doc = case_json(p, r, info, inputs);
    snprintf(path, sizeof path, "%s/%s/case.json", dir, name);
    int rc = gv_write_file(path, emit_json, doc);
    json_decref(doc);
    if (rc != 0) return say(err, errlen, -1, "%s: %s", path, strerror(errno));
    return 0;
}

int gv_inputs_load(const gv_op *op, const char *files, gv_npy *arrays, int *n, gv_dtype *dtype,
                   gv_shape *shape, char *err, size_t errlen)
{
    return inputs_load(op, files, arrays, n, dtype, shape, false, err, errlen);
}

int gv_inputs_load_lowp(const gv_op *op, const char *files, gv_npy *arrays, int *n, gv_dtype *dtype,
                        gv_shape *shape, char *err, size_t errlen)
{
    return inputs_load(op, files, arrays, n, dtype, shape, true, err, errlen);
}
