/* bench_case.c: the timing of one case and of the run's ceilings. The CPU oracle is timed
 * on the inputs the device gets (its first run is the reference and stays untimed); the GPU
 * scopes are sampled through kernels/timing.cu until the stop rule of stats.c says enough;
 * the sanity verdict judges what the last end-to-end sample brought back, and an output of
 * the kernel-only path after all its repeated launches. */
#include "bench/bench_case.h"

#include <assert.h>
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/power.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const gv_bench_device gv_bench_cuda = {
    gk_device_count,      gk_mem_info,       gk_bench_open,  gk_bench_sample,
    gk_bench_result,      gk_bench_info_get, gk_bench_close, gk_ceiling_copy_open,
    gk_ceiling_gemm_open, gk_l2_flush_bytes,
};

const gv_bench_device *gv_bench_device_of(const gv_bench_opts *o)
{
    return o && o->device ? o->device : &gv_bench_cuda;
}

static const gv_bench_device *dev_of(const gv_bench_opts *o)
{
    return gv_bench_device_of(o);
}

const char *gv_timing_key(int id)
{
    static const char *const keys[GV_NTIMINGS] = {"kernel_hot", "kernel_cold", "e2e", "cpu"};
    return id >= 0 && id < GV_NTIMINGS ? keys[id] : "?";
}

void gv_bench_opts_default(gv_bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->gpu = (gv_sampling){.target_spread = 0.01,
                           .cap_s = 0.5,
                           .min_samples = 10,
                           .max_samples = 10000,
                           .budget_s = 0,
                           .conf = 0.95};
    o->cpu = o->gpu;
    o->cpu.budget_s = 20.0;
    o->time_cpu = o->hot = o->cold = true;
    o->max_hot_reps = 64;
    o->min_hot_sample_ms = 0.05;
}

int gv_samples_push(gv_samples *s, double ms)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        double *grown = realloc(s->ms, sizeof *grown * (size_t)cap);
        if (!grown) return GV_ENOMEM;
        s->ms = grown;
        s->cap = cap;
    }
    s->ms[s->n++] = ms;
    return GV_OK;
}

void gv_samples_free(gv_samples *s)
{
    free(s->ms);
    memset(s, 0, sizeof *s);
}

void gv_bench_case_free(gv_bench_case *bc)
{
    for (int i = 0; i < GV_NTIMINGS; i++)
        gv_samples_free(&bc->t[i]);
    gv_samples_free(&bc->repeat);
}

/* A sample source: one sample in ms, or a gv_err. */
typedef int (*sample_fn)(void *ctx, double *ms);

/* Take `warmup` discarded samples, then samples until the rule stops. */
static int sample_until(sample_fn fn, void *ctx, int warmup, const gv_sampling *rule, gv_samples *s)
{
    double ms;
    for (int i = 0; i < warmup; i++) {
        int rc = fn(ctx, &ms);
        if (rc != GV_OK) return rc;
    }
    double t0 = now_s();
    for (;;) {
        int rc = fn(ctx, &ms);
        if (rc == GV_OK) rc = gv_samples_push(s, ms);
        if (rc != GV_OK) return rc;
        s->elapsed_s = now_s() - t0;
        s->stop = gv_sampling_stop(rule, s->ms, s->n, s->elapsed_s);
        if (s->stop != GV_STOP_NO) return GV_OK;
    }
}

static int cpu_sample(void *ctx, double *ms)
{
    gv_problem *p = ctx;
    double t0 = now_s();
    int rc = p->c.op->oracle(p);
    *ms = (now_s() - t0) * 1e3;
    return rc;
}

typedef struct gpu_ctx {
    const gv_bench_device *dev;
    gk_bench *b;
    int scope, reps;
} gpu_ctx;

static int gpu_sample(void *ctx, double *ms)
{
    gpu_ctx *g = ctx;
    return g->dev->sample(g->b, g->scope, g->reps, ms);
}

static void set_verdict(gv_result *r, gv_verdict v, const char *why)
{
    r->verdict = v;
    snprintf(r->reason, sizeof r->reason, "%s", why);
}

/* A device-side failure as the verdict: SKIP for memory and unsupported modes, else ERROR. */
/* The case opened on dev for timing: L and io are what the bench points at, so they are the
   caller's and outlive *b. */
static int open_case(const gv_bench_device *dev, const gv_problem *p, gk_launch *L, gk_host_io *io,
                     gk_bench **b)
{
    gv_problem_launch(p, L, io);
    *b = NULL;
    return dev->open(p->c.op->device, L, io, b);
}

/* "setup: WHY" for an open that failed with rc: the device layer's own words where the error
   is the device's or its library's. */
static void setup_why(int rc, char *why, size_t len)
{
    snprintf(why, len, "setup: %s",
             rc == GV_ECUDA || rc == GV_ELIB || rc == GV_EDEVMEM || rc == GV_EUNSUPPORTED
                 ? gk_last_error()
                 : gv_strerror(rc));
}

static void device_failure(gv_result *r, int rc, const char *when)
{
    char why[256];
    if (rc == GV_EDEVMEM) {
        snprintf(why, sizeof why, "too little device memory (%s)", gk_last_error());
        set_verdict(r, GV_SKIP, why);
    } else if (rc == GV_EUNSUPPORTED) {
        snprintf(why, sizeof why, "mode not supported: %s", gk_last_error());
        set_verdict(r, GV_SKIP, why);
    } else {
        snprintf(why, sizeof why, "%s: %s", when,
                 rc == GV_ECUDA || rc == GV_ELIB ? gk_last_error() : gv_strerror(rc));
        set_verdict(r, GV_ERROR, why);
    }
}

int gv_bench_case_bytes(const gv_case *c, const gv_bench_opts *o, double *host_bytes,
                        double *device_bytes)
{
    gv_layout l;
    memset(&l, 0, sizeof l);
    int rc = c->op->layout(c, &l);
    if (rc != GV_OK) return rc;
    double es = (double)gv_dtype_size(c->dtype), tensors = 0;
    for (int i = 0; i < l.n_in; i++)
        tensors += (double)l.in[i].count;
    for (int i = 0; i < l.n_out; i++)
        tensors += (double)l.out[i].count;
    /* the problem's f64 and dtype copies, plus pinned copies of every tensor */
    *host_bytes = gv_host_bytes(&l, c->dtype) + tensors * es;
    *device_bytes = tensors * es + (double)l.workspace_bytes + (double)dev_of(o)->flush_bytes();
    return GV_OK;
}

/* Hot samples long enough for the events' resolution: reps from one single-launch sample. */
static int choose_reps(gk_bench *b, const gv_bench_opts *o, int *reps)
{
    double ms = 0;
    int rc = dev_of(o)->sample(b, GK_SCOPE_HOT, 1, &ms);
    if (rc != GV_OK) return rc;
    int r = 1;
    if (ms > 0 && ms < o->min_hot_sample_ms) r = (int)ceil(o->min_hot_sample_ms / ms);
    if (r > o->max_hot_reps) r = o->max_hot_reps;
    *reps = r < 1 ? 1 : r;
    return GV_OK;
}

/* Open the case on the device, time the CPU oracle, then the GPU scopes, the sanity
   verdicts and the repeat; p holds the reference already. */
static int time_gpu(gv_problem *p, const gv_bench_opts *o, bool repeat, gv_bench_case *bc)
{
    const gv_bench_device *dev = dev_of(o);
    gk_launch L;
    gk_host_io io;
    gk_bench *b;
    int rc = open_case(dev, p, &L, &io, &b);
    if (rc != GV_OK) {
        device_failure(&bc->sanity, rc, "setup");
        return GV_OK;
    }
    /* The CPU oracle, once the device is known to take the case. */
    if (o->time_cpu) {
        bc->t[GV_T_CPU].reps = 1;
        rc = sample_until(cpu_sample, p, 0, &o->cpu, &bc->t[GV_T_CPU]);
        if (rc != GV_OK) {
            char why[160];
            snprintf(why, sizeof why, "oracle: %s", gv_strerror(rc));
            set_verdict(&bc->sanity, GV_ERROR, why);
            dev->close(b);
            return GV_OK;
        }
    }
    int reps = 1;
    rc = choose_reps(b, o, &reps);
    const int scopes[] = {GK_SCOPE_HOT, GK_SCOPE_COLD, GK_SCOPE_E2E};
    for (int i = 0; i < 3 && rc == GV_OK; i++) {
        int s = scopes[i];
        if ((s == GK_SCOPE_HOT && !o->hot) || (s == GK_SCOPE_COLD && !o->cold)) continue;
        gpu_ctx g = {dev, b, s, s == GK_SCOPE_HOT ? reps : 1};
        bc->t[s].reps = g.reps;
        rc = sample_until(gpu_sample, &g, 1, &o->gpu, &bc->t[s]);
    }
    if (rc == GV_OK && repeat) {
        gpu_ctx g = {dev, b, GK_SCOPE_HOT, reps};
        bc->repeat.reps = reps;
        rc = sample_until(gpu_sample, &g, 1, &o->gpu, &bc->repeat);
    }
    if (rc != GV_OK) {
        device_failure(&bc->sanity, rc, "timed sample");
        dev->info(b, &bc->info);
        dev->close(b);
        return GV_OK;
    }
    bc->timed = true;
    /* Sanity: the end-to-end path's own output, then the kernel-only path's. */
    rc = dev->result(b, GK_SCOPE_E2E, &io);
    if (rc == GV_OK) gv_judge_problem(p, &bc->sanity);
    gv_result kr = bc->sanity;
    if (rc == GV_OK) rc = dev->result(b, GK_SCOPE_HOT, &io);
    if (rc == GV_OK) {
        gv_judge_problem(p, &kr);
        bc->kernel_verdict = kr.verdict;
        snprintf(bc->kernel_reason, sizeof bc->kernel_reason, "%s", kr.reason);
        if (kr.verdict == GV_FAIL && bc->sanity.verdict == GV_PASS) {
            bc->sanity.verdict = GV_FAIL;
            snprintf(bc->sanity.reason, sizeof bc->sanity.reason, "kernel-only path: %.230s",
                     kr.reason);
        }
    } else {
        device_failure(&bc->sanity, rc, "reading back the timed output");
    }
    dev->info(b, &bc->info);
    snprintf(bc->sanity.math_mode, sizeof bc->sanity.math_mode, "%s", bc->info.math_mode);
    dev->close(b);
    return GV_OK;
}

/* The mode probes of the case's (dtype, mode) (gv_mode_probe_cases), untimed, after the
   timed sample passed: a mode that is not in effect fails the sanity verdict as it fails
   check (docs/error-models.md, "A mode must be in effect"). */
static void probe_mode(gv_bench_case *bc)
{
    gv_case pc[8];
    char err[256] = "";
    const gv_case *c = &bc->c;
    int n = gv_mode_probe_cases(c->op, c->dtype, c->mode, false, c->seed, pc, 8, err, sizeof err);
    for (int k = 0; k < n; k++) {
        gv_result pr;
        gv_run_case(&pc[k], &pr);
        if (pr.verdict != GV_FAIL) continue;
        bc->sanity.verdict = GV_FAIL;
        snprintf(bc->sanity.reason, sizeof bc->sanity.reason, "mode probe (%s): %.200s",
                 gv_dist_name(pc[k].dist), pr.reason);
        return;
    }
}

int gv_bench_run_case(const gv_case *c, const gv_bench_opts *o, bool repeat, gv_bench_case *bc)
{
    memset(bc, 0, sizeof *bc);
    bc->c = *c;
    bc->kernel_verdict = GV_SKIP;
    bc->oracle_threads = openblas_get_num_threads();
    gv_result_init(&bc->sanity, c);
    const gv_bench_device *dev = dev_of(o);
    if (!c->op->device && dev == &gv_bench_cuda) {
        set_verdict(&bc->sanity, GV_SKIP, "built without CUDA");
        return GV_OK;
    }
    if (dev->count() == 0) {
        set_verdict(&bc->sanity, GV_SKIP, "no CUDA device");
        return GV_OK;
    }
    double host_need = 0, dev_need = 0;
    int rc = gv_bench_case_bytes(c, o, &host_need, &dev_need);
    if (rc != GV_OK) {
        set_verdict(&bc->sanity, GV_ERROR, "layout rejected the case");
        return GV_OK;
    }
    int64_t free_b = 0, total_b = 0;
    bc->sanity.bytes_needed = dev_need >= 0x1p63 ? INT64_MAX : (int64_t)dev_need;
    if (dev->mem_info(&free_b, &total_b) == GV_OK) {
        bc->sanity.bytes_free = free_b;
        if (dev_need > (double)free_b) {
            char why[160];
            snprintf(why, sizeof why, "needs %.0f bytes of device memory, %lld free", dev_need,
                     (long long)free_b);
            set_verdict(&bc->sanity, GV_SKIP, why);
            return GV_OK;
        }
    }
    double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (ram > 0 && host_need > ram) {
        char why[160];
        snprintf(why, sizeof why, "needs %.0f bytes of host memory, %.0f installed", host_need,
                 ram);
        set_verdict(&bc->sanity, GV_SKIP, why);
        return GV_OK;
    }
    gv_problem p;
    rc = gv_problem_init(&p, c);
    if (rc != GV_OK) {
        char why[160];
        snprintf(why, sizeof why, "inputs: %s (%.0f host bytes)", gv_strerror(rc), host_need);
        set_verdict(&bc->sanity, rc == GV_ENOMEM ? GV_SKIP : GV_ERROR, why);
        return GV_OK;
    }
    /* The reference: the oracle's first run, untimed (it warms the CPU's caches too). */
    double t0 = now_s();
    rc = c->op->oracle(&p);
    bc->reference_ms = (now_s() - t0) * 1e3;
    bc->sanity.oracle_ms = bc->reference_ms;
    if (rc == GV_OK) rc = gv_error_gauges(&p); /* untimed: the judge's, not the CPU's */
    if (rc != GV_OK) {
        char why[160];
        snprintf(why, sizeof why, "oracle: %s", gv_strerror(rc));
        set_verdict(&bc->sanity, GV_ERROR, why);
        gv_problem_free(&p);
        return GV_OK;
    }
    /* the board around the GPU scopes: a time taken while the clocks were held down for
       power or heat is marked in the table and the JSON */
    gv_power before, after;
    if (o->uuid) gv_power_read(o->uuid, &before);
    rc = time_gpu(&p, o, repeat, bc);
    if (o->uuid) {
        gv_power_read(o->uuid, &after);
        gv_clocks_from(&before, &after, &bc->clocks);
    } else {
        snprintf(bc->clocks.why, sizeof bc->clocks.why, "not read");
    }
    gv_problem_free(&p);
    if (rc == GV_OK && dev == &gv_bench_cuda && bc->sanity.verdict == GV_PASS) probe_mode(bc);
    return rc;
}

int gv_bench_time_hot(const gv_problem *p, const gv_bench_opts *o, gv_samples *s,
                      gk_bench_info *info, char *why, size_t len)
{
    const gv_bench_device *dev = dev_of(o);
    memset(info, 0, sizeof *info);
    why[0] = '\0';
    gk_launch L;
    gk_host_io io;
    gk_bench *b;
    int rc = open_case(dev, p, &L, &io, &b);
    if (rc != GV_OK) {
        setup_why(rc, why, len);
        return rc;
    }
    int reps = 1;
    rc = choose_reps(b, o, &reps);
    if (rc == GV_OK) {
        gpu_ctx g = {dev, b, GK_SCOPE_HOT, reps};
        s->reps = reps;
        rc = sample_until(gpu_sample, &g, 1, &o->gpu, s);
    }
    if (rc != GV_OK)
        snprintf(why, len, "timed sample: %s",
                 rc == GV_ECUDA || rc == GV_ELIB ? gk_last_error() : gv_strerror(rc));
    dev->info(b, info);
    dev->close(b);
    return rc;
}

/* ---- energy window -------------------------------------------------------------------- */

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Poll the energy counter every 0.5 ms until it moves from what it read first: its new value
   and the time it was seen. false (with why) when the read fails or nothing moves in
   timeout_s. */
static bool energy_edge(const char *uuid, double timeout_s, double *j, double *at, char *why,
                        size_t len)
{
    gv_power pw;
    gv_power_read(uuid, &pw);
    if (!pw.ok) {
        snprintf(why, len, "%s", pw.why);
        return false;
    }
    double first = pw.energy_j, t0 = mono_s();
    const struct timespec nap = {0, 500000};
    for (;;) {
        nanosleep(&nap, NULL);
        gv_power_read(uuid, &pw);
        double now = mono_s();
        if (!pw.ok) {
            snprintf(why, len, "%s", pw.why);
            return false;
        }
        if (pw.energy_j != first) {
            *j = pw.energy_j;
            *at = now;
            return true;
        }
        if (now - t0 > timeout_s) {
            snprintf(why, len, "the energy counter did not move in %.3g s", timeout_s);
            return false;
        }
    }
}

void gv_bench_energy_window(const gv_problem *p, const gv_bench_opts *o, const char *uuid,
                            gv_energy *e)
{
    const gv_bench_device *dev = dev_of(o);
    memset(e, 0, sizeof *e);
    e->j_per_call = e->watts = NAN;
    if (!uuid) {
        snprintf(e->why, sizeof e->why, "no device");
        return;
    }
    gk_launch L;
    gk_host_io io;
    gk_bench *b;
    int rc = open_case(dev, p, &L, &io, &b);
    if (rc != GV_OK) {
        setup_why(rc, e->why, sizeof e->why);
        return;
    }
    int reps = 1;
    rc = choose_reps(b, o, &reps);
    /* the update interval, between two edges seen while the device idles; the window starts
       at the second */
    double j0 = 0, t0 = 0, j1 = 0, t1 = 0;
    char why[160] = "";
    if (rc == GV_OK && energy_edge(uuid, 2.0, &j0, &t0, why, sizeof why) &&
        energy_edge(uuid, 2.0, &j1, &t1, why, sizeof why)) {
        double update_ms = (t1 - t0) * 1e3;
        double need_ms = 1e3 * gv_energy_window_s(update_ms, GV_ENERGY_MIN_S);
        double gpu_ms = 0, ms = 0;
        int64_t calls = 0;
        /* 60 s of wall time at most: a window that long means the samples barely run */
        while (rc == GV_OK && gpu_ms < need_ms && mono_s() - t1 < 60.0) {
            rc = dev->sample(b, GK_SCOPE_HOT, reps, &ms);
            gpu_ms += ms * reps;
            calls += reps;
        }
        double j2 = 0, t2 = 0;
        if (rc == GV_OK && energy_edge(uuid, 2.0, &j2, &t2, why, sizeof why))
            gv_energy_finish(e, j1, j2, calls, gpu_ms * 1e-3, t2 - t1, update_ms);
        else if (!why[0])
            snprintf(why, sizeof why, "energy window: %s",
                     rc == GV_ECUDA || rc == GV_ELIB ? gk_last_error() : gv_strerror(rc));
    } else if (rc != GV_OK) {
        snprintf(why, sizeof why, "energy window: %s",
                 rc == GV_ECUDA || rc == GV_ELIB ? gk_last_error() : gv_strerror(rc));
    }
    if (!e->ok && !e->why[0]) snprintf(e->why, sizeof e->why, "%s", why);
    dev->close(b);
}

/* ---- ceilings ------------------------------------------------------------------------ */

static void ceiling_measure(gv_ceiling *c, int open_rc, gk_bench *b, const gv_bench_opts *o)
{
    const gv_bench_device *dev = dev_of(o);
    if (open_rc != GV_OK) {
        snprintf(c->why, sizeof c->why, "%s",
                 open_rc == GV_ECUDA || open_rc == GV_ELIB || open_rc == GV_EDEVMEM
                     ? gk_last_error()
                     : gv_strerror(open_rc));
        return;
    }
    gpu_ctx g = {dev, b, GK_SCOPE_HOT, 1};
    c->t.reps = 1;
    int rc = sample_until(gpu_sample, &g, 1, &o->gpu, &c->t);
    gk_bench_info info;
    dev->info(b, &info);
    snprintf(c->math_mode, sizeof c->math_mode, "%s", info.math_mode);
    dev->close(b);
    if (rc != GV_OK) {
        snprintf(c->why, sizeof c->why, "%s", gk_last_error());
        return;
    }
    c->ok = true;
}

void gv_bench_ceilings(const gv_bench_opts *o, unsigned dtypes, gv_ceilings *c)
{
    const gv_bench_device *dev = dev_of(o);
    memset(c, 0, sizeof *c);
    for (int t = 0; t < GV_NDTYPES; t++)
        snprintf(c->gemm[t].why, sizeof c->gemm[t].why, "no %s case in this run",
                 gv_dtype_name((gv_dtype)t));
    int64_t free_b = 0, total_b = 0;
    if (dev->count() == 0 || dev->mem_info(&free_b, &total_b) != GV_OK) {
        snprintf(c->copy.why, sizeof c->copy.why, "no CUDA device");
        for (int t = 0; t < GV_NDTYPES; t++)
            snprintf(c->gemm[t].why, sizeof c->gemm[t].why, "no CUDA device");
        return;
    }
    /* Copy: 1 GiB, or a quarter of free memory if less, whole MiB (far past any L2). */
    int64_t bytes = (int64_t)1 << 30;
    if (bytes > free_b / 4) bytes = (free_b / 4) & ~(((int64_t)1 << 20) - 1);
    c->copy.size = bytes;
    c->copy.work = 2.0 * (double)bytes;
    gk_bench *b = NULL;
    int rc = bytes > 0 ? dev->copy_open(bytes, &b) : GV_EDEVMEM;
    ceiling_measure(&c->copy, rc, b, o);
    /* gemm: 8192^3, halved until its three matrices take at most half of free memory. */
    for (int t = 0; t < GV_NDTYPES; t++) {
        if (!(dtypes & (1u << t))) continue;
        gv_ceiling *g = &c->gemm[t];
        g->why[0] = '\0';
        int64_t n = 8192;
        double es = (double)gv_dtype_size((gv_dtype)t);
        while (n > 1024 && 3.0 * (double)n * (double)n * es > 0.5 * (double)free_b)
            n /= 2;
        g->size = n;
        g->work = 2.0 * (double)n * (double)n * (double)n;
        b = NULL;
        rc = dev->gemm_open(t, n, &b);
        ceiling_measure(g, rc, b, o);
    }
}

void gv_ceilings_free(gv_ceilings *c)
{
    gv_samples_free(&c->copy.t);
    for (int t = 0; t < GV_NDTYPES; t++)
        gv_samples_free(&c->gemm[t].t);
}
