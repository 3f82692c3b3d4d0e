/* coll_mpi_none.c: coll_mpi.h without MPI (a build without it, and libgpuval): gv_mpi_start
 * refuses; the other calls act as a job of one rank. */
#include "coll_mpi.h"

#include <stdio.h>
#include <string.h>

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
