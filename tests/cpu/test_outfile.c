/* test_outfile.c: writing output files safely (src/io/outfile.c, gv_write_file and the probes) and
 * the command line around it. No fixed-name temporary: a symlink planted at PATH.tmp is never
 * followed and a user's PATH.tmp is never removed; devices and FIFOs are written in place, not
 * replaced; a read-only (0444) file and an empty path are refused; concurrent writers never
 * interleave; one file named by two options is a usage error; lost stdout is exit 3.
 * Chosen behaviour for a target that is a symlink to a regular file: the link itself is
 * replaced by the new regular file (rename), and the file it pointed to keeps its content. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/infile.h"
#include "io/outfile.h"
#include "testkit.h"

/* A fresh scratch directory for one test, removed by rm -rf at the end. */
static void scratch(char *dir, size_t len)
{
    snprintf(dir, len, "%s/gpuval-out-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp %s", dir);
}

static void remove_tree(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'; rm -rf '%s'", dir, dir);
    cr_assert_eq(system(cmd), 0);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

static int emit_text(FILE *f, void *ctx)
{
    fputs(ctx, f);
    return ferror(f) ? -1 : 0;
}

/* The number of entries in dir other than . and .. */
static int entries(const char *dir)
{
    char cmd[1200], buf[64] = "";
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(buf, sizeof buf, p));
    pclose(p);
    return atoi(buf);
}

Test(outfile, new_file_written_whole_nothing_left_behind)
{
    char dir[512], path[600], buf[256];
    scratch(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/out.json", dir);
    cr_assert_eq(gv_write_file(path, emit_text, "{\"a\": 1}\n"), 0, "%s", strerror(errno));
    gv_test_slurp(path, buf, sizeof buf);
    cr_assert_str_eq(buf, "{\"a\": 1}\n");
    cr_assert_eq(entries(dir), 1, "no temporary left beside the target");
    remove_tree(dir);
}

Test(outfile, symlink_target_is_replaced_victim_untouched)
{
    char dir[512], path[600], victim[600], buf[256];
    scratch(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/out.json", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    put(victim, "precious\n");
    cr_assert_eq(symlink("victim", path), 0);
    cr_assert_eq(gv_write_file(path, emit_text, "new\n"), 0, "%s", strerror(errno));
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0);
    cr_assert(S_ISREG(st.st_mode), "the link is replaced by a regular file");
    gv_test_slurp(path, buf, sizeof buf);
    cr_assert_str_eq(buf, "new\n");
    gv_test_slurp(victim, buf, sizeof buf);
    cr_assert_str_eq(buf, "precious\n", "the link's target keeps its content");
    remove_tree(dir);
}

/* The reproduction: a symlink planted at PATH.tmp truncated its victim. */
Test(outfile, planted_tmp_symlink_never_followed_cli)
{
    char dir[512], victim[600], link[600], args[2048], out[8192], buf[1024];
    scratch(dir, sizeof dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(link, sizeof link, "%s/out.json.tmp", dir);
    put(victim, "precious\n");
    cr_assert_eq(symlink(victim, link), 0);
    snprintf(args, sizeof args, "check --json '%s/out.json' --op nosuch", dir);
    cr_assert_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    gv_test_slurp(victim, buf, sizeof buf);
    cr_assert_str_eq(buf, "precious\n", "the probe never opened out.json.tmp");
    snprintf(args, sizeof args, "check --json '%s/out.json' --op vadd --size 1000", dir);
    int rc = gv_test_run_cli(args, out, sizeof out);
    cr_assert(rc == 0 || rc == 77, "rc %d: %s", rc, out);
    gv_test_slurp(victim, buf, sizeof buf);
    cr_assert_str_eq(buf, "precious\n", "the write never opened out.json.tmp");
    struct stat st;
    cr_assert_eq(lstat(link, &st), 0, "out.json.tmp is still there");
    cr_assert(S_ISLNK(st.st_mode));
    snprintf(buf, sizeof buf, "%s/out.json", dir);
    cr_assert_eq(lstat(buf, &st), 0);
    cr_assert(S_ISREG(st.st_mode) && st.st_size > 0);
    remove_tree(dir);
}

Test(outfile, users_own_tmp_file_is_kept_cli)
{
    char dir[512], keep[600], args[2048], out[8192], buf[256];
    scratch(dir, sizeof dir);
    snprintf(keep, sizeof keep, "%s/keep.json.tmp", dir);
    put(keep, "mine\n");
    snprintf(args, sizeof args, "check --json '%s/keep.json' --op vadd --size 1000", dir);
    int rc = gv_test_run_cli(args, out, sizeof out);
    cr_assert(rc == 0 || rc == 77, "rc %d: %s", rc, out);
    gv_test_slurp(keep, buf, sizeof buf);
    cr_assert_str_eq(buf, "mine\n");
    remove_tree(dir);
}

/* A device is no place for an output ("-" is the way to standard output): refused before any
   work, exit 2 naming it, and left a device. */
Test(outfile, a_device_is_refused_and_stays_a_device)
{
    errno = 0;
    cr_assert_eq(gv_write_file("/dev/null", emit_text, "x\n"), -1);
    cr_expect_eq(errno, EINVAL, "%s", strerror(errno));
    cr_expect_neq(gv_probe_writable("/dev/null"), 0);
    char out[8192];
    int rc = gv_test_run_cli("check --json /dev/null --op vadd --size 1000", out, sizeof out);
    cr_assert_eq(rc, 2, "rc %d: %s", rc, out);
    cr_expect(strstr(out, "/dev/null") && strstr(out, "character device"), "%s", out);
    struct stat st;
    cr_assert_eq(lstat("/dev/null", &st), 0);
    cr_assert(S_ISCHR(st.st_mode), "/dev/null is still a character device");
}

/* A FIFO, even with a reader, is refused: one without would block the writer for ever. */
Test(outfile, a_fifo_is_refused_and_stays_a_fifo)
{
    char dir[512], fifo[600], args[1024], out[8192];
    scratch(dir, sizeof dir);
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    errno = 0;
    cr_assert_eq(gv_write_file(fifo, emit_text, "through the pipe\n"), -1);
    cr_expect_eq(errno, EINVAL, "%s", strerror(errno));
    /* no reader at all: the command refuses at once instead of hanging */
    snprintf(args, sizeof args, "report '%s/tests/fixtures/check-h100.json' --md '%s'",
             getenv("GPUVAL_SRCDIR"), fifo);
    int rc = gv_test_run_cli(args, out, sizeof out);
    cr_assert_eq(rc, 2, "rc %d: %s", rc, out);
    cr_expect(strstr(out, "FIFO"), "%s", out);
    struct stat st;
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode), "still a FIFO");
    remove_tree(dir);
}

/* Inputs: a FIFO nobody writes is refused, never read (which would block for ever). */
Test(outfile, a_fifo_input_is_refused_at_once)
{
    char dir[512], fifo[600], why[160];
    scratch(dir, sizeof dir);
    snprintf(fifo, sizeof fifo, "%s/in.json", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    alarm(10); /* a blocking open would wait for ever: a hang ends the test as a crash */
    FILE *f = gv_fopen_regular(fifo, why, sizeof why);
    alarm(0);
    cr_assert_null(f);
    cr_expect(strstr(why, "FIFO"), "%s", why);
    cr_assert_null(gv_fopen_regular(dir, why, sizeof why));
    cr_expect_eq(errno, EISDIR);
    remove_tree(dir);
}

/* Two spellings of one file not yet written, and an output that is the command's input. */
Test(outfile, spellings_of_one_file_collide)
{
    char dir[512], a[600], b[700], c[700];
    scratch(dir, sizeof dir);
    snprintf(a, sizeof a, "%s/s.json", dir);
    snprintf(b, sizeof b, "%s/./s.json", dir);
    snprintf(c, sizeof c, "%s/../%s/t.json", dir, strrchr(dir, '/') + 1);
    cr_expect(gv_same_file(a, b), "%s and %s", a, b);
    cr_expect_not(gv_same_file(a, c), "%s and %s", a, c);
    const char *outs[2] = {a, b}, *opts[2] = {"--json", "--save"};
    gv_error e = {.status = GV_ST_OK};
    cr_expect_neq(gv_outputs_check(2, outs, opts, &e), 0);
    cr_expect_eq(e.status, GV_ST_BAD_INPUT, "the library says bad input: %s", e.msg);
    cr_expect(strstr(e.msg, "name the same file"), "%s", e.msg);
    char args[2048], out[8192];
    snprintf(args, sizeof args, "check --op vadd --size 1000 --json '%s' --save '%s'", a, b);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    cr_expect(strstr(out, "name the same file"), "%s", out);
    cr_expect_neq(access(a, F_OK), 0, "nothing written");
    remove_tree(dir);
}

Test(outfile, read_only_target_refused_and_unchanged)
{
    char dir[512], path[600], buf[256], args[2048], out[8192];
    scratch(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/ro.json", dir);
    put(path, "keep me\n");
    cr_assert_eq(chmod(path, 0444), 0);
    errno = 0;
    cr_assert_eq(gv_write_file(path, emit_text, "new\n"), -1);
    cr_assert_eq(errno, EACCES);
    cr_assert_eq(gv_probe_writable(path), -1);
    snprintf(args, sizeof args, "check --json '%s' --op vadd --size 1000", path);
    cr_assert_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    gv_test_slurp(path, buf, sizeof buf);
    cr_assert_str_eq(buf, "keep me\n");
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 07777, 0444);
    cr_assert_eq(entries(dir), 1);
    remove_tree(dir);
}

Test(outfile, empty_path_refused_dot_tmp_kept)
{
    errno = 0;
    cr_assert_eq(gv_write_file("", emit_text, "x"), -1);
    cr_assert_eq(errno, EINVAL);
    errno = 0;
    cr_assert_eq(gv_probe_writable(""), -1);
    cr_assert_eq(errno, EINVAL);
    char dir[512], dot[600], out[8192], buf[64];
    scratch(dir, sizeof dir);
    snprintf(dot, sizeof dot, "%s/.tmp", dir);
    put(dot, "mine\n");
    char cwd[1024];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(chdir(dir), 0);
    int rc = gv_test_run_cli("check --json '' --op vadd --size 1000", out, sizeof out);
    cr_assert_eq(chdir(cwd), 0);
    cr_assert_eq(rc, 2, "%s", out);
    gv_test_slurp(dot, buf, sizeof buf);
    cr_assert_str_eq(buf, "mine\n", "./.tmp is not removed");
    remove_tree(dir);
}

Test(outfile, probe_creates_nothing)
{
    char dir[512], path[600];
    scratch(dir, sizeof dir);
    errno = 0;
    cr_assert_eq(gv_probe_writable(dir), -1);
    cr_assert_eq(errno, EISDIR);
    snprintf(path, sizeof path, "%s/missing/out.json", dir);
    cr_assert_eq(gv_probe_writable(path), -1);
    snprintf(path, sizeof path, "%s/out.json", dir);
    cr_assert_eq(gv_probe_writable(path), 0);
    cr_assert_eq(gv_probe_writable("-"), 0);
    cr_assert_eq(entries(dir), 0, "the probe made no file");
    remove_tree(dir);
}

/* Writer w's document: a header, 16 KiB of its letter, a footer — whole or not at all. */
#define DOC_BODY 16384
static int emit_doc(FILE *f, void *ctx)
{
    char c = *(const char *)ctx;
    fprintf(f, "BEGIN %c\n", c);
    for (int i = 0; i < DOC_BODY; i++) {
        fputc(c, f);
        if (i % 1024 == 0) fflush(f); /* give the other writer a chance to interleave */
    }
    fprintf(f, "\nEND %c\n", c);
    return ferror(f) ? -1 : 0;
}

static bool doc_whole(const char *buf, size_t n)
{
    size_t want = 8 + DOC_BODY + 7;
    if (n != want || strncmp(buf, "BEGIN ", 6) != 0) return false;
    char c = buf[6];
    for (size_t i = 0; i < DOC_BODY; i++)
        if (buf[8 + i] != c) return false;
    return buf[8 + DOC_BODY + 5] == c && strncmp(buf + 8 + DOC_BODY, "\nEND ", 5) == 0;
}

Test(outfile, concurrent_writers_never_interleave)
{
    char dir[512], path[600];
    scratch(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    pid_t kids[2];
    static const char letters[2] = {'a', 'b'};
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        cr_assert_geq(kids[k], 0);
        if (kids[k] == 0) {
            for (int i = 0; i < 20; i++)
                if (gv_write_file(path, emit_doc, (void *)&letters[k]) != 0) _exit(1);
            _exit(0);
        }
    }
    static char buf[2 * DOC_BODY];
    int seen = 0;
    for (;;) { /* every read while they race sees a whole document or none */
        int st, done = 0;
        for (int k = 0; k < 2; k++) {
            if (kids[k] && waitpid(kids[k], &st, WNOHANG) == kids[k]) {
                cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %d failed", k);
                kids[k] = 0;
            }
            done += kids[k] == 0;
        }
        FILE *f = fopen(path, "r");
        if (f) {
            size_t n = fread(buf, 1, sizeof buf, f);
            fclose(f);
            cr_assert(doc_whole(buf, n), "a torn document (%zu bytes)", n);
            seen++;
        }
        if (done == 2) break;
    }
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cr_assert(doc_whole(buf, n), "the final file is one whole document");
    cr_assert_eq(entries(dir), 1, "no temporaries left");
    remove_tree(dir);
}

Test(outfile, list_to_dev_full_fails)
{
    const char *bin = gv_test_gpuval_bin();
    char dir[512], err[600], cmd[2048], buf[1024];
    scratch(dir, sizeof dir);
    snprintf(err, sizeof err, "%s/err", dir);
    snprintf(cmd, sizeof cmd, "'%s' list >/dev/full 2>'%s' </dev/null", bin, err);
    int rc = gv_test_exit_code(system(cmd));
    cr_assert_eq(rc, 3, "gpuval list > /dev/full exits 3, not %d", rc);
    gv_test_slurp(err, buf, sizeof buf);
    cr_assert(strstr(buf, "standard output"), "a message on stderr: %s", buf);
    remove_tree(dir);
}

Test(outfile, one_file_for_two_outputs_is_usage_error)
{
    char dir[512], args[2048], out[8192];
    scratch(dir, sizeof dir);
    static const char *const cmds[] = {
        "tradeoffs --op vadd --json '%s/x' --md '%s/x'",
        "bench --op vadd --size 1000 --json '%s/x' --csv '%s/x'",
        "check --op vadd --size 1000 --json '%s/x' --save '%s/x'",
    };
    static const char *const flags[][2] = {
        {"--json", "--md"}, {"--json", "--csv"}, {"--json", "--save"}};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        snprintf(args, sizeof args, cmds[i], dir, dir);
        cr_assert_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s: %s", args, out);
        cr_assert(strstr(out, flags[i][0]) && strstr(out, flags[i][1]), "%s: %s", args, out);
        cr_assert_eq(entries(dir), 0, "%s wrote nothing", args);
    }
    remove_tree(dir);
}
