/* screen_out.c: what `gpuval screen` hands to the machinery around a node (screen_out.h): the one
 * drain-reason line (Slurm's scontrol, a cordon's annotation), the Prometheus textfile for
 * node_exporter's textfile collector, the Kubernetes node condition, the node's screen document
 * and the terminal's summary. All are written from one gv_screen_verdict, so they cannot say
 * different things about a GPU. */
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

/* A Prometheus label value: backslash, double quote and newline escaped. */
static void prom_str(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fprintf(f, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
}

static void prom_labels(FILE *f, const gv_screen_verdict *v, const gv_screen_gpu *gpu)
{
    fprintf(f, "{gpu=\"%d\",uuid=\"", gpu->index);
    prom_str(f, gpu->uuid);
    fputs("\",model=\"", f);
    prom_str(f, gpu->name);
    fputs("\",tier=\"", f);
    prom_str(f, v->tier->version);
    fputs("\"", f);
}

int gv_screen_write_prom(FILE *f, const gv_screen_verdict *v)
{
    fputs("# HELP gpuval_screen_ok 1 when the GPU passed every judgement of gpuval screen, 0 when "
          "it failed one or was not judged\n# TYPE gpuval_screen_ok gauge\n",
          f);
    for (int g = 0; g < v->n; g++) {
        fputs("gpuval_screen_ok", f);
        prom_labels(f, v, &v->gpus[g]);
        fprintf(f, "} %d\n", v->gpus[g].ok ? 1 : 0);
    }
    fputs("# HELP gpuval_screen_failures cases of the tier that failed on the GPU, per unit\n"
          "# TYPE gpuval_screen_failures gauge\n",
          f);
    for (int g = 0; g < v->n; g++)
        for (int u = 0; u < GV_SCREEN_NUNITS; u++) {
            fputs("gpuval_screen_failures", f);
            prom_labels(f, v, &v->gpus[g]);
            fprintf(f, ",unit=\"%s\"} %d\n", gv_screen_unit_label(u), v->gpus[g].unit_failures[u]);
        }
    fputs("# HELP gpuval_screen_golden_differ deterministic cases whose digest differs from the "
          "golden file (-1: no golden entry for this GPU, driver and libraries, or no --golden)\n"
          "# TYPE gpuval_screen_golden_differ gauge\n",
          f);
    for (int g = 0; g < v->n; g++) {
        fputs("gpuval_screen_golden_differ", f);
        prom_labels(f, v, &v->gpus[g]);
        fprintf(f, "} %d\n",
                v->gpus[g].golden == GV_GOLDEN_COMPARED ? v->gpus[g].golden_differ : -1);
    }
    fputs("# HELP gpuval_screen_seconds wall time of the GPU's screen\n"
          "# TYPE gpuval_screen_seconds gauge\n",
          f);
    for (int g = 0; g < v->n; g++) {
        fputs("gpuval_screen_seconds", f);
        prom_labels(f, v, &v->gpus[g]);
        fprintf(f, "} %.3f\n", v->gpus[g].seconds);
    }
    fputs("# HELP gpuval_screen_speed the GPU's timed copy (GB/s) and f32/f64 products (TFLOP/s), "
          "as screen judges its speed\n# TYPE gpuval_screen_speed gauge\n",
          f);
    for (int g = 0; g < v->n; g++)
        for (int i = 0; i < GV_SCREEN_NPERF; i++) {
            if (!(v->gpus[g].perf[i] > 0)) continue; /* not timed: no sample */
            fputs("gpuval_screen_speed", f);
            prom_labels(f, v, &v->gpus[g]);
            fprintf(f, ",speed=\"%s\"} %.4g\n", gv_screen_perf_key(i), v->gpus[g].perf[i]);
        }
    fprintf(f,
            "# HELP gpuval_screen_node_seconds wall time of the node's screen\n"
            "# TYPE gpuval_screen_node_seconds gauge\ngpuval_screen_node_seconds{tier=\"%s\"} "
            "%.3f\n",
            v->tier->version, v->seconds);
    fprintf(f,
            "# HELP gpuval_screen_exit_code gpuval screen's exit code (0 healthy, 1 a GPU "
            "failed, 3 a GPU not judged)\n# TYPE gpuval_screen_exit_code gauge\n"
            "gpuval_screen_exit_code{tier=\"%s\"} %d\n",
            v->tier->version, v->exit_code);
    fprintf(f,
            "# HELP gpuval_screen_last_run_timestamp_seconds when the screen ended (Unix time)\n"
            "# TYPE gpuval_screen_last_run_timestamp_seconds gauge\n"
            "gpuval_screen_last_run_timestamp_seconds %lld\n",
            (long long)time(NULL));
    return ferror(f) ? -1 : 0;
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

void gv_screen_print(FILE *f, const gv_screen_verdict *v)
{
    char by[64];
    fprintf(f, "\nscreen %s: %d GPU%s\n", v->tier->version, v->n, v->n == 1 ? "" : "s");
    fprintf(f, "%-4s %-40s %-28s %6s %6s %7s  %-16s %s\n", "gpu", "uuid", "model", "cases",
            "failed", "seconds", "golden", "verdict");
    for (int g = 0; g < v->n; g++) {
        const gv_screen_gpu *gpu = &v->gpus[g];
        char golden[32];
        if (gpu->golden == GV_GOLDEN_COMPARED)
            snprintf(golden, sizeof golden, "%d/%d match", gpu->golden_matched,
                     gpu->golden_matched + gpu->golden_differ);
        else
            snprintf(golden, sizeof golden, "%s",
                     gpu->golden == GV_GOLDEN_NO_ENTRY ? "no entry" : "-");
        fprintf(f, "%-4d %-40.40s %-28.28s %6d %6d %7.1f  %-16s %s\n", gpu->index,
                gpu->uuid[0] ? gpu->uuid : "-", gpu->name, gpu->cases, gpu->n_failures,
                gpu->seconds, golden,
                gpu->lost ? "NOT JUDGED"
                : gpu->ok ? "ok"
                          : "FAILED");
    }
    for (int i = 0; i < v->n_failures; i++) {
        const gv_screen_failure *fl = &v->failures[i];
        fprintf(f, "  GPU %d %s [%s] %s: %s\n", v->gpus[fl->gpu].index, fl->label,
                fl->unit >= 0 ? gv_screen_unit_label(fl->unit) : "-",
                gv_screen_by_text(fl->by, by, sizeof by), fl->why);
    }
    for (int i = 0; i < v->n_notes; i++)
        fprintf(f, "note: %s\n", v->notes[i]);
    if (v->tier->budget_s > 0 && v->seconds > v->tier->budget_s)
        fprintf(f, "Warn: the screen took %.1f s, over %s's time box of %.0f s\n", v->seconds,
                v->tier->version, v->tier->budget_s);
}
