/* workers.h: running on every GPU of a node (workers.c) — `--device`, the launcher's rank for
 * runs started by srun or mpirun, and the per-device worker processes of `check`, `bench` and
 * `tradeoffs --device LIST` (the latter two merged in perf_workers.c): each worker's command
 * line rebuilt from the command's option table (fleet/options.h), its spawn, its output and its
 * run. */
#ifndef GV_FLEET_CMD_H
#define GV_FLEET_CMD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/gv.h" /* gv_status, gv_error */
#include "fleet/options.h"
#include "io/run_info.h"
#include "runs/run_files.h" /* GV_FLEET_MAX_DEVICES */

typedef struct gv_device_plan {
    int n; /* 0: the default device; 1: index[0]; > 1: one worker each */
    int index[GV_FLEET_MAX_DEVICES];
    gv_rank rank; /* the launcher's (rank.launcher NULL: not a rank) */
    double time_box_s; /* > 0: a worker still running this long after the start is killed and
                          its device left without a run (screen's hard time box); 0: none */
} gv_device_plan;

/* Parse --device SPEC ("N", "N,M,...", "all"; NULL when not given) and the launcher's
 * variables, and make the device current when one is chosen (an explicit single N, or a
 * rank's local rank). Returns true to go on; false with e filled: BAD_INPUT for a malformed
 * SPEC, a repeated index or a device that is not there ("device 3 requested, 2 present"),
 * NODEV for "all" with no device, RUNTIME when the device cannot be selected. */
bool gv_device_plan_make(const char *spec, gv_device_plan *plan, int (*count_devices)(void),
                         gv_error *e);

/* The output path of this process into *path: itself, or per rank (gv_rank_path, in buf) when
 * launched as a rank; NULL stays NULL. False (BAD_INPUT, *path NULL) when the per-rank path
 * does not fit. */
bool gv_device_plan_path(const gv_device_plan *plan, const char **path, char *buf, size_t len,
                         gv_error *e);

/* The printers of the workers' own lines (render/fleet_text.c's gv_fleet_text_printer, which the
 * command passes): the line that starts them, each worker's captured output after all ended, and
 * a device that left no run. */
typedef struct gv_fleet_printer {
    void (*banner)(const char *cmd, const gv_device_plan *plan, bool serial);
    /* device's header line (its worker's exit code), then its stdout (out_path) and its stderr
       (err_path) as the worker wrote them */
    void (*worker)(int device, int exit_code, const char *out_path, const char *err_path);
    /* killed: its worker ran past the plan's time box; else err says why no run was read */
    void (*no_run)(int device, bool killed, double time_box_s, const char *err);
} gv_fleet_printer;

/* The workers' runs, their merge's view and status, between the merge and gv_fleet_finish (the
 * command records its exit code in the view's summary in between). */
struct gv_fleet_runs;
typedef struct gv_fleet_end {
    struct gv_fleet_runs *runs;
    json_t *fleet; /* the merge's document (NULL: none asked for, or no merge) */
    gv_status status;
    /* check's merge (NULL: none), for the command to print (render/merge_text.h), its case
       table quiet or not */
    struct gv_fleet_merged *merged;
    int quiet;
    struct gv_perf_merged *perf_merged; /* bench's or tradeoffs' merge (NULL: none), the same */
} gv_fleet_end;

/* `check --device LIST`: the same check (argv less check's parent-only options: --device,
 * --json, --save, --baseline, --force) once per device of the plan, in parallel, each a child
 * gpuval with --device i and --json to its own file (beside json_path as NAME.devI.json when
 * given, else in a temporary directory), its output captured and printed after it ends; then the
 * runs merged (gv_fleet_merge) into *end. NCCL_NVLS_ENABLE=0 is set for the children. cmd:
 * check's option table. Returns the merge's status (RUNTIME when no worker left a run; e says
 * why when the workers could not start); then gv_fleet_finish writes the fleet document to
 * json_path. */
gv_status gv_fleet_check(const gv_opt_table *cmd, const gv_device_plan *plan, int argc, char **argv,
                         const char *json_path, int quiet, const gv_fleet_printer *pr,
                         gv_fleet_end *end, gv_error *e);

/* gv_fleet_check with the gpuval binary named: exe is re-executed once per device of the plan
 * (gv_fleet_check passes /proc/self/exe; the tests pass the built binary). */
gv_status gv_fleet_run_workers(const char *exe, const gv_opt_table *cmd, const gv_device_plan *plan,
                               int argc, char **argv, const char *json_path, int quiet,
                               const gv_fleet_printer *pr, gv_fleet_end *end, gv_error *e);

/* A worker's command line: exe CMD, the parent's options (argv[1..argc)) less cmd's parent-only
 * ones (a per_device option's VALUE given as VALUE/devN), read as getopt_long reads them with cmd's
 * table (--name VALUE, --name=VALUE, unique prefixes; a short option is a flag), then --device
 * device --json json. NULL-terminated; free it with gv_fleet_worker_argv_free. NULL on no memory.
 */
char **gv_fleet_worker_argv(const gv_opt_table *cmd, const char *exe, int argc, char **argv,
                            int device, const char *json);
void gv_fleet_worker_argv_free(char **w);

/* The runs the workers left, loaded (n of them; names: their files). lost: a worker left no
 * run, or its files could not be placed. */
typedef struct gv_fleet_runs {
    int n;
    json_t *docs[GV_FLEET_MAX_DEVICES];
    const char *names[GV_FLEET_MAX_DEVICES];
    char paths[GV_FLEET_MAX_DEVICES][PATH_MAX];
    bool lost;
} gv_fleet_runs;

/* One worker process of exe per device of the plan, each `exe CMD ... --device i --json F`
 * (F: NAME.devI.json beside json_path when given, else in a temporary directory and removed
 * after loading), in parallel, or one after another with serial; each worker's output is
 * captured and printed through pr after all have ended, then its run read with load (a worker
 * that left none is said through pr in its place, and runs->lost set). NCCL_NVLS_ENABLE=0 is set
 * for the children. NULL on no memory (e says so); a run lost before any worker started leaves e's
 * reason too. Free with gv_fleet_runs_free. */
gv_fleet_runs *gv_fleet_spawn(const char *exe, const gv_opt_table *cmd, const gv_device_plan *plan,
                              int argc, char **argv, const char *json_path, bool serial,
                              int (*load)(const char *path, json_t **doc, char *err, size_t len),
                              const gv_fleet_printer *pr, gv_error *e);
void gv_fleet_runs_free(gv_fleet_runs *runs);
/* The end of a --device LIST run, whichever merge made it: end->fleet (may be NULL) written to
 * json_path when one is named, fleet and runs freed (*end zeroed), and a run lost or a file not
 * written (e says why) turning a passing status (OK, OUTLIER) into RUNTIME. Returns the
 * final status. */
gv_status gv_fleet_finish(gv_fleet_end *end, const char *json_path, gv_error *e);

/* This program's path (/proc/self/exe) into exe: true to go on, else false with e (RUNTIME). */
bool gv_fleet_self_exe(char *exe, size_t len, gv_error *e);

#endif
