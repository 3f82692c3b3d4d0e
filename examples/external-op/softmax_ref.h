/* softmax_ref.h: the row softmax's f64 reference, its error model (gauge and depth) and its
 * inputs, as gpuval's hooks take them (softmax_ref.c). y_ij = exp(x_ij - m_i) / s_i with
 * m_i = max_j x_ij and s_i = sum_j exp(x_ij - m_i), for a rows x cols row-major x. */
#ifndef EXT_SOFTMAX_REF_H
#define EXT_SOFTMAX_REF_H

#include <gpuval.h>

/* Logits are uniform in [-EXT_LOGIT_RANGE, EXT_LOGIT_RANGE): wide enough that exp(x) without
   the max subtracted overflows f32 (exp(88.7) > FLT_MAX), as real attention scores can. */
#define EXT_LOGIT_RANGE 100.0

/* y for one row of n values (plain arrays: the closed-form tests call it directly). */
void ext_softmax_row(const double *x, double *y, int64_t n);

int ext_softmax_layout(const gv_case_info *c, gv_layout_info *l, void *user);
double ext_softmax_flops(const gv_case_info *c, void *user);
double ext_softmax_bytes(const gv_case_info *c, void *user);
int ext_softmax_inputs(const gv_case_info *c, double *const *in, const int64_t *in_count,
                       void *user);
int ext_softmax_reference(const gv_case_info *c, const double *const *in, double *const *out,
                          void *user);
int ext_softmax_gauge(const gv_case_info *c, const double *const *in, const double *const *ref,
                      double *const *gauge, void *user);
double ext_softmax_depth(const gv_case_info *c, void *user);

#endif
