/* nodevice.c: the device layer of a build without CUDA. Every query answers "no device",
 * so ops SKIP and the GPU tests exit 77; nothing here pretends to compute. */
#include <string.h>

#include "../abi/gv_abi.h"
#include "gk.h"

int gk_device_count(void)
{
    return 0;
}

int gk_device_info_get(gk_device_info *info)
{
    memset(info, 0, sizeof *info);
    return GV_ENODEV;
}

int gk_device_select(int index)
{
    (void)index;
    return GV_ENODEV;
}

int gk_device_current(void)
{
    return -1;
}

int gk_perturb_if_planted(gk_launch *L)
{
    (void)L;
    return GV_OK;
}

int gk_mem_info(int64_t *free_bytes, int64_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
    return GV_ENODEV;
}

const char *gk_last_error(void)
{
    return "built without CUDA";
}

void gk_clear_error(void) {}

int gk_hook_status(int user_rc, const char *where)
{
    (void)user_rc;
    (void)where;
    return GV_ENODEV;
}

int gk_run(const gk_op *op, gk_launch *L, const gk_host_io *io)
{
    (void)op;
    (void)L;
    (void)io;
    return GV_ENODEV;
}

int64_t gk_input_readbacks(void)
{
    return 0;
}

int gk_input_hash_device(const void *host, size_t bytes, uint64_t lanes[2])
{
    (void)host;
    (void)bytes;
    lanes[0] = lanes[1] = 0;
    return GV_ENODEV;
}

/* Timed runs (gk.h, "Timed runs"): nothing can be timed without a device. */
int gk_bench_open(const gk_op *op, const gk_launch *L, const gk_host_io *io, gk_bench **out)
{
    (void)op;
    (void)L;
    (void)io;
    *out = NULL;
    return GV_ENODEV;
}

int gk_bench_sample(gk_bench *b, int scope, int reps, double *ms)
{
    (void)b;
    (void)scope;
    (void)reps;
    *ms = 0.0;
    return GV_ENODEV;
}

int gk_bench_result(gk_bench *b, int scope, const gk_host_io *io)
{
    (void)b;
    (void)scope;
    (void)io;
    return GV_ENODEV;
}

int gk_bench_info_get(const gk_bench *b, gk_bench_info *info)
{
    (void)b;
    memset(info, 0, sizeof *info);
    return GV_ENODEV;
}

void gk_bench_close(gk_bench *b)
{
    (void)b;
}

int gk_ceiling_copy_open(int64_t bytes, gk_bench **out)
{
    (void)bytes;
    *out = NULL;
    return GV_ENODEV;
}

int gk_ceiling_gemm_open(int dtype, int64_t n, gk_bench **out)
{
    (void)dtype;
    (void)n;
    *out = NULL;
    return GV_ENODEV;
}

int64_t gk_l2_flush_bytes(void)
{
    return 0;
}
