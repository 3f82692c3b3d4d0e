/* fleet.cu: the device side of running on a chosen GPU of a node — selecting the device,
 * naming the current one — and the planted disagreement GPUVAL_PERTURB_DEVICE that proves
 * `gpuval merge` names a device whose output differs (gk.h). */
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gk_cuda.h"

extern "C" int gk_device_select(int index)
{
    int n = gk_device_count();
    if (index < 0 || index >= n) return GV_ENODEV;
    GK_CUDA(cudaSetDevice(index));
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

/* Add 2 to the bit pattern of *x (2 ulps away from zero), unless x is NaN or Inf or the sum
   would be: the value stays finite and inside every error model's bound. */
template <typename Bits, int ExpShift, Bits ExpMask> __global__ void perturb_first(Bits *x)
{
    Bits v = *x;
    Bits bumped = v + 2;
    bool finite = ((v >> ExpShift) & ExpMask) != ExpMask;
    bool stays = ((bumped >> ExpShift) & ExpMask) != ExpMask;
    if (finite && stays) *x = bumped;
}

extern "C" int gk_perturb_if_planted(gk_launch *L)
{
    const char *want = getenv("GPUVAL_PERTURB_DEVICE");
    if (!want || !*want || L->n_out < 1 || L->out_count[0] < 1) return GV_OK;
    char *end = NULL;
    long dev = strtol(want, &end, 10);
    int cur = -1;
    GK_CUDA(cudaGetDevice(&cur));
    if (*end != '\0' || dev != cur) return GV_OK;
    cudaStream_t s = (cudaStream_t)L->stream;
    if (L->dtype == GV_F64)
        perturb_first<uint64_t, 52, 0x7ffull><<<1, 1, 0, s>>>((uint64_t *)L->out[0]);
    else if (L->dtype == GV_F32)
        perturb_first<uint32_t, 23, 0xffu><<<1, 1, 0, s>>>((uint32_t *)L->out[0]);
    else
        return GV_OK;
    GK_LAUNCHED("GPUVAL_PERTURB_DEVICE's perturbation");
    return GV_OK;
}
