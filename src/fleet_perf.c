/* fleet_perf.c: bench and tradeoffs on several GPUs (fleet_perf.h) — which of their options a
 * worker gets, --device for them, the runs `gpuval merge` reads, the device texts both merges
 * print, and `CMD --device LIST`: the workers (fleet_cmd.c) then the merge
 * (fleet_perf_merge.c). */
#include "fleet_perf.h"

#include <math.h>
#include <string.h>

#include "bench_json.h" /* gv_jnum, gv_jstr, GV_BENCH_SCHEMA */
#include "cli.h"
#include "isolate.h" /* gv_isolated_device_count */
#include "outfile.h" /* gv_write_file */
#include "report.h"  /* GV_SCHEMA */
#include "trade_report.h"

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

/* ---- reading runs ----------------------------------------------------------------------- */

int gv_fleet_load_any(const char *path, json_t **doc, char *err, size_t len)
{
    json_error_t jerr;
    *doc = json_load_file(path, 0, &jerr);
    if (!*doc) {
        snprintf(err, len, "%s: %s (line %d, column %d)", path, jerr.text, jerr.line, jerr.column);
        return GV_EINVAL;
    }
    const char *schema = json_string_value(json_object_get(*doc, "schema"));
    const char *array = !schema                                ? NULL
                        : strcmp(schema, GV_SCHEMA) == 0       ? "cases"
                        : strcmp(schema, GV_BENCH_SCHEMA) == 0 ? "cases"
                        : strcmp(schema, GV_TRADE_SCHEMA) == 0 ? "groups"
                                                               : NULL;
    if (!array || !json_is_array(json_object_get(*doc, array))) {
        if (array)
            snprintf(err, len, "%s: a %s document without its \"%s\" array", path, schema, array);
        else
            snprintf(err, len,
                     "%s is not a %s, %s or %s document (check, bench or tradeoffs --json)", path,
                     GV_SCHEMA, GV_BENCH_SCHEMA, GV_TRADE_SCHEMA);
        json_decref(*doc);
        *doc = NULL;
        return GV_EINVAL;
    }
    return GV_OK;
}

static int jint(const json_t *o, const char *path, int missing)
{
    double v = gv_jnum(o, path);
    return isfinite(v) ? (int)v : missing;
}

void gv_fleet_link_text(const json_t *doc, char *buf, size_t len)
{
    int gen = jint(doc, "fleet.pcie.gen", 0), width = jint(doc, "fleet.pcie.width", 0);
    int gmax = jint(doc, "fleet.pcie.gen_max", 0), wmax = jint(doc, "fleet.pcie.width_max", 0);
    if (!width) {
        snprintf(buf, len, "-");
        return;
    }
    snprintf(buf, len, "Gen%d x%d%s", gen, width,
             (gmax && gen < gmax) || (wmax && width < wmax) ? " (below max)" : "");
}

void gv_fleet_clock_text(const json_t *doc, char *buf, size_t len)
{
    int cur = jint(doc, "fleet.sm_clock_mhz", 0), max = jint(doc, "fleet.sm_clock_max_mhz", 0);
    if (cur && max)
        snprintf(buf, len, "%d/%d", cur, max);
    else if (cur)
        snprintf(buf, len, "%d", cur);
    else
        snprintf(buf, len, "-");
}

void gv_fleet_model_text(const json_t *doc, char *buf, size_t len)
{
    const json_t *dev = json_object_get(doc, "device");
    if (json_is_object(dev))
        snprintf(buf, len, "%s, cc %d.%d, %d SMs, driver %d, runtime %d, cuBLAS %d",
                 gv_jstr(dev, "name"), jint(dev, "cc_major", 0), jint(dev, "cc_minor", 0),
                 jint(dev, "sm_count", 0), jint(dev, "driver_version", 0),
                 jint(dev, "runtime_version", 0), jint(dev, "cublas_version", 0));
    else
        snprintf(buf, len, "no device");
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
