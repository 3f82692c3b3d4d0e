/* coll_mpi.h: every MPI call of gpuval, for `gpuval collectives` launched as the ranks of an
 * MPI job (coll_rank.c). coll_mpi.c implements it: with GV_HAVE_MPI on the MPI library
 * (Debian's Open MPI, meson option -Dmpi), linked into the gpuval command only; without it, in
 * libgpuval and a build without MPI, it says no MPI is there. MPI is initialised by
 * gv_mpi_start alone, so nothing else of gpuval ever starts it. Every call but gv_mpi_built
 * and gv_mpi_start is collective: all ranks make it, in the same order. MPI's errors are fatal
 * to the job (its default handler), so these return nothing but their results. */
#ifndef GV_COLL_MPI_H
#define GV_COLL_MPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether this build has MPI. */
bool gv_mpi_built(void);
/* MPI_Init (MPI_THREAD_SINGLE is enough: one thread makes every MPI call); this process's rank
 * and the job's size. 0, or -1 (why in err) without MPI. */
int gv_mpi_start(int *rank, int *size, char *err, size_t len);
/* Whether every rank says yes (a logical and over the ranks). */
bool gv_mpi_all(bool yes);
/* bytes of buf from root to every rank. */
void gv_mpi_bcast(void *buf, int bytes, int root);
/* Element-wise over the ranks, in place, the result on every rank. */
void gv_mpi_max_i64(int64_t *v, int n);
void gv_mpi_min_i64(int64_t *v, int n);
void gv_mpi_sum_i64(int64_t *v, int n);
void gv_mpi_max_f64(double *v, int n);
/* Every rank's n bytes at buf, in rank order, into out (size x n bytes) on every rank. */
void gv_mpi_allgather(const void *buf, int n, void *out);
/* MPI_Finalize. */
void gv_mpi_finish(void);

#endif
