/* runner.c: a check's cases in a child process, a fresh one after each fault, with a per-case
 * time limit (runner.h). The protocol is one-way, child to parent, over a pipe: records that
 * say which case begins, which case each of the child's threads is on, and each case's
 * gv_result (below). A gv_result is sent as its bytes: its pointers (the op descriptor, the
 * names of extras and checks) point into the program image, which a child made by fork()
 * without exec shares with its parent at the same addresses. */
#include <assert.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/runner.h"

#include "core/judge.h"
#include "core/knobs.h"
#include "core/reference.h"
#include "core/registry.h"
#include "core/run.h"

/* Records, child to parent. START j: case j begins (its time limit starts). DONE j and the
   gv_result: case j's verdict. END: the child stops on purpose (after an ERROR); a case it
   started and did not report runs again. One case is in flight at a time, so a crash or a hang
   is the case in flight's. DEFER j (several workers only): case j does not fit in the device
   memory beside its siblings' cases and did not run; it runs alone at the end (below). */
enum { REC_START = 1, REC_DONE, REC_END, REC_DEFER };

typedef struct rec_head {
    int32_t kind;
    int32_t index;
} rec_head;

/* One KIND:GLOB entry (len bytes at f) applied to c: true for error. */
static bool inject_one(const char *f, size_t len, const gv_case *c)
{
    const char *colon = memchr(f, ':', len);
    char glob[256];
    if (!colon || (size_t)(f + len - colon) > sizeof glob) return false;
    snprintf(glob, sizeof glob, "%.*s", (int)(f + len - colon - 1), colon + 1);
    if (fnmatch(glob, c->op->name, 0) != 0) return false;
    size_t kind = (size_t)(colon - f);
    if (kind == 5 && strncmp(f, "error", 5) == 0) return true;
    if (kind == 5 && strncmp(f, "crash", 5) == 0) {
        signal(SIGSEGV, SIG_DFL); /* a sanitizer's handler would turn the signal into an exit */
        raise(SIGSEGV);
    } else if (kind == 5 && strncmp(f, "abort", 5) == 0) {
        signal(SIGABRT, SIG_DFL);
        abort();
    } else if (kind == 4 && strncmp(f, "hang", 4) == 0) {
        for (int s = 0; s < 3600; s++) /* an hour: long enough to be a hang, yet finite */
            sleep(1);
    }
    return false;
}

bool gv_inject_host_fault(const gv_case *c)
{
    /* entries joined by ';' (hang:vadd;crash:reduce.sum): faults of two kinds in one run, so
       that a test can have one worker's case crash while another's is still in flight */
    const char *f = gv_knobs()->inject_fault;
    bool error = false;
    while (f && *f) {
        const char *semi = strchr(f, ';');
        size_t len = semi ? (size_t)(semi - f) : strlen(f);
        error |= inject_one(f, len, c);
        f = semi ? semi + 1 : NULL;
    }
    return error;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int gv_write_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

size_t gv_read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, p + got, len - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

/* ---- The loop that runs the cases (in the child, or in this process without isolation) ----
 *
 * One case at a time; within a case, the device run goes on a thread of its own while the
 * oracle runs on this one (core/run.h), unless GPUVAL_SERIAL_CASE=1. (An overlap of the next
 * case's host work with this case's device run was built twice and measured twice: it did not
 * pay, since the oracle already uses every core and each device run already overlaps its own
 * oracle, and it doubled this file; docs/performance.md keeps the numbers.) */
typedef struct loop_out {
    int fd; /* isolated: the pipe to the parent */
    bool failed;
    const gv_runner *run; /* in process (fd < 0): the callbacks */
} loop_out;

static void emit(loop_out *o, int kind, int index, const gv_result *r)
{
    if (o->fd < 0) { /* in process: the callbacks directly */
        const gv_runner *run = o->run;
        if (kind == REC_START && run->on_start) run->on_start(index, run->ctx);
        if (kind == REC_DONE && run->on_done) run->on_done(index, r, run->ctx);
        return;
    }
    rec_head h = {kind, index};
    if (gv_write_full(o->fd, &h, sizeof h) != 0 || (r && gv_write_full(o->fd, r, sizeof *r) != 0))
        o->failed = true;
}

typedef struct loop_args {
    const gv_runner *run;
    const gv_case *cases;
    gv_result *results;
    const bool *decided; /* cases already reported: skipped (NULL: none) */
    int first, end, repeat;
    bool stop_on_error; /* a child: an ERROR may have lost the context, stop after it */
    int jobs;           /* workers at once: > 1 lets a case that does not fit DEFER */
} loop_args;

static int next_case(const loop_args *a, int i)
{
    while (i < a->end && a->decided && a->decided[i])
        i++;
    return i;
}

/* Whether case cr may take its device memory beside the siblings' cases: at most 1/jobs of
   what is free now, so that the cases of all workers fit together. One that may not runs alone
   at the end, where it sees the device as a single worker does: a SKIP for too little device
   memory never depends on what a sibling held at that moment. */
static bool fits_beside(const gv_case_run *cr, int jobs)
{
    int64_t free_b = 0, total_b = 0;
    if (!cr->runnable || gk_mem_info(&free_b, &total_b) != GV_OK) return true;
    return cr->r->bytes_needed <= free_b / jobs;
}

enum { CASE_DONE, CASE_ERROR, CASE_DEFER };

/* Case i from start to its report: CASE_DONE, CASE_ERROR (reported, an ERROR), or CASE_DEFER
   (several workers only: not run, DEFER sent). */
static int one_case(const loop_args *a, loop_out *o, int i)
{
    const gv_runner *run = a->run;
    gv_result *r = &a->results[i];
    emit(o, REC_START, i, NULL);
    bool injected = gv_inject_host_fault(&a->cases[i]);
    gv_case_run cr; /* about 2 KB; its address is fixed while its device run is in flight */
    gv_case_prepare(&cr, &a->cases[i], a->repeat, r, run->given);
    if (run->on_kept) cr.memo_first = false; /* a kept problem carries its reference */
    if (injected) {
        r->verdict = GV_ERROR;
        snprintf(r->reason, sizeof r->reason, "an injected fault (GPUVAL_INJECT_FAULT=error:...)");
        cr.runnable = false;
    }
    bool defer = a->jobs > 1 && !fits_beside(&cr, a->jobs);
    if (!defer && gv_case_admit(&cr)) gv_case_device_start(&cr, !gv_knobs()->serial_case);
    if (!defer) gv_case_oracle(&cr);
    if (!defer && a->jobs > 1 && cr.runnable) {
        /* a sibling took the memory between the check and the allocation: alone, later */
        gv_case_device_wait(&cr);
        defer = cr.device_done && cr.device_rc == GV_EDEVMEM;
    }
    if (defer) {
        cr.runnable = false;
        gv_case_finish(&cr, NULL); /* frees the inputs; the verdict it may write is dropped */
        emit(o, REC_DEFER, i, NULL);
        return CASE_DEFER;
    }
    if (run->on_kept) {
        gv_problem kept;
        gv_case_finish(&cr, &kept);
        if (run->on_kept(i, &kept, r, run->ctx) != 0) r->output_lost = true;
        gv_problem_free(&kept);
    } else {
        gv_case_finish(&cr, NULL);
    }
    emit(o, REC_DONE, i, r);
    return r->verdict == GV_ERROR ? CASE_ERROR : CASE_DONE;
}

/* Runs the cases of a in order; true when it stopped after an ERROR (stop_on_error). */
static bool run_loop(const loop_args *a, loop_out *o)
{
    for (int i = next_case(a, a->first); i < a->end; i = next_case(a, i + 1))
        if (one_case(a, o, i) == CASE_ERROR && a->stop_on_error) return true;
    return false;
}

/* The child: the cases of a. A case that ends in ERROR ends the child: its CUDA context may
   be lost (a sticky error), and the parent runs the rest in a fresh process. */
static void child_main(int fd, const loop_args *a, pid_t parent)
{
    /* a parent killed outright takes its child along: no orphan left spinning on a GPU */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    loop_out o = {.fd = fd, .run = a->run};
    /* the CUDA context is made before the first case starts its clock: set-up is the
       child's, not the case's */
    int64_t free_b, total_b;
    if (gk_device_count() > 0) gk_mem_info(&free_b, &total_b);
    if (run_loop(a, &o)) emit(&o, REC_END, -1, NULL);
    fflush(NULL);
    _exit(o.failed ? 1 : 0);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGPIPE: return "SIGPIPE";
    default: return "signal";
    }
}

/* "was killed by SIGSEGV (Segmentation fault, signal 11)", "exited with status 1" */
static void describe_status(int st, char *buf, size_t len)
{
    if (WIFSIGNALED(st))
        snprintf(buf, len, "was killed by %s (%s, signal %d)", signal_name(WTERMSIG(st)),
                 strsignal(WTERMSIG(st)), WTERMSIG(st));
    else if (WIFEXITED(st))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
    else
        snprintf(buf, len, "ended with wait status %d", st);
}

static void fail_case(const gv_case *c, gv_result *r, const char *fmt, const char *what)
{
    gv_result_init(r, c);
    r->verdict = GV_ERROR;
    snprintf(r->reason, sizeof r->reason, fmt, what);
}

static void reap(pid_t pid, int *st)
{
    while (waitpid(pid, st, 0) < 0 && errno == EINTR) {
    }
}

/* The parent's callbacks in case order, whatever order the cases are decided in: a case the
   end of a child is blamed on can be decided before the one before it, which runs again. */
typedef struct reporter {
    const gv_runner *run;
    const gv_case *cases;
    gv_result *results;
    bool *decided;
    int n, next;       /* the first case not yet passed to on_done */
    int started;       /* the last case passed to on_start, or -1 */
    const bool *begun; /* several workers: cases whose START came (NULL: one worker) */
} reporter;

static void rep_start(reporter *rp, int i)
{
    if (i != rp->next || rp->started >= i) return;
    rp->started = i;
    if (rp->run->on_start) rp->run->on_start(i, rp->run->ctx);
}

static void rep_decide(reporter *rp, int i)
{
    /* each case is decided once: on_done sees every case once, in order, and a result
       written after it was reported would be lost */
    assert(i >= rp->next && i < rp->n && !rp->decided[i]);
    rp->decided[i] = true;
    while (rp->next < rp->n && rp->decided[rp->next]) {
        rep_start(rp, rp->next);
        if (rp->run->on_done) rp->run->on_done(rp->next, &rp->results[rp->next], rp->run->ctx);
        rp->next++;
    }
    /* several workers: the case now first in order may have begun in another one already */
    if (rp->begun && rp->next < rp->n && rp->begun[rp->next]) rep_start(rp, rp->next);
}

/* Case c's time limit (0: none); *planted when it is a planted fault's. */
static double case_limit(const gv_runner *run, const gv_case *c, bool *planted)
{
    *planted = false;
    if (c->op->planted_fault && !run->case_timeout_given &&
        (run->case_timeout_s <= 0 || run->case_timeout_s > GV_FAULT_TIMEOUT_DEFAULT_S)) {
        *planted = true;
        return GV_FAULT_TIMEOUT_DEFAULT_S;
    }
    return run->case_timeout_s;
}

static void fail_timed_out(reporter *rp, int i, double limit, bool planted)
{
    char t[64];
    snprintf(t, sizeof t, "%g", limit);
    fail_case(&rp->cases[i], &rp->results[i],
              planted ? "timed out after %s s (a planted fault's limit; --case-timeout sets it)"
                      : "timed out after %s s (--case-timeout)",
              t);
    rep_decide(rp, i);
}

/* Watch one child until it is gone. Reported cases are decided; the case in flight when the
   child died or hung is failed and decided. */
static void supervise(pid_t pid, int fd, reporter *rp)
{
    const gv_runner *run = rp->run;
    const gv_case *cases = rp->cases;
    int flight = -1; /* the case started and not yet reported */
    double deadline = 0, limit = 0;
    bool planted_limit = false, started = false, on_purpose = false;
    for (;;) {
        int timeout_ms = -1;
        if (flight >= 0 && limit > 0) {
            double left = deadline - now_s();
            timeout_ms = left <= 0 ? 0 : left > 2e6 ? 2000000000 : (int)ceil(left * 1e3);
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = poll(&pfd, 1, timeout_ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) {
            kill(pid, SIGKILL);
            int st;
            reap(pid, &st);
            fail_timed_out(rp, flight, limit, planted_limit);
            return;
        }
        rec_head h;
        if (pr < 0 || gv_read_full(fd, &h, sizeof h) != sizeof h) break;
        bool ok = true;
        int i = h.index;
        switch (h.kind) {
        case REC_START:
            if (flight >= 0 || i < rp->next || i >= rp->n || rp->decided[i]) {
                ok = false;
                break;
            }
            started = true;
            flight = i;
            limit = case_limit(run, &cases[i], &planted_limit);
            deadline = now_s() + limit;
            rep_start(rp, i);
            break;
        case REC_END: on_purpose = true; break;
        case REC_DONE:
            if (flight < 0 || i != flight ||
                gv_read_full(fd, &rp->results[i], sizeof rp->results[i]) != sizeof rp->results[i]) {
                ok = false;
                break;
            }
            flight = -1;
            rep_decide(rp, i);
            break;
        default: ok = false;
        }
        if (!ok) {
            kill(pid, SIGKILL); /* not our protocol: stop it, and say so below */
            break;
        }
    }
    int st;
    reap(pid, &st);
    if (flight < 0 && started) return;       /* ended between cases (after an ERROR) */
    if (on_purpose && flight >= 0) return;   /* after an ERROR: it runs again */
    int c = flight >= 0 ? flight : rp->next; /* none started: the first waiting */
    /* a child is started only while a case waits (gv_run_cases' loop), and one that reported
       none has decided none: there is a case to blame */
    assert(c < rp->n && !rp->decided[c]);
    char why[160];
    describe_status(st, why, sizeof why);
    fail_case(&cases[c], &rp->results[c], "the case's process %s", why);
    rep_decide(rp, c);
}

/* ---- Several workers on one device (gv_runner.jobs > 1) ----
 *
 * The parent hands out cases one at a time over a socket pair, each to the first worker that
 * is free, the costliest first (gv_runner_order): a costly case does not hold up the cheap ones
 * queued behind it in the same worker, none starts last to run alone while the others idle
 * (longest-first list scheduling: the makespan is at most 4/3 of the best, Graham 1969), and
 * the reporter (rep_decide) puts the results back in case order. Each
 * worker keeps the guarantees of the single one: its case's time limit, a crash or a hang
 * blamed on the case it was handed, an ERROR ending it (a fresh worker takes its place). */

/* One worker as the parent sees it. */
typedef struct worker {
    pid_t pid; /* -1: this slot is free */
    int fd;
    int flight;      /* the case handed to it and not yet reported, or -1 */
    bool started;    /* flight's START came: its clock runs */
    bool on_purpose; /* END came: it stops after an ERROR */
    bool planted;    /* flight's limit is a planted fault's */
    double limit, deadline;
} worker;

/* Cases' state in the parallel phase (decided cases are the reporter's). */
enum { WAITING = 0, HANDED, DEFERRED };

typedef struct pool {
    const loop_args *a;
    reporter *rp;
    char *state;
    bool *begun;
    int *order;              /* the cases in the order they are handed out (case_order) */
    int *pos;                /* pos[order[k]] = k */
    int jobs, alive, cursor; /* cursor: no case at order[0..cursor) is WAITING */
    worker w[GV_JOBS_MAX];
} pool;

/* A case's cost as the runner guesses it before running it: the op's flops and device bytes
   (src/ops' descriptors), the work its oracle and inputs scale with too. A guess orders the
   hand-out only; nothing is judged by it. */
static double case_cost(const gv_case *c)
{
    double f = c->op->flops ? c->op->flops(c) : 0, b = c->op->bytes ? c->op->bytes(c) : 0;
    return (isfinite(f) && f > 0 ? f : 0) + (isfinite(b) && b > 0 ? b : 0);
}

typedef struct costed {
    double cost;
    int index;
} costed;

static int by_cost_desc(const void *x, const void *y)
{
    const costed *a = x, *b = y;
    if (a->cost != b->cost) return a->cost < b->cost ? 1 : -1;
    return (a->index > b->index) - (a->index < b->index); /* ties in case order */
}

/* 1 where a and b build one costly input under one oracle cache key (the ops'
   shared_input_key: solve's conditioned matrix, the same for every dtype), 0 where they build
   different ones, -1 where either declares none. */
static int shared_input(const gv_case *a, const gv_case *b)
{
    char ka[256], kb[256];
    if (!a->op->shared_input_key || !b->op->shared_input_key ||
        !a->op->shared_input_key(a, ka, sizeof ka) || !b->op->shared_input_key(b, kb, sizeof kb))
        return -1;
    return strcmp(ka, kb) == 0;
}

/* Whether a and b read one oracle cache entry, as far as the case tells before its inputs
   are made (gv_cache_case_key): the same reference, dtype, dist, seed and shape, and the same
   mode unless the key names none; not where their costly inputs differ (solve.posv's SPD
   matrix and solve.gesv's share a reference name, not inputs). A guess for the order only,
   like the cost. */
static bool same_reference(const gv_case *a, const gv_case *b)
{
    if (a->dtype != b->dtype || a->dist != b->dist || a->seed != b->seed ||
        a->shape.nd != b->shape.nd)
        return false;
    for (int d = 0; d < a->shape.nd; d++)
        if (a->shape.d[d] != b->shape.d[d]) return false;
    if (a->op != b->op && gv_reference_name(a->op) != gv_reference_name(b->op)) return false;
    if (shared_input(a, b) == 0) return false;
    return a->mode == b->mode || (gv_cache_modes_share(a) && gv_cache_modes_share(b));
}

/* The cost of case i: its flops and bytes, or only its bytes where an earlier case of the
   run computes the reference it will read (gemm's modes, sin_iter's: one entry) or builds the
   costly input it will read (solve's matrix, shared by f32 and f64). Such a case handed out
   beside the one computing it would wait on the entry's lock with its cores idle; later, it
   reads the entry, and what is left is its own work (inputs, device run, judge, and the
   oracle where only the input was shared). */
static double order_cost(const gv_case *cases, int i)
{
    for (int j = 0; j < i; j++)
        if (same_reference(&cases[j], &cases[i]) || shared_input(&cases[j], &cases[i]) == 1) {
            double b = cases[i].op->bytes ? cases[i].op->bytes(&cases[i]) : 0;
            return isfinite(b) && b > 0 ? b : 0;
        }
    return case_cost(&cases[i]);
}

void gv_runner_order(const gv_case *cases, int n, int *order, int *pos)
{
    costed *t = malloc((size_t)n * sizeof *t + 1);
    for (int i = 0; i < n; i++)
        order[i] = i;
    if (t) {
        for (int i = 0; i < n; i++)
            t[i] = (costed){order_cost(cases, i), i};
        qsort(t, (size_t)n, sizeof *t, by_cost_desc);
        for (int k = 0; k < n; k++)
            order[k] = t[k].index;
        free(t);
    }
    for (int k = 0; k < n; k++)
        pos[order[k]] = k;
}

/* The first case waiting to be handed out, or n. */
static int next_waiting(pool *pl)
{
    int n = pl->rp->n;
    while (pl->cursor < n &&
           (pl->state[pl->order[pl->cursor]] != WAITING || pl->rp->decided[pl->order[pl->cursor]]))
        pl->cursor++;
    return pl->cursor < n ? pl->order[pl->cursor] : n;
}

/* Worker k's side of the protocol: read the next case's index, run it, until told to stop
   (-1 or the end of the socket), or after an ERROR. */
static void worker_main(int fd, const loop_args *a, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    const gv_runner *run = a->run;
    if (run->on_worker) run->on_worker(a->jobs, run->ctx);
    loop_out o = {.fd = fd, .run = run};
    int64_t free_b, total_b;
    if (gk_device_count() > 0) gk_mem_info(&free_b, &total_b); /* the context, before any clock */
    for (;;) {
        int32_t i;
        if (gv_read_full(fd, &i, sizeof i) != sizeof i || i < 0 || i >= a->end) break;
        if (one_case(a, &o, i) == CASE_ERROR) {
            emit(&o, REC_END, -1, NULL);
            break;
        }
        if (o.failed) break;
    }
    fflush(NULL);
    _exit(o.failed ? 1 : 0);
}

/* Hands worker k the next waiting case, or tells it to stop when none waits. A worker that is
   already gone is seen at the end of its socket, with the case handed to it in flight. */
static void hand_out(pool *pl, worker *k)
{
    int c = next_waiting(pl);
    int32_t msg = c < pl->rp->n ? c : -1;
    if (c < pl->rp->n) {
        pl->state[c] = HANDED;
        k->flight = c;
        k->started = false;
    }
    (void)!send(k->fd, &msg, sizeof msg, MSG_NOSIGNAL);
}

/* A new worker in slot k: 0, or -1 when none could be started (errno says why). */
static int spawn_worker(pool *pl, worker *k)
{
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return -1;
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t self = getpid(), pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        for (int j = 0; j < pl->jobs; j++) /* the siblings' sockets are the parent's alone */
            if (pl->w[j].pid > 0) close(pl->w[j].fd);
        worker_main(fds[1], pl->a, self);
    }
    close(fds[1]);
    *k = (worker){.pid = pid, .fd = fds[0], .flight = -1};
    pl->alive++;
    return 0;
}

/* Worker k is gone (its socket ended, it broke the protocol or it was killed): reaped, and the
   case handed to it and not reported failed with how the process ended. */
static void worker_gone(pool *pl, worker *k)
{
    int st;
    close(k->fd);
    reap(k->pid, &st);
    k->pid = -1;
    pl->alive--;
    int c = k->flight;
    k->flight = -1;
    if (c < 0) return; /* ended between cases (told to stop, or after an ERROR) */
    assert(!pl->rp->decided[c] && pl->state[c] == HANDED);
    if (k->on_purpose) { /* it stopped before this case: the case runs in another worker */
        pl->state[c] = WAITING;
        if (pl->pos[c] < pl->cursor) pl->cursor = pl->pos[c];
        return;
    }
    char why[160];
    describe_status(st, why, sizeof why);
    fail_case(&pl->rp->cases[c], &pl->rp->results[c], "the case's process %s", why);
    rep_decide(pl->rp, c);
}

/* One record from worker k; false when the worker is to be treated as gone. */
static bool worker_record(pool *pl, worker *k)
{
    reporter *rp = pl->rp;
    rec_head h;
    if (gv_read_full(k->fd, &h, sizeof h) != sizeof h) return false;
    int i = h.index;
    bool ours = k->flight >= 0 && i == k->flight;
    switch (h.kind) {
    case REC_START:
        if (!ours || k->started) break;
        k->started = true;
        k->limit = case_limit(rp->run, &rp->cases[i], &k->planted);
        k->deadline = now_s() + k->limit;
        pl->begun[i] = true;
        rep_start(rp, i);
        return true;
    case REC_DONE:
        if (!ours || !k->started ||
            gv_read_full(k->fd, &rp->results[i], sizeof rp->results[i]) != sizeof rp->results[i])
            break;
        k->flight = -1;
        rep_decide(rp, i);
        /* after an ERROR the worker ends (END, then the end of its socket): nothing more for
           it, and a fresh worker takes the next case */
        if (rp->results[i].verdict != GV_ERROR) hand_out(pl, k);
        return true;
    case REC_DEFER:
        if (!ours || !k->started) break;
        k->flight = -1;
        pl->state[i] = DEFERRED;
        pl->begun[i] = false;
        hand_out(pl, k);
        return true;
    case REC_END: k->on_purpose = true; return true;
    default: break;
    }
    kill(k->pid, SIGKILL); /* not our protocol: stop it; its case fails with the signal */
    return false;
}

/* The cases by jobs workers at once until none waits. Returns GV_OK, or GV_EIO when no worker
   could be started at all (the waiting cases are then ERRORs). Deferred cases stay undecided. */
static int run_parallel(pool *pl)
{
    reporter *rp = pl->rp;
    for (;;) {
        for (int j = 0; j < pl->jobs && next_waiting(pl) < rp->n; j++) {
            worker *k = &pl->w[j];
            if (k->pid > 0) continue;
            if (spawn_worker(pl, k) != 0) {
                if (pl->alive > 0) break; /* the others go on: fewer at once */
                char why[160];
                snprintf(why, sizeof why, "%s", strerror(errno));
                for (int i = 0; i < rp->n; i++) {
                    if (rp->decided[i] || pl->state[i] != WAITING) continue;
                    fail_case(&rp->cases[i], &rp->results[i],
                              "could not start a process for it: %s", why);
                    rep_decide(rp, i);
                }
                return GV_EIO;
            }
            hand_out(pl, k);
        }
        if (pl->alive == 0) return GV_OK;
        struct pollfd pfd[GV_JOBS_MAX];
        int slot[GV_JOBS_MAX], np = 0;
        double now = now_s(), soonest = -1;
        for (int j = 0; j < pl->jobs; j++) {
            worker *k = &pl->w[j];
            if (k->pid <= 0) continue;
            pfd[np] = (struct pollfd){.fd = k->fd, .events = POLLIN};
            slot[np++] = j;
            if (k->flight >= 0 && k->started && k->limit > 0 &&
                (soonest < 0 || k->deadline < soonest))
                soonest = k->deadline;
        }
        int timeout_ms = -1;
        if (soonest >= 0) {
            double left = soonest - now;
            timeout_ms = left <= 0 ? 0 : left > 2e6 ? 2000000000 : (int)ceil(left * 1e3);
        }
        int pr = poll(pfd, (nfds_t)np, timeout_ms);
        if (pr < 0 && errno != EINTR) pr = 0; /* cannot happen with valid fds: go round */
        for (int q = 0; q < np && pr > 0; q++) {
            worker *k = &pl->w[slot[q]];
            if (!pfd[q].revents || k->pid <= 0) continue;
            if (!worker_record(pl, k)) worker_gone(pl, k);
        }
        now = now_s();
        for (int j = 0; j < pl->jobs; j++) { /* the cases over their time limit */
            worker *k = &pl->w[j];
            if (k->pid <= 0 || k->flight < 0 || !k->started || k->limit <= 0 || now < k->deadline)
                continue;
            int c = k->flight;
            kill(k->pid, SIGKILL);
            k->flight = -1;
            worker_gone(pl, k);
            fail_timed_out(rp, c, k->limit, k->planted);
        }
    }
}

int gv_run_cases(const gv_case *cases, int n, const gv_runner *run, gv_result *results)
{
    int repeat = run->repeat > 1 ? run->repeat : 1;
    loop_args a = {
        .run = run, .cases = cases, .results = results, .first = 0, .end = n, .repeat = repeat};
    if (!run->isolate) {
        loop_out o = {.fd = -1, .run = run};
        run_loop(&a, &o);
        return GV_OK;
    }
    bool *decided = calloc(n > 0 ? (size_t)n : 1, sizeof *decided);
    if (!decided) return GV_ENOMEM;
    reporter rp = {run, cases, results, decided, n, 0, -1, NULL};
    a.decided = decided;
    a.stop_on_error = true;
    a.jobs = 1;
    int jobs = run->jobs < GV_JOBS_MAX ? run->jobs : GV_JOBS_MAX;
    if (jobs > 1 && n > 1) {
        pool *pl = calloc(1, sizeof *pl);
        char *state = calloc((size_t)n, 1);
        bool *begun = calloc((size_t)n, sizeof *begun);
        int *order = calloc((size_t)n, sizeof *order), *pos = calloc((size_t)n, sizeof *pos);
        int rc = GV_OK; /* short of memory for these: one worker, as below */
        if (pl && state && begun && order && pos) {
            loop_args pa = a;
            pa.jobs = jobs;
            gv_runner_order(cases, n, order, pos);
            *pl = (pool){.a = &pa,
                         .rp = &rp,
                         .state = state,
                         .begun = begun,
                         .order = order,
                         .pos = pos,
                         .jobs = jobs};
            for (int j = 0; j < GV_JOBS_MAX; j++)
                pl->w[j].pid = -1;
            rp.begun = begun;
            rc = run_parallel(pl);
            rp.begun = NULL;
        }
        free(pl);
        free(state);
        free(begun);
        free(order);
        free(pos);
        if (rc != GV_OK) {
            free(decided);
            return rc;
        }
        /* what is left are the deferred cases: one worker runs them alone, as below */
    }
    /* One worker runs every remaining case: a CUDA context, its modules and the host buffers
       are set up once for the run instead of once per op. A crash, a timeout or an ERROR ends
       the worker; the cases after it run in a fresh one. */
    while (rp.next < n) {
        int fds[2];
        pid_t pid = -1, self = getpid();
        if (pipe(fds) == 0) {
            fflush(NULL); /* nothing buffered may be written twice */
            pid = fork();
            if (pid < 0) {
                close(fds[0]);
                close(fds[1]);
            }
        }
        if (pid < 0) {
            char why[160];
            snprintf(why, sizeof why, "%s", strerror(errno));
            for (int i = rp.next; i < n; i++) {
                if (decided[i]) continue;
                fail_case(&cases[i], &results[i], "could not start a process for it: %s", why);
                rep_decide(&rp, i);
            }
            free(decided);
            return GV_EIO;
        }
        if (pid == 0) {
            close(fds[0]);
            a.first = rp.next;
            child_main(fds[1], &a, self);
        }
        close(fds[1]);
        supervise(pid, fds[0], &rp);
        close(fds[0]);
    }
    free(decided);
    return GV_OK;
}

typedef struct probe_rec {
    int count, rc, index;
    gk_device_info device;
    char error[256];
} probe_rec;

void gv_isolated_device_probe(gv_device_seen *seen, char *why, size_t len)
{
    memset(seen, 0, sizeof *seen);
    seen->index = -1;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(why, len, "could not start the device query: %s", strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, len, "could not start the device query: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        probe_rec p;
        memset(&p, 0, sizeof p);
        p.count = gk_device_count();
        p.rc = p.count > 0 ? gk_device_info_get(&p.device) : GV_ENODEV;
        p.index = p.rc == GV_OK ? gk_device_current() : -1;
        snprintf(p.error, sizeof p.error, "%s", gk_last_error());
        _exit(gv_write_full(fds[1], &p, sizeof p) == 0 ? 0 : 1);
    }
    close(fds[1]);
    probe_rec p;
    size_t got = gv_read_full(fds[0], &p, sizeof p);
    close(fds[0]);
    int st;
    reap(pid, &st);
    if (got != sizeof p) {
        char s[160];
        describe_status(st, s, sizeof s);
        snprintf(why, len, "the device query's process %s", s);
        return;
    }
    seen->have_device = p.count > 0 && p.rc == GV_OK;
    seen->count = p.count;
    seen->index = p.index;
    seen->device = p.device;
    snprintf(why, len, "%s", p.count ? p.error : "no CUDA device");
}

int gv_isolated_device_count(void)
{
    gv_device_seen seen;
    char why[256];
    gv_isolated_device_probe(&seen, why, sizeof why);
    return seen.count;
}

void gv_device_probe_here(gv_device_seen *seen, char *why, size_t len)
{
    memset(seen, 0, sizeof *seen);
    seen->count = gk_device_count();
    seen->have_device = seen->count > 0 && gk_device_info_get(&seen->device) == GV_OK;
    seen->index = seen->have_device ? gk_device_current() : -1;
    snprintf(why, len, "%s", seen->count ? gk_last_error() : "no CUDA device");
}
