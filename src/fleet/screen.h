/* screen.h: the judgements of `gpuval screen` over the run documents its workers wrote, one per
 * GPU of a node (screen_judge.c), the golden digest file (screen_golden.c) and what operators
 * wire up: the drain-reason line, the Prometheus textfile, the Kubernetes node condition and the
 * node's screen document (screen_out.c). Everything here reads and writes documents only, so the
 * tests judge synthetic runs on a machine without a GPU. */
#ifndef GV_SCREEN_H
#define GV_SCREEN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "fleet/screen_tiers.h"
#include "runs/run_files.h" /* GV_FLEET_MAX_DEVICES */

/* The three judgements, as bits of a failure's `by`. */
enum {
    GV_SCREEN_BY_CHECK = 1,  /* the case's own verdict: oracle and error models, as check */
    GV_SCREEN_BY_GOLDEN = 2, /* the output digest differs from the golden file's */
    GV_SCREEN_BY_FLEET = 4,  /* the output digest differs from the other GPUs' of its model */
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
    char uuid[80];    /* device.uuid, or "" */
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
    bool ok;                             /* judged, and no case failed any judgement */
} gv_screen_gpu;

typedef struct gv_screen_verdict {
    const gv_screen_tier *tier;
    int n;
    gv_screen_gpu gpus[GV_FLEET_MAX_DEVICES];
    gv_screen_failure *failures;
    int n_failures, cap;
    char notes[16][320]; /* what the judgements could not decide or compare, for the reader */
    int n_notes;
    double seconds; /* the node's wall time, set by the caller */
    int exit_code;  /* 0 healthy, 1 a GPU failed, 3 a GPU's run was lost and none failed */
} gv_screen_verdict;

/* Judge n run documents of tier (docs[i] NULL: that GPU's worker left no run; names[i] its file)
 * by the three judgements: each case's verdict (FAIL or ERROR fails its GPU), golden (may be
 * NULL: not asked) compared per GPU with the entry of its key, and the GPUs compared with each
 * other as gpuval merge compares them (gv_fleet_merge; its table goes to merge_out, NULL for
 * none). Fills *v (free with gv_screen_verdict_free) and returns v->exit_code. */
int gv_screen_judge(const gv_screen_tier *tier, json_t *const *docs, const char *const *names,
                    int n, const json_t *golden, FILE *merge_out, gv_screen_verdict *v);
void gv_screen_verdict_free(gv_screen_verdict *v);

/* ---- the golden file (screen_golden.c) ----------------------------------------------------- */

/* A run's golden key ("NVIDIA H100 80GB HBM3, driver 13000, runtime 13000, cuBLAS 130100") into
 * buf: false when the run has no device or lacks one of the four. */
bool gv_screen_golden_key(const json_t *run, char *buf, size_t len);

/* Read a golden file (gpuval-golden/1), strictly: GV_OK, or a message in err naming the file and
 * what is wrong (unreadable, not JSON, another schema, a member that is not the format's, an entry
 * without its four key fields, two entries of one key, a digest that is not 0x and 16 hex digits).
 */
int gv_screen_golden_read(const char *path, json_t **golden, char *err, size_t len);
/* The same checks on a document already parsed (name: for messages). */
int gv_screen_golden_validate(const json_t *golden, const char *name, char *err, size_t len);

/* The entry of key in golden, or NULL. */
const json_t *gv_screen_golden_entry(const json_t *golden, const char *key);

/* A golden document with the digests of the n runs' deterministic cases that ran (PASS or FAIL
 * with a digest), one entry per key: prev's entries (may be NULL) kept, except that a key of
 * these runs gets its digests replaced or added. The GPUs of one key must agree on each digest:
 * when they do not, NULL and a message in err (the caller records only a healthy node). */
json_t *gv_screen_golden_record(const json_t *prev, json_t *const *docs, int n, char *err,
                                size_t len);

/* ---- outputs (screen_out.c) --------------------------------------------------------------- */

/* The one line a scheduler takes as the drain reason: "gpuval screen: GPU 3 (UUID) failed
 * gemm.cublas f32 tf32 (tensor-cores): digest differs from golden" (each failed GPU's first
 * failure, "; " between GPUs), or "gpuval screen: prolog/1 passed on 8 GPUs in 31.2 s". */
void gv_screen_drain_line(const gv_screen_verdict *v, char *buf, size_t len);

/* The Prometheus textfile (node_exporter's textfile collector) of v to f: 0, or -1. */
int gv_screen_write_prom(FILE *f, const gv_screen_verdict *v);

/* The Kubernetes node condition of v: {"type": "GpuvalScreen", "status": "True" when a GPU
 * failed (a problem condition, as node-problem-detector's), "False" when every GPU passed,
 * "Unknown" when a run was lost, "reason", "message" (the drain line), "lastProbeTime",
 * "lastTransitionTime"}. */
json_t *gv_screen_k8s_condition(const gv_screen_verdict *v);

/* The node's screen document (gpuval-screen/1): tier, exit code, drain line, each GPU with its
 * judgements and failures, the notes. run_files[i]: GPU i's run document file, or NULL. */
json_t *gv_screen_doc(const gv_screen_verdict *v, const char *const *run_files);

/* The verdict as the terminal shows it: one line per GPU, then each failure and note. */
void gv_screen_print(FILE *f, const gv_screen_verdict *v);

#endif
