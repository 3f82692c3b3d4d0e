/* screen_judge.h: the judgements of `gpuval screen` over the run documents its workers wrote, one
 * per GPU of a node (screen_judge.c); the golden digest file is screen_golden.h's, what operators
 * wire up (drain line, Prometheus textfile, Kubernetes condition, the node's document)
 * screen_out.h's. Everything here reads documents only, so the tests judge synthetic runs on a
 * machine without a GPU. */
#ifndef GV_SCREEN_JUDGE_H
#define GV_SCREEN_JUDGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "fleet/screen_health.h"
#include "fleet/screen_tiers.h"
#include "runs/run_files.h" /* GV_FLEET_MAX_DEVICES */

/* The three judgements, as bits of a failure's `by`. */
enum {
    GV_SCREEN_BY_CHECK = 1,  /* the case's own verdict: oracle and error models, as check */
    GV_SCREEN_BY_GOLDEN = 2, /* the output digest differs from the golden file's */
    GV_SCREEN_BY_FLEET = 4,  /* the output digest differs from the other GPUs' of its model */
    GV_SCREEN_BY_HEALTH = 8, /* the board's own account (NVML) */
    GV_SCREEN_BY_PERF = 16,  /* slower than its peers or its golden speed */
};
/* "check", "golden", "fleet" or "check+golden"... into buf */
const char *gv_screen_by_text(int by, char *buf, size_t len);

/* One case that failed on one GPU: every judgement that failed it, and the first one's reason. */
typedef struct gv_screen_failure {
    int gpu;         /* index into gv_screen_verdict.gpus */
    int unit;        /* gv_screen_unit, -1 for a case not of the tier */
    int by;          /* GV_SCREEN_BY_* bits */
    char label[192]; /* "gemm.cublas f32 tf32 uniform11 1024x1024x1024" */
    char why[512];   /* "digest 0x... differs from golden 0x..." */
} gv_screen_failure;

/* What the golden judgement could do for a GPU. */
typedef enum {
    GV_GOLDEN_NOT_ASKED = 0, /* no --golden */
    GV_GOLDEN_NO_ENTRY,      /* the file has no entry for its model, driver and libraries */
    GV_GOLDEN_COMPARED,
} gv_golden_state;

typedef struct gv_screen_gpu {
    int index;        /* the device index the run recorded (fleet.device_index); -1: unknown */
    char uuid[80];    /* "GPU-" and device.uuid, as nvidia-smi -L shows it; or "" */
    char name[128];   /* device.name, or "no device" */
    char key[320];    /* its golden key, "NAME, driver D, runtime R, cuBLAS C" */
    const char *file; /* its run file, for messages */
    bool lost;        /* its worker left no run: not judged */
    double seconds;   /* the worker's wall time (screen.seconds), 0 when not recorded */
    int cases, passed, failed, skipped, errors;
    gv_golden_state golden;
    int golden_matched, golden_differ, golden_missing;
    int unit_failures[GV_SCREEN_NUNITS]; /* failing cases per unit */
    int n_failures;                      /* failing cases, all units */
    double perf[GV_SCREEN_NPERF];        /* its timed speeds (screen_health.h); 0: not timed */
    bool ok;                             /* judged, and no case failed any judgement */
} gv_screen_gpu;

typedef struct gv_screen_verdict {
    const gv_screen_tier *tier;
    int n;
    gv_screen_gpu gpus[GV_FLEET_MAX_DEVICES];
    gv_screen_failure *failures;
    int n_failures, cap;
    struct gv_fleet_merged *merged; /* the GPUs' merge when kept (gv_screen_judge), else NULL */
    char notes[16][320]; /* what the judgements could not decide or compare, for the reader */
    int n_notes;
    double seconds;   /* the node's wall time, set by the caller */
    gv_status status; /* OK healthy, FAIL a GPU failed, RUNTIME a GPU's run was lost and none
                         failed */
    int exit_code;    /* the command's exit code for status, set by the caller (the documents
                         and metrics record it) */
} gv_screen_verdict;

/* Judge n run documents of tier (docs[i] NULL: that GPU's worker left no run; names[i] its file)
 * by the three judgements: each case's verdict (FAIL or ERROR fails its GPU), golden (may be
 * NULL: not asked) compared per GPU with the entry of its key, and the GPUs compared with each
 * other as gpuval merge compares them (gv_fleet_merge; with keep_merge the merge stays in
 * v->merged, for the command to print its table while the documents live). Fills *v (free with
 * gv_screen_verdict_free) and returns v->status. */
gv_status gv_screen_judge(const gv_screen_tier *tier, json_t *const *docs, const char *const *names,
                          int n, const json_t *golden, bool keep_merge, gv_screen_verdict *v);
void gv_screen_verdict_free(gv_screen_verdict *v);

#endif
