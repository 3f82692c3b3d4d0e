/* inputs.c: the inputs gpuval generates for a case, handed to the caller (gv_make_inputs and
 * gv_case_inputs_free of include/gpuval.h; inputs.h): the arrays `gpuval inputs` writes as .npy,
 * from the same case (case.h) and the same generator. */
#include <stdlib.h>
#include <string.h>

#include "api/case.h"
#include "api/inputs.h"
#include "core/problem.h"
#include "core/reference.h"
#include "core/run.h"

int gv_make_inputs(const char *op, int dtype, const char *mode, const char *size, const char *dist,
                   uint64_t seed, gv_case_inputs *ci, char *err, size_t errlen)
{
    if (!ci) return gv_api_error(err, errlen, GV_API_EINVAL, "no gv_case_inputs to fill");
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
        ci->in_ndim[i] = gv_judge_tensor_shape(&c, &p.l, false, i, ci->in_shape[i]);
        ci->in[i] = malloc(p.in[i].count > 0 ? (size_t)p.in[i].count * es : 1);
        if (!ci->in[i]) {
            gv_problem_free(&p);
            gv_case_inputs_free(ci);
            return gv_api_error(err, errlen, GV_API_ENOMEM, "out of host memory for the inputs");
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
