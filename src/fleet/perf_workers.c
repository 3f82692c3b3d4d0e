/* perf_workers.c: bench and tradeoffs on several GPUs (perf_workers.h) — --device for them and
 * `CMD --device LIST`: the workers (workers.c, their command lines from the command's option
 * table) then the merge (runs/merge_perf.c). */
#include "fleet/perf_workers.h"

#include <math.h>
#include <string.h>

#include "bench/bench_json.h" /* gv_jnum, gv_jstr */
#include "core/gv.h"
#include "io/outfile.h"
#include "core/runner.h" /* gv_isolated_device_count */
#include "io/outfile.h"  /* gv_write_file */
#include "io/run_doc.h"
#include "bench/trade_report.h"

int gv_device_plan_perf(const char *spec, gv_device_plan *plan)
{
    bool several = spec && (strchr(spec, ',') || strcmp(spec, "all") == 0);
    return gv_device_plan_make(spec, plan, several ? gv_isolated_device_count : gk_device_count);
}

/* ---- CMD --device LIST ------------------------------------------------------------------ */

int gv_fleet_perf_run(const gv_opt_table *cmd, const gv_device_plan *plan, int argc, char **argv,
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
