/* energy.c: the arithmetic of an energy window (energy.h), apart from the device so the CPU
 * tests can check it. */
#include "bench/energy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double gv_energy_window_s(double update_ms, double min_s)
{
    double by_updates = update_ms > 0 ? GV_ENERGY_UPDATES * update_ms * 1e-3 : 0.0;
    return by_updates > min_s ? by_updates : min_s;
}

void gv_energy_finish(gv_energy *e, double before_j, double after_j, int64_t calls, double gpu_s,
                      double wall_s, double update_ms)
{
    memset(e, 0, sizeof *e);
    e->calls = calls;
    e->gpu_s = gpu_s;
    e->wall_s = wall_s;
    e->update_ms = update_ms;
    e->j_per_call = e->watts = NAN;
    double delta = after_j - before_j;
    if (calls <= 0)
        snprintf(e->why, sizeof e->why, "no call ran in the energy window");
    else if (!(delta >= 0))
        snprintf(e->why, sizeof e->why,
                 "the energy counter went backwards (%.3f J to %.3f J): reset during the window",
                 before_j, after_j);
    else if (delta == 0)
        snprintf(e->why, sizeof e->why, "the energy counter did not move in %.3g s", wall_s);
    else {
        e->ok = true;
        e->j_per_call = delta / (double)calls;
        e->watts = wall_s > 0 ? delta / wall_s : NAN;
    }
}
