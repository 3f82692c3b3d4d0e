/* plugin.c: `--plugin FILE`: a shared library built against include/gpuval.h, loaded with
 * dlopen, its entry symbol (GPUVAL_PLUGIN_ENTRY_NAME, the API's major version in the name)
 * called, its families checked and registered. Every fault names the file and the cause. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/plugin.h"
#include "../../include/gpuval.h"
#include "cmd/cli.h"

int gv_plugin_load(const char *path, char *err, size_t errlen)
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

int gv_plugin_args(int *argc, char **argv)
{
    int out = 1;
    bool done = false;
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
        char err[1024];
        if (gv_plugin_load(path, err, sizeof err) != GV_OK) {
            gv_usage_error("%s", err);
            return GV_EXIT_USAGE;
        }
    }
    argv[out] = NULL;
    *argc = out;
    return GV_EXIT_OK;
}
