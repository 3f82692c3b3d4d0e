/* coll_mpi.c: gpuval's MPI calls (coll_mpi.h). Built twice (meson.build): with GV_HAVE_MPI on
 * the MPI library found at build time, for the gpuval command; without it for libgpuval and a
 * build without MPI, where gv_mpi_start refuses and the other calls act as a job of one rank. */
#include "coll/coll_mpi.h"

#include <stdio.h>
#include <string.h>

#ifdef GV_HAVE_MPI
#include <mpi.h>

bool gv_mpi_built(void)
{
    return true;
}

int gv_mpi_start(int *rank, int *size, char *err, size_t len)
{
    int provided = 0;
    int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int n = 0;
        MPI_Error_string(rc, msg, &n);
        snprintf(err, len, "MPI_Init: %s", msg);
        return -1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return 0;
}

bool gv_mpi_all(bool yes)
{
    int v = yes ? 1 : 0, all = 0;
    MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
}

void gv_mpi_bcast(void *buf, int bytes, int root)
{
    MPI_Bcast(buf, bytes, MPI_BYTE, root, MPI_COMM_WORLD);
}

static void allreduce(void *v, int n, MPI_Datatype t, MPI_Op op)
{
    MPI_Allreduce(MPI_IN_PLACE, v, n, t, op, MPI_COMM_WORLD);
}

void gv_mpi_max_i64(int64_t *v, int n)
{
    allreduce(v, n, MPI_INT64_T, MPI_MAX);
}

void gv_mpi_min_i64(int64_t *v, int n)
{
    allreduce(v, n, MPI_INT64_T, MPI_MIN);
}

void gv_mpi_sum_i64(int64_t *v, int n)
{
    allreduce(v, n, MPI_INT64_T, MPI_SUM);
}

void gv_mpi_max_f64(double *v, int n)
{
    allreduce(v, n, MPI_DOUBLE, MPI_MAX);
}

void gv_mpi_allgather(const void *buf, int n, void *out)
{
    MPI_Allgather(buf, n, MPI_BYTE, out, n, MPI_BYTE, MPI_COMM_WORLD);
}

void gv_mpi_finish(void)
{
    MPI_Finalize();
}

#else /* no MPI */

bool gv_mpi_built(void)
{
    return false;
}

int gv_mpi_start(int *rank, int *size, char *err, size_t len)
{
    *rank = 0;
    *size = 1;
    snprintf(err, len,
             "this gpuval was built without MPI (meson -Dmpi=enabled, "
             "Debian's libopenmpi-dev)");
    return -1;
}

bool gv_mpi_all(bool yes)
{
    return yes;
}

void gv_mpi_bcast(void *buf, int bytes, int root)
{
    (void)buf, (void)bytes, (void)root; /* one rank: the root's bytes are there */
}

void gv_mpi_max_i64(int64_t *v, int n)
{
    (void)v, (void)n;
}

void gv_mpi_min_i64(int64_t *v, int n)
{
    (void)v, (void)n;
}

void gv_mpi_sum_i64(int64_t *v, int n)
{
    (void)v, (void)n;
}

void gv_mpi_max_f64(double *v, int n)
{
    (void)v, (void)n;
}

void gv_mpi_allgather(const void *buf, int n, void *out)
{
    memcpy(out, buf, (size_t)n); /* one rank */
}

void gv_mpi_finish(void) {}

#endif
