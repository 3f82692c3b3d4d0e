/* entryfault.c: a plugin whose entry point faults (a NULL read) when gpuval calls it:
 * tests/cpu/test_plugin.c checks that gpuval reports the path and the signal. */
#include <stddef.h>

const void *const *gpuval_plugin_v1(void)
{
    volatile const int *volatile nothing = NULL;
    return (const void *const *)(size_t)*nothing;
}
