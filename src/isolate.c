/* isolate.c: a check's cases in a child process, a fresh one after each fault, with a per-case
 * time limit (isolate.h). The protocol is one-way, child to parent, over a pipe: START i before
 * case i, DONE i and the gv_result after it. A gv_result is sent as its bytes: its pointers
 * (the op descriptor, the names of extras and checks) point into the program image, which a
 * child made by fork() without exec shares with its parent at the same addresses. */
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

#include "isolate.h"
#include "run.h"

enum { REC_START = 1, REC_DONE = 2 };

typedef struct rec_head {
    int32_t kind;
    int32_t index;
} rec_head;

void gv_inject_host_fault(const gv_case *c)
{
    const char *f = getenv("GPUVAL_INJECT_FAULT");
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

static void run_one(const gv_runner *run, int i, const gv_case *c, int repeat, gv_result *r)
{
    gv_inject_host_fault(c);
    if (!run->given && !run->on_kept) {
        gv_run_case_repeat(c, &gv_default_tiers, repeat, r);
        return;
    }
    gv_problem kept;
    gv_run_case_full(c, &gv_default_tiers, repeat, r, run->given, run->on_kept ? &kept : NULL);
    if (run->on_kept) {
        if (run->on_kept(i, &kept, r, run->ctx) != 0) r->output_lost = true;
        gv_problem_free(&kept);
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

/* The child: cases [first, end), each announced and then reported. A case that ends in
   ERROR ends the child: its CUDA context may be lost (a sticky error), and the parent runs
   the rest in a fresh process. */
static void child_main(int fd, const gv_runner *run, const gv_case *cases, int first, int end,
                       int repeat, pid_t parent)
{
    /* a parent killed outright takes its child along: no orphan left spinning on a GPU */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    int code = 0;
    for (int i = first; i < end; i++) {
        rec_head h = {REC_START, i};
        if (write_full(fd, &h, sizeof h) != 0) {
            code = 1;
            break;
        }
        gv_result r;
        run_one(run, i, &cases[i], repeat, &r);
        h.kind = REC_DONE;
        if (write_full(fd, &h, sizeof h) != 0 || write_full(fd, &r, sizeof r) != 0) {
            code = 1;
            break;
        }
        if (r.verdict == GV_ERROR) break;
    }
    fflush(NULL);
    _exit(code);
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
    gv_result_init(r, c, &gv_default_tiers);
    r->verdict = GV_ERROR;
    snprintf(r->reason, sizeof r->reason, fmt, what);
}

static void reap(pid_t pid, int *st)
{
    while (waitpid(pid, st, 0) < 0 && errno == EINTR) {
    }
}

/* Watch one child running cases [first, end); returns the first case it did not report. */
static int supervise(pid_t pid, int fd, const gv_case *cases, int first, const gv_runner *run,
                     gv_result *results)
{
    int current = -1, next = first;
    double deadline = 0.0, limit = run->case_timeout_s;
    for (;;) {
        int timeout_ms = -1;
        if (current >= 0 && limit > 0) {
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
            fail_case(&cases[current], &results[current],
                      limit < run->case_timeout_s ? "timed out after %s s (a planted fault's "
                                                    "limit; --case-timeout sets it)"
                                                  : "timed out after %s s (--case-timeout)",
                      t);
            if (run->on_done) run->on_done(current, &results[current], run->ctx);
            return current + 1;
        }
        rec_head h;
        if (pr < 0 || read_full(fd, &h, sizeof h) != sizeof h) break;
        if (h.kind == REC_START && current < 0 && h.index == next) {
            current = h.index;
            limit = run->case_timeout_s;
            if (cases[current].op->planted_fault && !run->case_timeout_given &&
                (limit <= 0 || limit > GV_FAULT_TIMEOUT_DEFAULT_S))
                limit = GV_FAULT_TIMEOUT_DEFAULT_S;
            deadline = now_s() + limit;
            if (run->on_start) run->on_start(current, run->ctx);
        } else if (h.kind == REC_DONE && h.index == current) {
            if (read_full(fd, &results[current], sizeof results[current]) !=
                sizeof results[current])
                break;
            if (run->on_done) run->on_done(current, &results[current], run->ctx);
            next = current + 1;
            current = -1;
        } else {
            kill(pid, SIGKILL); /* not our protocol: stop it, and say so below */
            break;
        }
    }
    int st;
    reap(pid, &st);
    char why[160];
    describe_status(st, why, sizeof why);
    if (current < 0 && next > first) return next; /* ended between cases (after an ERROR) */
    int i = current >= 0 ? current : next;
    fail_case(&cases[i], &results[i], "the case's process %s", why);
    if (run->on_done) run->on_done(i, &results[i], run->ctx);
    return i + 1;
}

int gv_run_cases(const gv_case *cases, int n, const gv_runner *run, gv_result *results)
{
    int repeat = run->repeat > 1 ? run->repeat : 1;
    if (!run->isolate) {
        for (int i = 0; i < n; i++) {
            if (run->on_start) run->on_start(i, run->ctx);
            run_one(run, i, &cases[i], repeat, &results[i]);
            if (run->on_done) run->on_done(i, &results[i], run->ctx);
        }
        return GV_OK;
    }
    /* One worker runs every remaining case: a CUDA context, its modules and the host buffers
       are set up once for the run instead of once per op. A crash, a timeout or an ERROR ends
       the worker; the cases after it run in a fresh one. */
    int next = 0;
    while (next < n) {
        int end = n;
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
            for (int i = next; i < n; i++) {
                fail_case(&cases[i], &results[i], "could not start a process for it: %s", why);
                if (run->on_done) run->on_done(i, &results[i], run->ctx);
            }
            return GV_EIO;
        }
        if (pid == 0) {
            close(fds[0]);
            child_main(fds[1], run, cases, next, end, repeat, self);
        }
        close(fds[1]);
        next = supervise(pid, fds[0], cases, next, run, results);
        close(fds[0]);
    }
    return GV_OK;
}

typedef struct probe_rec {
    int count, rc, index;
    gk_device_info device;
    char error[256];
} probe_rec;

void gv_isolated_device_probe(gv_run_info *info, char *why, size_t len)
{
    info->have_device = false;
    memset(&info->device, 0, sizeof info->device);
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
    info->have_device = p.count > 0 && p.rc == GV_OK;
    info->device_count = p.count;
    info->device_index = p.index;
    info->device = p.device;
    snprintf(why, len, "%s", p.count ? p.error : "no CUDA device");
}

int gv_isolated_device_count(void)
{
    gv_run_info info;
    char why[256];
    memset(&info, 0, sizeof info);
    gv_isolated_device_probe(&info, why, sizeof why);
    return info.device_count;
}
