/* coll_nccl.cuh: the one NCCL call of each collective (GK_COLL_*), shared by the
 * single-process driver (coll.cu) and the one-rank-per-process one (coll_rank.cu), and the
 * NCCL error recording both use. .cu files only. */
#ifndef GK_COLL_NCCL_CUH
#define GK_COLL_NCCL_CUH

#include <nccl.h>

#include "gk_cuda.h"

static_assert(NCCL_UNIQUE_ID_BYTES == GK_COLL_ID_BYTES, "gk.h's id size is NCCL's");

static inline int gk_nccl_fail(ncclResult_t r, const char *where)
{
    return gk_fail_lib("NCCL", (int)r, ncclGetErrorString(r), where);
}

#define GK_NCCL(call)                                                                              \
    do {                                                                                           \
        ncclResult_t r_ = (call);                                                                  \
        if (r_ != ncclSuccess) return gk_nccl_fail(r_, #call);                                     \
    } while (0)

/* Enqueue collective kind (root 0 for broadcast) of count elements per rank, as NCCL's count
 * arguments, on stream; out of place. */
static inline ncclResult_t gk_coll_launch(int kind, int dtype, size_t count, const void *send,
                                          void *recv, ncclComm_t comm, cudaStream_t stream)
{
    ncclDataType_t dt = dtype == GV_F64 ? ncclFloat64 : ncclFloat32;
    switch (kind) {
    case GK_COLL_ALLREDUCE_SUM: return ncclAllReduce(send, recv, count, dt, ncclSum, comm, stream);
    case GK_COLL_ALLREDUCE_MAX: return ncclAllReduce(send, recv, count, dt, ncclMax, comm, stream);
    case GK_COLL_ALLGATHER: return ncclAllGather(send, recv, count, dt, comm, stream);
    case GK_COLL_REDUCESCATTER_SUM:
        return ncclReduceScatter(send, recv, count, dt, ncclSum, comm, stream);
    case GK_COLL_BROADCAST: return ncclBroadcast(send, recv, count, dt, 0, comm, stream);
    default: return ncclInvalidArgument;
    }
}

#endif
