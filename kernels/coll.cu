/* coll.cu: NCCL collectives on every local GPU from one process (gk.h, "Collectives"): one
 * communicator per device from ncclCommInitAll, one stream each, out-of-place buffers. The
 * judged run comes first, into poisoned receive buffers; the timed runs after it never
 * replace it. NVLink multicast (NVLS) is kept off through NCCL_NVLS_ENABLE=0. */
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "coll_nccl.cuh"

namespace
{

struct coll_run {
    int n = 0;
    ncclComm_t comm[GK_COLL_MAX_RANKS] = {};
    cudaStream_t stream[GK_COLL_MAX_RANKS] = {};
    void *send[GK_COLL_MAX_RANKS] = {};
    void *recv[GK_COLL_MAX_RANKS] = {};
};

/* One collective on every rank, as one NCCL group. */
int launch_all(const gk_coll *c, coll_run *R)
{
    GK_NCCL(ncclGroupStart());
    for (int i = 0; i < R->n; i++) {
        ncclResult_t r = gk_coll_launch(c->kind, c->dtype, (size_t)c->count, R->send[i], R->recv[i],
                                        R->comm[i], R->stream[i]);
        if (r != ncclSuccess) {
            ncclGroupEnd();
            return gk_nccl_fail(r, "the collective's call");
        }
    }
    GK_NCCL(ncclGroupEnd());
    return GV_OK;
}

int sync_all(coll_run *R)
{
    for (int i = 0; i < R->n; i++) {
        GK_CUDA(cudaSetDevice(i));
        GK_CUDA(cudaStreamSynchronize(R->stream[i]));
    }
    return GV_OK;
}

int run(gk_coll *c, coll_run *R)
{
    size_t es = gv_dtype_size(c->dtype);
    size_t in_b = (size_t)gk_coll_in_count(c->kind, c->count, c->nranks) * es;
    size_t out_b = (size_t)gk_coll_out_count(c->kind, c->count, c->nranks) * es;
    int devs[GK_COLL_MAX_RANKS];
    for (int i = 0; i < c->nranks; i++)
        devs[i] = i;
    GK_NCCL(ncclCommInitAll(R->comm, c->nranks, devs));
    R->n = c->nranks;
    for (int i = 0; i < R->n; i++) {
        GK_CUDA(cudaSetDevice(i));
        GK_CUDA(cudaStreamCreateWithFlags(&R->stream[i], cudaStreamNonBlocking));
        GK_CUDA(cudaMalloc(&R->send[i], in_b));
        GK_CUDA(cudaMalloc(&R->recv[i], out_b));
        GK_CUDA(cudaMemcpy(R->send[i], c->in[i], in_b, cudaMemcpyHostToDevice));
        GK_CUDA(cudaMemset(R->recv[i], GV_POISON_BYTE, out_b)); /* unwritten until written */
        GK_CUDA(cudaDeviceSynchronize());
    }
    int rc = launch_all(c, R);
    if (rc == GV_OK) rc = sync_all(R);
    for (int i = 0; i < R->n && rc == GV_OK; i++) {
        GK_CUDA(cudaSetDevice(i));
        GK_CUDA(cudaMemcpy(c->out[i], R->recv[i], out_b, cudaMemcpyDeviceToHost));
    }
    for (int w = 0; w < c->warmup && rc == GV_OK; w++)
        rc = launch_all(c, R);
    if (rc == GV_OK) rc = sync_all(R);
    if (rc != GV_OK || c->iters < 1) return rc;
    auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < c->iters && rc == GV_OK; it++)
        rc = launch_all(c, R);
    if (rc == GV_OK) rc = sync_all(R);
    auto t1 = std::chrono::steady_clock::now();
    c->time_ms = std::chrono::duration<double, std::milli>(t1 - t0).count() / c->iters;
    return rc;
}

} // namespace

extern "C" int gk_coll_run(gk_coll *c)
{
    int present = gk_device_count();
    if (c->nranks < 2 || c->nranks > GK_COLL_MAX_RANKS || c->nranks > present)
        return gk_fail_unsupported("collectives need 2 to 16 ranks, one per present device");
    if ((c->dtype != GV_F32 && c->dtype != GV_F64) || c->kind < 0 || c->kind >= GK_NCOLLS ||
        c->count < 1)
        return gk_fail_internal("gk_coll_run: bad collective, dtype or count");
    setenv("NCCL_NVLS_ENABLE", "0", 1); /* before NCCL reads its environment */
    c->time_ms = 0;
    ncclGetVersion(&c->nccl_version);
    int prev = 0;
    cudaGetDevice(&prev);
    coll_run R;
    int rc = run(c, &R);
    for (int i = 0; i < GK_COLL_MAX_RANKS; i++) {
        if (i < present) cudaSetDevice(i);
        if (R.stream[i]) cudaStreamSynchronize(R.stream[i]);
        if (R.send[i]) cudaFree(R.send[i]);
        if (R.recv[i]) cudaFree(R.recv[i]);
        if (R.stream[i]) cudaStreamDestroy(R.stream[i]);
        if (R.comm[i]) ncclCommDestroy(R.comm[i]);
    }
    cudaGetLastError();
    cudaSetDevice(prev);
    return rc;
}
