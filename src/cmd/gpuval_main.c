/* gpuval_main.c: the entry of the gpuval command (the command line is main.c's
 * gv_cmd_main, shared with gv_main in libgpuval). */
#include <cblas.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/main.h"
#include "core/knobs.h"

/* OpenBLAS's DYNAMIC_ARCH build (Debian's 0.3.21) takes a CPU model it does not know for a
 * "Prescott": SSE3 kernels, about 1/8 of what an AVX-512 core does in dgemm. A 16-core Xeon VM
 * of a GPU host was seen so: the oracles' dgemm ran at 15 GFLOP/s a core, 109 on 16 threads,
 * and the f64 references took most of a check. Where the user has not named a core
 * (OPENBLAS_CORETYPE unset) and the CPU and the OS both support the wider instructions (GCC's
 * __builtin_cpu_supports checks the OS's XSAVE state too), run again with the core named:
 * OpenBLAS reads the variable only when it loads. GPUVAL_OPENBLAS_CORE_FROM keeps what it had
 * detected (it is recorded in the run's host block) and stops a second attempt. */
static bool name_openblas_core(void)
{
    if (gv_env("OPENBLAS_CORETYPE") || gv_knobs()->openblas_core_from) return false;
    const char *core = openblas_get_corename();
    if (!core || strcmp(core, "Prescott") != 0) return false;
    __builtin_cpu_init();
    const char *want = NULL;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        want = "SkylakeX";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        want = "Haswell";
    if (!want) return false;
    setenv("OPENBLAS_CORETYPE", want, 1);
    setenv("GPUVAL_OPENBLAS_CORE_FROM", core, 1);
    return true;
}

/* check and screen alternate OpenMP regions (the generator, the judge, the non-BLAS oracles)
 * with OpenBLAS's own threads and the device thread; GNU OpenMP's threads spin between regions
 * by default and take those cores. Measured on an H100 host (16 cores), warm check of the
 * default catalogue: 15.7 and 15.8 s spinning, 14.2 and 13.9 s with passive waits, alternated
 * on one machine; with two workers at once on two H200s, a cold check took 87.0 s against 39.3 s.
 * OpenBLAS's own threads (the pthreads build) do the same after every call: each calls
 * sched_yield in a loop for 2^28 TSC cycles (about 0.1 s) before it sleeps, so between one
 * oracle's BLAS calls and the next, each worker's three idle BLAS threads keep yielding on
 * cores its siblings' OpenMP and device threads could use (each yield that finds another thread
 * waiting is an involuntary context switch). A cold check of 881 cases on an H200 host (16
 * cores, one run each): 3.34 million of them and 95.9 s of system time with OpenBLAS's default,
 * 0.22 million and 50.4 s with 20, the wall time 41.6 and 39.2 s (the yields had mostly given
 * way to the work: docs/performance.md). OPENBLAS_THREAD_TIMEOUT=20 (2^20 cycles, well under a
 * millisecond) is meant to keep the spin across the back-to-back calls of a LAPACK
 * factorisation and to sleep in the gaps between a case's phases; it changes no result (the
 * thread count, which partitions OpenBLAS's sums, is fixed apart: oracle/go.h).
 * Set where the user has not chosen; libgomp and OpenBLAS read them only when they load,
 * hence a fresh exec. Returns a bit for each variable set: 1 OMP_WAIT_POLICY, 2
 * OPENBLAS_THREAD_TIMEOUT. */
enum { SET_OMP_WAIT = 1, SET_BLAS_TIMEOUT = 2 };
static int wait_passively(int argc, char **argv)
{
    if (argc < 2) return 0;
    if (strcmp(argv[1], "check") != 0 && strcmp(argv[1], "screen") != 0) return 0;
    int set = 0;
    if (!gv_env("OMP_WAIT_POLICY")) {
        setenv("OMP_WAIT_POLICY", "passive", 1);
        set |= SET_OMP_WAIT;
    }
    if (!gv_env("OPENBLAS_THREAD_TIMEOUT")) {
        setenv("OPENBLAS_THREAD_TIMEOUT", "20", 1);
        set |= SET_BLAS_TIMEOUT;
    }
    return set;
}

int main(int argc, char **argv)
{
    bool core = name_openblas_core();
    int passive = wait_passively(argc, argv);
    if (core || passive) {
        execv("/proc/self/exe", argv);
        /* not run again (no /proc, say): go on as loaded, and say nothing of it */
        if (core) {
            unsetenv("OPENBLAS_CORETYPE");
            unsetenv("GPUVAL_OPENBLAS_CORE_FROM");
        }
        if (passive & SET_OMP_WAIT) unsetenv("OMP_WAIT_POLICY");
        if (passive & SET_BLAS_TIMEOUT) unsetenv("OPENBLAS_THREAD_TIMEOUT");
    }
    return gv_cmd_main(argc, argv);
}
