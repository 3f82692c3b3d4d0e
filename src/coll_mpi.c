/* coll_mpi.c: gpuval's MPI calls (coll_mpi.h), on the MPI library found at build time. */
#include "coll_mpi.h"

#include <mpi.h>
#include <stdio.h>

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
