/* isolate.c: a check's cases in a child process, a fresh one after each fault, with a per-case
 * time limit (isolate.h). The protocol is one-way, child to parent, over a pipe: records that
 * say which case begins, which case each of the child's threads is on, and each case's
 * gv_result (below). A gv_result is sent as its bytes: its pointers (the op descriptor, the
 * names of extras and checks) point into the program image, which a child made by fork()
 * without exec shares with its parent at the same addresses. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
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

/* Records, child to parent. START j: case j begins (its time limit starts). HOST j: the
   child's main thread now works on case j's host side (inputs, reference, judge). WAIT j: the
   main thread waits for case j's device run. DEV j / DEVEND j: the device thread starts and
   ends case j's device run. DONE j and the gv_result: case j's verdict. END: the child stops
   on purpose (after an ERROR); a case it started and did not report runs again. With the
   pipeline (run_loop) two cases can be in flight; the main thread's last HOST or WAIT and the
   device thread's DEV say which one a crash or a hang belongs to. */
enum { REC_START = 1, REC_DONE, REC_HOST, REC_WAIT, REC_DEV, REC_DEVEND, REC_END };

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
 * Pipelined, case j's inputs are made while case i's device run goes on, and case j's device
 * run goes on while case i is judged and case j's reference is read or computed:
 *
 *   main thread:    inputs j | wait i | judge i | reference j | inputs k | wait j | ...
 *   device thread:  .. device i ..    | device j ..............................|
 *
 * Case j's device run starts only after case i's ended without breaking the context, so a
 * device fault belongs to one case; only host work of two cases overlaps, and the records say
 * whose a crash was. On with GPUVAL_PIPELINE=1 (gv_pipeline_wanted: off by default, as it
 * measured slower), except with --repeat (the repeats use the device from the main thread),
 * --inputs, --dump-failures and GPUVAL_SERIAL_CASE=1, and for cases up to serial_through (the
 * parent runs the cases of a crash it could not place again, one at a time). */
typedef struct loop_out {
    int fd; /* isolated: the pipe, one writer at a time (the device thread writes too) */
    pthread_mutex_t mu;
    bool failed;
    const gv_runner *run; /* in process (fd < 0): the callbacks */
    int pending_start;    /* in process: a case started while the one before was in flight */
    int in_flight;
} loop_out;

static void emit(loop_out *o, int kind, int index, const gv_result *r)
{
    if (o->fd < 0) { /* in process: on_start held back until the case before is done */
        const gv_runner *run = o->run;
        if (kind == REC_START) {
            if (o->in_flight++ == 0) {
                if (run->on_start) run->on_start(index, run->ctx);
            } else {
                o->pending_start = index;
            }
        } else if (kind == REC_DONE) {
            if (run->on_done) run->on_done(index, r, run->ctx);
            o->in_flight--;
            if (o->pending_start >= 0 && run->on_start) run->on_start(o->pending_start, run->ctx);
            o->pending_start = -1;
        }
        return;
    }
    pthread_mutex_lock(&o->mu);
    rec_head h = {kind, index};
    if (write_full(o->fd, &h, sizeof h) != 0 || (r && write_full(o->fd, r, sizeof *r) != 0))
        o->failed = true;
    pthread_mutex_unlock(&o->mu);
}

static void device_note(int index, bool ended, void *ctx)
{
    emit((loop_out *)ctx, ended ? REC_DEVEND : REC_DEV, index, NULL);
}

typedef struct loop_args {
    const gv_runner *run;
    const gv_case *cases;
    gv_result *results;
    const bool *decided; /* cases already reported: skipped (NULL: none) */
    int first, end, repeat;
    int serial_through; /* cases up to this index run one at a time */
    bool stop_on_error; /* a child: an ERROR may have lost the context, stop after it */
} loop_args;

static int next_case(const loop_args *a, int i)
{
    while (i < a->end && a->decided && a->decided[i])
        i++;
    return i;
}

static void begin_case(const loop_args *a, loop_out *o, gv_case_run *cr, int i)
{
    emit(o, REC_START, i, NULL);
    emit(o, REC_HOST, i, NULL);
    gv_inject_host_fault(&a->cases[i]);
    cr->index = i;
    cr->on_device = device_note;
    cr->on_device_ctx = o;
    gv_case_prepare(cr, &a->cases[i], &gv_default_tiers, a->repeat, &a->results[i], a->run->given);
}

/* Case i judged and reported; true when it was an ERROR. */
static bool end_case(const loop_args *a, loop_out *o, gv_case_run *cr, int i)
{
    emit(o, REC_WAIT, i, NULL);
    gv_case_device_wait(cr);
    emit(o, REC_HOST, i, NULL);
    const gv_runner *run = a->run;
    gv_result *r = &a->results[i];
    if (run->on_kept) {
        gv_problem kept;
        gv_case_finish(cr, &kept);
        if (run->on_kept(i, &kept, r, run->ctx) != 0) r->output_lost = true;
        gv_problem_free(&kept);
    } else {
        gv_case_finish(cr, NULL);
    }
    emit(o, REC_DONE, i, r);
    return r->verdict == GV_ERROR;
}

/* Runs the cases of a in order; true when it stopped after an ERROR (stop_on_error). */
static bool run_loop(const loop_args *a, loop_out *o)
{
    bool serial_all = gv_serial_wanted();
    bool can_pipe = gv_pipeline_wanted() && !a->run->given && !a->run->on_kept && a->repeat == 1;
    int cur = 0, i = next_case(a, a->first);
    if (i >= a->end) return false;
    gv_case_run slot[2]; /* about 2 KB each; their addresses are fixed while in flight */
    begin_case(a, o, &slot[cur], i);
    if (gv_case_admit(&slot[cur])) gv_case_device_start(&slot[cur], !serial_all);
    gv_case_oracle(&slot[cur]);
    for (;;) {
        int j = next_case(a, i + 1), nx = 1 - cur;
        bool piped = j < a->end && can_pipe && j > a->serial_through;
        if (piped) begin_case(a, o, &slot[nx], j); /* while case i's device run goes on */
        emit(o, REC_WAIT, i, NULL);
        gv_case_device_wait(&slot[cur]);
        bool started = false;
        if (piped && !gv_case_device_broke(&slot[cur])) {
            if (gv_case_admit(&slot[nx])) gv_case_device_start(&slot[nx], true);
            started = true;
        }
        if (end_case(a, o, &slot[cur], i) && a->stop_on_error) {
            if (piped) gv_case_finish(&slot[nx], NULL); /* reported by the next child */
            return true;
        }
        if (j >= a->end) return false;
        if (!piped) begin_case(a, o, &slot[nx], j);
        if (!started) {
            if (gv_case_admit(&slot[nx])) gv_case_device_start(&slot[nx], !serial_all);
        } else {
            emit(o, REC_HOST, j, NULL);
        }
        gv_case_oracle(&slot[nx]);
        cur = nx;
        i = j;
    }
}

/* The child: the cases of a. A case that ends in ERROR ends the child: its CUDA context may
   be lost (a sticky error), and the parent runs the rest in a fresh process. */
static void child_main(int fd, const loop_args *a, pid_t parent)
{
    /* a parent killed outright takes its child along: no orphan left spinning on a GPU */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    loop_out o = {.fd = fd, .run = a->run, .pending_start = -1};
    pthread_mutex_init(&o.mu, NULL);
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
    gv_result_init(r, c, &gv_default_tiers);
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
    rp->decided[i] = true;
    while (rp->next < rp->n && rp->decided[rp->next]) {
        rep_start(rp, rp->next);
        if (rp->run->on_done) rp->run->on_done(rp->next, &rp->results[rp->next], rp->run->ctx);
        rp->next++;
    }
}

/* The parent's view of one child: the cases it started and has not reported (at most two,
   in order), each one's time limit, and what its threads said last. */
typedef struct watch {
    int flight[2], n_flight;
    double deadline[2], limit[2];
    bool planted_limit[2];
    int host_case, wait_case; /* the main thread's last HOST or WAIT (the other -1) */
    int dev_case;             /* between DEV and DEVEND, else -1 */
    bool started;             /* any START at all */
} watch;

static bool in_flight(const watch *w, int i)
{
    for (int k = 0; k < w->n_flight; k++)
        if (w->flight[k] == i) return true;
    return false;
}

/* Whose fault, when a child died or hung with cases in flight: the one case in flight; else
   the case the main thread waited for (a fault while it waits is its device run's); else the
   main thread's case when no device run of another case was going on. -1: both threads were
   busy with different cases. */
static int culprit(const watch *w)
{
    if (w->n_flight == 1) return w->flight[0];
    if (w->wait_case >= 0 && in_flight(w, w->wait_case)) return w->wait_case;
    if (w->host_case >= 0 && in_flight(w, w->host_case) &&
        (w->dev_case < 0 || w->dev_case == w->host_case))
        return w->host_case;
    return -1;
}

/* Watch one child until it is gone. Reported cases are decided; a case the child's end is
   blamed on is failed and decided; a crash that cannot be placed raises *serial_through, so
   that the next child runs the cases in flight one at a time and the crash is placed then. */
static void supervise(pid_t pid, int fd, reporter *rp, int *serial_through)
{
    const gv_runner *run = rp->run;
    const gv_case *cases = rp->cases;
    watch w = {.host_case = -1, .wait_case = -1, .dev_case = -1};
    bool on_purpose = false;
    for (;;) {
        int timeout_ms = -1, due = -1;
        for (int k = 0; k < w.n_flight; k++)
            if (w.limit[k] > 0 && (due < 0 || w.deadline[k] < w.deadline[due])) due = k;
        if (due >= 0) {
            double left = w.deadline[due] - now_s();
            timeout_ms = left <= 0 ? 0 : left > 2e6 ? 2000000000 : (int)ceil(left * 1e3);
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = poll(&pfd, 1, timeout_ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) {
            kill(pid, SIGKILL);
            int st;
            reap(pid, &st);
            /* the hung one: the case the main thread is on or waits for; another case in
               flight did not get to finish and runs again */
            int c = culprit(&w), k = due;
            if (c < 0) c = w.flight[due];
            if (w.flight[0] == c) k = 0;
            if (w.n_flight > 1 && w.flight[1] == c) k = 1;
            char t[64];
            snprintf(t, sizeof t, "%g", w.limit[k]);
            fail_case(&cases[c], &rp->results[c],
                      w.planted_limit[k] ? "timed out after %s s (a planted fault's limit; "
                                           "--case-timeout sets it)"
                                         : "timed out after %s s (--case-timeout)",
                      t);
            rep_decide(rp, c);
            return;
        }
        rec_head h;
        if (pr < 0 || read_full(fd, &h, sizeof h) != sizeof h) break;
        bool ok = true;
        int i = h.index;
        switch (h.kind) {
        case REC_START:
            if (w.n_flight == 2 || i < rp->next || i >= rp->n || rp->decided[i] ||
                (w.n_flight && i <= w.flight[w.n_flight - 1])) {
                ok = false;
                break;
            }
            w.started = true;
            w.flight[w.n_flight] = i;
            w.limit[w.n_flight] = run->case_timeout_s;
            w.planted_limit[w.n_flight] = false;
            if (cases[i].op->planted_fault && !run->case_timeout_given &&
                (run->case_timeout_s <= 0 || run->case_timeout_s > GV_FAULT_TIMEOUT_DEFAULT_S)) {
                w.limit[w.n_flight] = GV_FAULT_TIMEOUT_DEFAULT_S;
                w.planted_limit[w.n_flight] = true;
            }
            w.deadline[w.n_flight] = now_s() + w.limit[w.n_flight];
            w.n_flight++;
            rep_start(rp, w.flight[0]);
            break;
        case REC_HOST:
        case REC_WAIT:
            if (!in_flight(&w, i)) {
                ok = false;
                break;
            }
            w.host_case = h.kind == REC_HOST ? i : -1;
            w.wait_case = h.kind == REC_WAIT ? i : -1;
            break;
        case REC_DEV:
            if (!in_flight(&w, i)) ok = false;
            w.dev_case = i;
            break;
        case REC_DEVEND: w.dev_case = -1; break;
        case REC_END: on_purpose = true; break;
        case REC_DONE:
            if (w.n_flight == 0 || i != w.flight[0] ||
                read_full(fd, &rp->results[i], sizeof rp->results[i]) != sizeof rp->results[i]) {
                ok = false;
                break;
            }
            w.flight[0] = w.flight[1];
            w.limit[0] = w.limit[1];
            w.planted_limit[0] = w.planted_limit[1];
            /* the next case's clock counts from here, not from its START: until now it shared
               the child with this one (a hang meanwhile was placed by HOST or WAIT) */
            w.deadline[0] = now_s() + w.limit[0];
            w.n_flight--;
            rep_decide(rp, i);
            if (w.n_flight) rep_start(rp, w.flight[0]);
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
    if (w.n_flight == 0 && w.started) return;         /* ended between cases (after an ERROR) */
    if (on_purpose && w.n_flight > 0) return;         /* after an ERROR: these run again */
    int c = w.n_flight == 0 ? rp->next : culprit(&w); /* none started: the first waiting */
    if (c < 0) {
        *serial_through = w.flight[w.n_flight - 1];
        return;
    }
    char why[160];
    describe_status(st, why, sizeof why);
    fail_case(&cases[c], &rp->results[c], "the case's process %s", why);
    rep_decide(rp, c);
}

int gv_run_cases(const gv_case *cases, int n, const gv_runner *run, gv_result *results)
{
    int repeat = run->repeat > 1 ? run->repeat : 1;
    loop_args a = {.run = run,
                   .cases = cases,
                   .results = results,
                   .first = 0,
                   .end = n,
                   .repeat = repeat,
                   .serial_through = -1};
    if (!run->isolate) {
        loop_out o = {.fd = -1, .run = run, .pending_start = -1};
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
        supervise(pid, fds[0], &rp, &a.serial_through);
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
