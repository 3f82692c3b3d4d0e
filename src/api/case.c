/* case.c: one case from names, as the public API and `gpuval judge` and `gpuval inputs` name
 * it (case.h): the op by its name, the case checked against what the op takes, the shape of
 * each of its tensors; and the one way the api wing writes an error into a caller's buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/case.h"
#include "core/problem.h"
#include "core/registry.h"
#include "io/case_io.h"

int gv_api_error(char *err, size_t len, int rc, const char *fmt, ...)
{
    if (err && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return rc;
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
    if (!opname || !opname[0])
        return gv_api_error(err, errlen, GV_EINVAL, "no op named (gpuval list)");
    const gv_op *op = gv_judge_find_op(opname);
    if (!op)
        return gv_api_error(err, errlen, GV_EINVAL, "no op '%.100s' (gpuval list --all)", opname);
    if (dtype != GV_F32 && dtype != GV_F64)
        return gv_api_error(err, errlen, GV_EINVAL,
                            "%s: dtype %d is neither GV_DTYPE_F32 nor GV_DTYPE_F64", op->name,
                            dtype);
    gv_dtype t = (gv_dtype)dtype;
    if (!(op->dtypes & (1u << t)))
        return gv_api_error(err, errlen, GV_EINVAL, "%s takes no %s", op->name, gv_dtype_name(t));
    gv_mode m = GV_MODE_NATIVE;
    if (mode && gv_mode_parse(mode, &m) != GV_OK)
        return gv_api_error(err, errlen, GV_EINVAL, "no mode '%.60s' (gpuval list --modes)", mode);
    if (!gv_mode_ok(op, t, m))
        return gv_api_error(err, errlen, GV_EINVAL, "%s has no mode %s for %s", op->name,
                            gv_mode_name(m), gv_dtype_name(t));
    if (!size || !size[0])
        return gv_api_error(err, errlen, GV_EINVAL, "%s needs a size in its dims %s (e.g. %s)",
                            op->name, op->dims, op->test_shapes ? op->test_shapes : op->shapes);
    gv_shape shapes[2];
    char why[256];
    int ns = gv_size_spec_parse(size, shapes, 2, why, sizeof why);
    if (ns < 0) return gv_api_error(err, errlen, GV_EINVAL, "size: %s", why);
    if (ns != 1)
        return gv_api_error(err, errlen, GV_EINVAL, "size '%.60s': one shape, in %s's dims %s",
                            size, op->name, op->dims);
    if (!gv_shape_ok(op, &shapes[0], why, sizeof why))
        return gv_api_error(err, errlen, GV_EINVAL, "%s", why);
    gv_dist d = op->default_dist;
    if (dist && gv_dist_parse(dist, &d) != GV_OK)
        return gv_api_error(err, errlen, GV_EINVAL, "no input distribution '%.60s'", dist);
    if (!dist_ok(op, d, t, m))
        return gv_api_error(err, errlen, GV_EINVAL, "%s does not take input distribution '%s'",
                            op->name, gv_dist_name(d));
    *c = (gv_case){.op = op, .dtype = t, .mode = m, .dist = d, .shape = shapes[0], .seed = seed};
    int rc = op->layout(c, l);
    if (rc != GV_OK)
        return gv_api_error(err, errlen, rc, "%s: layout: %s", op->name, gv_strerror(rc));
    if (l->n_in < 0 || l->n_in > GV_MAX_TENSORS || l->n_out < 1 || l->n_out > GV_MAX_TENSORS)
        return gv_api_error(err, errlen, GV_EINTERNAL, "%s: layout of %d inputs, %d outputs",
                            op->name, l->n_in, l->n_out);
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
