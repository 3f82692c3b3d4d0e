/* fleet_perf.c: bench and tradeoffs on several GPUs (fleet_perf.h) — which of their options a
 * worker gets, --device for them, the runs `gpuval merge` reads, the device texts both merges
 * print, and `CMD --device LIST`: the workers (fleet_cmd.c) then the merge
 * (fleet_perf_merge.c). */
#include "fleet/perf_workers.h"

#include <math.h>
#include <string.h>

#include "bench/bench_json.h" /* gv_jnum, gv_jstr, GV_BENCH_SCHEMA */
#include "core/gv.h"
#include "io/outfile.h"
#include "core/runner.h" /* gv_isolated_device_count */
#include "io/outfile.h"  /* gv_write_file */
#include "io/run_doc.h"  /* GV_SCHEMA */
#include "bench/trade_report.h"

/* ---- the workers' command lines --------------------------------------------------------- */

/* bench's options (bench_cmd.c) and tradeoffs' (tradeoffs.c): what a worker gets */
static const gv_fleet_opt bench_opts[] = {
    {"op", true, false},
    {"dtype", true, false},
    {"mode", true, false},
    {"size", true, false},
    {"dist", true, false},
    {"seed", true, false},
    {"preset", true, false},
    {"crossover", true, false},
    {"sweep", true, false},
    {"sweep-base", true, false},
    {"sweep-factor", true, false},
    {"refine", true, false},
    {"target-spread", true, false},
    {"cap", true, false},
    {"min-samples", true, false},
    {"cpu-budget", true, false},
    {"hot", false, false},
    {"cold", false, false},
    {"no-cpu", false, false},
    {"repeat-check", false, false},
    {"json", true, true},
    {"device", true, true},
    {"csv", true, true},
    {"md", true, true},
    {"save", true, true},
    {"force", false, true},
    {"as", true, false},
    {"help", false, false},
    {"device-serial", false, true},
};
static const gv_fleet_opt trade_opts[] = {
    {"op", true, false},    {"size", true, false},  {"dist", true, false},
    {"seed", true, false},  {"json", true, true},   {"md", true, true},
    {"device", true, true}, {"help", false, false}, {"device-serial", false, true},
};
const gv_fleet_cmd gv_fleet_bench_cmd = {"bench", bench_opts,
                                         (int)(sizeof bench_opts / sizeof bench_opts[0])};
const gv_fleet_cmd gv_fleet_trade_cmd = {"tradeoffs", trade_opts,
                                         (int)(sizeof trade_opts / sizeof trade_opts[0])};

int gv_device_plan_perf(const char *spec, gv_device_plan *plan)
{
    bool several = spec && (strchr(spec, ',') || strcmp(spec, "all") == 0);
    return gv_device_plan_make(spec, plan, several ? gv_isolated_device_count : gk_device_count);
}

/* ---- CMD --device LIST ------------------------------------------------------------------ */

int gv_fleet_perf_run(const gv_fleet_cmd *cmd, const gv_device_plan *plan, int argc, char **argv,
                      const char *json_path, bool serial)
{
    char exe[PATH_MAX];
    int rc = gv_fleet_self_exe(exe, sizeof exe);
    if (rc >= 0) return rc;
    gv_fleet_runs *runs =
        gv_fleet_spawn(exe, cmd, plan, argc, argv, json_path, serial, gv_fleet_load_any);
    if (!runs) return GV_EXIT_RUNTIME;
    json_t *fleet = NULL;
    rc = runs->n > 0 ? gv_fleet_perf_merge(runs->docs, runs->names, runs->n, stdout,
                                           json_path ? &fleet : NULL, NULL)
                     : GV_EXIT_RUNTIME;
    return gv_fleet_finish(runs, rc, fleet, json_path);
}
