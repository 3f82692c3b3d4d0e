/* judge_api.c: the 1.2 API of include/gpuval.h: gv_judge, gv_make_inputs, gv_op_info. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/api.h"

int gv_judge(const gv_judge_spec *spec, gv_judgement *j)
{
    (void)spec;
    if (j) {
        memset(j, 0, sizeof *j);
        snprintf(j->reason, sizeof j->reason, "not yet");
    }
    return GV_API_EINVAL;
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
    (void)op, (void)dtype, (void)mode, (void)size, (void)dist, (void)seed;
    if (ci) memset(ci, 0, sizeof *ci);
    if (err && errlen) snprintf(err, errlen, "not yet");
    return GV_API_EINVAL;
}

void gv_case_inputs_free(gv_case_inputs *ci)
{
    if (!ci) return;
    for (int i = 0; i < GV_API_MAX_TENSORS; i++) {
        free(ci->in[i]);
        ci->in[i] = NULL;
    }
}

int gv_op_info(const char *op, char **json)
{
    (void)op;
    if (json) *json = NULL;
    return GV_API_EINVAL;
}

void gv_free(void *p)
{
    free(p);
}
