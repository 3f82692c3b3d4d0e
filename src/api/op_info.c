/* op_info.c: an op's description as JSON (op_info.h): what `gpuval list --json` prints and
 * gv_op_info of include/gpuval.h returns; and gv_free, which frees what the library allocated. */
#include <stdlib.h>

#include "api/case.h"
#include "api/op_info.h"
#include "io/json_util.h"

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
    /* the indices of the complex tensors (op.h): their arrays are complex64 / complex128 */
    json_t *ci = json_array(), *co = json_array();
    for (int i = 0; i < 32; i++) {
        if (op->complex_in >> i & 1u) json_array_append_new(ci, json_integer(i));
        if (op->complex_out >> i & 1u) json_array_append_new(co, json_integer(i));
    }
    json_object_set_new(o, "complex_inputs", ci);
    json_object_set_new(o, "complex_outputs", co);
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
