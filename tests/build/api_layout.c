/* api_layout.c: the layout of include/gpuval.h's structs that the Python package mirrors with
 * ctypes (python/src/gpuval/_lib.py), and the constants it copies, as JSON on standard output,
 * for tests/build/ctypes_layout_test.py. Each struct: its size, alignment and every member in
 * declaration order with its offset and size. Built by tests/meson.build; links nothing. */
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>

#include "gpuval.h"

#define MEMBER(type, m)                                                                            \
    printf("%s\n      {\"name\": \"%s\", \"offset\": %zu, \"size\": %zu}", first ? "" : ",", #m,   \
           offsetof(type, m), sizeof(((type *)0)->m));                                             \
    first = 0
#define STRUCT_BEGIN(type)                                                                         \
    printf("%s\n    \"%s\": {\"size\": %zu, \"align\": %zu, \"fields\": [", nstructs++ ? "," : "", \
           #type, sizeof(type), alignof(type));                                                    \
    first = 1
#define STRUCT_END() printf("]}")

int main(void)
{
    int first, nstructs = 0;
    printf("{\n  \"structs\": {");
    STRUCT_BEGIN(gv_array);
    MEMBER(gv_array, dtype);
    MEMBER(gv_array, data);
    MEMBER(gv_array, count);
    MEMBER(gv_array, name);
    STRUCT_END();

    STRUCT_BEGIN(gv_judge_spec);
    MEMBER(gv_judge_spec, op);
    MEMBER(gv_judge_spec, mode);
    MEMBER(gv_judge_spec, size);
    MEMBER(gv_judge_spec, dist);
    MEMBER(gv_judge_spec, seed);
    MEMBER(gv_judge_spec, n_in);
    MEMBER(gv_judge_spec, n_out);
    MEMBER(gv_judge_spec, in);
    MEMBER(gv_judge_spec, out);
    STRUCT_END();

    STRUCT_BEGIN(gv_judgement);
    MEMBER(gv_judgement, verdict);
    MEMBER(gv_judgement, reason);
    MEMBER(gv_judgement, max_rel);
    MEMBER(gv_judgement, normwise);
    MEMBER(gv_judgement, bits);
    MEMBER(gv_judgement, ratio);
    MEMBER(gv_judgement, r_max);
    MEMBER(gv_judgement, r_rms);
    MEMBER(gv_judgement, meets_1e8);
    MEMBER(gv_judgement, meets_1e4);
    MEMBER(gv_judgement, json);
    STRUCT_END();

    STRUCT_BEGIN(gv_case_inputs);
    MEMBER(gv_case_inputs, dtype);
    MEMBER(gv_case_inputs, n_in);
    MEMBER(gv_case_inputs, n_out);
    MEMBER(gv_case_inputs, in);
    MEMBER(gv_case_inputs, in_count);
    MEMBER(gv_case_inputs, out_count);
    MEMBER(gv_case_inputs, in_ndim);
    MEMBER(gv_case_inputs, out_ndim);
    MEMBER(gv_case_inputs, in_shape);
    MEMBER(gv_case_inputs, out_shape);
    MEMBER(gv_case_inputs, in_names);
    MEMBER(gv_case_inputs, out_names);
    STRUCT_END();

    STRUCT_BEGIN(gv_case_inputs_nd);
    MEMBER(gv_case_inputs_nd, dtype);
    MEMBER(gv_case_inputs_nd, n_in);
    MEMBER(gv_case_inputs_nd, n_out);
    MEMBER(gv_case_inputs_nd, in);
    MEMBER(gv_case_inputs_nd, in_count);
    MEMBER(gv_case_inputs_nd, out_count);
    MEMBER(gv_case_inputs_nd, in_ndim);
    MEMBER(gv_case_inputs_nd, out_ndim);
    MEMBER(gv_case_inputs_nd, in_shape);
    MEMBER(gv_case_inputs_nd, out_shape);
    MEMBER(gv_case_inputs_nd, in_names);
    MEMBER(gv_case_inputs_nd, out_names);
    STRUCT_END();
    printf("\n  },\n");

    printf("  \"constants\": {\"GV_API_MAX_TENSORS\": %d, \"GV_API_MAX_DIMS\": %d, "
           "\"GV_DTYPE_F32\": %d, \"GV_DTYPE_F64\": %d, \"GPUVAL_API_VERSION_MAJOR\": %d, "
           "\"GPUVAL_API_VERSION_MINOR\": %d, \"GV_VERDICT_PASS\": %d, \"GV_VERDICT_FAIL\": %d, "
           "\"GV_VERDICT_SKIP\": %d, \"GV_VERDICT_ERROR\": %d, \"GV_API_OK\": %d, "
           "\"GV_API_EINVAL\": %d, \"GV_API_ENOMEM\": %d, \"GV_API_EABI\": %d, "
           "\"GV_API_EEXIST\": %d, \"GV_DTYPE_BF16\": %d, \"GV_DTYPE_F16\": %d, "
           "\"GV_DTYPE_E4M3\": %d, \"GV_DTYPE_E5M2\": %d, \"GV_API_MAX_TENSOR_DIMS\": %d}\n}\n",
           GV_API_MAX_TENSORS, GV_API_MAX_DIMS, GV_DTYPE_F32, GV_DTYPE_F64,
           GPUVAL_API_VERSION_MAJOR, GPUVAL_API_VERSION_MINOR, GV_VERDICT_PASS, GV_VERDICT_FAIL,
           GV_VERDICT_SKIP, GV_VERDICT_ERROR, GV_API_OK, GV_API_EINVAL, GV_API_ENOMEM, GV_API_EABI,
           GV_API_EEXIST, GV_DTYPE_BF16, GV_DTYPE_F16, GV_DTYPE_E4M3, GV_DTYPE_E5M2,
           GV_API_MAX_TENSOR_DIMS);
    return 0;
}
