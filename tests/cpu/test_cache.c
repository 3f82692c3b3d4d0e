/* test_cache.c: the oracle cache (src/core/cache.c) — XXH64 against its published values, entries
 * written and read back, corrupt, truncated and stale entries rejected and recomputed, least
 * recently used eviction, concurrent writers and readers (fork), and a sin_iter reference read
 * back bit for bit. Every test runs in its own XDG_CACHE_HOME. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/knobs.h"
#include "core/problem.h"
#include "core/cache.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

static char tmpdir[512], dir[600];

static void make_tmp(void)
{
    gv_test_scratch_dir(tmpdir, sizeof tmpdir, "cache");
    setenv("XDG_CACHE_HOME", tmpdir, 1);
    snprintf(dir, sizeof dir, "%s/gpuval", tmpdir);
    char got[600];
    cr_assert_eq(gv_cache_default_dir(got, sizeof got), 0);
    cr_assert_str_eq(got, dir);
}

static void rm_tmp(void)
{
    gv_test_remove_dir(tmpdir);
}

/* The one entry file of dir (there must be exactly one) into path. */
static void only_entry(char *path, size_t len)
{
    int n;
    uint64_t bytes;
    gv_cache_stats(dir, &n, &bytes);
    cr_assert_eq(n, 1);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls '%s'/*.gvc", dir);
    FILE *f = popen(cmd, "r");
    cr_assert(fgets(path, (int)len, f));
    pclose(f);
    path[strcspn(path, "\n")] = '\0';
}

static void fill(double *x, int n, double base)
{
    for (int i = 0; i < n; i++)
        x[i] = base + i * 0.25;
}

Test(cache, xxh64_matches_the_published_values)
{
    cr_expect_eq(gv_xxh64("", 0, 0), 0xEF46DB3751D8E999ull);
    cr_expect_eq(gv_xxh64("abc", 3, 0), 0x44BC2CF5AD770999ull);
    /* the 32-byte stripes: any one changed byte of a 100-byte buffer changes the hash */
    unsigned char b[100];
    for (int i = 0; i < 100; i++)
        b[i] = (unsigned char)i;
    uint64_t h = gv_xxh64(b, 100, 0);
    for (int i = 0; i < 100; i++) {
        b[i] ^= 1;
        cr_expect_neq(gv_xxh64(b, 100, 0), h, "byte %d", i);
        b[i] ^= 1;
    }
    cr_expect_neq(gv_xxh64(b, 100, 1), h, "the seed counts");
}

Test(cache, an_entry_reads_back_and_a_miss_leaves_the_buffers, .init = make_tmp, .fini = rm_tmp)
{
    double a[300], b[7], ra[300], rb[7];
    fill(a, 300, 1.0);
    fill(b, 7, -3.0);
    void *in[2] = {a, b}, *out[2] = {ra, rb};
    size_t sizes[2] = {sizeof a, sizeof b};
    memset(ra, 0, sizeof ra);
    cr_expect_eq(gv_cache_get(dir, "k1", "v1", 2, out, sizes), 0);
    cr_expect_eq(ra[5], 0.0, "a miss writes nothing");
    cr_assert_eq(gv_cache_put(dir, "k1", "v1", 2, (const void *const *)in, sizes, 1 << 20), 0);
    cr_assert_eq(gv_cache_get(dir, "k1", "v1", 2, out, sizes), 1);
    cr_expect_eq(memcmp(a, ra, sizeof a), 0);
    cr_expect_eq(memcmp(b, rb, sizeof b), 0);
    cr_expect_eq(gv_cache_get(dir, "k2", "v1", 2, out, sizes), 0, "another key");
    cr_expect_eq(gv_cache_put(dir, "big", "v1", 2, (const void *const *)in, sizes, 100), 1,
                 "an entry larger than the cap is not kept");
}

/* Put one entry, damage its file with how, and expect it rejected with what on stderr. */
static void damaged(void (*how)(const char *path), const char *version, const char *what)
{
    double a[64], ra[64];
    fill(a, 64, 2.0);
    void *in[1] = {a}, *out[1] = {ra};
    size_t sizes[1] = {sizeof a};
    cr_assert_eq(gv_cache_put(dir, "key", "v1", 1, (const void *const *)in, sizes, 1 << 20), 0);
    char path[800];
    only_entry(path, sizeof path);
    if (how) how(path);
    char err[700];
    snprintf(err, sizeof err, "%s/stderr", tmpdir);
    fflush(stderr);
    int saved = dup(2), fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    int rc = gv_cache_get(dir, "key", version, 1, out, sizes);
    fflush(stderr);
    dup2(saved, 2);
    close(fd);
    close(saved);
    char msg[2048];
    gv_test_slurp(err, msg, sizeof msg);
    cr_expect_eq(rc, -1, "%s", what);
    cr_expect(strstr(msg, what), "'%s' in '%s'", what, msg);
    cr_expect_eq(access(path, F_OK), -1, "the rejected entry is removed");
    /* recomputed and stored again, it is a hit */
    cr_assert_eq(gv_cache_put(dir, "key", version, 1, (const void *const *)in, sizes, 1 << 20), 0);
    cr_expect_eq(gv_cache_get(dir, "key", version, 1, out, sizes), 1);
    cr_expect_eq(memcmp(a, ra, sizeof a), 0);
}

static void flip_payload_byte(const char *path)
{
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    fseek(f, -20, SEEK_END); /* inside the last double of the payload */
    int c = fgetc(f);
    fseek(f, -20, SEEK_END);
    fputc(c ^ 0x10, f);
    fclose(f);
}

static void cut_8_bytes(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(truncate(path, st.st_size - 8), 0);
}

static void cut_to_12_bytes(const char *path)
{
    cr_assert_eq(truncate(path, 12), 0); /* the magic whole, the header's sizes cut */
}

Test(cache, a_corrupt_entry_is_rejected, .init = make_tmp, .fini = rm_tmp)
{
    damaged(flip_payload_byte, "v1", "corrupt (checksum mismatch)");
}

Test(cache, a_truncated_entry_is_rejected, .init = make_tmp, .fini = rm_tmp)
{
    damaged(cut_8_bytes, "v1", "truncated");
}

Test(cache, an_entry_cut_inside_its_header_is_rejected, .init = make_tmp, .fini = rm_tmp)
{
    damaged(cut_to_12_bytes, "v1", "truncated (no header)");
}

/* Where version v2's entry of the key would be (its file, learnt by storing one and removing
   it), so that v1's entry can be moved there: a header whose version is not the one asked for,
   as a hash collision of (key, version) would leave it. */
static char v2_path[800];

static void move_to_v2_path(const char *path)
{
    cr_assert_eq(rename(path, v2_path), 0, "%s -> %s", path, v2_path);
}

Test(cache, a_stale_entry_is_rejected, .init = make_tmp, .fini = rm_tmp)
{
    double a[64];
    fill(a, 64, 1.0);
    void *in[1] = {a};
    size_t sizes[1] = {sizeof a};
    cr_assert_eq(gv_cache_put(dir, "key", "v2", 1, (const void *const *)in, sizes, 1 << 20), 0);
    only_entry(v2_path, sizeof v2_path);
    cr_assert_eq(unlink(v2_path), 0);
    damaged(move_to_v2_path, "v2", "stale");
}

/* Two oracle versions of one machine (the gpuval command and a test program that loads OpenBLAS
   with another thread count or core) keep an entry each: storing one never replaces the other,
   and each reads back its own. One file a key had them reject each other's entries as stale on
   every alternation (55 rejected in a cold check after the GPU suite). */
Test(cache, two_versions_keep_an_entry_each, .init = make_tmp, .fini = rm_tmp)
{
    double a[64], b[64], ra[64], rb[64];
    fill(a, 64, 1.0);
    fill(b, 64, 7.0);
    void *ina[1] = {a}, *inb[1] = {b}, *outa[1] = {ra}, *outb[1] = {rb};
    size_t sizes[1] = {sizeof a};
    const char *v16 = "OpenBLAS SkylakeX; 16 threads", *v4 = "OpenBLAS Prescott; 4 threads";
    cr_assert_eq(gv_cache_put(dir, "key", v16, 1, (const void *const *)ina, sizes, 1 << 20), 0);
    cr_assert_eq(gv_cache_put(dir, "key", v4, 1, (const void *const *)inb, sizes, 1 << 20), 0);
    cr_expect_eq(gv_cache_get(dir, "key", v16, 1, outa, sizes), 1, "the first version's entry");
    cr_expect_eq(memcmp(a, ra, sizeof a), 0);
    cr_expect_eq(gv_cache_get(dir, "key", v4, 1, outb, sizes), 1, "the second version's entry");
    cr_expect_eq(memcmp(b, rb, sizeof b), 0);
    cr_expect_eq(gv_cache_get(dir, "key", v16, 1, outa, sizes), 1, "still there after the other");
    cr_expect_eq(memcmp(a, ra, sizeof a), 0);
    /* a third version finds neither: a miss, not a stale entry of the others */
    cr_expect_eq(gv_cache_get(dir, "key", "v3", 1, outa, sizes), 0);
}

/* An entry of many chunks (read and hashed on all cores): every chunk reads back, and a bit
   flipped in one chunk in the middle, or in the format's version byte, is never trusted. */
Test(cache, a_chunked_entry_reads_back_and_a_flip_in_any_chunk_is_caught, .init = make_tmp,
     .fini = rm_tmp)
{
    size_t big = 5 * GV_CACHE_CHUNK + 24, small = 3 * sizeof(double);
    unsigned char *a = malloc(big), *ra = malloc(big), b[3 * sizeof(double)], rb[sizeof b];
    cr_assert(a && ra);
    for (size_t i = 0; i < big; i++)
        a[i] = (unsigned char)(i * 131 + (i >> 20));
    memset(b, 7, sizeof b);
    void *in[2] = {a, b}, *out[2] = {ra, rb};
    size_t sizes[2] = {big, small};
    cr_assert_eq(gv_cache_put(dir, "chunks", "v1", 2, (const void *const *)in, sizes, 1ull << 30),
                 0);
    memset(ra, 0, big);
    cr_assert_eq(gv_cache_get(dir, "chunks", "v1", 2, out, sizes), 1);
    cr_expect_eq(memcmp(a, ra, big), 0);
    cr_expect_eq(memcmp(b, rb, small), 0);
    char path[800];
    only_entry(path, sizeof path);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    /* a byte in the third chunk of the payload: the file's middle */
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    long at = (long)(st.st_size - 8 - (off_t)small - (off_t)big + 2 * (off_t)GV_CACHE_CHUNK + 777);
    fseek(f, at, SEEK_SET);
    int c = fgetc(f);
    fseek(f, at, SEEK_SET);
    fputc(c ^ 0x01, f);
    fclose(f);
    fflush(stderr);
    int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    int rc = gv_cache_get(dir, "chunks", "v1", 2, out, sizes);
    dup2(saved, 2);
    close(devnull);
    close(saved);
    cr_expect_eq(rc, -1, "a flipped bit in a middle chunk is caught");
    cr_expect_eq(access(path, F_OK), -1, "and the entry removed");
    /* an entry of the older format (version byte of the magic) is stale, not trusted */
    cr_assert_eq(gv_cache_put(dir, "chunks", "v1", 2, (const void *const *)in, sizes, 1ull << 30),
                 0);
    f = fopen(path, "r+b");
    cr_assert_not_null(f);
    fseek(f, 7, SEEK_SET);
    fputc('1', f);
    fclose(f);
    char err[700], msg[2048];
    snprintf(err, sizeof err, "%s/stderr", tmpdir);
    saved = dup(2);
    int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    rc = gv_cache_get(dir, "chunks", "v1", 2, out, sizes);
    fflush(stderr);
    dup2(saved, 2);
    close(fd);
    close(saved);
    gv_test_slurp(err, msg, sizeof msg);
    cr_expect_eq(rc, -1);
    cr_expect(strstr(msg, "stale (another entry format)"), "%s", msg);
    free(a);
    free(ra);
}

Test(cache, the_chunked_hash_does_not_depend_on_the_thread_count)
{
    size_t n = 9 * GV_CACHE_CHUNK + 5;
    unsigned char *x = malloc(n);
    cr_assert_not_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = (unsigned char)(i ^ (i >> 9));
    uint64_t many = gv_xxh64_chunked(x, n, 3);
    omp_set_num_threads(1);
    uint64_t one = gv_xxh64_chunked(x, n, 3);
    cr_expect_eq(many, one);
    x[n - 1] ^= 1;
    cr_expect_neq(gv_xxh64_chunked(x, n, 3), one, "the last byte counts");
    x[n - 1] ^= 1;
    x[4 * GV_CACHE_CHUNK] ^= 0x80;
    cr_expect_neq(gv_xxh64_chunked(x, n, 3), one, "a chunk's first byte counts");
    cr_expect_neq(gv_xxh64_chunked(x, n, 4) == gv_xxh64_chunked(x, n, 3), true, "the seed counts");
    free(x);
}

/* gv_cache_memo: off until enabled (nothing made is written, make runs every time); on, the
   first call makes and stores, the second reads the same bytes back without making. */
static int memo_makes;
static int make_slowly(void *ctx)
{
    double *x = ctx;
    memo_makes++;
    for (int i = 0; i < 1000; i++)
        x[i] = 1.0 / (i + 3);
    usleep(2000); /* past the worth-keeping time (GPUVAL_CACHE_MIN_MS=0) */
    return GV_OK;
}

Test(cache, memo_is_off_until_enabled_then_made_once, .init = make_tmp, .fini = rm_tmp)
{
    setenv("GPUVAL_CACHE_MIN_MS", "0", 1);
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
    double x[1000];
    void *bufs[1] = {x};
    size_t sizes[1] = {sizeof x};
    memo_makes = 0;
    cr_expect_eq(gv_cache_memo("m1", 1, bufs, sizes, make_slowly, x), GV_OK);
    cr_expect_eq(gv_cache_memo("m1", 1, bufs, sizes, make_slowly, x), GV_OK);
    cr_expect_eq(memo_makes, 2, "off: made every time");
    int n;
    uint64_t bytes;
    gv_cache_stats(dir, &n, &bytes);
    cr_expect_eq(n, 0, "off: nothing written");
    gv_cache_memo_enable(true);
    cr_expect_eq(gv_cache_memo("m1", 1, bufs, sizes, make_slowly, x), GV_OK);
    cr_expect_eq(memo_makes, 3);
    gv_cache_stats(dir, &n, &bytes);
    cr_expect_eq(n, 1, "on: stored");
    memset(x, 0, sizeof x);
    cr_expect_eq(gv_cache_memo("m1", 1, bufs, sizes, make_slowly, x), GV_OK);
    cr_expect_eq(memo_makes, 3, "on: read back, not made");
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(x[i], 1.0 / (i + 3), "element %d", i);
    gv_cache_enable(false);
    cr_expect_eq(gv_cache_memo("m1", 1, bufs, sizes, make_slowly, x), GV_OK);
    cr_expect_eq(memo_makes, 4, "--no-cache: made");
    gv_cache_enable(true);
    gv_cache_memo_enable(false);
    unsetenv("GPUVAL_CACHE_MIN_MS");
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
}

/* key's entry of version "v" (the eviction test's): the file is named by both */
static void set_mtime(const char *key, time_t t)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%016llx.gvc", dir,
             (unsigned long long)gv_xxh64(key, strlen(key), gv_xxh64("v", 1, 0)));
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0, "%s", path);
}

static bool present(const char *key)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%016llx.gvc", dir,
             (unsigned long long)gv_xxh64(key, strlen(key), gv_xxh64("v", 1, 0)));
    return access(path, F_OK) == 0;
}

Test(cache, eviction_removes_the_least_recently_used_first, .init = make_tmp, .fini = rm_tmp)
{
    double a[100], ra[100];
    fill(a, 100, 0.5);
    void *in[1] = {a}, *out[1] = {ra};
    size_t sizes[1] = {sizeof a};
    const char *keys[4] = {"e1", "e2", "e3", "e4"};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(gv_cache_put(dir, keys[i], "v", 1, (const void *const *)in, sizes, 1 << 20),
                     0);
    int n;
    uint64_t bytes;
    gv_cache_stats(dir, &n, &bytes);
    cr_assert_eq(n, 3);
    uint64_t one = bytes / 3;
    set_mtime("e1", 1000); /* oldest */
    set_mtime("e2", 2000);
    set_mtime("e3", 3000);
    cr_assert_eq(gv_cache_get(dir, "e1", "v", 1, out, sizes), 1); /* e1 used: now the newest */
    /* a fourth entry under a cap of three: e2, the least recently used, goes */
    cr_assert_eq(gv_cache_put(dir, "e4", "v", 1, (const void *const *)in, sizes, 3 * one), 0);
    cr_expect(present("e1") && !present("e2") && present("e3") && present("e4"));
    cr_expect_eq(gv_cache_evict(dir, one), 2, "down to one entry: e3, then e1 go");
    cr_expect(!present("e1") && !present("e3") && present("e4"));
    cr_expect_eq(gv_cache_clear(dir), 1);
    gv_cache_stats(dir, &n, &bytes);
    cr_expect_eq(n, 0);
}

/* Eight processes write the same keys over and over while reading them: a read is a miss or a
   whole, checksummed entry with the right values, never a rejected or mixed one. */
Test(cache, concurrent_writers_and_readers_stay_correct, .init = make_tmp, .fini = rm_tmp)
{
    enum { PROCS = 8, ROUNDS = 40, N = 20000 };
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        cr_assert_geq(pids[p], 0);
        if (pids[p] > 0) continue;
        static double a[N], ra[N];
        int bad = 0;
        for (int r = 0; r < ROUNDS && !bad; r++) {
            char key[16];
            snprintf(key, sizeof key, "k%d", r % 3);
            fill(a, N, (double)(r % 3)); /* one key, one content, whoever writes it */
            void *in[1] = {a}, *out[1] = {ra};
            size_t sizes[1] = {sizeof a};
            if (gv_cache_put(dir, key, "v", 1, (const void *const *)in, sizes, 1 << 30) != 0)
                bad = 1;
            int got = gv_cache_get(dir, key, "v", 1, out, sizes);
            if (got < 0 || (got == 1 && memcmp(a, ra, sizeof a) != 0)) bad = 2;
        }
        _exit(bad);
    }
    for (int p = 0; p < PROCS; p++) {
        int st;
        cr_assert_eq(waitpid(pids[p], &st, 0), pids[p]);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "process %d: %d", p, WEXITSTATUS(st));
    }
    int n;
    uint64_t bytes;
    gv_cache_stats(dir, &n, &bytes);
    cr_expect_eq(n, 3);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c tmp", dir);
    FILE *f = popen(cmd, "r");
    char count[16] = "";
    cr_assert(fgets(count, sizeof count, f));
    pclose(f);
    cr_expect_eq(atoi(count), 0, "no temporary file is left behind");
}

/* Processes that share the cache compute an entry once: four processes ask for the same case's
   reference at the same time; exactly one misses (computes and stores), the three others wait
   for it and hit, with the same bits. The lock files are not entries, and a lock is not nested
   within one thread. */
Test(cache, processes_sharing_the_cache_compute_a_reference_once, .init = make_tmp, .fini = rm_tmp)
{
    setenv("GPUVAL_CACHE_MIN_MS", "0", 1);
    gv_knobs_reload();
    gv_case c = {gv_op_find("sin_iter"),     GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                 {.nd = 2, .d = {20001, 200}}, 5};
    cr_assert_not_null(c.op);
    enum { PROCS = 4 };
    int fds[PROCS][2];
    pid_t pids[PROCS];
    for (int k = 0; k < PROCS; k++) {
        cr_assert_eq(pipe(fds[k]), 0);
        pids[k] = fork();
        cr_assert_geq(pids[k], 0);
        if (pids[k] > 0) {
            close(fds[k][1]);
            continue;
        }
        gv_problem p;
        bool hit = false;
        int rc = gv_problem_init(&p, &c) == GV_OK ? gv_cached_reference(&p, &hit) : -1;
        uint64_t h = rc == GV_OK ? gv_xxh64(p.out[0].ref, sizeof(double) * (size_t)p.out[0].count, 0)
                                 : 0;
        char line[64];
        int w = snprintf(line, sizeof line, "%d %d %016llx\n", rc, hit, (unsigned long long)h);
        _exit(write(fds[k][1], line, (size_t)w) == w ? 0 : 3);
    }
    int hits = 0, oks = 0;
    char first[64] = "";
    for (int k = 0; k < PROCS; k++) {
        char line[64] = "";
        ssize_t got = read(fds[k][0], line, sizeof line - 1);
        close(fds[k][0]);
        int st;
        cr_assert_eq(waitpid(pids[k], &st, 0), pids[k]);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        int rc = -1, hit = 0;
        char h[32] = "";
        cr_assert(got > 0 && sscanf(line, "%d %d %31s", &rc, &hit, h) == 3, "%s", line);
        oks += rc == GV_OK;
        hits += hit;
        if (!first[0]) snprintf(first, sizeof first, "%s", h);
        cr_expect_str_eq(h, first, "every process has the same reference bits");
    }
    cr_expect_eq(oks, PROCS);
    cr_expect_eq(hits, PROCS - 1, "one process computes, the others wait and read its entry: %d hits", hits);
    int n;
    uint64_t bytes;
    gv_cache_stats(dir, &n, &bytes);
    cr_expect_eq(n, 1, "one entry; the lock files are not entries");
    int a = gv_cache_lock(dir, "k");
    cr_expect_neq(a, GV_CACHE_NOT_LOCKED);
    cr_expect_eq(gv_cache_lock(dir, "k"), GV_CACHE_NOT_LOCKED, "not nested in one thread");
    gv_cache_unlock(a);
    a = gv_cache_lock(dir, "k");
    cr_expect_neq(a, GV_CACHE_NOT_LOCKED, "free again once unlocked");
    gv_cache_unlock(a);
    cr_expect_eq(gv_cache_clear(dir), 1, "clear removes the entry and leaves the lock files");
    unsetenv("GPUVAL_CACHE_MIN_MS");
    gv_knobs_reload();
}

/* The reference of a case: computed, stored, read back bit for bit; a corrupted entry is
   recomputed to the same bits; --no-cache's switch bypasses the cache. */
Test(cache, a_reference_reads_back_bit_for_bit, .init = make_tmp, .fini = rm_tmp)
{
    setenv("GPUVAL_CACHE_MIN_MS", "0", 1);
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
    gv_case c = {gv_op_find("sin_iter"),     GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                 {.nd = 2, .d = {3001, 50}}, 11};
    cr_assert_not_null(c.op);
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    bool hit = true;
    cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
    cr_expect(!hit);
    int64_t n = p.out[0].count;
    double *ref = malloc(sizeof *ref * (size_t)n), *gauge = malloc(sizeof *gauge * (size_t)n);
    memcpy(ref, p.out[0].ref, sizeof *ref * (size_t)n);
    memcpy(gauge, p.out[0].gauge, sizeof *gauge * (size_t)n);
    gv_problem_free(&p);
    gv_cache_counts before = gv_cache_counts_get();

    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
    cr_expect(hit);
    cr_expect_eq(memcmp(ref, p.out[0].ref, sizeof *ref * (size_t)n), 0);
    cr_expect_eq(memcmp(gauge, p.out[0].gauge, sizeof *gauge * (size_t)n), 0);
    gv_problem_free(&p);
    cr_expect_eq(gv_cache_counts_get().hits, before.hits + 1);

    char path[800];
    only_entry(path, sizeof path);
    flip_payload_byte(path);
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
    cr_expect(!hit, "a corrupt entry is never a hit");
    cr_expect_eq(gv_cache_counts_get().rejected, before.rejected + 1);
    cr_expect_eq(memcmp(ref, p.out[0].ref, sizeof *ref * (size_t)n), 0);
    cr_expect_eq(memcmp(gauge, p.out[0].gauge, sizeof *gauge * (size_t)n), 0);
    gv_problem_free(&p);

    gv_case other = c;
    other.seed = 12;
    cr_assert_eq(gv_problem_init(&p, &other), GV_OK);
    cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
    cr_expect(!hit, "another seed is another entry");
    gv_problem_free(&p);

    gv_cache_enable(false);
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
    cr_expect(!hit, "off: never read");
    cr_expect_eq(memcmp(ref, p.out[0].ref, sizeof *ref * (size_t)n), 0);
    gv_problem_free(&p);
    gv_cache_enable(true);
    free(ref);
    free(gauge);
}

/* An exact reference (reference.h) is kept with its remainder and read back as exact: the
   entry says which reference it holds. */
Test(cache, an_exact_reference_reads_back_as_exact, .init = make_tmp, .fini = rm_tmp)
{
    setenv("GPUVAL_CACHE_MIN_MS", "0", 1);
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
    gv_case c = {gv_op_find("gemm.cublas"),     GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                 {.nd = 3, .d = {70, 300, 90}}, 5};
    cr_assert_not_null(c.op);
    cr_assert(gv_exact_wanted(&c));
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    bool hit = true;
    cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
    cr_expect(!hit);
    cr_assert(p.ref_exact, "uniform11 f64 inputs sit on a 2^-52 grid");
    int64_t n = p.out[0].count;
    double *lo = malloc(sizeof *lo * (size_t)n);
    memcpy(lo, p.out[0].ref_lo, sizeof *lo * (size_t)n);
    gv_problem_free(&p);
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
    cr_expect(hit);
    cr_expect(p.ref_exact, "read back as exact");
    cr_expect_eq(memcmp(lo, p.out[0].ref_lo, sizeof *lo * (size_t)n), 0);
    gv_problem_free(&p);
    /* wide inputs are off any grid: the oracle's reference, kept as such */
    c.dist = GV_DIST_WIDE;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
    cr_expect(!p.ref_exact);
    gv_problem_free(&p);
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
    cr_expect(hit);
    cr_expect(!p.ref_exact, "read back as the oracle's");
    gv_problem_free(&p);
    free(lo);
}

Test(cache, the_cache_command_reports_and_clears, .init = make_tmp, .fini = rm_tmp)
{
    double a[10];
    fill(a, 10, 1.0);
    void *in[1] = {a};
    size_t sizes[1] = {sizeof a};
    cr_assert_eq(gv_cache_put(dir, "x", "v", 1, (const void *const *)in, sizes, 1 << 20), 0);
    char out[4096];
    cr_expect_eq(gv_test_run_cli("cache info", out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, dir), "%s", out);
    cr_expect(strstr(out, "entries    1"), "%s", out);
    /* the store rule, with the floor GPUVAL_CACHE_MIN_MS gives (unset: 1 ms) */
    cr_expect(
        strstr(out, "stores     references whose oracle took over 1 ms + their bytes at 4 GB/s"),
        "%s", out);
    cr_expect_eq(gv_test_run_cli("cache clear", out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "removed 1 files"), "%s", out);
    cr_expect_eq(gv_test_run_cli("cache info", out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "entries    0"), "%s", out);
    cr_expect_eq(gv_test_run_cli("cache frob", out, sizeof out), 2, "%s", out);
    cr_expect_eq(
        gv_test_run_cli("check --no-cache --op vadd --size 10 --dtype f32", out, sizeof out) % 77,
        0, "%s", out);
}

/* A run's note: `cache info` says none before a run, then the last run's counts and its misses
   by op, each with why; a case that hit has no row. */
Test(cache, cache_info_explains_the_last_runs_misses, .init = make_tmp, .fini = rm_tmp)
{
    char out[8192];
    cr_assert_eq(gv_test_run_cli("cache info", out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "last run   none noted"), "%s", out);
    gv_result res[4];
    memset(res, 0, sizeof res);
    const char *ops[4] = {"vadd", "vadd", "gemm.cublas", "solve.gesv"};
    for (int i = 0; i < 4; i++)
        res[i].c.op = gv_op_find(ops[i]);
    res[0].cache.misses = res[0].cache.cheap = 1, res[0].oracle_ms = 0.25;
    res[1].cache.misses = res[1].cache.cheap = 1, res[1].oracle_ms = 0.5;
    res[2].cache.hits = 1, res[2].oracle_ms = 3.0;
    res[3].cache.misses = res[3].cache.stored = 1, res[3].oracle_ms = 688.0;
    gv_cache_usable(); /* the directory made, as check makes it before its cases */
    gv_cache_note_run("check", res, 4);
    cr_assert_eq(gv_test_run_cli("cache info", out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "last run   check, "), "%s", out);
    cr_expect(strstr(out, ", 4 cases"), "%s", out);
    cr_expect(strstr(out, "oracle cache: 1 hits, 3 misses (1 stored; 2 cheap"), "%s", out);
    const char *vadd = strstr(out, "           vadd ");
    cr_assert_not_null(vadd, "%s", out);
    int cases = 0;
    double ms = 0, max_ms = 0;
    cr_expect_eq(sscanf(vadd, " vadd %d %lf %lf", &cases, &ms, &max_ms), 3, "%s", vadd);
    cr_expect_eq(cases, 2);
    cr_expect_eq(ms, 0.8); /* 0.75 printed to one decimal */
    cr_expect_eq(max_ms, 0.5);
    cr_expect(strncmp(strstr(vadd, "cheap") ? strstr(vadd, "cheap") : "", "cheap", 5) == 0 &&
                  strstr(vadd, "cheap") < strchr(vadd, '\n'),
              "%s", vadd);
    const char *gesv = strstr(out, "           solve.gesv ");
    cr_assert_not_null(gesv, "%s", out);
    cr_expect(strstr(gesv, "stored now: no entry") != NULL, "%s", gesv);
    cr_expect_null(strstr(out, "           gemm.cublas "), "a hit has no row: %s", out);
}

/* An op whose reference never reads the mode (the column sums) keeps one entry for all its
   modes, and so does one whose oracle does not (sin_iter: its gauges are recomputed on a hit,
   test_cache_key.c); one whose oracle does (act.silu's fast-math model) keeps one per mode. */
Test(cache, modes_share_an_entry_only_where_the_reference_ignores_them, .init = make_tmp,
     .fini = rm_tmp)
{
    setenv("GPUVAL_CACHE_MIN_MS", "0", 1);
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
    struct {
        const char *op;
        gv_mode second;
        gv_shape shape;
        bool shared;
    } ops[] = {{"matmul_colsum", GV_MODE_TF32, {.nd = 3, .d = {64, 48, 32}}, true},
               {"sin_iter", GV_MODE_FASTMATH, {.nd = 2, .d = {3001, 50}}, true},
               {"act.silu", GV_MODE_FASTMATH, {.nd = 1, .d = {3001}}, false}};
    for (int o = 0; o < 3; o++) {
        const gv_op *op = gv_op_find(ops[o].op);
        cr_assert_not_null(op);
        cr_expect_eq(op->reference_ignores_mode || op->oracle_ignores_mode, ops[o].shared, "%s",
                     ops[o].op);
        gv_case c = {op, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, ops[o].shape, 3};
        gv_case c2 = c;
        c2.mode = ops[o].second;
        cr_assert(gv_mode_ok(op, c2.dtype, c2.mode), "%s", ops[o].op);
        gv_problem p;
        bool hit;
        cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
        int stored = gv_cache_counts_get().stored;
        cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
        cr_expect(!hit);
        cr_expect_eq(gv_cache_counts_get().stored, stored + 1, "%s: stored", ops[o].op);
        gv_problem_free(&p);
        cr_assert_eq(gv_problem_init(&p, &c2), GV_OK);
        cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
        cr_expect_eq(hit, ops[o].shared, "%s in mode %s", ops[o].op, gv_mode_name(c2.mode));
        gv_problem_free(&p);
    }
}

/* Ops that compute the same reference from the same inputs share cache entries under the name
   of the first of them; ops whose oracle or gauges differ keep their own. */
static const char *ref_of(const char *op)
{
    const gv_op *o = gv_op_find(op);
    cr_assert_not_null(o, "%s registered", op);
    return gv_reference_name(o);
}

Test(cache, ops_with_one_reference_share_its_name)
{
    cr_expect_str_eq(ref_of("gemm.cublas"), "gemm.cublas");
    cr_expect_str_eq(ref_of("gemm.tiled"), "gemm.cublas");
    cr_expect_str_eq(ref_of("gemm.regblock"), "gemm.cublas");
    cr_expect_str_eq(ref_of("einsum.colsum"), ref_of("matmul_colsum"));
    cr_expect_str_eq(ref_of("reduce.colsum"), "reduce.colsum", "another family, its own");
    cr_expect_str_eq(ref_of("vadd"), "vadd");
    cr_expect_str_neq(ref_of("dense.sigmoid"), "gemm.cublas", "other hooks, its own");
}

/* The store rule: an oracle is worth an entry when it took longer than the floor plus the
   entry's bytes at GV_CACHE_READ_BYTES_PER_MS; at the bound itself it is not (strictly
   longer). 4e6 bytes read in 1 ms at the rule's rate. */
Test(cache, worth_storing_only_when_slower_than_a_read)
{
    const double ms_per_4mb = 4e6 / GV_CACHE_READ_BYTES_PER_MS;
    cr_expect(!gv_cache_worth(1.0, 0, 1.0), "at the floor: cheap");
    cr_expect(gv_cache_worth(1.001, 0, 1.0), "past the floor, no bytes: stored");
    cr_expect(!gv_cache_worth(1.0 + ms_per_4mb, 4000000, 1.0), "floor + the read: cheap");
    cr_expect(gv_cache_worth(1.0 + ms_per_4mb * 1.01, 4000000, 1.0), "past the read: stored");
    /* a vadd of 1e8 f32 elements on the 16-core target: 188 ms of oracle, a 1.6 GB entry
       (ref and gauge) that reads in 400 ms at the rule's rate: recomputed */
    cr_expect(!gv_cache_worth(188.0, 1600000000ull, GV_CACHE_MIN_MS_DEFAULT));
    /* a 4096^3 gemm on the target: 800 ms of oracle for 400 MB (100 ms): stored */
    cr_expect(gv_cache_worth(800.0, 402653184ull, GV_CACHE_MIN_MS_DEFAULT));
    cr_expect(!gv_cache_worth(NAN, 0, 0.0), "a NaN time is never worth an entry");
}


/* c's reference made twice through the cache: each time computed, counted cheap, neither
   stored nor read back. */
static void cheap_twice(const gv_case *c)
{
    for (int k = 0; k < 2; k++) {
        gv_problem p;
        gv_result r;
        gv_result_init(&r, c);
        cr_assert_eq(gv_problem_init(&p, c), GV_OK);
        cr_assert_eq(gv_problem_oracle(&p, &r), GV_OK);
        cr_expect_eq(r.cache.misses, 1, "run %d: computed", k);
        cr_expect_eq(r.cache.cheap, 1, "run %d: cheap", k);
        cr_expect_eq(r.cache.stored, 0, "run %d: not stored", k);
        cr_expect_eq(r.cache.hits, 0, "run %d: never read back", k);
        gv_problem_free(&p);
    }
}
/* A reference whose oracle is cheaper than a read is counted cheap, not stored, computed again
   by the next run, and the run's line says why; the floor is the knob GPUVAL_CACHE_MIN_MS. */
Test(cache, a_cheap_reference_is_counted_and_explained, .init = make_tmp, .fini = rm_tmp)
{
    setenv("GPUVAL_CACHE_MIN_MS", "1e9", 1); /* no oracle takes this long: every one cheap */
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
    cr_expect_eq(gv_cache_min_ms(), 1e9);
    gv_case c = {gv_op_find("vadd"),     GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                 {.nd = 1, .d = {5000}}, 3};
    cr_assert_not_null(c.op);
    gv_cache_counts before = gv_cache_counts_get();
    cheap_twice(&c);
    int n;
    uint64_t bytes;
    gv_cache_stats(dir, &n, &bytes);
    cr_expect_eq(n, 0, "nothing written");
    gv_cache_counts now = gv_cache_counts_get();
    gv_cache_counts run = {now.hits - before.hits, now.misses - before.misses,
                           now.stored - before.stored, now.rejected - before.rejected,
                           now.cheap - before.cheap};
    cr_expect_eq(run.cheap, 2);
    char line[512];
    gv_cache_counts_line(&run, line, sizeof line);
    cr_expect(strstr(line, "0 hits, 2 misses (0 stored; 2 cheap: the oracle took less than a read"),
              "%s", line);
    cr_expect(strstr(line, "1e+09 ms + 4 GB/s; 0 not kept"), "%s", line);
    /* the default floor: a bad value is ignored, as no value is */
    setenv("GPUVAL_CACHE_MIN_MS", "fast", 1);
    gv_knobs_reload();
    cr_expect_eq(gv_cache_min_ms(), GV_CACHE_MIN_MS_DEFAULT);
    unsetenv("GPUVAL_CACHE_MIN_MS");
    gv_knobs_reload();
    cr_expect_eq(gv_cache_min_ms(), GV_CACHE_MIN_MS_DEFAULT);
    /* in check's runs (gv_cache_memo_enable) a note that it is cheap, its key alone, no
       reference: a case whose judgement is kept need not compute it (judge_memo.h) */
    setenv("GPUVAL_CACHE_MIN_MS", "1e9", 1);
    gv_knobs_reload();
    gv_cache_memo_enable(true);
    cheap_twice(&c);
    gv_cache_memo_enable(false);
    gv_cache_stats(dir, &n, &bytes);
    cr_expect_eq(n, 1, "one note written, not the reference (%d entries)", n);
    cr_expect_lt(bytes, 2048, "the note holds no buffer (%llu bytes)", (unsigned long long)bytes);
    unsetenv("GPUVAL_CACHE_MIN_MS");
    gv_knobs_reload();
}

/* Small entries (a judgement, a note: at most 1/1024 of the cap) evict every 64th put of a
   process, not every put: the directory is listed once for 64 of them, and the cache stands
   at most 1/16 over its cap in between. Here the cap holds about 650 entries of about 100
   bytes and 2000 are put: the cache never passes 17/16 of its cap, and it is evicted down
   (not left to grow). */
Test(cache, small_entries_evict_in_batches_within_a_sixteenth, .init = make_tmp, .fini = rm_tmp)
{
    const uint64_t cap = 64 << 10;
    char payload[48], key[64];
    memset(payload, 7, sizeof payload);
    const void *bufs[1] = {payload};
    size_t sizes[1] = {sizeof payload};
    uint64_t most = 0;
    for (int k = 0; k < 2000; k++) {
        snprintf(key, sizeof key, "small-%d", k);
        cr_assert_eq(gv_cache_put(dir, key, "v1", 1, bufs, sizes, cap), GV_OK);
        int n;
        uint64_t bytes;
        gv_cache_stats(dir, &n, &bytes);
        if (bytes > most) most = bytes;
    }
    cr_expect_leq(most, cap + cap / 16, "the cache reached %llu bytes, cap %llu",
                  (unsigned long long)most, (unsigned long long)cap);
    int n;
    uint64_t bytes;
    gv_cache_stats(dir, &n, &bytes);
    cr_expect_lt(n, 1000, "%d entries kept of 2000", n);
    cr_expect_leq(bytes, cap + cap / 16);
}
