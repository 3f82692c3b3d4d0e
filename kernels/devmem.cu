/* devmem.cu: the device memory pool of gk_run's cases (kernels/device.cu). Every case used
 * to cudaMalloc and cudaFree each of its tensors; a stream-ordered pool with an unbounded
 * release threshold keeps the freed blocks mapped, so the next case of a similar size takes
 * them again without going to the driver. What the pool holds idle still counts as free for
 * the SKIP rule (gk_mem_info adds it), and gk_run gives it back when an allocation fails or
 * the device runs short (device.cu); timed runs trim it before their own cudaMalloc.
 * GPUVAL_NO_DEVICE_POOL=1 in the environment restores plain cudaMalloc/cudaFree.
 * compute-sanitizer tracks pool allocations as allocations of their own (memory pools are
 * supported since Compute Sanitizer 2020.3, CUDA 11.2). */
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gk_cuda.h"

static cudaMemPool_t g_pool;
static int g_pool_device = -1; /* the device g_pool lives on */
static int g_pool_state;       /* 0 not tried yet, 1 usable, -1 not to be used */

static bool pool_refused_by_env(void)
{
    return gk_get_knobs()->no_device_pool;
}

static bool current_device(int *dev)
{
    if (cudaGetDevice(dev) == cudaSuccess) return true;
    cudaGetLastError();
    return false;
}

/* Make the pool on dev: device-local, not shareable, keeping every freed byte. */
static bool pool_create(int dev)
{
    int supported = 0;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, dev) != cudaSuccess ||
        !supported) {
        cudaGetLastError();
        return false;
    }
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    if (cudaMemPoolCreate(&g_pool, &props) != cudaSuccess) {
        cudaGetLastError();
        g_pool = NULL;
        return false;
    }
    uint64_t keep = UINT64_MAX;
    if (cudaMemPoolSetAttribute(g_pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) {
        cudaGetLastError();
        cudaMemPoolDestroy(g_pool);
        g_pool = NULL;
        return false;
    }
    return true;
}

cudaMemPool_t gk_pool_for_case(void)
{
    int dev = -1;
    if (pool_refused_by_env() || !current_device(&dev)) return NULL;
    if (g_pool_state == 0) {
        g_pool_state = pool_create(dev) ? 1 : -1;
        g_pool_device = dev;
    }
    /* one pool, on the device first used: another device gets plain cudaMalloc */
    return g_pool_state > 0 && dev == g_pool_device ? g_pool : NULL;
}

void gk_pool_disable(void)
{
    if (g_pool_state > 0) gk_pool_trim();
    g_pool_state = -1;
}

size_t gk_pool_idle_bytes(void)
{
    int dev = -1;
    if (g_pool_state <= 0 || !current_device(&dev) || dev != g_pool_device) return 0;
    uint64_t reserved = 0, used = 0;
    if (cudaMemPoolGetAttribute(g_pool, cudaMemPoolAttrReservedMemCurrent, &reserved) !=
            cudaSuccess ||
        cudaMemPoolGetAttribute(g_pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return reserved > used ? (size_t)(reserved - used) : 0;
}

void gk_pool_trim(void)
{
    int dev = -1;
    if (!g_pool || !current_device(&dev) || dev != g_pool_device) return;
    if (cudaMemPoolTrimTo(g_pool, 0) != cudaSuccess) cudaGetLastError();
}
