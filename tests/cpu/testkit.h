/* testkit.h: helpers shared by the CPU tests (header-only, everything static inline). It owns
 * running the real gpuval binary — path in env GPUVAL, set by tests/meson.build — through the
 * shell: gv_test_run_cli folds stderr into stdout, gv_test_run_cli_split keeps the two apart.
 * Both return gpuval's exit status, or -1 if it did not exit normally. */
#ifndef GV_TESTKIT_H
#define GV_TESTKIT_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "registry.h"

/* The gpuval binary named by GPUVAL; fails the test when it is unset or not executable. */
static inline const char *gv_test_gpuval_bin(void)
{
    const char *bin = getenv("GPUVAL");
    cr_assert_not_null(bin, "GPUVAL must name the gpuval binary (tests/meson.build sets it)");
    cr_assert(access(bin, X_OK) == 0, "GPUVAL=%s is not executable", bin);
    return bin;
}

/* Exit status from a system()/pclose() status: the exit code, or -1. */
static inline int gv_test_exit_code(int st)
{
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Run `gpuval ARGS` (ARGS are shell words written by the tests) with stdin from /dev/null and
 * stderr folded into stdout; the first len - 1 bytes of output land in out, NUL-terminated
 * (len >= 1). Returns the exit status, or -1. */
static inline int gv_test_run_cli(const char *args, char *out, size_t len)
{
    const char *bin = gv_test_gpuval_bin();
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s </dev/null 2>&1", bin, args);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f, "popen %s", cmd);
    size_t used = fread(out, 1, len - 1, f);
    out[used] = '\0';
    char rest[4096]; /* drain what did not fit, so gpuval is not killed by SIGPIPE */
    while (fread(rest, 1, sizeof rest, f) > 0)
        ;
    return gv_test_exit_code(pclose(f));
}

/* Read the file at path into buf (at most len - 1 bytes, NUL-terminated); empty if absent. */
static inline void gv_test_slurp(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Run `gpuval ARGS` with stdin from /dev/null, stdout into out and stderr into err (each
 * truncated to its length - 1 bytes, NUL-terminated), through files in a scratch directory
 * under $TMPDIR (or /tmp) that is removed afterwards. Returns the exit status, or -1. */
static inline int gv_test_run_cli_split(const char *args, char *out, size_t out_len, char *err,
                                        size_t err_len)
{
    const char *bin = gv_test_gpuval_bin();
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[512], o[600], e[600], cmd[4096];
    snprintf(dir, sizeof dir, "%s/gpuval-cli-XXXXXX", tmp);
    cr_assert_not_null(mkdtemp(dir), "mkdtemp %s", dir);
    snprintf(o, sizeof o, "%s/out", dir);
    snprintf(e, sizeof e, "%s/err", dir);
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s' </dev/null", bin, args, o, e);
    int rc = gv_test_exit_code(system(cmd));
    gv_test_slurp(o, out, out_len);
    gv_test_slurp(e, err, err_len);
    unlink(o);
    unlink(e);
    rmdir(dir);
    return rc;
}

/* How many cases of op's catalogue (its .shapes, or .test_shapes when test_shapes; one case per
 * shape, dtype and mode) satisfy pred; fails the test when the op is unknown or gv_select refuses a
 * shape (check_shape). */
static inline int gv_test_catalogue_count(const char *op, bool test_shapes,
                                          bool (*pred)(const gv_shape *s))
{
    const gv_op *o = gv_op_find(op);
    cr_assert_not_null(o, "%s registered", op);
    gv_selection sel = {.op_glob = op, .dist = -1, .test_shapes = test_shapes, .planted = true};
    gv_case *cases = NULL;
    char err[256] = "";
    int n = gv_select(&sel, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s %s: gv_select gives %d (%s)", op, test_shapes ? "test_shapes" : "shapes",
                 n, err);
    int hits = 0;
    for (int i = 0; i < n; i++)
        hits += pred(&cases[i].shape);
    free(cases);
    return hits;
}

#endif
