/* ops.h: the example's ops for gpuval (ops.c) and the launch hooks of its kernels
 * (kernels.cu, built only with CUDA). */
#ifndef EXT_OPS_H
#define EXT_OPS_H

#include <gpuval.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The families myops hands to gv_main: NULL-terminated. */
extern const gv_family *const ext_families[];

/* The descriptors themselves, for the tests. */
extern const gv_op_desc ext_softmax, ext_softmax_nomax, ext_sgemm, ext_sgemm_lastk, ext_sgemm_past;

int ext_softmax_launch(const gv_launch_args *a);
int ext_softmax_nomax_launch(const gv_launch_args *a);
int ext_sgemm_launch(const gv_launch_args *a);
int ext_sgemm_lastk_launch(const gv_launch_args *a);
int ext_sgemm_past_launch(const gv_launch_args *a);

#ifdef __cplusplus
}
#endif
#endif
