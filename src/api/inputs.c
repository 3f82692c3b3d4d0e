/* inputs.c: the inputs gpuval generates for a case, handed to the caller (gv_make_inputs,
 * gv_make_inputs_nd and their frees, include/gpuval.h; inputs.h): the arrays `gpuval inputs`
 * writes as .npy, from the same case (case.h) and the same generator. gv_make_inputs_nd gives
 * every tensor's shape whole (up to 8 dims); gv_make_inputs is it with the shapes of more than
 * 4 dims made flat, as 1.2 and 1.3 gave them (their callers' struct keeps its layout). */
#include <stdlib.h>
#include <string.h>

#include "api/case.h"
#include "api/inputs.h"
#include "core/problem.h"
#include "core/reference.h"
#include "core/run.h"
#include "io/npy.h"
#include "io/tensor_shape.h"

_Static_assert(GV_API_MAX_TENSOR_DIMS == GV_NPY_MAX_DIMS, "a tensor's dims, public and own");
_Static_assert(GV_API_MAX_TENSORS >= GV_MAX_TENSORS, "public tensor count");

int gv_make_inputs_nd(const char *op, int dtype, const char *mode, const char *size,
                      const char *dist, uint64_t seed, gv_case_inputs_nd *ci, char *err,
                      size_t errlen)
{
    if (!ci) return gv_api_error(err, errlen, GV_API_EINVAL, "no gv_case_inputs_nd to fill");
    memset(ci, 0, sizeof *ci);
    gv_case c;
    gv_layout l;
    int rc = gv_judge_case_make(op, dtype, mode, size, dist, seed, &c, &l, err, errlen);
    if (rc != GV_OK) return rc == GV_ENOMEM ? GV_API_ENOMEM : GV_API_EINVAL;
    char why[160];
    if (gv_host_memory_check(&c, &l, why, sizeof why) != GV_OK)
        return gv_api_error(err, errlen, GV_API_ENOMEM, "%s", why);
    gv_problem p;
    rc = gv_problem_init(&p, &c);
    if (rc != GV_OK) {
        gv_problem_free(&p);
        char reason[256];
        gv_oracle_reason(rc, "inputs", reason, sizeof reason);
        return gv_api_error(err, errlen, rc == GV_ENOMEM ? GV_API_ENOMEM : GV_API_EINVAL, "%s: %s",
                            c.op->name, reason);
    }
    size_t es = gv_dtype_size(c.dtype);
    ci->dtype = (int)c.dtype;
    ci->n_in = p.l.n_in;
    ci->n_out = p.l.n_out;
    for (int i = 0; i < p.l.n_in; i++) {
        ci->in_count[i] = p.in[i].count;
        ci->in_names[i] = p.l.in[i].name;
        ci->in_ndim[i] = gv_tensor_shape(&c, &p.l, false, i, ci->in_shape[i]);
        ci->in[i] = malloc(p.in[i].count > 0 ? (size_t)p.in[i].count * es : 1);
        if (!ci->in[i]) {
            gv_problem_free(&p);
            gv_case_inputs_nd_free(ci);
            return gv_api_error(err, errlen, GV_API_ENOMEM, "out of host memory for the inputs");
        }
        memcpy(ci->in[i], p.in[i].data, (size_t)p.in[i].count * es);
    }
    for (int i = 0; i < p.l.n_out; i++) {
        ci->out_count[i] = p.out[i].count;
        ci->out_names[i] = p.l.out[i].name;
        ci->out_ndim[i] = gv_tensor_shape(&c, &p.l, true, i, ci->out_shape[i]);
    }
    gv_problem_free(&p);
    return GV_API_OK;
}

void gv_case_inputs_nd_free(gv_case_inputs_nd *ci)
{
    if (!ci) return;
    for (int i = 0; i < GV_API_MAX_TENSORS; i++) {
        free(ci->in[i]);
        ci->in[i] = NULL;
    }
}

/* One shape of nd dims into a 1.3 caller's GV_API_MAX_DIMS: flat (the count alone) where it has
   more, rather than cut. */
static int shape4(const int64_t *s, int nd, int64_t count, int64_t out[GV_API_MAX_DIMS])
{
    if (nd > GV_API_MAX_DIMS) {
        out[0] = count;
        return 1;
    }
    for (int k = 0; k < nd; k++)
        out[k] = s[k];
    return nd;
}

int gv_make_inputs(const char *op, int dtype, const char *mode, const char *size, const char *dist,
                   uint64_t seed, gv_case_inputs *ci, char *err, size_t errlen)
{
    if (!ci) return gv_api_error(err, errlen, GV_API_EINVAL, "no gv_case_inputs to fill");
    memset(ci, 0, sizeof *ci);
    gv_case_inputs_nd w;
    int rc = gv_make_inputs_nd(op, dtype, mode, size, dist, seed, &w, err, errlen);
    if (rc != GV_API_OK) return rc;
    ci->dtype = w.dtype;
    ci->n_in = w.n_in;
    ci->n_out = w.n_out;
    for (int i = 0; i < GV_API_MAX_TENSORS; i++) {
        ci->in[i] = w.in[i]; /* the buffers change hands: gv_case_inputs_free frees them */
        ci->in_count[i] = w.in_count[i];
        ci->out_count[i] = w.out_count[i];
        ci->in_names[i] = w.in_names[i];
        ci->out_names[i] = w.out_names[i];
        if (i < w.n_in)
            ci->in_ndim[i] = shape4(w.in_shape[i], w.in_ndim[i], w.in_count[i], ci->in_shape[i]);
        if (i < w.n_out)
            ci->out_ndim[i] =
                shape4(w.out_shape[i], w.out_ndim[i], w.out_count[i], ci->out_shape[i]);
    }
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
