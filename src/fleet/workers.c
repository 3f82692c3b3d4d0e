/* workers.c: --device, ranks, and the per-device workers of `check --device LIST` (workers.h);
 * perf_workers.c merges bench's and tradeoffs' through the same spawn. The workers are separate
 * processes of this same binary: each owns one CUDA context on one device, and a fault on one
 * GPU cannot take the others' results with it. Each computes its own CPU oracle (no oracle is
 * shared between processes). A worker's command line is the parent's, less the options the
 * command's table (fleet/options.h) marks as the parent's own. */
#include "fleet/workers.h"
#include "core/knobs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/gv.h"
#include "io/outfile.h"
#include "runs/merge_check.h"
#include "runs/merge_perf.h"
#include "runs/run_files.h"
#include "io/run_doc.h"

extern char **environ;

/* ---- --device and ranks ----------------------------------------------------------------- */

/* "N" (decimal, < 10^6) into *v; -1 on anything else. */
static int parse_device_index(const char *s, size_t len, int *v)
{
    if (len == 0 || len > 6) return -1;
    int x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return 0;
}

/* --device N,M,...: the whole list's syntax first, then whether the devices exist. */
static bool plan_list(const char *spec, gv_device_plan *plan, int (*count_devices)(void),
                      gv_error *e)
{
    const char *p = spec;
    while (1) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int v;
        if (parse_device_index(p, len, &v) != 0) {
            char shown[128];
            gv_err_set(e, GV_ST_BAD_INPUT, "--device takes N, N,M,... or all, not '%s'",
                       gv_printable(spec, shown, sizeof shown));
            return false;
        }
        for (int i = 0; i < plan->n; i++)
            if (plan->index[i] == v) {
                gv_err_set(e, GV_ST_BAD_INPUT, "--device names device %d twice", v);
                return false;
            }
        if (plan->n == GV_FLEET_MAX_DEVICES) {
            gv_err_set(e, GV_ST_BAD_INPUT, "--device names more than %d devices",
                       GV_FLEET_MAX_DEVICES);
            return false;
        }
        plan->index[plan->n++] = v;
        if (!comma) break;
        p = comma + 1;
    }
    int present = count_devices();
    for (int i = 0; i < plan->n; i++)
        if (plan->index[i] >= present) {
            gv_err_set(e, GV_ST_BAD_INPUT, "device %d requested, %d present", plan->index[i],
                       present);
            return false;
        }
    return true;
}

bool gv_device_plan_make(const char *spec, gv_device_plan *plan, int (*count_devices)(void),
                         gv_error *e)
{
    memset(plan, 0, sizeof *plan);
    char err[256];
    if (gv_rank_parse(gv_env, &plan->rank, err, sizeof err) < 0) {
        gv_err_set(e, GV_ST_BAD_INPUT, "launcher variables: %s", err);
        return false;
    }
    int present = 0; /* counted only once the spec's syntax is known good */
    if (!spec) {
        if (!plan->rank.launcher || (present = count_devices()) == 0) return true;
        int dev = gv_rank_device(&plan->rank, present, err, sizeof err);
        if (dev < 0) {
            gv_err_set(e, GV_ST_BAD_INPUT, "%s", err);
            return false;
        }
        plan->n = 1;
        plan->index[0] = dev;
    } else if (strcmp(spec, "all") == 0) {
        if ((present = count_devices()) == 0) {
            gv_err_set(e, GV_ST_NODEV, "--device all: no CUDA device");
            return false;
        }
        plan->n = present < GV_FLEET_MAX_DEVICES ? present : GV_FLEET_MAX_DEVICES;
        for (int i = 0; i < plan->n; i++)
            plan->index[i] = i;
    } else if (!plan_list(spec, plan, count_devices, e)) {
        return false;
    }
    if (plan->n > 1 && plan->rank.launcher) {
        gv_err_set(e, GV_ST_BAD_INPUT,
                   "launched as rank %d (%s): each rank runs on one device; --device takes N",
                   plan->rank.rank, plan->rank.launcher);
        return false;
    }
    if (plan->n == 1 && gk_device_select(plan->index[0]) != GV_OK) {
        gv_err_set(e, GV_ST_RUNTIME, "selecting device %d: %s", plan->index[0], gk_last_error());
        return false;
    }
    return true;
}

bool gv_device_plan_path(const gv_device_plan *plan, const char **path, char *buf, size_t len,
                         gv_error *e)
{
    if (!*path || !plan->rank.launcher) return true;
    if (!gv_rank_path(*path, plan->rank.rank, buf, len)) {
        gv_err_set(e, GV_ST_BAD_INPUT, "the per-rank path of '%s' is too long", *path);
        *path = NULL;
        return false;
    }
    *path = buf;
    return true;
}

/* ---- check --device LIST ---------------------------------------------------------------- */

/* The long option arg names ("--name" or "--name=value", name exact or a unique prefix, as
   getopt_long reads it) in cmd's table, or -1 for a short option (a flag: no table has a short
   option with a value), a positional argument or a prefix that is not unique (which the
   parent's getopt_long has refused already). */
static int which_option(const gv_opt_table *cmd, const char *arg)
{
    if (strncmp(arg, "--", 2) != 0 || !arg[2]) return -1;
    const char *name = arg + 2;
    size_t len = strcspn(name, "=");
    int found = -1;
    for (int k = 0; k < cmd->n; k++) {
        const char *o = cmd->opts[k].name;
        if (!o || strncmp(o, name, len) != 0) continue;
        if (strlen(o) == len) return k; /* exact */
        found = found == -1 ? k : -2;   /* prefix: must be unique */
    }
    return found < 0 ? -1 : found;
}

/* The worker's argv: exe CMD <the parent's options less its own> --device i --json path. */
char **gv_fleet_worker_argv(const gv_opt_table *cmd, const char *exe, int argc, char **argv,
                            int device, const char *json)
{
    /* one block: the pointers, the device index's digits, then the per-device values
       (VALUE/devN) */
    size_t n_ptrs = (size_t)argc + 8, extra = 0;
    for (int i = 1; i < argc; i++)
        extra += strlen(argv[i]) + 24;
    char **w = calloc(1, n_ptrs * sizeof *w + 16 + extra);
    if (!w) return NULL;
    char *dev = (char *)(w + n_ptrs), *more = dev + 16;
    snprintf(dev, 16, "%d", device);
    int n = 0;
    w[n++] = (char *)exe;
    w[n++] = (char *)cmd->cmd;
    for (int i = 1; i < argc; i++) {
        int k = which_option(cmd, argv[i]);
        bool separate_value = k >= 0 && cmd->opts[k].arg && !strchr(argv[i], '=');
        bool drop = k >= 0 && cmd->opts[k].parent_only;
        bool per_device = k >= 0 && cmd->opts[k].per_device && cmd->opts[k].arg;
        if (!drop && per_device && !separate_value) { /* --name=VALUE */
            w[n++] = more;
            more += sprintf(more, "%s/dev%d", argv[i], device) + 1;
        } else if (!drop)
            w[n++] = argv[i];
        if (separate_value && i + 1 < argc) {
            i++;
            if (drop) continue;
            if (per_device) {
                w[n++] = more;
                more += sprintf(more, "%s/dev%d", argv[i], device) + 1;
            } else
                w[n++] = argv[i];
        }
    }
    w[n++] = "--device";
    w[n++] = dev;
    w[n++] = "--json";
    w[n++] = (char *)json;
    w[n] = NULL;
    return w;
}

void gv_fleet_worker_argv_free(char **w)
{
    free(w);
}

/* Copy a captured file to out. */
static int emit_json(FILE *f, void *doc)
{
    return json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
}

/* NAME.json -> NAME.devI.json (or .devI.json appended), beside it; false if it does not fit. */
static bool worker_json_path(const char *json_path, const char *tmpdir, int dev, char *buf,
                             size_t len)
{
    int w;
    if (!json_path || strcmp(json_path, "-") == 0) {
        w = snprintf(buf, len, "%s/run.dev%d.json", tmpdir, dev);
    } else {
        size_t plen = strlen(json_path);
        size_t stem = plen > 5 && strcmp(json_path + plen - 5, ".json") == 0 ? plen - 5 : plen;
        w = snprintf(buf, len, "%.*s.dev%d.json", (int)stem, json_path, dev);
    }
    return w > 0 && (size_t)w < len;
}

bool gv_fleet_self_exe(char *exe, size_t len, gv_error *e)
{
    ssize_t el = readlink("/proc/self/exe", exe, len - 1);
    if (el <= 0) {
        gv_err_set(e, GV_ST_RUNTIME, "cannot find this program (/proc/self/exe): %s",
                   strerror(errno));
        return false;
    }
    exe[el] = '\0';
    return true;
}

gv_status gv_fleet_check(const gv_opt_table *cmd, const gv_device_plan *plan, int argc, char **argv,
                         const char *json_path, int quiet, const gv_fleet_printer *pr,
                         gv_fleet_end *end, gv_error *e)
{
    char exe[PATH_MAX];
    memset(end, 0, sizeof *end);
    if (!gv_fleet_self_exe(exe, sizeof exe, e)) return e->status;
    return gv_fleet_run_workers(exe, cmd, plan, argc, argv, json_path, quiet, pr, end, e);
}

/* Start one worker: its output and errors into files, stdin from /dev/null. */
static pid_t spawn_worker(const char *exe, char **w, const char *outp, const char *errp)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) return -1;
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = -1;
    if (posix_spawn(&pid, exe, &fa, NULL, w, environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

/* Wait for every worker of pid[0..n) (-1: none started) into rc[]; with time_box_s > 0, a
   worker still running that long after `start` is killed (its case runner follows it: the
   runner's child dies with its parent, core/runner.c) and marked in killed[]. */
static void wait_workers(const pid_t *pid, int n, double start, double time_box_s, int *rc,
                         bool *killed)
{
    int left = 0;
    for (int i = 0; i < n; i++) {
        rc[i] = -1;
        killed[i] = false;
        left += pid[i] > 0;
    }
    bool done[GV_FLEET_MAX_DEVICES] = {false};
    while (left > 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        bool over = time_box_s > 0 && now.tv_sec + now.tv_nsec * 1e-9 - start > time_box_s;
        for (int i = 0; over && i < n; i++)
            if (pid[i] > 0 && !done[i]) {
                kill(pid[i], SIGKILL);
                killed[i] = true;
            }
        for (int i = 0; i < n; i++) {
            if (pid[i] <= 0 || done[i]) continue;
            int st;
            /* once over, every worker left was killed: the blocking wait reaps it */
            pid_t r = waitpid(pid[i], &st, over ? 0 : WNOHANG);
            if (r == 0) continue;
            if (r == pid[i] && WIFEXITED(st)) rc[i] = WEXITSTATUS(st);
            done[i] = true;
            left--;
        }
        if (left > 0) {
            struct timespec nap = {0, 20 * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
    }
}

static int wait_worker(pid_t pid)
{
    int st;
    if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st)) return WEXITSTATUS(st);
    return -1;
}

void gv_fleet_runs_free(gv_fleet_runs *runs)
{
    if (!runs) return;
    for (int i = 0; i < runs->n; i++)
        json_decref(runs->docs[i]);
    free(runs);
}

static int n_parallel_workers(const gv_device_plan *plan, bool serial)
{
    return serial ? 1 : plan->n;
}

/* Workers at once each get an equal share of the host's cores for their oracle (OpenMP and
   OpenBLAS), unless the user chose a thread count. On four H200s (64 cores) the prolog screen
   took a median 10.12 s so against 11.27 s with every worker taking every core (six runs each,
   alternating). */
static void share_host_threads(int workers)
{
    if (workers <= 1 || gv_env("OMP_NUM_THREADS") || gv_env("OPENBLAS_NUM_THREADS")) return;
    cpu_set_t set;
    long cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                              : sysconf(_SC_NPROCESSORS_ONLN);
    long share = cores / workers > 1 ? cores / workers : 1;
    char v[24];
    snprintf(v, sizeof v, "%ld", share);
    setenv("OMP_NUM_THREADS", v, 1);
    setenv("OPENBLAS_NUM_THREADS", v, 1);
}

gv_fleet_runs *gv_fleet_spawn(const char *exe, const gv_opt_table *cmd, const gv_device_plan *plan,
                              int argc, char **argv, const char *json_path, bool serial,
                              int (*load)(const char *path, json_t **doc, char *err, size_t len),
                              const gv_fleet_printer *pr, gv_error *e)
{
    gv_fleet_runs *runs = calloc(1, sizeof *runs);
    if (!runs) {
        gv_err_set(e, GV_ST_RUNTIME, "out of host memory starting the workers");
        return NULL;
    }
    setenv("NCCL_NVLS_ENABLE", "0", 1); /* NVLink multicast stays off in every child */
    /* Workers at once share the host's cores: OpenMP threads that spin between regions (GNU's
       default) starve the other workers' threads. On two H200s (32 cores) a cold check of two
       workers took 87.0 s with spinning waits and 39.3 s with passive ones (one GPU alone:
       47.3 s). The user's own choice stands. */
    if (n_parallel_workers(plan, serial) > 1 && !gv_env("OMP_WAIT_POLICY"))
        setenv("OMP_WAIT_POLICY", "passive", 1);
    share_host_threads(n_parallel_workers(plan, serial));
    const char *tmp = gv_env("TMPDIR");
    char tmpdir[PATH_MAX];
    snprintf(tmpdir, sizeof tmpdir, "%s/gpuval-fleet-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpdir)) {
        /* nothing has been printed yet: the caller prints why, and the run is lost */
        gv_err_set(e, GV_ST_RUNTIME, "cannot create a directory for the workers' output: %s",
                   strerror(errno));
        runs->lost = true;
        return runs;
    }
    int n = plan->n;
    pid_t pid[GV_FLEET_MAX_DEVICES];
    char outp[GV_FLEET_MAX_DEVICES][PATH_MAX + 16], errp[GV_FLEET_MAX_DEVICES][PATH_MAX + 16];
    pr->banner(cmd->cmd, plan, serial);
    int worker_rc[GV_FLEET_MAX_DEVICES];
    bool killed[GV_FLEET_MAX_DEVICES] = {false};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++) {
        pid[i] = -1;
        worker_rc[i] = -1;
        char *json = runs->paths[i];
        bool fits = worker_json_path(json_path, tmpdir, plan->index[i], json, PATH_MAX);
        int wo = snprintf(outp[i], sizeof outp[i], "%s/dev%d.out", tmpdir, plan->index[i]);
        int we = snprintf(errp[i], sizeof errp[i], "%s/dev%d.err", tmpdir, plan->index[i]);
        if (!fits || wo < 0 || (size_t)wo >= sizeof outp[i] || we < 0 ||
            (size_t)we >= sizeof errp[i]) {
            json[0] = outp[i][0] = errp[i][0] = '\0';
            continue;
        }
        unlink(json); /* a file left by an earlier run must not pass for this one's */
        char **w = gv_fleet_worker_argv(cmd, exe, argc, argv, plan->index[i], json);
        if (!w) continue;
        pid[i] = spawn_worker(exe, w, outp[i], errp[i]);
        gv_fleet_worker_argv_free(w);
        if (serial) worker_rc[i] = wait_worker(pid[i]);
    }
    if (!serial)
        wait_workers(pid, n, t0.tv_sec + t0.tv_nsec * 1e-9, plan->time_box_s, worker_rc, killed);
    for (int i = 0; i < n; i++) {
        pr->worker(plan->index[i], worker_rc[i], outp[i], errp[i]);
        char err[512];
        json_t *doc = NULL;
        if (load(runs->paths[i], &doc, err, sizeof err) == GV_OK) {
            runs->docs[runs->n] = doc;
            runs->names[runs->n++] = runs->paths[i];
        } else {
            /* said here, between the workers' own output, so it stands beside its device's */
            pr->no_run(plan->index[i], killed[i], plan->time_box_s, err);
            runs->lost = true;
        }
        unlink(outp[i]);
        unlink(errp[i]);
        if (!json_path || strcmp(json_path, "-") == 0) unlink(runs->paths[i]);
    }
    rmdir(tmpdir);
    return runs;
}

gv_status gv_fleet_run_workers(const char *exe, const gv_opt_table *cmd, const gv_device_plan *plan,
                               int argc, char **argv, const char *json_path, int quiet,
                               const gv_fleet_printer *pr, gv_fleet_end *end, gv_error *e)
{
    memset(end, 0, sizeof *end);
    e->msg[0] = '\0';
    end->runs = gv_fleet_spawn(exe, cmd, plan, argc, argv, json_path, false, gv_fleet_load, pr, e);
    if (!end->runs) return e->status;
    end->quiet = quiet;
    end->status = GV_ST_RUNTIME;
    if (end->runs->n > 0) {
        end->merged = calloc(1, sizeof *end->merged);
        if (!end->merged) return gv_err_set(e, GV_ST_RUNTIME, "out of host memory for the merge");
        end->status = gv_fleet_merge(end->runs->docs, end->runs->names, end->runs->n, end->merged,
                                     json_path ? &end->fleet : NULL, e);
    }
    return end->status;
}

gv_status gv_fleet_finish(gv_fleet_end *end, const char *json_path, gv_error *e)
{
    gv_status st = end->status;
    bool lost = end->runs->lost;
    if (json_path && end->fleet && gv_write_file(json_path, emit_json, end->fleet) != 0) {
        gv_error w;
        gv_write_failure(json_path, &w);
        gv_err_add(e, w.status, "%s", w.msg); /* after what the run already had to say */
        lost = true;
    }
    json_decref(end->fleet);
    gv_fleet_merged_free(end->merged);
    free(end->merged);
    gv_perf_merged_free(end->perf_merged);
    gv_fleet_runs_free(end->runs);
    memset(end, 0, sizeof *end);
    if (lost && (st == GV_ST_OK || st == GV_ST_OUTLIER)) st = GV_ST_RUNTIME;
    return st;
}
