/* ctorfault.c: a plugin whose constructor faults (SIGSEGV) as dlopen runs it, and which
 * leaves a marker first when GPUVAL_TEST_MARKER names a file: tests/cpu/test_plugin.c checks
 * that gpuval reports it (path and signal) instead of dying, and that no plugin code runs
 * before the command line is checked. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void fault_on_load(void)
{
    const char *marker = getenv("GPUVAL_TEST_MARKER");
    if (marker) {
        FILE *f = fopen(marker, "a");
        if (f) {
            fputs("constructor ran\n", f);
            fclose(f);
        }
    }
    if (!getenv("GPUVAL_TEST_NO_FAULT")) raise(SIGSEGV);
}

const void *const *gpuval_plugin_v1(void)
{
    return NULL; /* reached only with GPUVAL_TEST_NO_FAULT: no families */
}
