/* fleet_perf.h: `bench` and `tradeoffs` on several GPUs of a node (fleet_perf.c; the merge in
 * fleet_perf_merge.h) — the per-device workers (through fleet_cmd.h's machinery) and their
 * runs merged: per case and device the median time and its interval, the speed against the
 * node's median with the SLOW flag, the SM clock, throttle reasons and PCIe link, and for
 * tradeoffs the accuracy per device with cross-device agreement of deterministic modes.
 * `gpuval merge` dispatches here on the runs' schema. */
#ifndef GV_FLEET_PERF_H
#define GV_FLEET_PERF_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "fleet_cmd.h"
#include "fleet_perf_merge.h" /* gv_fleet_perf_merge, GV_FLEET_PERF_SCHEMA */

extern const gv_fleet_cmd gv_fleet_bench_cmd, gv_fleet_trade_cmd;

/* --device SPEC for bench and tradeoffs (gv_device_plan_make): a list or "all" is counted in
 * a child process (isolate.h), so that a parent that only starts workers never creates a CUDA
 * context; a single N or none is counted here. -1 to go on, or the exit code. */
int gv_device_plan_perf(const char *spec, gv_device_plan *plan);

/* `CMD --device LIST` (cmd: gv_fleet_bench_cmd or gv_fleet_trade_cmd): the workers (parallel,
 * or one after another with serial), their output, then the merged view on stdout and, with
 * json_path, the merged document there (the workers' runs beside it as NAME.devI.json).
 * Returns gv_fleet_perf_merge's exit code, or 3 when a worker left no run. */
int gv_fleet_perf_run(const gv_fleet_cmd *cmd, const gv_device_plan *plan, int argc, char **argv,
                      const char *json_path, bool serial);

/* Read a run of any schema `gpuval merge` takes (gpuval-run/1, gpuval-bench/1,
 * gpuval-tradeoffs/1): GV_OK, or a message in err (unreadable, invalid JSON with line and
 * column, another schema, or the schema's array missing). */
int gv_fleet_load_any(const char *path, json_t **doc, char *err, size_t len);

/* A run's device, as the merged tables show it (fleet_merge.c uses them too): "Gen5 x16"
 * (with " (below max)" when the link trained below what it can reach) or "-"; the SM clock
 * "cur/max" MHz or "-"; the model and software "NAME, cc 9.0, 132 SMs, driver D, runtime R,
 * cuBLAS C" or "no device". */
void gv_fleet_link_text(const json_t *doc, char *buf, size_t len);
void gv_fleet_clock_text(const json_t *doc, char *buf, size_t len);
void gv_fleet_model_text(const json_t *doc, char *buf, size_t len);

#endif
