/* myops.c: gpuval's command line over the example's ops: `myops list`, `myops check`,
 * `myops bench`, ... exactly as `gpuval` takes them (gv_main). */
#include <gpuval.h>

#include "ops.h"

int main(int argc, char **argv)
{
    return gv_main(argc, argv, ext_families);
}
