/* coll_rank.cu: NCCL collectives with one rank per process (gk.h, "One rank per process"):
 * the communicator from ncclCommInitRank with a unique id that the caller carried to every
 * rank, one stream, out-of-place buffers. As in coll.cu, the judged run comes first into a
 * poisoned receive buffer; the timed runs follow, each between two CUDA events, and the
 * median is reported (nccl-tests reports the mean of a host-timed loop; the median is not
 * moved by one slow iteration). */
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "coll_nccl.cuh"

struct gk_coll_comm {
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
    int device = 0, nranks = 0, rank = 0;
    void *send = nullptr, *recv = nullptr;
    size_t in_bytes = 0, out_bytes = 0;
};

namespace
{

void free_buffers(gk_coll_comm *C)
{
    if (C->stream) cudaStreamSynchronize(C->stream);
    if (C->send) cudaFree(C->send);
    if (C->recv) cudaFree(C->recv);
    C->send = C->recv = nullptr;
    C->in_bytes = C->out_bytes = 0;
}

int launch(const gk_coll *c, gk_coll_comm *C)
{
    GK_NCCL(
        gk_coll_launch(c->kind, c->dtype, (size_t)c->count, C->send, C->recv, C->comm, C->stream));
    return GV_OK;
}

int timed(gk_coll *c, gk_coll_comm *C)
{
    std::vector<cudaEvent_t> ev((size_t)c->iters + 1, nullptr);
    int rc = GV_OK;
    cudaError_t e = cudaSuccess;
    for (size_t i = 0; i < ev.size() && e == cudaSuccess; i++)
        e = cudaEventCreate(&ev[i]);
    if (e == cudaSuccess) e = cudaEventRecord(ev[0], C->stream);
    for (int it = 0; it < c->iters && e == cudaSuccess && rc == GV_OK; it++) {
        rc = launch(c, C);
        if (rc == GV_OK) e = cudaEventRecord(ev[(size_t)it + 1], C->stream);
    }
    if (e == cudaSuccess && rc == GV_OK) e = cudaStreamSynchronize(C->stream);
    if (e != cudaSuccess && rc == GV_OK) rc = gk_fail_cuda(e, "the timed runs' events");
    std::vector<float> ms((size_t)c->iters);
    for (int it = 0; it < c->iters && rc == GV_OK; it++) {
        e = cudaEventElapsedTime(&ms[(size_t)it], ev[(size_t)it], ev[(size_t)it + 1]);
        if (e != cudaSuccess) rc = gk_fail_cuda(e, "cudaEventElapsedTime");
    }
    for (cudaEvent_t x : ev)
        if (x) cudaEventDestroy(x);
    if (rc != GV_OK) return rc;
    std::sort(ms.begin(), ms.end());
    size_t n = ms.size();
    c->time_ms = n % 2 ? ms[n / 2] : 0.5 * ((double)ms[n / 2 - 1] + (double)ms[n / 2]);
    return GV_OK;
}

int run(gk_coll *c, gk_coll_comm *C)
{
    int rc = launch(c, C);
    if (rc != GV_OK) return rc;
    GK_CUDA(cudaStreamSynchronize(C->stream));
    GK_CUDA(cudaMemcpy(c->out[0], C->recv, C->out_bytes, cudaMemcpyDeviceToHost));
    for (int w = 0; w < c->warmup && rc == GV_OK; w++)
        rc = launch(c, C);
    if (rc != GV_OK) return rc;
    GK_CUDA(cudaStreamSynchronize(C->stream));
    return c->iters >= 1 ? timed(c, C) : GV_OK;
}

} // namespace

extern "C" int gk_coll_have_nccl(void)
{
    return 1;
}

extern "C" int gk_coll_unique_id(unsigned char id[GK_COLL_ID_BYTES])
{
    setenv("NCCL_NVLS_ENABLE", "0", 1); /* before NCCL reads its environment */
    ncclUniqueId u;
    GK_NCCL(ncclGetUniqueId(&u));
    memcpy(id, u.internal, GK_COLL_ID_BYTES);
    return GV_OK;
}

extern "C" int gk_coll_comm_open(const unsigned char id[GK_COLL_ID_BYTES], int nranks, int rank,
                                 int device, gk_coll_comm **out)
{
    *out = nullptr;
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return gk_fail_internal("gk_coll_comm_open: rank outside 0..nranks-1");
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    gk_coll_comm *C = new (std::nothrow) gk_coll_comm;
    if (!C) return GV_ENOMEM;
    C->device = device;
    C->nranks = nranks;
    C->rank = rank;
    ncclUniqueId u;
    memcpy(u.internal, id, GK_COLL_ID_BYTES);
    int rc = GV_OK;
    cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) rc = gk_fail_cuda(e, "cudaSetDevice");
    if (rc == GV_OK) {
        e = cudaStreamCreateWithFlags(&C->stream, cudaStreamNonBlocking);
        if (e != cudaSuccess) rc = gk_fail_cuda(e, "cudaStreamCreateWithFlags");
    }
    if (rc == GV_OK) {
        ncclResult_t r = ncclCommInitRank(&C->comm, nranks, u, rank);
        if (r != ncclSuccess) rc = gk_nccl_fail(r, "ncclCommInitRank");
    }
    if (rc != GV_OK) {
        gk_coll_comm_close(C);
        return rc;
    }
    *out = C;
    return GV_OK;
}

extern "C" int gk_coll_comm_prepare(gk_coll_comm *C, const gk_coll *c)
{
    if (c->nranks != C->nranks || (c->dtype != GV_F32 && c->dtype != GV_F64) || c->kind < 0 ||
        c->kind >= GK_NCOLLS || c->count < 1)
        return gk_fail_internal("gk_coll_comm_prepare: bad collective, dtype, count or ranks");
    GK_CUDA(cudaSetDevice(C->device));
    free_buffers(C);
    size_t es = gv_dtype_size(c->dtype);
    C->in_bytes = (size_t)gk_coll_in_count(c->kind, c->count, c->nranks) * es;
    C->out_bytes = (size_t)gk_coll_out_count(c->kind, c->count, c->nranks) * es;
    GK_CUDA(cudaMalloc(&C->send, C->in_bytes));
    GK_CUDA(cudaMalloc(&C->recv, C->out_bytes));
    GK_CUDA(cudaMemcpy(C->send, c->in[0], C->in_bytes, cudaMemcpyHostToDevice));
    GK_CUDA(cudaMemset(C->recv, GV_POISON_BYTE, C->out_bytes)); /* unwritten until written */
    GK_CUDA(cudaDeviceSynchronize());
    return GV_OK;
}

extern "C" int gk_coll_comm_run(gk_coll_comm *C, gk_coll *c)
{
    c->time_ms = 0;
    ncclGetVersion(&c->nccl_version);
    if (!C->send || !C->recv) return gk_fail_internal("gk_coll_comm_run before prepare");
    cudaSetDevice(C->device);
    int rc = run(c, C);
    free_buffers(C);
    return rc;
}

extern "C" void gk_coll_comm_close(gk_coll_comm *C)
{
    if (!C) return;
    cudaSetDevice(C->device);
    free_buffers(C);
    if (C->comm) ncclCommDestroy(C->comm);
    if (C->stream) cudaStreamDestroy(C->stream);
    cudaGetLastError();
    delete C;
}
