/* screen_out.c: what `gpuval screen` hands to the machinery around a node (screen_out.h): the one
 * drain-reason line (Slurm's scontrol, a cordon's annotation), the Kubernetes node condition and
 * the node's screen document; the Prometheus textfile and the terminal's summary are printed by
 * render/screen_text.c. All are made from one gv_screen_verdict, so they cannot say different
 * things about a GPU. */
#include "fleet/screen_out.h"

#include <string.h>
#include <time.h>

#include "core/gv.h"
#include "io/json_util.h"
#include "io/schemas.h"

/* The first failure of GPU g, or NULL. */
static const gv_screen_failure *first_failure(const gv_screen_verdict *v, int g)
{
    for (int i = 0; i < v->n_failures; i++)
        if (v->failures[i].gpu == g) return &v->failures[i];
    return NULL;
}

/* The short reason of a failure for the drain line, by the first of its judgements in the order
   a reader should look at them: the case's own verdict, the golden file, the other GPUs. */
static const char *short_reason(const gv_screen_failure *f)
{
    if (f->by & GV_SCREEN_BY_CHECK) return f->why; /* the models' own reason, with numbers */
    if (f->by & GV_SCREEN_BY_GOLDEN) return "digest differs from golden";
    if (f->by & GV_SCREEN_BY_FLEET)
        return strstr(f->why, "undecided") ? "digest differs from the other GPU's, undecided "
                                             "(both named: a golden file or a third GPU decides)"
                                           : "digest differs from the other GPUs'";
    return f->why;
}

/* "GPU 3 (UUID)" or "GPU 3" */
static void gpu_name(const gv_screen_gpu *gpu, char *buf, size_t len)
{
    if (gpu->uuid[0])
        snprintf(buf, len, "GPU %d (%s)", gpu->index, gpu->uuid);
    else
        snprintf(buf, len, "GPU %d", gpu->index);
}

/* "gemm.cublas f32 tf32" from "gemm.cublas f32 tf32 uniform11 1024x1024x1024": the case as an
   operator reads it (the size is in the document) */
static void short_label(const char *label, char *buf, size_t len)
{
    snprintf(buf, len, "%s", label);
    char *p = buf;
    for (int spaces = 0; *p; p++)
        if (*p == ' ' && ++spaces == 3) {
            *p = '\0';
            break;
        }
}

void gv_screen_drain_line(const gv_screen_verdict *v, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "gpuval screen: ");
    int failed = 0, lost = 0;
    for (int g = 0; g < v->n; g++) {
        const gv_screen_gpu *gpu = &v->gpus[g];
        char who[128], what[192], line[1024];
        gpu_name(gpu, who, sizeof who);
        if (gpu->lost) {
            lost++;
            continue;
        }
        if (gpu->ok) continue;
        const gv_screen_failure *f = first_failure(v, g);
        if (!f)
            snprintf(line, sizeof line, "%s failed: no case judged", who);
        else {
            short_label(f->label, what, sizeof what);
            if (f->unit >= 0)
                snprintf(line, sizeof line, "%s failed %s (%s): %s", who, what,
                         gv_screen_unit_label(f->unit), short_reason(f));
            else
                snprintf(line, sizeof line, "%s failed %s: %s", who, what, short_reason(f));
        }
        if (gpu->n_failures > 1) {
            size_t l = strlen(line);
            snprintf(line + l, sizeof line - l, " (+%d more)", gpu->n_failures - 1);
        }
        if (at < len) at += (size_t)snprintf(buf + at, len - at, "%s%s", failed ? "; " : "", line);
        failed++;
    }
    if (lost && at < len) {
        at += (size_t)snprintf(buf + at, len - at,
                               "%s%d GPU%s not judged (its worker left no "
                               "run):",
                               failed ? "; " : "", lost, lost == 1 ? "" : "s");
        for (int g = 0; g < v->n && at < len; g++)
            if (v->gpus[g].lost)
                at += (size_t)snprintf(buf + at, len - at, " %d", v->gpus[g].index);
    }
    if (!failed && !lost && at < len)
        snprintf(buf + at, len - at, "%s passed on %d GPU%s in %.1f s", v->tier->version, v->n,
                 v->n == 1 ? "" : "s", v->seconds);
    /* one line, whatever a reason held */
    for (char *p = buf; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

json_t *gv_screen_k8s_condition(const gv_screen_verdict *v)
{
    char line[2048], now[64];
    gv_screen_drain_line(v, line, sizeof line);
    gv_json_now(now, sizeof now);
    const char *status = v->status == GV_ST_FAIL ? "True"
                         : v->status == GV_ST_OK ? "False"
                                                 : "Unknown";
    const char *reason = v->status == GV_ST_FAIL ? "GpuFailedScreen"
                         : v->status == GV_ST_OK ? "GpusPassedScreen"
                                                 : "ScreenIncomplete";
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", "GpuvalScreen", "status", status,
                     "reason", reason, "message", line, "lastProbeTime", now, "lastTransitionTime",
                     now);
}

json_t *gv_screen_doc(const gv_screen_verdict *v, const char *const *run_files)
{
    char line[2048], now[64], by[64];
    gv_screen_drain_line(v, line, sizeof line);
    json_t *gpus = json_array();
    for (int g = 0; g < v->n; g++) {
        const gv_screen_gpu *gpu = &v->gpus[g];
        static const char *const golden[] = {"not asked", "no entry", "compared"};
        json_t *units = json_object(), *fails = json_array();
        for (int u = 0; u < GV_SCREEN_NUNITS; u++)
            json_object_set_new(units, gv_screen_unit_label(u),
                                json_integer(gpu->unit_failures[u]));
        for (int i = 0; i < v->n_failures; i++) {
            const gv_screen_failure *f = &v->failures[i];
            if (f->gpu != g) continue;
            json_array_append_new(
                fails, json_pack("{s:s, s:s, s:s, s:s}", "case", f->label, "unit",
                                 f->unit >= 0 ? gv_screen_unit_label(f->unit) : "-", "judgements",
                                 gv_screen_by_text(f->by, by, sizeof by), "why", f->why));
        }
        json_array_append_new(
            gpus,
            json_pack("{s:i, s:s, s:s, s:s, s:o, s:b, s:b, s:f, s:{s:i, s:i, s:i, s:i, s:i}, "
                      "s:{s:s, s:i, s:i, s:i}, s:o, s:o}",
                      "index", gpu->index, "uuid", gpu->uuid, "name", gpu->name, "key", gpu->key,
                      "run", run_files && run_files[g] ? json_string(run_files[g]) : json_null(),
                      "ok", gpu->ok, "lost", gpu->lost, "seconds", gpu->seconds, "cases", "total",
                      gpu->cases, "passed", gpu->passed, "failed", gpu->failed, "skipped",
                      gpu->skipped, "errors", gpu->errors, "golden", "state", golden[gpu->golden],
                      "matched", gpu->golden_matched, "differ", gpu->golden_differ, "missing",
                      gpu->golden_missing, "unit_failures", units, "failures", fails));
        json_t *perf = json_object();
        for (int i = 0; i < GV_SCREEN_NPERF; i++)
            if (gpu->perf[i] > 0)
                json_object_set_new(perf, gv_screen_perf_key(i), json_real(gpu->perf[i]));
        json_object_set_new(json_array_get(gpus, json_array_size(gpus) - 1), "perf", perf);
    }
    json_t *notes = json_array();
    for (int i = 0; i < v->n_notes; i++)
        json_array_append_new(notes, json_string(v->notes[i]));
    return json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:s, s:o, s:o}", "schema",
                     gv_schema(GV_DOC_SCREEN), "created", gv_json_now(now, sizeof now), "tier",
                     v->tier->version, "budget_s", v->tier->budget_s, "seconds", v->seconds,
                     "exit_code", v->exit_code, "drain_line", line, "gpus", gpus, "notes", notes);
}
