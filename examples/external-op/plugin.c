/* plugin.c: the same ops as a gpuval plugin (libextops.so): `gpuval check --plugin
 * build/libextops.so` loads them through this entry. The plugin needs gpuval.h only. */
#include <gpuval.h>

#include "ops.h"

const gv_family *const *GPUVAL_PLUGIN_ENTRY(void)
{
    return ext_families;
}
