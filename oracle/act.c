/* act.c: the reference of the act family (element-wise activations, as PyTorch defines them):
 *   GO_ACT_GELU       y = x Phi(x) = x/2 (1 + erf(x / sqrt 2))          (approximate='none')
 *   GO_ACT_GELU_TANH  y = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  (approximate='tanh')
 *   GO_ACT_SILU       y = x / (1 + exp(-x))                              (torch.nn.SiLU)
 *   GO_ACT_TANH       y = tanh x; GO_ACT_RELU max(x, 0); GO_ACT_LEAKY_RELU x > 0 ? x : 0.01 x;
 *   GO_ACT_HARDTANH   clamp(x, -1, 1); GO_ACT_SOFTSIGN x / (1 + |x|);
 *   GO_ACT_ELU        x > 0 ? x : expm1(x) (alpha 1); GO_ACT_SELU scale (x > 0 ? x : alpha
 *                     expm1(x)); GO_ACT_HARDSIGMOID clamp(x + 3, 0, 6) / 6;
 *   GO_ACT_SOFTPLUS   x > 20 ? x : log1p(exp(x)) (beta 1, threshold 20: PyTorch's rule, so
 *                     that above 20 the reference is x itself, as the module returns)
 * in long double (x86: a 64-bit significand, 11 bits beyond f64), rounded once to f64.
 * Each form is the one that stays accurate where the textbook form cancels: the GELU's
 * 1 + erf(t) for t < 0 is erfc(-t), and 1 + tanh(z) = 2 / (1 + exp(-2z)), so a tiny result
 * at large negative x keeps its relative accuracy (the kernels' 1 + erf(t) does not, and the
 * model says so: docs/error-models.md, section act). glibc's erfcl, expl and tanhl are within
 * a few units of 2^-64; the inner argument (x / sqrt 2, or sqrt(2/pi) (x + 0.044715 x^3)) is
 * rounded in long double, which the function carries by its condition (2 t^2 for erfc(t), 2|z|
 * for 1 + tanh z at large negative arguments): within a few 2^-53 relative in the far tails,
 * where f64's model of the kernels is absolute (their own 1 + erf cancels), and within 2^-58
 * for |x| below 4, far inside f64's model of 2^-53 per operation (tests/cpu/oracle_act.c holds
 * it to that derived tolerance against __float128). Elements are independent: all cores (OpenMP),
 * each as on one thread. */
#include <math.h>

#include "../abi/act.h"
#include "go.h"

/* 1 + erf(t), accurate for either sign */
static long double one_plus_erf(long double t)
{
    return t < 0 ? erfcl(-t) : 1.0L + erfl(t);
}

/* 1 + tanh(z) = 2 / (1 + exp(-2z)): no cancellation for z < 0 */
static long double one_plus_tanh(long double z)
{
    return 2.0L / (1.0L + expl(-2.0L * z));
}

long double go_act_eval(int fn, long double x)
{
    switch (fn) {
    case GO_ACT_GELU: return 0.5L * x * one_plus_erf(x * 0.707106781186547524400844362104849039L);
    case GO_ACT_GELU_TANH: {
        /* sqrt(2/pi) to 64 bits; 0.044715 is the definition's decimal constant */
        const long double beta = 0.797884560802865355879892119868763737L;
        return 0.5L * x * one_plus_tanh(beta * (x + 0.044715L * x * x * x));
    }
    case GO_ACT_TANH: return tanhl(x);
    case GO_ACT_RELU: return x > 0 ? x : 0.0L;
    case GO_ACT_LEAKY_RELU: return x > 0 ? x : GK_ACT_LD(GK_ACT_LEAKY_SLOPE) * x;
    case GO_ACT_HARDTANH: return x < -1 ? -1.0L : x > 1 ? 1.0L : x;
    case GO_ACT_SOFTSIGN: return x / (1.0L + fabsl(x));
    case GO_ACT_ELU: return x > 0 ? x : expm1l(x);
    case GO_ACT_SELU:
        return GK_ACT_LD(GK_ACT_SELU_SCALE) *
               (x > 0 ? x : GK_ACT_LD(GK_ACT_SELU_ALPHA) * expm1l(x));
    case GO_ACT_HARDSIGMOID: return x <= -3 ? 0.0L : x >= 3 ? 1.0L : (x + 3.0L) / 6.0L;
    case GO_ACT_SOFTPLUS: return x > GK_ACT_SOFTPLUS_THRESHOLD ? x : log1pl(expl(x));
    default: return x / (1.0L + expl(-x));
    }
}

int go_act(int fn, int64_t n, const double *x, double *y)
{
    if (fn < 0 || fn >= GO_ACT_NFN) return go_xerbla(__func__, 1, "fn");
    if (n < 0) return go_xerbla(__func__, 2, "n");
    if (!x) return go_xerbla(__func__, 3, "x");
    if (!y) return go_xerbla(__func__, 4, "y");
#pragma omp parallel for schedule(static) if ((double)n >= GO_PAR_MIN / 16)
    for (int64_t i = 0; i < n; i++)
        y[i] = (double)go_act_eval(fn, (long double)x[i]);
    return 0;
}
