/* blas_threads.c: the one thread count every oracle call into OpenBLAS and LAPACK runs on
 * (go.h, GO_BLAS_THREADS). OpenBLAS partitions LU, QR, Cholesky, its dot products and some
 * of its dgemm kernels by the thread count, so the last bits of a reference followed the
 * host's cores: two runs of one catalogue on 16 and 4 threads differed in 126 record members
 * and compare called one case REGRESSED. On a fixed count the partitions are fixed, and the
 * bits are the same on any host of one OpenBLAS core type, oversubscribed or not (measured:
 * 4 threads gave the same dgesv and dgeqrf bits pinned to 1 core as on 2). */
#include <assert.h>
#include <cblas.h>
#include <stdatomic.h>

#include "go.h"

/* The fixed count (0: none); set once per process by a command, before any oracle runs. */
static atomic_int fixed = GO_BLAS_THREADS;

void go_blas_fixed_threads(int threads)
{
    assert(threads >= 0);
    atomic_store(&fixed, threads);
}

int go_blas_threads(void)
{
    return atomic_load(&fixed);
}

int go_blas_enter(void)
{
    int want = atomic_load(&fixed), prev = openblas_get_num_threads();
    if (want > 0 && prev != want) openblas_set_num_threads(want);
    return prev;
}

void go_blas_leave(int prev)
{
    if (openblas_get_num_threads() != prev) openblas_set_num_threads(prev);
}
