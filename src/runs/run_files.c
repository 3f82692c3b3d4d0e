/* run_files.c: run files read back (run_files.h) — loading a run of each schema gpuval writes,
 * with a message that names the file and what is wrong, and the texts the merges print of a
 * run's device. */
#include "runs/run_files.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench_json.h"
#include "bench/trade_report.h"
#include "core/gv.h"
#include "io/json_util.h"
#include "io/run_doc.h"
#include "io/run_read.h"

int gv_fleet_load(const char *path, json_t **doc, char *err, size_t len)
{
    /* the strict reader (io/run_read.h): missing, not a regular file, truncated, invalid JSON,
       another schema, or a member that breaks it, each named with the file */
    const char *const schemas[] = {gv_schema(GV_DOC_RUN), NULL};
    if (gv_run_read(path, schemas, doc, err, len) != GV_OK) return GV_EINVAL;
    const char *schema = json_string_value(json_object_get(*doc, "schema"));
    if (!schema || strcmp(schema, gv_schema(GV_DOC_RUN)) != 0 ||
        !json_is_array(json_object_get(*doc, "cases"))) {
        snprintf(err, len, "%s is not a %s run (check --json writes one)", path,
                 gv_schema(GV_DOC_RUN));
        json_decref(*doc);
        *doc = NULL;
        return GV_EINVAL;
    }
    return GV_OK;
}

int gv_fleet_load_any(const char *path, json_t **doc, char *err, size_t len)
{
    const char *const schemas[] = {gv_schema(GV_DOC_RUN), gv_schema(GV_DOC_BENCH),
                                   gv_schema(GV_DOC_TRADEOFFS), gv_schema(GV_DOC_PROBE), NULL};
    if (gv_run_read(path, schemas, doc, err, len) != GV_OK) return GV_EINVAL;
    const char *schema = json_string_value(json_object_get(*doc, "schema"));
    gv_doc_kind kind = gv_doc_kind_of(schema);
    const char *array = kind == GV_DOC_RUN || kind == GV_DOC_BENCH ? "cases"
                        : kind == GV_DOC_TRADEOFFS                 ? "groups"
                        : kind == GV_DOC_PROBE                     ? "rows"
                                                                   : NULL;
    if (!array || !json_is_array(json_object_get(*doc, array))) {
        if (array)
            snprintf(err, len, "%s: a %s document without its \"%s\" array", path, schema, array);
        else
            snprintf(err, len,
                     "%s is not a %s, %s, %s or %s document (check, bench, tradeoffs or "
                     "probe --json)",
                     path, gv_schema(GV_DOC_RUN), gv_schema(GV_DOC_BENCH),
                     gv_schema(GV_DOC_TRADEOFFS), gv_schema(GV_DOC_PROBE));
        json_decref(*doc);
        *doc = NULL;
        return GV_EINVAL;
    }
    return GV_OK;
}

void gv_fleet_link_text(const json_t *doc, char *buf, size_t len)
{
    int gen = gv_jint(doc, "fleet.pcie.gen", 0), width = gv_jint(doc, "fleet.pcie.width", 0);
    int gmax = gv_jint(doc, "fleet.pcie.gen_max", 0),
        wmax = gv_jint(doc, "fleet.pcie.width_max", 0);
    if (!width) {
        snprintf(buf, len, "-");
        return;
    }
    snprintf(buf, len, "Gen%d x%d%s", gen, width,
             (gmax && gen < gmax) || (wmax && width < wmax) ? " (below max)" : "");
}

void gv_fleet_clock_text(const json_t *doc, char *buf, size_t len)
{
    int cur = gv_jint(doc, "fleet.sm_clock_mhz", 0),
        max = gv_jint(doc, "fleet.sm_clock_max_mhz", 0);
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
                 gv_jstr(dev, "name"), gv_jint(dev, "cc_major", 0), gv_jint(dev, "cc_minor", 0),
                 gv_jint(dev, "sm_count", 0), gv_jint(dev, "driver_version", 0),
                 gv_jint(dev, "runtime_version", 0), gv_jint(dev, "cublas_version", 0));
    else
        snprintf(buf, len, "no device");
}

void gv_fleet_host_text(const json_t *doc, char *buf, size_t len)
{
    const char *host = gv_jstr(doc, "fleet.host");
    if (!host[0]) host = gv_jstr(doc, "host.hostname");
    snprintf(buf, len, "%s", host[0] ? host : "?");
}

void gv_fleet_device_label(const json_t *doc, int k, bool several_hosts, char *buf, size_t len)
{
    int index = gv_jint(doc, "fleet.device_index", -1), rank = gv_jint(doc, "fleet.rank", -1);
    char own[32];
    if (rank >= 0)
        snprintf(own, sizeof own, "rank%d", rank);
    else if (index >= 0)
        snprintf(own, sizeof own, "dev%d", index);
    else
        snprintf(own, sizeof own, "run%d", k);
    if (several_hosts) {
        char host[128];
        gv_fleet_host_text(doc, host, sizeof host);
        snprintf(buf, len, "%.60s:%s", host, own);
    } else {
        snprintf(buf, len, "%s", own);
    }
}
