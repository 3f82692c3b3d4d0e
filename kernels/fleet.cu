/* fleet.cu: the device side of running on a chosen GPU of a node — selecting the device,
 * naming the current one — and the planted disagreement GPUVAL_PERTURB_DEVICE that proves
 * `gpuval merge` names a device whose output differs (gk.h). */
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gk_cuda.h"

extern "C" void gk_device_choose(int index); /* device.cu */

/* Record the choice only (no CUDA call): gk_device_count makes it current in the process that
   runs the work, which for check is a forked child. The caller has checked the index against
   a count of its own. */
extern "C" int gk_device_select(int index)
{
    if (index < 0) return GV_ENODEV;
    gk_device_choose(index);
    return GV_OK;
}

extern "C" int gk_device_current(void)
{
    int dev = -1;
    if (gk_device_count() == 0 || cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return dev;
}

/* Move the bit pattern of every element by 2 (2 ulps), away from zero at odd indices and
   toward it at even ones, except where the element is NaN or Inf or the moved pattern would
   be one (or would cross zero): every value stays finite, and each element's error grows from
   at most half an ulp of a correctly rounded result to at least 1.5 ulps, so the perturbed
   device is also the one farther from the oracle. The directions alternate so that the
   errors do not lean one way: a device that added 2 ulps everywhere is biased, and the judge's
   bias rule FAILs it (as it should), while this perturbation must pass every rule and be
   found only by its digest (tests/gpu/multi.c). */
template <typename Bits, int ExpShift, Bits ExpMask> __global__ void perturb_all(Bits *x, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        Bits v = x[i];
        const Bits sign = (Bits)1 << (sizeof(Bits) * 8 - 1);
        Bits mag = v & ~sign;
        if ((i & 1) == 0 && mag < 2) continue; /* toward zero would cross it */
        Bits bumped = (i & 1) ? v + 2 : v - 2;
        bool finite = ((v >> ExpShift) & ExpMask) != ExpMask;
        bool stays = ((bumped >> ExpShift) & ExpMask) != ExpMask;
        if (finite && stays) x[i] = bumped;
    }
}

extern "C" int gk_perturb_if_planted(gk_launch *L)
{
    int dev = gk_get_knobs()->perturb_device;
    if (dev < 0 || L->n_out < 1 || L->out_count[0] < 1) return GV_OK;
    int cur = -1;
    GK_CUDA(cudaGetDevice(&cur));
    if (dev != cur) return GV_OK;
    cudaStream_t s = (cudaStream_t)L->stream;
    int64_t n = L->out_count[0];
    int blocks = (int)(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096);
    if (L->dtype == GV_F64)
        perturb_all<uint64_t, 52, 0x7ffull><<<blocks, 256, 0, s>>>((uint64_t *)L->out[0], n);
    else if (L->dtype == GV_F32)
        perturb_all<uint32_t, 23, 0xffu><<<blocks, 256, 0, s>>>((uint32_t *)L->out[0], n);
    else
        return GV_OK;
    GK_LAUNCHED("GPUVAL_PERTURB_DEVICE's perturbation");
    return GV_OK;
}
