/* energy.h: energy per call from NVML's total-energy counter (energy.c for the arithmetic,
 * bench_case.c's gv_bench_energy_window for the measurement). The counter
 * (nvmlDeviceGetTotalEnergyConsumption, mJ) moves in steps, once per update interval of the
 * board, so one timed sample is far too short for it: the call is repeated back to back
 * over a window of at least GV_ENERGY_MIN_S of device time and at least
 * GV_ENERGY_UPDATES update intervals, the counter read at an update edge before and after
 * (after a synchronisation), and the increase divided by the calls. What is measured is the
 * board's energy over the window (idle parts of the board included), per call. */
#ifndef GV_ENERGY_H
#define GV_ENERGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GV_ENERGY_MIN_S   1.0
#define GV_ENERGY_UPDATES 20

typedef struct gv_energy {
    bool ok;           /* j_per_call holds a measurement; otherwise why says why not */
    double j_per_call; /* counter increase / calls */
    double watts;      /* counter increase / wall time of the window */
    int64_t calls;     /* launches in the window */
    double gpu_s;      /* device time of those launches (the samples' sum) */
    double wall_s;     /* between the two counter reads */
    double update_ms;  /* the counter's update interval as observed before the window */
    char why[160];
} gv_energy;

/* The device time the window must reach: max(min_s, GV_ENERGY_UPDATES update intervals);
   min_s when the interval is unknown (update_ms not > 0). */
double gv_energy_window_s(double update_ms, double min_s);

/* Fill e from the counter before and after (J), the calls, and the window's times. Not ok,
   with why, when no call ran, the counter went backwards (a driver reload resets it), or it
   did not move at all. */
void gv_energy_finish(gv_energy *e, double before_j, double after_j, int64_t calls, double gpu_s,
                      double wall_s, double update_ms);

#endif
