/* test_roundtrip.c (tests/gpu): every document a real run writes is read back by every reader.
 * The writers and the strict reader are each tested on the CPU; here they meet on the device's
 * own output, where the numbers come from real kernels at the edges of arithmetic (a result near
 * f64's maximum once wrote a normwise error of NaN that every reader refused):
 *
 * - the default catalogue at test sizes: compare a a SAME (exit 0), report --html and --md, merge of
 *   two runs of one device; a seed sweep (seeds 0 and 1: compare exit 0, the verdicts agree) in
 *   the gpu-long suite;
 * - every dist at the ops' test sizes (gpu_roundtrip_dists: in the gpu-long suite, 13 check
 *   runs): each run compared with itself (SAME, exit 0) and rendered; its FAILs (a dist may find a real fault) dumped with --dump-failures and each
 *   dumped case.json read back by replay, which must take it (never exit 2);
 * - two probe documents: compare SAME, report, merge (the devices agree);
 * - a bench run (compare SAME against itself, report) and a trade-off run (report, merge).
 * The binary comes from GPUVAL (tests/meson.build). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../cpu/testkit.h" /* gv_test_gpuval_bin, gv_test_exit_code, gv_test_slurp */

/* `gpuval ARGS` in dir, stdout into dir/LOG.out, stderr into dir/LOG.err: the exit status. */
static int gpuval_in(const char *dir, const char *log, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >'%s.out' 2>'%s.err' </dev/null", dir,
             gv_test_gpuval_bin(), args, log, log);
    return gv_test_exit_code(system(cmd));
}

/* The tail of dir/LOG.out and LOG.err, for a failure's message. */
static const char *said(const char *dir, const char *log)
{
    static char text[16384];
    char path[1024], err[8192];
    snprintf(path, sizeof path, "%s/%s.out", dir, log);
    gv_test_slurp(path, text, sizeof text / 2);
    size_t n = strlen(text);
    const char *tail = n > 4000 ? text + n - 4000 : text;
    memmove(text, tail, strlen(tail) + 1);
    snprintf(path, sizeof path, "%s/%s.err", dir, log);
    gv_test_slurp(path, err, sizeof err);
    strncat(text, "\n--- stderr ---\n", sizeof text - strlen(text) - 1);
    strncat(text, err, sizeof text - strlen(text) - 1);
    return text;
}

static long file_size(const char *dir, const char *name)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (long)st.st_size : -1;
}

/* A run file read back by compare (against itself: SAME, exit 0) and report (HTML and
   Markdown, exit 0, both written). */
static void read_back(const char *dir, const char *run, const char *tag)
{
    char args[1024], log[128];
    snprintf(log, sizeof log, "%s-self", tag);
    snprintf(args, sizeof args, "compare %s %s -q", run, run);
    int rc = gpuval_in(dir, log, args);
    cr_expect_eq(rc, 0, "compare %s %s: exit %d\n%s", run, run, rc, said(dir, log));
    char out[8192], path[1024];
    snprintf(path, sizeof path, "%s/%s.out", dir, log);
    gv_test_slurp(path, out, sizeof out);
    cr_expect(strstr(out, "outcome: SAME") != NULL, "%s against itself: %s", run, out);
    snprintf(log, sizeof log, "%s-report", tag);
    snprintf(args, sizeof args, "report %s --html %s.html --md %s.md", run, tag, tag);
    rc = gpuval_in(dir, log, args);
    cr_expect_eq(rc, 0, "report %s: exit %d\n%s", run, rc, said(dir, log));
    char name[160];
    snprintf(name, sizeof name, "%s.html", tag);
    cr_expect_gt(file_size(dir, name), 1000, "%s: no HTML report", run);
    snprintf(name, sizeof name, "%s.md", tag);
    cr_expect_gt(file_size(dir, name), 100, "%s: no Markdown report", run);
}

/* check's exit: 0 every case passed, 1 some failed; never a usage, runtime or reader error. */
static void expect_check_ran(int rc, const char *dir, const char *log)
{
    cr_expect(rc == 0 || rc == 1, "check: exit %d\n%s", rc, said(dir, log));
}

Test(gpu_roundtrip, catalogue_compare_report_merge, .timeout = 900)
{
    char dir[512];
    gv_test_scratch_dir(dir, sizeof dir, "gpu-roundtrip");
    int rc = gpuval_in(dir, "a", "check --test-sizes -q --json a.json");
    cr_assert_eq(rc, 0, "the default catalogue at test sizes passes: exit %d\n%s", rc,
                 said(dir, "a"));
    read_back(dir, "a.json", "a");
    /* two runs of one selection on this device, as merge takes them from every GPU of a node:
       the same cases, the same digests (a rerun of seed 0 against the first, its oracles read
       back from the cache the first run filled) */
    rc = gpuval_in(dir, "a2", "check --test-sizes -q --json a2.json");
    cr_assert_eq(rc, 0, "%s", said(dir, "a2"));
    rc = gpuval_in(dir, "merge", "merge a.json a2.json -q --json fleet.json --md fleet.md");
    cr_expect_eq(rc, 0, "merge of two runs of one device: exit %d\n%s", rc, said(dir, "merge"));
    cr_expect_gt(file_size(dir, "fleet.json"), 100);
    gv_test_remove_dir(dir);
}

/* The numbers of check's judgements line (core/judge_memo.h) in dir/LOG.err: taken from the
   cache, judged and stored; false without the line. */
static bool memo_counts(const char *dir, const char *log, int *taken, int *stored)
{
    char path[1024], err[16384];
    snprintf(path, sizeof path, "%s/%s.err", dir, log);
    gv_test_slurp(path, err, sizeof err);
    const char *at = strstr(err, "gpuval: judgements: ");
    if (!at) return false;
    const char *st = strstr(at, " judged and stored");
    if (!st) return false;
    while (st > at && st[-1] >= '0' && st[-1] <= '9')
        st--;
    return sscanf(at, "gpuval: judgements: %d taken", taken) == 1 && sscanf(st, "%d", stored) == 1;
}

/* A check run again takes its judgements from the cache (the same case, inputs and output
   bytes) and writes the same record: compare SAME. An output changed by one bit on the device
   (GPUVAL_SCREEN_FAULT, its last mantissa bit) is judged again, and one corrupted past the
   model FAILs in a cache that holds its PASS. */
Test(gpu_roundtrip, judgements_reused_for_the_same_outputs_only, .timeout = 600)
{
    char dir[512], cache[600];
    gv_test_scratch_dir(dir, sizeof dir, "gpu-memo");
    snprintf(cache, sizeof cache, "%s/cache", dir);
    setenv("XDG_CACHE_HOME", cache, 1);
    const char *sel = "--op 'gemm.cublas,vadd,softmax.rows,solve.gesv,lsmr.ridge' --test-sizes -q";
    char args[512];
    int taken, stored;
    char path[1024];
    snprintf(args, sizeof args, "check %s --json a.json", sel);
    int rc = gpuval_in(dir, "a", args);
    cr_assert_eq(rc, 0, "%s", said(dir, "a"));
    cr_assert(memo_counts(dir, "a", &taken, &stored), "%s", said(dir, "a"));
    cr_expect(taken == 0 && stored > 20, "a fresh cache: %d taken, %d stored", taken, stored);
    int first = stored;
    snprintf(args, sizeof args, "check %s --json b.json", sel);
    rc = gpuval_in(dir, "b", args);
    cr_assert_eq(rc, 0, "%s", said(dir, "b"));
    cr_assert(memo_counts(dir, "b", &taken, &stored), "%s", said(dir, "b"));
    cr_expect(taken == first && stored == 0, "again: %d taken, %d stored of %d", taken, stored,
              first);
    /* their references were in the cache and were not read: the judgements needed none */
    char *doc = malloc(8 << 20);
    cr_assert_not_null(doc);
    snprintf(path, sizeof path, "%s/b.json", dir);
    gv_test_slurp(path, doc, 8 << 20);
    cr_expect(strstr(doc, "\"unread\"") != NULL, "b.json: no reference left unread");
    free(doc);
    rc = gpuval_in(dir, "ab", "compare a.json b.json -q");
    cr_expect_eq(rc, 0, "compare: exit %d\n%s", rc, said(dir, "ab"));
    char out[8192];
    snprintf(path, sizeof path, "%s/ab.out", dir);
    gv_test_slurp(path, out, sizeof out);
    cr_expect(strstr(out, "outcome: SAME") != NULL, "%s", out);
    snprintf(args, sizeof args, "check %s --json c.json", sel);
    setenv("GPUVAL_SCREEN_FAULT", "0:mantissa@gemm.cublas", 1);
    rc = gpuval_in(dir, "c", args);
    cr_expect(rc == 0 || rc == 1, "%s", said(dir, "c"));
    cr_assert(memo_counts(dir, "c", &taken, &stored), "%s", said(dir, "c"));
    cr_expect(stored > 0 && taken > 0 && taken + stored == first,
              "one bit of gemm.cublas's outputs: %d taken, %d judged again", taken, stored);
    setenv("GPUVAL_SCREEN_FAULT", "0:one-in:1000@vadd", 1);
    rc = gpuval_in(dir, "d", "check --op vadd --test-sizes -q --dump-failures dumps");
    cr_expect_eq(rc, 1, "vadd corrupted in a cache that holds its PASS: exit %d\n%s", rc,
                 said(dir, "d"));
    /* a dumped FAIL carries the oracle's output: its reference was read */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls '%s'/dumps/*/out_*.oracle.npy >/dev/null 2>&1", dir);
    cr_expect_eq(system(cmd), 0, "no oracle output dumped\n%s", said(dir, "d"));
    unsetenv("GPUVAL_SCREEN_FAULT");
    gv_test_remove_dir(dir);
}

/* A seed sweep (in the gpu-long suite with the dists: two cold runs of the catalogue kept the
   GPU suite waiting): the cases match without their seed, the verdicts agree. */
Test(gpu_roundtrip_dists, catalogue_two_seeds_compare, .timeout = 900)
{
    char dir[512];
    gv_test_scratch_dir(dir, sizeof dir, "gpu-roundtrip-seeds");
    int rc = gpuval_in(dir, "a", "check --test-sizes -q --json a.json");
    cr_assert_eq(rc, 0, "seed 0: exit %d\n%s", rc, said(dir, "a"));
    rc = gpuval_in(dir, "b", "check --test-sizes -q --seed 1 --json b.json");
    cr_assert_eq(rc, 0, "seed 1: exit %d\n%s", rc, said(dir, "b"));
    read_back(dir, "b.json", "b");
    rc = gpuval_in(dir, "ab", "compare a.json b.json -q");
    cr_expect_eq(rc, 0, "compare a b: exit %d\n%s", rc, said(dir, "ab"));
    char out[8192], path[1024];
    snprintf(path, sizeof path, "%s/ab.out", dir);
    gv_test_slurp(path, out, sizeof out);
    cr_expect(strstr(out, "runs of different seeds (base 0, new 1)") != NULL, "%s", out);
    gv_test_remove_dir(dir);
}

/* The dists of the generator (gpuval check --help), each at the ops' test sizes. */
static const char *const dists[] = {"uniform01", "uniform11", "smallint", "special",
                                    "offgrid",   "tie",       "perm2",    "wide",
                                    "tiny",      "huge",      "sparse-special", "narrow",
                                    "width"};

/* Every case.json under root (one directory down) replayed: read back and rerun (exit 0: the
   dumped verdict and bits again; 1: a verdict or bits that differ, as a nondeterministic op's
   may; never 2, a dump its own reader refuses). Returns how many were replayed. */
static int replay_all(const char *dir, const char *root)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, root);
    DIR *d = opendir(path);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char args[1024], log[64];
        snprintf(log, sizeof log, "replay%d", n);
        snprintf(args, sizeof args, "replay '%s/%s'", root, e->d_name);
        int rc = gpuval_in(dir, log, args);
        cr_expect(rc == 1 || rc == 0, "replay %s/%s: exit %d (a reader error is 2)\n%s", root,
                  e->d_name, rc, said(dir, log));
        n++;
    }
    closedir(d);
    return n;
}

/* dists [from, to) of the list, each at the ops' test sizes, written and read back */
static void dists_read_back(size_t from, size_t to, const char *tag)
{
    char dir[512];
    gv_test_scratch_dir(dir, sizeof dir, tag);
    int replayed = 0;
    for (size_t i = from; i < to && i < sizeof dists / sizeof dists[0]; i++) {
        char args[1024], run[96];
        snprintf(run, sizeof run, "%s.json", dists[i]);
        snprintf(args, sizeof args, "check --test-sizes -q --dist %s --json %s "
                 "--dump-failures dump-%s", dists[i], run, dists[i]);
        int rc = gpuval_in(dir, dists[i], args);
        expect_check_ran(rc, dir, dists[i]);
        if (rc != 0 && rc != 1) continue;
        read_back(dir, run, dists[i]);
        char root[96];
        snprintf(root, sizeof root, "dump-%s", dists[i]);
        replayed += replay_all(dir, root);
    }
    cr_log_info("%d dumped cases replayed", replayed);
    gv_test_remove_dir(dir);
}

/* in three tests, so that they run side by side (gpu-roundtrip-dists' --jobs) */
Test(gpu_roundtrip_dists, written_and_read_back_1, .timeout = 900)
{
    dists_read_back(0, 5, "gpu-roundtrip-dist1");
}
Test(gpu_roundtrip_dists, written_and_read_back_2, .timeout = 900)
{
    dists_read_back(5, 9, "gpu-roundtrip-dist2");
}
Test(gpu_roundtrip_dists, written_and_read_back_3, .timeout = 900)
{
    dists_read_back(9, 13, "gpu-roundtrip-dist3");
}

Test(gpu_roundtrip, probe_documents_compare_report_merge, .timeout = 600)
{
    char dir[512];
    gv_test_scratch_dir(dir, sizeof dir, "gpu-roundtrip-probe");
    int rc = gpuval_in(dir, "p1", "probe -q --json p1.json");
    cr_assert(rc == 0 || rc == 1, "probe: exit %d\n%s", rc, said(dir, "p1"));
    int rc2 = gpuval_in(dir, "p2", "probe -q --json p2.json");
    cr_assert_eq(rc2, rc, "a second probe of one device judges alike\n%s", said(dir, "p2"));
    read_back(dir, "p1.json", "p1");
    rc = gpuval_in(dir, "pm", "merge p1.json p2.json -q");
    /* one device twice: the fingerprints agree (never 6); 1 only where an expectation FAILs */
    cr_expect(rc == 0 || rc == 1, "merge of two probes of one device: exit %d\n%s", rc,
              said(dir, "pm"));
    gv_test_remove_dir(dir);
}

/* A timed run and a trade-off run: bench's document compared with itself (the same samples:
   SAME) and rendered; tradeoffs' rendered and merged (one device twice: the digests agree). */
Test(gpu_roundtrip, bench_and_tradeoffs_documents_read_back, .timeout = 600)
{
    char dir[512];
    gv_test_scratch_dir(dir, sizeof dir, "gpu-roundtrip-bench");
    int rc = gpuval_in(dir, "bench", "bench --op vadd,reduce.sum --size 1e6 --json bench.json");
    cr_assert(rc == 0 || rc == 1, "bench: exit %d\n%s", rc, said(dir, "bench"));
    read_back(dir, "bench.json", "bench");
    rc = gpuval_in(dir, "tr",
                   "tradeoffs --op gemm.cublas --size 256x512x256 --json tr.json");
    cr_assert(rc == 0 || rc == 1, "tradeoffs: exit %d\n%s", rc, said(dir, "tr"));
    rc = gpuval_in(dir, "tr-report", "report tr.json --html tr.html --md tr.md");
    cr_expect_eq(rc, 0, "report tr.json: exit %d\n%s", rc, said(dir, "tr-report"));
    cr_expect_gt(file_size(dir, "tr.html"), 1000);
    rc = gpuval_in(dir, "tr-merge", "merge tr.json tr.json -q");
    cr_expect(rc == 0 || rc == 1, "merge of a trade-off run with itself: exit %d\n%s", rc,
              said(dir, "tr-merge"));
    gv_test_remove_dir(dir);
}
