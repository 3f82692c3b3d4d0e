/* knobs.c: the device layer's settings (gk.h's gk_knobs), handed down by src/core/knobs.c.
 * Plain C: built into the device layer with and without CUDA. */
#include "gk.h"

static gk_knobs knobs = {.perturb_device = -1};

void gk_set_knobs(const gk_knobs *k)
{
    knobs = *k;
}

const gk_knobs *gk_get_knobs(void)
{
    return &knobs;
}
