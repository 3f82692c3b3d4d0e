/* test_cache_owner.c: the oracle cache owns only what it wrote (src/core/cache.c,
 * src/cmd/cache.c) — a cache directory reached through a symbolic link is refused unless
 * GPUVAL_CACHE_SYMLINK=1; files in the directory that gpuval did not make (a look-alike entry,
 * a look-alike temporary, a link to a file elsewhere) survive get, put, eviction and clear;
 * temporaries a killed run left are removed once an hour old and counted by the cap and by
 * `cache info`; a directory that is a regular file, or below one, makes `cache info` exit 2
 * and a check run warn once and run without the cache. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cache.h"
#include "core/hash.h"
#include "core/knobs.h"
#include "testkit.h"

static char tmpdir[512], dir[600];

static void make_tmp(void)
{
    gv_test_scratch_dir(tmpdir, sizeof tmpdir, "cacheown");
    setenv("XDG_CACHE_HOME", tmpdir, 1);
    unsetenv("GPUVAL_CACHE_SYMLINK");
    gv_knobs_reload();
    snprintf(dir, sizeof dir, "%s/gpuval", tmpdir);
}

static void rm_tmp(void)
{
    unsetenv("GPUVAL_CACHE_SYMLINK");
    gv_knobs_reload();
    gv_test_remove_dir(tmpdir);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static bool same_text(const char *path, const char *text)
{
    char buf[256] = "";
    gv_test_slurp(path, buf, sizeof buf);
    return strcmp(buf, text) == 0;
}

static int put(const char *key, uint64_t cap)
{
    double a[100];
    for (int i = 0; i < 100; i++)
        a[i] = i;
    const void *in[1] = {a};
    size_t sizes[1] = {sizeof a};
    return gv_cache_put(dir, key, "v", 1, in, sizes, cap);
}

/* The entry's file: named by the key and the version ("v", as put_entry stores) together */
static void entry_path(const char *key, char *buf, size_t len)
{
    uint64_t h = gv_xxh64(key, strlen(key), gv_xxh64("v", 1, 0));
    snprintf(buf, len, "%s/%016llx.gvc", dir, (unsigned long long)h);
}

static void age(const char *path, time_t seconds)
{
    time_t t = time(NULL) - seconds;
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), 0, "%s", path);
}

/* The user's directory behind a link, with a file named as a temporary and one as an entry:
   refused, nothing there touched; with GPUVAL_CACHE_SYMLINK=1, used. */
Test(cache_owner, a_symlinked_cache_directory_is_refused_unless_asked_for, .init = make_tmp,
     .fini = rm_tmp)
{
    char user[700], tmp_like[800], entry_like[800], why[4600], got[4096], out[8192];
    snprintf(user, sizeof user, "%s/users-own", tmpdir);
    cr_assert_eq(mkdir(user, 0755), 0);
    snprintf(tmp_like, sizeof tmp_like, "%s/" GV_CACHE_TMP_PREFIX "abcdef", user);
    snprintf(entry_like, sizeof entry_like, "%s/0123456789abcdef.gvc", user);
    write_text(tmp_like, "my notes");
    write_text(entry_like, "my data");
    age(tmp_like, 7200);
    cr_assert_eq(symlink(user, dir), 0);

    cr_expect_eq(gv_cache_dir(got, sizeof got, why, sizeof why), -2);
    cr_expect(strstr(why, "symbolic link") && strstr(why, "GPUVAL_CACHE_SYMLINK"), "%s", why);
    int rc = gv_test_run_cli("cache info", out, sizeof out);
    cr_expect_eq(rc, 2, "cache info on a symlinked directory: exit %d\n%s", rc, out);
    rc = gv_test_run_cli("cache clear", out, sizeof out);
    cr_expect_eq(rc, 2, "cache clear on a symlinked directory: exit %d\n%s", rc, out);
    cr_expect(same_text(tmp_like, "my notes") && same_text(entry_like, "my data"),
              "the user's files are untouched");

    setenv("GPUVAL_CACHE_SYMLINK", "1", 1);
    gv_knobs_reload();
    cr_expect_eq(gv_cache_dir(got, sizeof got, why, sizeof why), 0, "%s", why);
    /* asked for: used, and still nothing of the user's removed (not entries of gpuval's) */
    cr_expect_eq(put("k", 1 << 20), GV_OK);
    gv_cache_clear(dir);
    gv_cache_evict(dir, 0);
    cr_expect(same_text(tmp_like, "my notes") && same_text(entry_like, "my data"),
              "the user's files are untouched when the link is allowed");
}

/* Files gpuval did not make, under names it uses: none is read, replaced or removed. */
Test(cache_owner, files_gpuval_did_not_make_are_never_removed, .init = make_tmp, .fini = rm_tmp)
{
    cr_assert_eq(put("mine", 1 << 20), GV_OK);
    char clash[800], tmp_like[800], link[800], outside[800], target[800];
    entry_path("clash", clash, sizeof clash); /* where key "clash" would go */
    write_text(clash, "not an entry, but named as one");
    snprintf(tmp_like, sizeof tmp_like, "%s/" GV_CACHE_TMP_PREFIX "qwerty", dir);
    write_text(tmp_like, "a user's file named as a temporary");
    age(tmp_like, 7200);
    snprintf(outside, sizeof outside, "%s/outside.txt", tmpdir);
    write_text(outside, "elsewhere");
    entry_path("linked", link, sizeof link);
    cr_assert_eq(symlink(outside, link), 0);

    double back[100];
    void *out[1] = {back};
    size_t sizes[1] = {sizeof back};
    cr_expect_eq(gv_cache_get(dir, "clash", "v", 1, out, sizes), 0, "not an entry: a miss");
    cr_expect_eq(gv_cache_get(dir, "linked", "v", 1, out, sizes), 0, "a link: a miss");
    cr_expect_neq(put("clash", 1 << 20), GV_OK, "a file of the user's is not replaced");
    cr_expect_neq(put("linked", 1 << 20), GV_OK, "a link is not replaced");
    gv_cache_evict(dir, 0);
    cr_expect_eq(gv_cache_clear(dir), 0, "only gpuval's entries: the one was evicted");
    cr_expect(same_text(clash, "not an entry, but named as one"));
    cr_expect(same_text(tmp_like, "a user's file named as a temporary"));
    cr_expect(same_text(outside, "elsewhere"));
    struct stat st;
    cr_expect_eq(lstat(link, &st), 0, "the link itself is left");
    snprintf(target, sizeof target, "%s", link);
    cr_expect(S_ISLNK(st.st_mode));
}

/* Temporaries: a killed run's (empty, or a header begun) removed once older than an hour, a
   fresh one (another run writing) kept; both counted by cache info and by the cap. */
Test(cache_owner, stale_temporaries_are_removed_and_all_are_counted, .init = make_tmp,
     .fini = rm_tmp)
{
    cr_assert_eq(put("e", 1 << 20), GV_OK);
    char stale[800], fresh[800], entry[800], out[8192];
    snprintf(stale, sizeof stale, "%s/" GV_CACHE_TMP_PREFIX "AAAAAA", dir);
    snprintf(fresh, sizeof fresh, "%s/" GV_CACHE_TMP_PREFIX "BBBBBB", dir);
    entry_path("e", entry, sizeof entry);
    /* a stale one with an entry's beginning, a fresh one of 5000 bytes of entry */
    char cmd[4000];
    snprintf(cmd, sizeof cmd, "head -c 100 '%s' > '%s' && head -c 800 '%s' > '%s'", entry, stale,
             entry, fresh);
    cr_assert_eq(system(cmd), 0);
    age(stale, GV_CACHE_TMP_MAX_AGE_S + 60);
    age(fresh, GV_CACHE_TMP_MAX_AGE_S - 600);

    gv_cache_usage u;
    gv_cache_usage_of(dir, &u);
    cr_expect_eq(u.entries, 1);
    cr_expect_eq(u.temporaries, 2);
    cr_expect_eq(u.stale_temporaries, 1);
    cr_expect_eq(u.temporary_bytes, 900);
    cr_expect_eq(gv_test_run_cli("cache info", out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "temporary  2 (1 older than"), "%s", out);

    /* the cap counts the fresh temporary: an entry that fits only without it is evicted */
    struct stat st;
    cr_assert_eq(stat(entry, &st), 0);
    gv_cache_evict(dir, (uint64_t)st.st_size + 400);
    cr_expect_neq(access(stale, F_OK), 0, "the stale temporary is removed");
    cr_expect_eq(access(fresh, F_OK), 0, "the fresh temporary (another run's) is kept");
    cr_expect_neq(access(entry, F_OK), 0, "entry + fresh temporary over the cap: evicted");
}

/* A cache directory that is a regular file, or below one: cache info exits 2 saying so; a check
   run warns once and runs without the cache (its exit as without a cache). */
Test(cache_owner, an_unusable_cache_directory_is_said, .init = make_tmp, .fini = rm_tmp)
{
    char out[16384], err[16384], file[700];
    write_text(dir, "a file where the cache directory goes");
    int rc = gv_test_run_cli_split("cache info", out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, 2, "cache info, the directory a file: exit %d\n%s%s", rc, out, err);
    cr_expect(strstr(err, "is not a directory"), "%s", err);
    cr_expect(same_text(dir, "a file where the cache directory goes"));

    rc = gv_test_run_cli_split("check --op vadd --size 1000,2000,3000 --dtype f32", out, sizeof out,
                               err, sizeof err);
    cr_expect(rc == 0 || rc == 77, "a run without the cache: exit %d\n%s", rc, err);
    const char *w = strstr(err, "oracle cache not used");
    cr_expect(w && !strstr(w + 1, "oracle cache not used"), "warned once:\n%s", err);

    /* the parent a file */
    cr_assert_eq(unlink(dir), 0);
    snprintf(file, sizeof file, "%s/xdg-file", tmpdir);
    write_text(file, "x");
    setenv("XDG_CACHE_HOME", file, 1);
    rc = gv_test_run_cli_split("cache info", out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, 2, "cache info, the parent a file: exit %d\n%s%s", rc, out, err);
    cr_expect(strstr(err, "xdg-file is not a directory"), "%s", err);
    setenv("XDG_CACHE_HOME", tmpdir, 1);
}
