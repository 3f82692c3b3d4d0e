/* nocoll.c: collectives in a build without NCCL (gk.h): nothing to run. */
#include <stdlib.h>

#include "../abi/gv_abi.h"
#include "gk.h"

int gk_coll_run(gk_coll *c)
{
    (void)c;
    return GV_EUNSUPPORTED;
}
