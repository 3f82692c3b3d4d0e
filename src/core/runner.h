/* runner.h: running a check's cases so that one case cannot take the others down with it
 * (implemented in runner.c). With isolation on, the cases run in a child process forked
 * before any CUDA context exists; the child streams each result back over a pipe. A case that
 * crashes its child, exceeds the per-case time limit, or ends in ERROR (a sticky CUDA error
 * such as cudaErrorIllegalAddress leaves the context unusable) ends that child; the remaining
 * cases run in a fresh child. With jobs > 1, several such children run at once, each handed
 * the next waiting case by the parent. The parent never creates a CUDA
 * context: the device is queried in a child too (gv_isolated_device_probe). */
#ifndef GV_ISOLATE_H
#define GV_ISOLATE_H

#include <stdbool.h>

#include "core/op.h"
#include "core/run.h"

/* Default per-case time limit: the whole default catalogue runs in under 5 minutes on an
   H100, its largest case in well under a minute; ten minutes is a hang, not a slow case. */
#define GV_CASE_TIMEOUT_DEFAULT_S 600.0
/* A planted fault (an op with planted_fault: a hang by design) gets at most this long when
   --case-timeout was not given, so that `check --planted` does not wait the default ten
   minutes for each of its cases. */
#define GV_FAULT_TIMEOUT_DEFAULT_S 20.0
/* The most worker processes one check runs at once on one device (check --jobs). */
#define GV_JOBS_MAX 64

typedef struct gv_runner {
    bool isolate;            /* false: every case in this process (--no-isolate) */
    double case_timeout_s;   /* isolated runs: a case over this is killed; 0 = no limit */
    bool case_timeout_given; /* --case-timeout was given: planted faults get it too */
    /* isolated runs: worker processes at once on the device (<= 1: one, as without it). Each
       takes the next waiting case from the parent; on_done still sees the cases in order. A
       case whose device memory does not fit beside the other workers' cases (more than 1/jobs
       of what is free) runs alone after the others, so that its SKIP is a single worker's */
    int jobs;
    /* jobs > 1: called in each worker as it starts, before its first case, with jobs (the
       share of the host's threads it may take is the caller's to set) */
    void (*on_worker)(int jobs, void *ctx);
    int repeat;                   /* >= 1: launches per case (check --repeat) */
    const gv_given_inputs *given; /* check --inputs: these arrays instead of generated ones */
    /* when set: called in the process that ran case i, with the case's problem (inputs,
       outputs, reference) before it is freed; nonzero marks the result output_lost */
    int (*on_kept)(int i, const gv_problem *kept, const gv_result *r, void *ctx);
    /* called before case i starts and when its result is in (in case order) */
    void (*on_start)(int i, void *ctx);
    void (*on_done)(int i, const gv_result *r, void *ctx);
    void *ctx;
} gv_runner;

/* The order several workers (jobs > 1) are handed the cases in: order[0..n) the cases'
 * indices, the costliest first by the op's flops and device bytes, ties in case order (short
 * of memory: case order); a case that will read the oracle cache entry an earlier case makes
 * (another mode of the same reference, or the same costly input: the op's shared_input_key)
 * by its bytes only; pos[order[k]] = k. Results are reported in case order whatever this
 * is. */
void gv_runner_order(const gv_case *cases, int n, int *order, int *pos);

/* Run cases[0..n) into results[0..n): every case gets a result, whatever happens to the
 * processes that run them. Returns GV_OK, or GV_EIO when no child could be started at all
 * (the affected cases are then ERRORs too). */
int gv_run_cases(const gv_case *cases, int n, const gv_runner *run, gv_result *results);

/* len bytes written to fd (retried on EINTR and short writes): 0, or -1 on an error. */
int gv_write_full(int fd, const void *buf, size_t len);

/* Bytes read from fd: len, or fewer at end of file or on an error. */
size_t gv_read_full(int fd, void *buf, size_t len);

/* What a device query saw: whether there is a device, its fingerprint, how many the process
 * sees and which is current (-1: unknown). */
typedef struct gv_device_seen {
    bool have_device;
    int count, index;
    gk_device_info device;
} gv_device_seen;

/* The device query of a run's start, in a child process (so that this one never creates a CUDA
 * context before it forks): fills seen, and why (when there is no device) with the reason. */
void gv_isolated_device_probe(gv_device_seen *seen, char *why, size_t len);
/* The same query in this process. */
void gv_device_probe_here(gv_device_seen *seen, char *why, size_t len);

/* The number of CUDA devices, counted in a child process (0 when the query failed): for the
 * parent of isolated cases, which must not initialise CUDA before it forks. */
int gv_isolated_device_count(void);

/* Fault injection for the tests (GPUVAL_INJECT_FAULT=KIND:GLOB, KIND crash, abort, hang or
 * error): the host code of every case whose op name matches GLOB dies of SIGSEGV, dies of
 * SIGABRT, or sleeps for an hour; for error it returns true and the caller makes the case an
 * ERROR without running it (what a lost CUDA context gives: the worker ends after it). Several
 * entries are joined by ';'. Called at the start of each case, isolated or not. */
bool gv_inject_host_fault(const gv_case *c);

#endif
