/* perf_workers.h: `bench` and `tradeoffs` on several GPUs of a node (perf_workers.c; the merge
 * in runs/merge_perf.h) — --device for them and `CMD --device LIST`: the per-device workers
 * (through workers.h's machinery) and their runs merged: per case and device the median time
 * and its interval, the speed against the node's median with the SLOW flag, the SM clock,
 * throttle reasons and PCIe link, and for tradeoffs the accuracy per device with cross-device
 * agreement of deterministic modes. */
#ifndef GV_FLEET_PERF_H
#define GV_FLEET_PERF_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "fleet/workers.h"
#include "runs/merge_perf.h" /* gv_fleet_perf_merge */
#include "runs/run_files.h"

/* --device SPEC for bench and tradeoffs (gv_device_plan_make): a list or "all" is counted in
 * a child process (runner.h), so that a parent that only starts workers never creates a CUDA
 * context; a single N or none is counted here. True to go on, else false with e. */
bool gv_device_plan_perf(const char *spec, gv_device_plan *plan, gv_error *e);

/* `CMD --device LIST` (cmd: bench's or tradeoffs' option table): the workers (parallel,
 * or one after another with serial), their output, then the merged view on stdout and, with
 * json_path, the merged document (the workers' runs beside it as NAME.devI.json) left in
 * *end for gv_fleet_finish. Returns gv_fleet_perf_merge's status, or RUNTIME when no worker
 * left a run (e says why when they could not start). */
gv_status gv_fleet_perf_run(const gv_opt_table *cmd, const gv_device_plan *plan, int argc,
                            char **argv, const char *json_path, bool serial,
                            const gv_fleet_printer *pr, gv_fleet_end *end, gv_error *e);

#endif
