/* multi.c (tests/gpu): every GPU of a node — check --device all, the planted disagreement
 * GPUVAL_PERTURB_DEVICE named as the outlier, per-device run files merged, bench and tradeoffs
 * --device all merged per case and device, the collectives in one process and as two ranks of
 * an mpirun job (one GPU each; $GPUVAL_MPIRUN names the launcher, default mpirun; those tests
 * are skipped without it), and gpuval screen naming a GPU with a planted fault. Needs two devices:
 * with fewer the program returns 77 (meson's skip) before Criterion starts; the device count
 * is taken in a forked child so this process never initialises CUDA. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gk.h"

static int device_count(void)
{
    int fd[2];
    if (pipe(fd) != 0) return 0;
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        int n = gk_device_count();
        ssize_t w = write(fd[1], &n, sizeof n);
        _exit(w == (ssize_t)sizeof n ? 0 : 1);
    }
    close(fd[1]);
    int n = 0;
    if (read(fd[0], &n, sizeof n) != (ssize_t)sizeof n) n = 0;
    close(fd[0]);
    waitpid(pid, NULL, 0);
    return n;
}

/* Run gpuval with env prefix and args; its stdout and stderr into out. Returns the exit code. */
static int gpuval(const char *env, const char *args, char *out, size_t len)
{
    const char *bin = getenv("GPUVAL");
    cr_assert_not_null(bin, "GPUVAL names the gpuval binary");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s '%s' %s </dev/null 2>&1", env, bin, args);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t used = fread(out, 1, len - 1, f);
    out[used] = '\0';
    char rest[4096];
    while (fread(rest, 1, sizeof rest, f) > 0)
        ;
    int st = pclose(f);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static char out[1 << 17];

Test(multi_gpu, every_device_agrees_on_deterministic_ops, .timeout = 300)
{
    int rc = gpuval("", "check --device all --op vadd --size 100003", out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "2 identical, 0 differ, 0 not compared; 0 outlier devices"),
                       "%s", out);
}

Test(multi_gpu, a_perturbed_device_is_named_though_it_passes, .timeout = 300)
{
    int rc = gpuval("GPUVAL_PERTURB_DEVICE=1", "check --device 0,1 --op vadd --size 100003", out,
                    sizeof out);
    cr_expect_eq(rc, 6, "exit %d\n%s", rc, out);
    cr_expect_eq(count(out, "DIFFER: outlier dev1"), 2, "f32 and f64 both named:\n%s", out);
    cr_expect_null(strstr(out, "FAIL"), "the perturbation stays inside the tiers:\n%s", out);
    cr_expect_not_null(strstr(out, "1 outlier device\n"), "%s", out);
}

Test(multi_gpu, per_device_files_merge, .timeout = 300)
{
    char dir[] = "/tmp/gv-multi-XXXXXX", args[512];
    cr_assert_not_null(mkdtemp(dir));
    for (int d = 0; d < 2; d++) {
        snprintf(args, sizeof args, "check --device %d --op vadd --size 1001 -q --json %s/d%d.json",
                 d, dir, d);
        int rc = gpuval("", args, out, sizeof out);
        cr_expect_eq(rc, 0, "device %d: exit %d\n%s", d, rc, out);
        char want[64];
        snprintf(want, sizeof want, "device %d of ", d);
        cr_expect_not_null(strstr(out, want), "%s", out);
    }
    snprintf(args, sizeof args, "merge %s/d0.json %s/d1.json", dir, dir);
    int rc = gpuval("", args, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "dev0"), "%s", out);
    cr_expect_not_null(strstr(out, "dev1"), "%s", out);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    cr_expect_eq(system(args), 0);
}

Test(multi_gpu, collectives_are_judged_and_timed, .timeout = 300)
{
    int rc = gpuval("", "collectives --bytes 2^20 --iters 5", out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "10 collectives: 10 passed, 0 failed"), "%s", out);
    const char *names[] = {"allreduce.sum", "allreduce.max", "allgather", "reducescatter.sum",
                           "broadcast"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        cr_expect_eq(count(out, names[i]), 2, "%s in f32 and f64:\n%s", names[i], out);
}

/* The merged table has a row per case and device: dev0 and dev1 each at least once in it. */
static void expect_both_devices(const char *text)
{
    const char *table = strstr(text, "\ncase ");
    cr_assert_not_null(table, "no merged table:\n%s", text);
    cr_expect_not_null(strstr(table, " dev0 "), "%s", text);
    cr_expect_not_null(strstr(table, " dev1 "), "%s", text);
}

Test(multi_gpu, bench_on_every_device_is_merged, .timeout = 300)
{
    char dir[] = "/tmp/gv-multi-XXXXXX", args[512], path[600];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(args, sizeof args, "bench --device all --op vadd --size 2^24 --json %s/b.json", dir);
    int rc = gpuval("", args, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "== device 0 (worker exit 0) =="), "%s", out);
    cr_expect_not_null(strstr(out, "== device 1 (worker exit 0) =="), "%s", out);
    expect_both_devices(out);
    for (int d = 0; d < 2; d++) {
        snprintf(path, sizeof path, "%s/b.dev%d.json", dir, d);
        cr_expect_eq(access(path, R_OK), 0, "%s", path);
    }
    /* the merged document, and the per-device files merged again by gpuval merge */
    snprintf(args, sizeof args, "merge %s/b.dev0.json %s/b.dev1.json", dir, dir);
    rc = gpuval("", args, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    expect_both_devices(out);
    snprintf(args, sizeof args, "grep -q gpuval-fleet-perf/1 %s/b.json", dir);
    cr_expect_eq(system(args), 0, "%s/b.json is the merged view", dir);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    cr_expect_eq(system(args), 0);
}

/* ---- two ranks of an mpirun job, one GPU each ------------------------------------------ */

/* "mpirun -np NP" with what it needs here, or NULL (the test skipped) without one. As root,
   Open MPI's mpirun needs the two OMPI_ALLOW_* variables. */
static const char *mpirun(int np)
{
    static char cmd[512];
    const char *m = getenv("GPUVAL_MPIRUN");
    if (!m) m = "mpirun";
    snprintf(cmd, sizeof cmd, "command -v '%s' >/dev/null 2>&1", m);
    if (system(cmd) != 0) return NULL;
    snprintf(cmd, sizeof cmd,
             "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout -k 10 600 '%s' "
             "-np %d --oversubscribe -x LD_LIBRARY_PATH",
             m, np);
    return cmd;
}

/* Every row of a rank's gpuval-collectives/1 file judged PASS with #wrong 0, over 2 ranks. */
static void expect_rank_file_passes(const char *path, int rank, int rows)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    cr_assert_not_null(doc, "%s: %s", path, jerr.text);
    cr_expect_eq(json_integer_value(json_object_get(doc, "rank")), rank, "%s", path);
    cr_expect_eq(json_integer_value(json_object_get(doc, "ranks")), 2, "%s", path);
    json_t *list = json_object_get(doc, "collectives");
    cr_expect_eq(json_array_size(list), (size_t)rows, "%s", path);
    size_t i;
    json_t *row;
    json_array_foreach(list, i, row)
    {
        const char *keys[] = {"verdict", "rank_verdict"}, *counts[] = {"wrong", "rank_wrong"};
        for (int k = 0; k < 2; k++) {
            const char *v = json_string_value(json_object_get(row, keys[k]));
            cr_expect_str_eq(v ? v : "(none)", "PASS", "%s row %zu %s", path, i, keys[k]);
            const json_t *w = json_object_get(row, counts[k]);
            cr_expect(json_is_integer(w) && json_integer_value(w) == 0, "%s row %zu %s", path, i,
                      counts[k]);
        }
        cr_expect_gt(json_real_value(json_object_get(row, "busbw_gbs")), 0.0, "%s row %zu", path,
                     i);
    }
    json_decref(doc);
}

Test(multi_gpu, two_mpi_ranks_run_the_collectives, .timeout = 700)
{
    const char *m = mpirun(2);
    if (!m) cr_skip_test("no mpirun");
    char dir[] = "/tmp/gv-mpi-XXXXXX", args[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(args, sizeof args, "collectives --bytes 2^20 --iters 5 --json %s/coll%%r.json", dir);
    int rc = gpuval(m, args, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "collectives over 2 ranks, one GPU each"), "%s", out);
    cr_expect_not_null(strstr(out, "10 collectives over 2 ranks: 10 passed, 0 failed"), "%s", out);
    const char *names[] = {"allreduce.sum", "allreduce.max", "allgather", "reducescatter.sum",
                           "broadcast"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        cr_expect_eq(count(out, names[i]), 2, "one table (rank 0's), %s in f32 and f64:\n%s",
                     names[i], out);
    for (int r = 0; r < 2; r++) {
        char path[64];
        snprintf(path, sizeof path, "%s/coll%d.json", dir, r);
        expect_rank_file_passes(path, r, 10);
    }
    snprintf(args, sizeof args, "merge %s/coll1.json %s/coll0.json", dir, dir);
    rc = gpuval("", args, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "10 collectives on 2 ranks: 10 passed, 0 failed"), "%s", out);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    cr_expect_eq(system(args), 0);
}

Test(multi_gpu, bench_devices_one_after_another, .timeout = 300)
{
    int rc = gpuval("", "bench --device all --device-serial --op vadd --size 2^20 --no-cpu", out,
                    sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "one worker process each, one after another: 0 1"), "%s", out);
    expect_both_devices(out);
}

Test(multi_gpu, tradeoffs_on_every_device_agree, .timeout = 600)
{
    int rc = gpuval("", "tradeoffs --device all --op gemm.cublas --size 1024x1024x1024", out,
                    sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    expect_both_devices(out);
    cr_expect_not_null(strstr(out, "0 rows differ between devices"), "%s", out);
    cr_expect_null(strstr(out, "DIFFER"), "%s", out);
}

Test(multi_gpu, two_mpi_ranks_check_and_merge, .timeout = 700)
{
    const char *m = mpirun(2);
    if (!m) cr_skip_test("no mpirun");
    char dir[] = "/tmp/gv-mpi-XXXXXX", args[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(args, sizeof args, "check --op vadd --size 100003 -q --json %s/r%%r.json", dir);
    int rc = gpuval(m, args, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    snprintf(args, sizeof args, "merge %s/r0.json %s/r1.json", dir, dir);
    rc = gpuval("", args, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "rank0"), "%s", out);
    cr_expect_not_null(strstr(out, "rank1"), "%s", out);
    cr_expect_not_null(strstr(out, "; 0 outlier devices"), "%s", out);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    cr_expect_eq(system(args), 0);
}

Test(multi_gpu, more_ranks_than_gpus_are_refused_before_nccl, .timeout = 300)
{
    int n = device_count();
    const char *m = mpirun(n + 1);
    if (!m) cr_skip_test("no mpirun");
    int rc = gpuval(m, "collectives --op allreduce.sum --bytes 4096 --iters 1", out, sizeof out);
    cr_expect_eq(rc, 77, "exit %d\n%s", rc, out);
    char want[64];
    snprintf(want, sizeof want, "collectives: SKIP (ranks 0 and %d share device 0 of ", n);
    cr_expect_not_null(strstr(out, want), "%s", out);
}

/* gpuval screen on two GPUs: a healthy pair records its golden digests and passes against
   them; then each planted fault of GPUVAL_SCREEN_FAULT on GPU 1 must be named, with its unit,
   in the drain line (alone on stdout with --drain-line), and GPU 0 must stay ok. */
static char screen_dir[] = "/tmp/gv-screen-XXXXXX";

static void screen_setup(void)
{
    cr_assert_not_null(mkdtemp(screen_dir));
    char args[512];
    snprintf(args, sizeof args, "screen --device 0,1 -q --record %s/golden.json", screen_dir);
    int rc = gpuval("", args, out, sizeof out);
    cr_assert_eq(rc, 0, "recording on a healthy pair: exit %d\n%s", rc, out);
}

static void screen_teardown(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", screen_dir);
    cr_expect_eq(system(cmd), 0);
}

/* The drain line of `screen --device 0,1 --golden ... --drain-line` under fault env; exit rc. */
static int screen_line(const char *env, char *line, size_t len)
{
    char args[512], cmd[1024];
    snprintf(args, sizeof args, "screen --device 0,1 --golden %s/golden.json --drain-line",
             screen_dir);
    snprintf(cmd, sizeof cmd, "%s '%s' %s 2>/dev/null </dev/null", env, getenv("GPUVAL"), args);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t used = fread(line, 1, len - 1, f);
    line[used] = '\0';
    int st = pclose(f);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TestSuite(multi_screen, .init = screen_setup, .fini = screen_teardown);

Test(multi_screen, a_healthy_pair_passes_against_its_golden_digests, .timeout = 600)
{
    char line[4096];
    int rc = screen_line("", line, sizeof line);
    cr_expect_eq(rc, 0, "exit %d: %s", rc, line);
    cr_expect_not_null(strstr(line, "gpuval screen: prolog/1 passed on 2 GPUs in "), "%s", line);
    cr_expect_eq(count(line, "\n"), 1, "one line: %s", line);
}

Test(multi_screen, each_planted_fault_names_gpu_1_and_its_unit, .timeout = 1200)
{
    const struct {
        const char *env, *says;
    } faults[] = {
        {"GPUVAL_SCREEN_FAULT=1:mantissa@gemm.cublas",
         "failed gemm.cublas f32 tf32 (tensor-cores): digest differs from golden"},
        {"GPUVAL_SCREEN_FAULT=1:one-in:1000@reduce.*", "failed reduce.sum f32 native (reduce): "},
        {"GPUVAL_SCREEN_FAULT=1:exponent@fft.*", "failed fft.c2c.fwd f32 native (fft): "},
        {"GPUVAL_SCREEN_FAULT=1:constant@vadd", "failed vadd f32 native (memory): "},
    };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        char line[4096];
        int rc = screen_line(faults[i].env, line, sizeof line);
        cr_expect_eq(rc, 1, "%s: exit %d: %s", faults[i].env, rc, line);
        cr_expect_not_null(strstr(line, "gpuval screen: GPU 1 (GPU-"), "%s: %s", faults[i].env,
                           line);
        cr_expect_not_null(strstr(line, faults[i].says), "%s: %s", faults[i].env, line);
        cr_expect_null(strstr(line, "GPU 0 "), "%s: GPU 0 named too: %s", faults[i].env, line);
    }
}

int main(int argc, char *argv[])
{
    if (!getenv("GPUVAL_DEVICES_SEEN")) {
        int n = device_count();
        if (n < 2) {
            fprintf(stderr, "multi-GPU suite: %d CUDA device%s, needs 2: skipped (exit 77)\n", n,
                    n == 1 ? "" : "s");
            return 77;
        }
        setenv("GPUVAL_DEVICES_SEEN", "1", 1);
    }
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true)) result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}
