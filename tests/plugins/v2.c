/* v2.c: a plugin of a future major version: it exports gpuval_plugin_v2 only, so this gpuval
 * must refuse it by name (tests/cpu/test_plugin.c). */
#include <stddef.h>

const void *const *gpuval_plugin_v2(void)
{
    return NULL;
}
