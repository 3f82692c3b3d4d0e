/* act.h: the constants of the act family's PyTorch activations that kernels/act.cu,
 * oracle/act.c and src/ops/act.c share: LeakyReLU's default negative slope, SELU's alpha and
 * scale (torch.nn.SELU, from Klambauer et al. 2017, as ATen writes them), Softplus's default
 * threshold (beta 1: above it the result is x itself). The kernels round them to the element
 * type (PyTorch's opmath type), the oracle keeps them in long double: the model counts that
 * rounding (docs/error-models.md, section act). */
#ifndef GV_ABI_ACT_H
#define GV_ABI_ACT_H

#define GK_ACT_LEAKY_SLOPE        0.01
#define GK_ACT_SELU_ALPHA         1.6732632423543772848170429916717
#define GK_ACT_SELU_SCALE         1.0507009873554804934193349852946
#define GK_ACT_SOFTPLUS_THRESHOLD 20.0

/* A constant above as a long double literal (the oracle's): GK_ACT_LD(GK_ACT_SELU_ALPHA) */
#define GK_ACT_LD_(x) x##L
#define GK_ACT_LD(x)  GK_ACT_LD_(x)

#endif
