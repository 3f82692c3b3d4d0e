/* test_kernel_eval.c: `gpuval kernel-eval`'s own paths, the real binary run (the gate itself,
 * Python, has python/tests/test_kernel_eval.py): its help; its usage errors (no --op or
 * --candidate, an unknown option, a stray argument: exit 2 before any python3 runs); python3
 * missing from PATH and the package missing (exit 2, saying so); a FIFO or a directory as the
 * candidate's file or --json (exit 2: the gate would hang); and, with a stand-in python3
 * on PATH, what the gate is handed: the arguments in their order, GPUVAL_LIB naming this
 * build's libgpuval, the package beside the build first on PYTHONPATH, and its exit code
 * passed back (0, 1, 2, 3). */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testkit.h"

static char out[16384];

/* gpuval kernel-eval ARGS with the environment assignments env before it (a shell prefix) */
static int run_env(const char *env, const char *bin, const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s '%s' kernel-eval %s </dev/null 2>&1", env, bin, args);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f, "popen %s", cmd);
    size_t used = fread(out, 1, sizeof out - 1, f);
    out[used] = '\0';
    char rest[4096];
    while (fread(rest, 1, sizeof rest, f) > 0)
        ;
    return gv_test_exit_code(pclose(f));
}

/* a directory holding a stand-in python3 that prints what it was handed and exits FAKE_RC */
static void fake_python(char *dir, size_t len)
{
    gv_test_scratch_dir(dir, len, "fakepy");
    char path[600];
    snprintf(path, sizeof path, "%s/python3", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("#!/bin/sh\n"
          "printf 'lib=%s\\npath=%s\\nflag=%s\\n' \"$GPUVAL_LIB\" \"$PYTHONPATH\" \"$1\"\n"
          "shift 2\n"
          "for a in \"$@\"; do printf 'arg=%s\\n' \"$a\"; done\n"
          "exit ${FAKE_RC:-0}\n",
          f);
    fclose(f);
    cr_assert_eq(chmod(path, 0755), 0);
}

Test(kernel_eval_cli, help_names_the_gate_and_its_options)
{
    int rc = gv_test_run_cli("kernel-eval --help", out, sizeof out);
    cr_expect_eq(rc, 0, "%s", out);
    const char *want[] = {
        "usage: gpuval kernel-eval",     "--candidate", "--seeds", "--framework", "--json",
        "python3 -m gpuval.kernel_eval", "exit"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect(strstr(out, want[i]) != NULL, "help lacks '%s':\n%s", want[i], out);
    cr_expect_eq(gv_test_run_cli("help kernel-eval", out, sizeof out), 0);
    cr_expect(strstr(out, "usage: gpuval kernel-eval") != NULL);
}

Test(kernel_eval_cli, usage_errors_exit_2_before_python)
{
    char dir[512], env[700];
    fake_python(dir, sizeof dir);
    snprintf(env, sizeof env, "PATH='%s':\"$PATH\"", dir);
    const char *bin = gv_test_gpuval_bin();
    cr_expect_eq(run_env(env, bin, ""), 2, "%s", out);
    cr_expect(strstr(out, "needs --op and --candidate") != NULL, "%s", out);
    cr_expect(strstr(out, "lib=") == NULL, "python3 ran: %s", out);
    cr_expect_eq(run_env(env, bin, "--op softmax.rows"), 2, "%s", out);
    cr_expect_eq(run_env(env, bin, "--op softmax.rows --candidates m:f"), 2, "%s", out);
    cr_expect(strstr(out, "lib=") == NULL, "python3 ran: %s", out);
    cr_expect_eq(run_env(env, bin, "--op softmax.rows --candidate m:f stray"), 2, "%s", out);
    cr_expect(strstr(out, "stray") != NULL, "%s", out);
    cr_expect_eq(run_env(env, bin, "--op softmax.rows --candidate"), 2, "%s", out);
    cr_expect(strstr(out, "lib=") == NULL, "python3 ran: %s", out);
    /* a FIFO as the candidate's file or as --json would hang the gate: refused here */
    char fifo[600], args[1400];
    snprintf(fifo, sizeof fifo, "%s/k.py", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    snprintf(args, sizeof args, "--op softmax.rows --candidate '%s:f'", fifo);
    cr_expect_eq(run_env(env, bin, args), 2, "%s", out);
    cr_expect(strstr(out, "FIFO") != NULL, "%s", out);
    snprintf(args, sizeof args, "--op softmax.rows --candidate m:f --json '%s'", fifo);
    cr_expect_eq(run_env(env, bin, args), 2, "%s", out);
    cr_expect(strstr(out, "FIFO") != NULL, "%s", out);
    snprintf(args, sizeof args, "--op softmax.rows --candidate m:f --json '%s'", dir);
    cr_expect_eq(run_env(env, bin, args), 2, "%s", out);
    cr_expect(strstr(out, "lib=") == NULL, "python3 ran: %s", out);
    unlink(fifo);
    gv_test_remove_dir(dir);
}

Test(kernel_eval_cli, the_gate_gets_the_arguments_the_library_and_the_package)
{
    char dir[512], env[800];
    fake_python(dir, sizeof dir);
    const char *bin = gv_test_gpuval_bin();
    const char *args = "--candidate kmod:f --seeds 4 --op softmax.rows -q --json -";
    for (int want = 0; want <= 3; want++) {
        snprintf(env, sizeof env, "FAKE_RC=%d PYTHONPATH=/elsewhere PATH='%s':\"$PATH\"", want,
                 dir);
        cr_expect_eq(run_env(env, bin, args), want, "the gate's exit %d passed back: %s", want,
                     out);
    }
    /* the order as given (getopt permutes argv; the gate gets the original) */
    cr_expect(strstr(out, "arg=--candidate\narg=kmod:f\narg=--seeds\narg=4\narg=--op\n"
                          "arg=softmax.rows\narg=-q\narg=--json\narg=-\n") != NULL,
              "%s", out);
    cr_expect(strstr(out, "flag=-c\n") != NULL, "%s", out);
    /* this build's library and the source tree's package (the build lies inside it) */
    char lib[PATH_MAX + 16], pkg[PATH_MAX + 32];
    const char *build = getenv("GPUVAL_BUILDDIR"), *src = getenv("GPUVAL_SRCDIR");
    cr_assert(build && src);
    char *rb = realpath(build, NULL), *rs = realpath(src, NULL);
    cr_assert(rb && rs);
    snprintf(lib, sizeof lib, "lib=%s/include/libgpuval.so", rb);
    snprintf(pkg, sizeof pkg, "path=%s/python/src:/elsewhere\n", rs);
    char *l = strstr(out, "lib=");
    cr_expect(l && strncmp(l, lib, strlen(lib)) == 0, "want %s in:\n%s", lib, out);
    /* only where the build directory sits in the source tree (BIN/../python/src) */
    char parent[PATH_MAX + 8];
    snprintf(parent, sizeof parent, "%s/..", rb);
    char *rp = realpath(parent, NULL);
    if (rp && strcmp(rp, rs) == 0) cr_expect(strstr(out, pkg) != NULL, "want %s in:\n%s", pkg, out);
    free(rp);
    free(rb);
    free(rs);
    gv_test_remove_dir(dir);
}

Test(kernel_eval_cli, python3_missing_is_a_usage_error)
{
    char dir[512], env[700];
    gv_test_scratch_dir(dir, sizeof dir, "nopy");
    snprintf(env, sizeof env, "PATH='%s'", dir); /* nothing on PATH: no python3 */
    int rc = run_env(env, gv_test_gpuval_bin(), "--op softmax.rows --candidate m:f");
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "python3 is not on PATH") != NULL, "%s", out);
    gv_test_remove_dir(dir);
}

/* A gpuval away from any source tree and library, with no package installed: the gate cannot
   be imported, and the message says so (exit 2). Where python3 is missing, or the package is
   installed for it, that path cannot be reached here: skipped. */
Test(kernel_eval_cli, package_missing_is_a_usage_error)
{
    if (system("python3 -c 'import gpuval.kernel_eval' >/dev/null 2>&1") == 0 ||
        system("command -v python3 >/dev/null 2>&1") != 0)
        cr_skip_test("python3 imports gpuval without this build (or there is no python3)");
    char dir[512], cmd[2048], env[64] = "PYTHONPATH= PYTHONNOUSERSITE=1";
    gv_test_scratch_dir(dir, sizeof dir, "nopkg");
    snprintf(cmd, sizeof cmd, "mkdir '%s/bin' && cp '%s' '%s/bin/gpuval'", dir,
             gv_test_gpuval_bin(), dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char bin[700];
    snprintf(bin, sizeof bin, "%s/bin/gpuval", dir);
    int rc = run_env(env, bin, "--op softmax.rows --candidate m:f");
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "cannot import the Python gate") != NULL, "%s", out);
    cr_expect(strstr(out, "Traceback") == NULL, "%s", out);
    gv_test_remove_dir(dir);
}
