/* plugin.c: `--plugin FILE`: a shared library built against include/gpuval.h, loaded with
 * dlopen, its entry symbol (GPUVAL_PLUGIN_ENTRY_NAME, the API's major version in the name)
 * called, its families checked and registered. Every fault names the file and the cause. */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/plugin.h"
#include "../../include/gpuval.h"
#include "cmd/cli.h"

/* Whether path holds a whole 64-bit ELF shared object: its header, every program header and the
   bytes every loadable segment names, and its section headers, all inside the file's size.
   false with why in err. */
static bool elf_whole(const char *path, int64_t size, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    Elf64_Ehdr eh;
    bool ok = f && fread(&eh, sizeof eh, 1, f) == 1;
    const char *why = NULL;
    if (!ok)
        why = "shorter than an ELF header";
    else if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        why = "not an ELF file";
    else if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_DYN)
        why = "not a 64-bit ELF shared object";
    else if (eh.e_phentsize != sizeof(Elf64_Phdr) ||
             (int64_t)(eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize) > size)
        why = "its program headers lie past its end (the file is cut short)";
    else if (eh.e_shoff && (int64_t)(eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize) > size)
        why = "its section headers lie past its end (the file is cut short)";
    for (int i = 0; !why && i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (fseek(f, (long)(eh.e_phoff + (uint64_t)i * sizeof ph), SEEK_SET) != 0 ||
            fread(&ph, sizeof ph, 1, f) != 1)
            why = "its program headers cannot be read";
        else if (ph.p_type == PT_LOAD && (int64_t)(ph.p_offset + ph.p_filesz) > size)
            why = "a loadable segment lies past its end (the file is cut short)";
    }
    if (f) fclose(f);
    if (why) snprintf(err, errlen, "plugin %s: %s", path, why);
    return why == NULL;
}

int gv_cmd_plugin_load(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "plugin %s: %s", path, strerror(errno));
        return GV_EIO;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "plugin %s: not a regular file", path);
        return GV_EIO;
    }
    /* the loader maps the file's segments where its headers say: a file cut short maps pages
       past its end, and touching them is SIGBUS, not an error dlopen can return */
    if (!elf_whole(path, (int64_t)st.st_size, err, errlen)) return GV_EINVAL;
    /* a bare name would make dlopen search the library path, not the named file */
    char local[4096];
    if (!strchr(path, '/') && snprintf(local, sizeof local, "./%s", path) < (int)sizeof local)
        path = local;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "plugin %s: cannot load: %s", path, dlerror());
        return GV_EINVAL;
    }
    /* the handle stays open for the process: the registry refers to the plugin's data */
    dlerror();
    gv_plugin_entry entry = (gv_plugin_entry)(uintptr_t)dlsym(h, GPUVAL_PLUGIN_ENTRY_NAME);
    if (!entry) {
        /* an entry of another major version says what is wrong better than "missing" */
        for (int v = 0; v < 100; v++) {
            char sym[32];
            snprintf(sym, sizeof sym, "gpuval_plugin_v%d", v);
            if (v != GPUVAL_API_VERSION_MAJOR && dlsym(h, sym)) {
                snprintf(err, errlen,
                         "plugin %s: built against gpuval API %d (exports %s); this gpuval "
                         "loads API %d (%s): rebuild it against this gpuval.h",
                         path, v, sym, GPUVAL_API_VERSION_MAJOR, GPUVAL_PLUGIN_ENTRY_NAME);
                return GV_API_EABI;
            }
        }
        snprintf(err, errlen, "plugin %s: no symbol %s: not a gpuval plugin", path,
                 GPUVAL_PLUGIN_ENTRY_NAME);
        return GV_EINVAL;
    }
    const gv_family *const *fams = entry();
    if (!fams || !fams[0]) {
        snprintf(err, errlen, "plugin %s: %s returned no families", path, GPUVAL_PLUGIN_ENTRY_NAME);
        return GV_EINVAL;
    }
    for (int i = 0; fams[i]; i++) {
        char why[512];
        int rc = gv_register_family(fams[i], why, sizeof why);
        if (rc != GV_OK) {
            snprintf(err, errlen, "plugin %s: %s", path, why);
            return rc;
        }
    }
    return GV_OK;
}

int gv_cmd_plugin_args(int *argc, char **argv, const char **paths, int *n_paths)
{
    int out = 1;
    bool done = false;
    *n_paths = 0;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i], *path = NULL;
        if (!done && strcmp(a, "--") == 0) done = true;
        if (!done && strcmp(a, "--plugin") == 0) {
            if (i + 1 >= *argc) {
                gv_usage_error("--plugin needs a FILE");
                return GV_EXIT_USAGE;
            }
            path = argv[++i];
        } else if (!done && strncmp(a, "--plugin=", 9) == 0) {
            path = a + 9;
        }
        if (!path) {
            argv[out++] = argv[i];
            continue;
        }
        if (*n_paths == GV_PLUGINS_MAX) {
            gv_usage_error("more than %d --plugin", GV_PLUGINS_MAX);
            return GV_EXIT_USAGE;
        }
        paths[(*n_paths)++] = path;
    }
    argv[out] = NULL;
    *argc = out;
    return GV_EXIT_OK;
}

/* Load path first in a child process (stdout and stderr to /dev/null, an alarm against a
   constructor that never returns): a plugin whose constructor or entry point faults kills the
   child, and gpuval reports the file and the signal instead of dying inside dlopen. GV_OK
   when the child loaded it; else the child's own error, or the signal, in err. */
static int try_in_child(const char *path, char *err, size_t errlen)
{
    int fds[2];
    if (pipe(fds) != 0) return GV_OK; /* no pipe: the load itself says what it says */
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return GV_OK;
    }
    if (pid == 0) {
        close(fds[0]);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        alarm(GV_PLUGIN_LOAD_SECONDS);
        char e[1024] = "";
        int rc = gv_cmd_plugin_load(path, e, sizeof e);
        ssize_t w = write(fds[1], &rc, sizeof rc);
        if (w == (ssize_t)sizeof rc && rc != GV_OK) w = write(fds[1], e, strlen(e) + 1);
        (void)w;
        _exit(0); /* nothing of the plugin's (destructors, atexit) runs in the child */
    }
    close(fds[1]);
    int rc = GV_OK;
    char e[1024] = "";
    bool got = read(fds[0], &rc, sizeof rc) == (ssize_t)sizeof rc;
    if (got && rc != GV_OK) {
        size_t used = 0;
        ssize_t k;
        while (used + 1 < sizeof e && (k = read(fds[0], e + used, sizeof e - 1 - used)) > 0)
            used += (size_t)k;
        e[used] = '\0';
    }
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        snprintf(err, errlen, "plugin %s: its code %s while loading (signal %d, %s): not loaded",
                 path, sig == SIGALRM ? "did not return" : "faulted", sig, strsignal(sig));
        return GV_EINVAL;
    }
    if (!got) {
        snprintf(err, errlen, "plugin %s: loading it ended the process (exit %d): not loaded", path,
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return GV_EINVAL;
    }
    if (rc != GV_OK) snprintf(err, errlen, "%s", e);
    return rc;
}

int gv_cmd_plugins_load(const char *const *paths, int n)
{
    for (int i = 0; i < n; i++) {
        char err[1024];
        if (try_in_child(paths[i], err, sizeof err) != GV_OK ||
            gv_cmd_plugin_load(paths[i], err, sizeof err) != GV_OK) {
            gv_usage_error("%s", err);
            return GV_EXIT_USAGE;
        }
    }
    return GV_EXIT_OK;
}
