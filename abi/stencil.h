/* stencil.h: the stencil family's contract shared by the kernel (kernels/stencil.cu), the op
 * descriptors and oracle calls (src/ops/stencil.c) and the tests: the periodic diffusion
 * coefficient (seed 003; the explicit scheme is stable for 4 c <= 1) and the fixed scheme's
 * 1/4. */
#ifndef GV_ABI_STENCIL_H
#define GV_ABI_STENCIL_H

#define GV_DIFFUSION_PERIODIC_COEFF 0.1
#define GV_DIFFUSION_FIXED_COEFF    0.25

#endif
