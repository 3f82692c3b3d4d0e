/* nocoll.c: collectives in a build without NCCL (gk.h), in one process or one rank per
 * process: nothing to run. */
#include <stdlib.h>

#include "../abi/gv_abi.h"
#include "gk.h"

int gk_coll_run(gk_coll *c)
{
    (void)c;
    return GV_EUNSUPPORTED;
}

int gk_coll_have_nccl(void)
{
    return 0;
}

int gk_coll_unique_id(unsigned char id[GK_COLL_ID_BYTES])
{
    (void)id;
    return GV_EUNSUPPORTED;
}

int gk_coll_comm_open(const unsigned char id[GK_COLL_ID_BYTES], int nranks, int rank, int device,
                      gk_coll_comm **out)
{
    (void)id, (void)nranks, (void)rank, (void)device;
    *out = NULL;
    return GV_EUNSUPPORTED;
}

int gk_coll_comm_prepare(gk_coll_comm *comm, const gk_coll *c)
{
    (void)comm, (void)c;
    return GV_EUNSUPPORTED;
}

int gk_coll_comm_run(gk_coll_comm *comm, gk_coll *c)
{
    (void)comm, (void)c;
    return GV_EUNSUPPORTED;
}

void gk_coll_comm_close(gk_coll_comm *comm)
{
    (void)comm;
}
