/* test_coll_mpi.c: `gpuval collectives` as the ranks of an mpirun job, on a machine without a
 * GPU — every rank starts MPI, they agree that they cannot run, and each exits 77 with its
 * reason, together and within the time limit (a rank left waiting would hang the job); a
 * per-rank --json path that cannot be written stops every rank with exit 2; launcher
 * variables that MPI does not confirm are refused. Without mpirun, or in a build without MPI,
 * the program exits 77 (meson's skip) before Criterion starts. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gk.h"

/* As root, Open MPI's mpirun refuses to start without these two (CI runs as root). */
#define MPIRUN                                                                                     \
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout -k 10 120 mpirun -np 2 "    \
    "--oversubscribe"

/* sh -c "cmd" with GPUVAL's path in $G; stdout and stderr into out. Returns the exit code.
   Under the sanitizer build, Open MPI's own never-freed blocks are suppressed
   (lsan-openmpi.supp); gpuval's are still reported. */
static int sh(const char *cmd, char *out, size_t len)
{
    const char *bin = getenv("GPUVAL"), *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(bin, "GPUVAL names the gpuval binary");
    cr_assert_not_null(src, "GPUVAL_SRCDIR names the source tree");
    char full[4096];
    snprintf(full, sizeof full,
             "G='%s'; export LSAN_OPTIONS=\"${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=%s/tests/"
             "cpu/lsan-openmpi.supp:fast_unwind_on_malloc=0\"; %s </dev/null 2>&1",
             bin, src, cmd);
    FILE *f = popen(full, "r");
    cr_assert_not_null(f);
    size_t used = fread(out, 1, len - 1, f);
    out[used] = '\0';
    char rest[4096];
    while (fread(rest, 1, sizeof rest, f) > 0)
        ;
    int st = pclose(f);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char out[1 << 16];

Test(coll_mpi, every_rank_exits_77_without_a_gpu, .timeout = 180)
{
    if (gk_device_count() > 0) cr_skip_test("a GPU here: tests/gpu/multi.c runs the ranks");
    int rc = sh(MPIRUN " \"$G\" collectives --op allreduce.sum --bytes 4096", out, sizeof out);
    cr_expect_eq(rc, 77, "exit %d (124: the ranks hung)\n%s", rc, out);
    cr_expect_not_null(strstr(out, "collectives: SKIP rank 0 of 2 (no CUDA device)"), "%s", out);
    cr_expect_not_null(strstr(out, "collectives: SKIP rank 1 of 2 (no CUDA device)"), "%s", out);
    cr_expect_null(strstr(out, "collectives: SKIP ("), "not the single-process skip:\n%s", out);
}

Test(coll_mpi, an_unwritable_per_rank_path_stops_every_rank, .timeout = 180)
{
    int rc = sh(MPIRUN " \"$G\" collectives --bytes 4096 --json /nonexistent-dir/coll%r.json", out,
                sizeof out);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "/nonexistent-dir/coll0.json"), "rank 0's own path:\n%s", out);
    cr_expect_not_null(strstr(out, "/nonexistent-dir/coll1.json"), "rank 1's own path:\n%s", out);
    /* a usage error is found before MPI starts, on every rank alike */
    rc = sh(MPIRUN " \"$G\" collectives --op allreduce.avg", out, sizeof out);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "unknown collective 'allreduce.avg'"), "%s", out);
}

Test(coll_mpi, launcher_variables_without_the_launcher_are_refused, .timeout = 120)
{
    /* a batch script's variables, gpuval started beside srun rather than by it: MPI sees one
       process where the variables promise two */
    int rc = sh("SLURM_PROCID=0 SLURM_LOCALID=0 SLURM_NTASKS=2 timeout -k 10 60 \"$G\" "
                "collectives --bytes 4096",
                out, sizeof out);
    cr_expect_eq(rc, 3, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "the launcher (slurm) says 2 ranks, MPI sees 1 process"), "%s",
                       out);
}

int main(int argc, char *argv[])
{
    if (system("command -v mpirun >/dev/null 2>&1") != 0) {
        fprintf(stderr, "no mpirun on PATH: skipped (exit 77)\n");
        return 77;
    }
    const char *bin = getenv("GPUVAL");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ldd '%s' 2>/dev/null | grep -q libmpi", bin ? bin : "/nonexistent");
    if (system(cmd) != 0) {
        fprintf(stderr, "gpuval built without MPI: skipped (exit 77)\n");
        return 77;
    }
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true)) result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}
