/* stencil.h: the stencil family's contract shared by the kernel (kernels/stencil.cu), the op
 * descriptors and oracle calls (src/ops/stencil.c) and the tests: the periodic diffusion
 * coefficient (seed 003; the explicit scheme is stable for 4 c <= 1) and the fixed scheme's
 * 1/4. */
#ifndef GV_ABI_STENCIL_H
#define GV_ABI_STENCIL_H

#define GV_DIFFUSION_PERIODIC_COEFF 0.1
#define GV_DIFFUSION_FIXED_COEFF    0.25

/* The fused diffusion kernel (kernels/stencil.cu) takes up to GV_DIFFUSION_FUSED_S steps a
 * launch: a run of n >= 2 steps takes ceil(n / S) launches, S the largest of 8, 4 and 2 not
 * above n; a single step is one launch. The ops' byte counts (src/ops/stencil.c) follow it: a
 * launch must read the grid and write it once at least. */
#define GV_DIFFUSION_FUSED_S 8
static inline long long gv_diffusion_launches(long long steps)
{
    long long s = steps >= GV_DIFFUSION_FUSED_S ? GV_DIFFUSION_FUSED_S : steps >= 4 ? 4 : 2;
    return steps <= 1 ? 1 : (steps + s - 1) / s;
}

#endif
