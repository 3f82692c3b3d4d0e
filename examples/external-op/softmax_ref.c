/* softmax_ref.c: the row softmax's f64 reference and error model.
 *
 * Error model, for a kernel that forms d_j = fl(x_j - m), e_j = exp(d_j) (an exp with a
 * relative error of a few units, CUDA's expf: 2 ulp), s = sum_j e_j in any order and y_j =
 * e_j / s, in a dtype of unit roundoff u, to first order:
 *   - fl(x_j - m) errs by u |x_j - m| absolutely, so e_j by u |x_j - m| relatively;
 *   - exp itself by 4u (2 ulp <= 4u relatively);
 *   - s gathers sum_j e_j (|x_j - m| + 4) u from its terms and (n - 1) u s from the sum;
 *   - the division u.
 * So |y_j' - y_j| <= u y_j (|x_j - m| + sum_k y_k |x_k - m| + n + 8). gpuval's model is
 * |c - r| <= ratio_bound u d g: depth d = n + 8 and gauge
 *   g_j = y_j (1 + (|x_j - m| + sum_k y_k |x_k - m|) / d) + 4 tiny / (u d),
 * the last term for exp results below the dtype's smallest normal `tiny` (gradual underflow
 * loses absolute, not relative, accuracy; s >= 1 keeps it so after the division). */
#include "softmax_ref.h"

#include <math.h>
#include <string.h>

void ext_softmax_row(const double *x, double *y, int64_t n)
{
    double m = -INFINITY;
    for (int64_t j = 0; j < n; j++)
        m = x[j] > m ? x[j] : m;
    double s = 0;
    for (int64_t j = 0; j < n; j++) {
        y[j] = exp(x[j] - m);
        s += y[j];
    }
    for (int64_t j = 0; j < n; j++)
        y[j] /= s;
}

int ext_softmax_layout(const gv_case_info *c, gv_layout_info *l, void *user)
{
    (void)user;
    if (c->nd != 2 || c->dims[0] < 1 || c->dims[1] < 1) return GV_API_EINVAL;
    l->in_count[0] = c->dims[0] * c->dims[1];
    l->out_count[0] = c->dims[0] * c->dims[1];
    return GV_API_OK;
}

double ext_softmax_flops(const gv_case_info *c, void *user)
{
    (void)user;
    return 4.0 * (double)c->dims[0] * (double)c->dims[1]; /* sub, exp, add, div per element */
}

double ext_softmax_bytes(const gv_case_info *c, void *user)
{
    (void)user;
    return 2.0 * (double)c->dims[0] * (double)c->dims[1] * (c->dtype == GV_DTYPE_F64 ? 8 : 4);
}

/* splitmix64 of (seed, index): inputs that depend on nothing but the case */
static double unit(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull + 0x94d049bb133111ebull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53;
}

int ext_softmax_inputs(const gv_case_info *c, double *const *in, const int64_t *in_count,
                       void *user)
{
    (void)user;
    for (int64_t i = 0; i < in_count[0]; i++)
        in[0][i] = EXT_LOGIT_RANGE * (2 * unit(c->seed, (uint64_t)i) - 1);
    return GV_API_OK;
}

int ext_softmax_reference(const gv_case_info *c, const double *const *in, double *const *out,
                          void *user)
{
    (void)user;
    int64_t rows = c->dims[0], cols = c->dims[1];
    for (int64_t r = 0; r < rows; r++)
        ext_softmax_row(in[0] + r * cols, out[0] + r * cols, cols);
    return GV_API_OK;
}

double ext_softmax_depth(const gv_case_info *c, void *user)
{
    (void)user;
    return (double)c->dims[1] + 8;
}

int ext_softmax_gauge(const gv_case_info *c, const double *const *in, const double *const *ref,
                      double *const *gauge, void *user)
{
    int64_t rows = c->dims[0], cols = c->dims[1];
    double d = ext_softmax_depth(c, user);
    double u = c->dtype == GV_DTYPE_F64 ? 0x1p-53 : 0x1p-24;
    double tiny = c->dtype == GV_DTYPE_F64 ? 0x1p-1022 : 0x1p-126;
    for (int64_t r = 0; r < rows; r++) {
        const double *x = in[0] + r * cols, *y = ref[0] + r * cols;
        double m = -INFINITY, spread = 0;
        for (int64_t j = 0; j < cols; j++)
            m = x[j] > m ? x[j] : m;
        for (int64_t j = 0; j < cols; j++)
            spread += y[j] * (m - x[j]);
        for (int64_t j = 0; j < cols; j++)
            gauge[0][r * cols + j] = y[j] * (1 + ((m - x[j]) + spread) / d) + 4 * tiny / (u * d);
    }
    return GV_API_OK;
}
