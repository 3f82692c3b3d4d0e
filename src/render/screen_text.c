/* screen_text.c: `gpuval screen`'s verdict printed (screen_text.h): the Prometheus textfile and
 * the terminal's summary. */
#include "render/screen_text.h"

#include <time.h>

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
