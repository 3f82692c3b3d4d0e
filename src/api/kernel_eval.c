/* kernel_eval.c: the C side of the generated-kernel gate. The gate itself is Python
 * (python/src/gpuval/kernel_eval.py: the candidate in a child process, seeds it cannot predict,
 * the judge in the parent); this file finds its parts for `gpuval kernel-eval` and runs it:
 *   - the library, so that the gate judges with the same libgpuval as this program: the shared
 *     object this code was loaded from when it is libgpuval itself (a program running gv_main
 *     over -lgpuval); else, beside the gpuval program, BIN/include/libgpuval.so (a meson build
 *     directory) or BIN/../lib/libgpuval.so.1 (an install: meson.build puts both in PREFIX);
 *   - the package: BIN/../python/src (a build directory inside the source tree, as the README
 *     builds it) when it holds gpuval/kernel_eval.py; else the installed package (pip install
 *     ./python), found by python3 itself.
 * python3 is the one on PATH. The child imports the package before anything else, so that a
 * missing package (or numpy) is a usage error with a clear message rather than a traceback. */
#include "api/kernel_eval.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/knobs.h"

extern char **environ;

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir/rel into out (len) when that file exists; false otherwise, out unchanged */
static bool found(char *out, size_t len, const char *dir, const char *rel)
{
    char path[PATH_MAX + 64];
    int w = snprintf(path, sizeof path, "%s/%s", dir, rel);
    if (w < 0 || (size_t)w >= sizeof path || !is_file(path)) return false;
    char *real = realpath(path, NULL);
    if (!real) return false;
    bool ok = strlen(real) < len;
    if (ok) snprintf(out, len, "%s", real);
    free(real);
    return ok;
}

/* the directory of the shared object holding this function, when it is a libgpuval */
static bool loaded_library(char *out, size_t len)
{
    Dl_info info;
    if (!dladdr((void *)gv_kernel_eval_locate, &info) || !info.dli_fname) return false;
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    if (strncmp(base, "libgpuval.so", 12) != 0) return false;
    char *real = realpath(info.dli_fname, NULL);
    if (!real) return false;
    bool ok = strlen(real) < len;
    if (ok) snprintf(out, len, "%s", real);
    free(real);
    return ok;
}

void gv_kernel_eval_locate(gv_kernel_eval_paths *paths)
{
    paths->lib[0] = paths->pkg[0] = '\0';
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char bin[PATH_MAX] = "";
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(bin, sizeof bin, "%s", exe);
        }
    }
    if (!loaded_library(paths->lib, sizeof paths->lib) && bin[0] &&
        !found(paths->lib, sizeof paths->lib, bin, "include/libgpuval.so"))
        found(paths->lib, sizeof paths->lib, bin, "../lib/libgpuval.so.1");
    if (bin[0] && found(paths->pkg, sizeof paths->pkg, bin, "../python/src/gpuval/kernel_eval.py"))
        /* the file's path, less "/gpuval/kernel_eval.py": the directory PYTHONPATH names */
        paths->pkg[strlen(paths->pkg) - strlen("/gpuval/kernel_eval.py")] = '\0';
}

/* The child's first lines: import the gate, and say plainly what is missing when it cannot be
   imported (exit 2), before running it as `python3 -m gpuval.kernel_eval` would. */
static const char bootstrap[] =
    "import os, sys\n"
    "try:\n"
    "    from gpuval import kernel_eval\n"
    "except ModuleNotFoundError as e:\n"
    "    if e.name not in ('gpuval', 'gpuval.kernel_eval', 'numpy'):\n"
    "        raise\n"
    "    where = os.environ.get('GPUVAL_KERNEL_EVAL_PKG') or 'the installed packages'\n"
    "    fix = ('install numpy for this python3' if e.name == 'numpy' else\n"
    "           'install the package (pip install ./python) or run the gpuval of a build '\n"
    "           'directory inside the source tree')\n"
    "    sys.stderr.write('gpuval kernel-eval: cannot import the Python gate (%s; looked in %s '\n"
    "                     'and on PYTHONPATH): %s\\n' % (e, where, fix))\n"
    "    sys.exit(2)\n"
    "sys.exit(kernel_eval.main(sys.argv[1:]))\n";

/* environ with NAME=value set (replacing NAME's entry) for each pair; NULL on no memory */
static char **child_env(const char *const *set, int n_set)
{
    size_t count = 0;
    while (environ && environ[count])
        count++;
    char **env = calloc(count + (size_t)n_set + 1, sizeof *env);
    if (!env) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        bool replaced = false;
        for (int s = 0; s < n_set; s++) {
            size_t name = strcspn(set[s], "=") + 1;
            replaced = replaced || strncmp(environ[i], set[s], name) == 0;
        }
        if (!replaced) env[k++] = environ[i];
    }
    for (int s = 0; s < n_set; s++)
        env[k++] = (char *)set[s];
    env[k] = NULL;
    return env;
}

gv_status gv_kernel_eval_run(const gv_kernel_eval_paths *paths, int n, char *const *args,
                             gv_error *e)
{
    char lib_var[4200], pkg_var[4200], path_var[8400];
    const char *set[3];
    int n_set = 0;
    if (paths->lib[0]) {
        snprintf(lib_var, sizeof lib_var, "GPUVAL_LIB=%s", paths->lib);
        set[n_set++] = lib_var;
    }
    if (paths->pkg[0]) {
        /* the package of this source tree first, then the user's PYTHONPATH as it was */
        const char *old = gv_env("PYTHONPATH");
        snprintf(path_var, sizeof path_var, "PYTHONPATH=%s%s%s", paths->pkg, old && *old ? ":" : "",
                 old && *old ? old : "");
        set[n_set++] = path_var;
        snprintf(pkg_var, sizeof pkg_var, "GPUVAL_KERNEL_EVAL_PKG=%s", paths->pkg);
        set[n_set++] = pkg_var;
    }
    char **env = child_env(set, n_set);
    char **argv = calloc((size_t)n + 4, sizeof *argv);
    if (!env || !argv) {
        free(env);
        free(argv);
        return gv_err_set(e, GV_ST_RUNTIME, "kernel-eval: out of memory");
    }
    argv[0] = "python3";
    argv[1] = "-c";
    argv[2] = (char *)bootstrap;
    for (int i = 0; i < n; i++)
        argv[3 + i] = args[i];
    argv[3 + n] = NULL;
    pid_t pid;
    int rc = posix_spawnp(&pid, "python3", NULL, NULL, argv, env);
    free(env);
    free(argv);
    if (rc == ENOENT)
        return gv_err_set(e, GV_ST_BAD_INPUT,
                          "kernel-eval: python3 is not on PATH: the gate is the Python package's "
                          "(python/), run by python3 with numpy");
    if (rc != 0)
        return gv_err_set(e, GV_ST_RUNTIME, "kernel-eval: cannot start python3: %s", strerror(rc));
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return gv_err_set(e, GV_ST_RUNTIME, "kernel-eval: waiting for python3: %s",
                              strerror(errno));
    if (WIFSIGNALED(status))
        return gv_err_set(e, GV_ST_RUNTIME, "kernel-eval: python3 died of signal %d",
                          WTERMSIG(status));
    e->msg[0] = '\0';
    switch (WEXITSTATUS(status)) {
    case 0: return e->status = GV_ST_OK;
    case 1: return e->status = GV_ST_FAIL;
    case 2: return e->status = GV_ST_BAD_INPUT; /* the gate printed why */
    case 3: return e->status = GV_ST_RUNTIME;   /* the candidate could not run; printed */
    default:
        return gv_err_set(e, GV_ST_RUNTIME, "kernel-eval: python3 exited %d", WEXITSTATUS(status));
    }
}
