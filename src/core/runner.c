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
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/runner.h"

#include "core/judge.h"
#include "core/knobs.h"
#include "core/run.h"

/* Records, child to parent. START j: case j begins (its time limit starts). DONE j and the
   gv_result: case j's verdict. END: the child stops on purpose (after an ERROR); a case it
   started and did not report runs again. One case is in flight at a time, so a crash or a hang
   is the case in flight's. */
enum { REC_START = 1, REC_DONE, REC_END };

typedef struct rec_head {
    int32_t kind;
    int32_t index;
} rec_head;

void gv_inject_host_fault(const gv_case *c)
{
    const char *f = gv_knobs()->inject_fault;
    const char *colon = f ? strchr(f, ':') : NULL;
    if (!colon || fnmatch(colon + 1, c->op->name, 0) != 0) return;
    size_t kind = (size_t)(colon - f);
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
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int write_full(int fd, const void *buf, size_t len)
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

/* Bytes read: len, or fewer at end of file or on an error. */
static size_t read_full(int fd, void *buf, size_t len)
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
    if (write_full(o->fd, &h, sizeof h) != 0 || (r && write_full(o->fd, r, sizeof *r) != 0))
        o->failed = true;
}

typedef struct loop_args {
    const gv_runner *run;
    const gv_case *cases;
    gv_result *results;
    const bool *decided; /* cases already reported: skipped (NULL: none) */
    int first, end, repeat;
    bool stop_on_error; /* a child: an ERROR may have lost the context, stop after it */
} loop_args;

static int next_case(const loop_args *a, int i)
{
    while (i < a->end && a->decided && a->decided[i])
        i++;
    return i;
}

/* Case i from start to its report; true when it was an ERROR. */
static bool one_case(const loop_args *a, loop_out *o, int i)
{
    const gv_runner *run = a->run;
    gv_result *r = &a->results[i];
    emit(o, REC_START, i, NULL);
    gv_inject_host_fault(&a->cases[i]);
    gv_case_run cr; /* about 2 KB; its address is fixed while its device run is in flight */
    gv_case_prepare(&cr, &a->cases[i], a->repeat, r, run->given);
    if (gv_case_admit(&cr)) gv_case_device_start(&cr, !gv_knobs()->serial_case);
    gv_case_oracle(&cr);
    if (run->on_kept) {
        gv_problem kept;
        gv_case_finish(&cr, &kept);
        if (run->on_kept(i, &kept, r, run->ctx) != 0) r->output_lost = true;
        gv_problem_free(&kept);
    } else {
        gv_case_finish(&cr, NULL);
    }
    emit(o, REC_DONE, i, r);
    return r->verdict == GV_ERROR;
}

/* Runs the cases of a in order; true when it stopped after an ERROR (stop_on_error). */
static bool run_loop(const loop_args *a, loop_out *o)
{
    for (int i = next_case(a, a->first); i < a->end; i = next_case(a, i + 1))
        if (one_case(a, o, i) && a->stop_on_error) return true;
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
    int n, next; /* the first case not yet passed to on_done */
    int started; /* the last case passed to on_start, or -1 */
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
            char t[64];
            snprintf(t, sizeof t, "%g", limit);
            fail_case(&cases[flight], &rp->results[flight],
                      planted_limit ? "timed out after %s s (a planted fault's limit; "
                                      "--case-timeout sets it)"
                                    : "timed out after %s s (--case-timeout)",
                      t);
            rep_decide(rp, flight);
            return;
        }
        rec_head h;
        if (pr < 0 || read_full(fd, &h, sizeof h) != sizeof h) break;
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
            limit = run->case_timeout_s;
            planted_limit = false;
            if (cases[i].op->planted_fault && !run->case_timeout_given &&
                (run->case_timeout_s <= 0 || run->case_timeout_s > GV_FAULT_TIMEOUT_DEFAULT_S)) {
                limit = GV_FAULT_TIMEOUT_DEFAULT_S;
                planted_limit = true;
            }
            deadline = now_s() + limit;
            rep_start(rp, i);
            break;
        case REC_END: on_purpose = true; break;
        case REC_DONE:
            if (flight < 0 || i != flight ||
                read_full(fd, &rp->results[i], sizeof rp->results[i]) != sizeof rp->results[i]) {
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
    reporter rp = {run, cases, results, decided, n, 0, -1};
    a.decided = decided;
    a.stop_on_error = true;
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
        _exit(write_full(fds[1], &p, sizeof p) == 0 ? 0 : 1);
    }
    close(fds[1]);
    probe_rec p;
    size_t got = read_full(fds[0], &p, sizeof p);
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
