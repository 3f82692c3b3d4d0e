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

bool gv_device_plan_perf(const char *spec, gv_device_plan *plan, gv_error *e)
{
    bool several = spec && (strchr(spec, ',') || strcmp(spec, "all") == 0);
    return gv_device_plan_make(spec, plan, several ? gv_isolated_device_count : gk_device_count, e);
}

/* ---- CMD --device LIST ------------------------------------------------------------------ */

gv_status gv_fleet_perf_run(const gv_opt_table *cmd, const gv_device_plan *plan, int argc,
                            char **argv, const char *json_path, bool serial,
                            const gv_fleet_printer *pr, gv_fleet_end *end, gv_error *e)
{
    char exe[PATH_MAX];
    memset(end, 0, sizeof *end);
    e->msg[0] = '\0';
    if (!gv_fleet_self_exe(exe, sizeof exe, e)) return e->status;
    end->runs =
        gv_fleet_spawn(exe, cmd, plan, argc, argv, json_path, serial, gv_fleet_load_any, pr, e);
    if (!end->runs) return e->status;
    end->status = end->runs->n > 0
                      ? gv_fleet_perf_merge(end->runs->docs, end->runs->names, end->runs->n,
                                            &end->perf_merged, json_path ? &end->fleet : NULL, e)
                      : GV_ST_RUNTIME;
    return end->status;
}
