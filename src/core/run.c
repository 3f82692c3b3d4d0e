/* run.c: one case of a correctness run, end to end (run.h): its problem (problem.h), the device
 * memory checks, the device run on a thread of its own beside the reference (reference.h), and
 * the verdict (judge.h). */
#include "core/run.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../oracle/go.h"
#include "core/fault.h"
#include "core/inputs.h"
#include "core/judge.h"
#include "core/judge_memo.h"
#include "core/knobs.h"
#include "core/reference.h"
#include "core/repeat.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

int gv_run_case(const gv_case *c, gv_result *r)
{
    return gv_run_case_io(c, r, NULL, NULL);
}

static void release(gv_problem *p, gv_problem *keep)
{
    if (keep)
        *keep = *p;
    else
        gv_problem_free(p);
}

/* The correctness run of one case on the device, on a thread of its own while the oracle
 * runs on the caller's (gv_case_device_start): both only read the inputs (the device run its
 * data, the oracle their f64 copies) and write outputs of their own, so they can overlap; the
 * judge waits for both. */
static void *device_job_run(void *arg)
{
    gv_case_run *cr = (gv_case_run *)arg;
    gk_device_count(); /* makes the selected device current on this thread */
    gk_clear_error();
    double t0 = now_ms();
    cr->device_rc = gk_run(cr->p.c.op->device, &cr->L, &cr->io);
    cr->device_ms = now_ms() - t0;
    if (cr->device_rc == GV_OK) /* GPUVAL_SCREEN_FAULT: a planted wrong GPU, off by default */
        gv_fault_inject(cr->p.c.op->name, gk_device_current(), (gv_dtype)cr->L.dtype,
                        cr->io.out[0], cr->p.out[0].count);
    /* the last error is one buffer for the process: copied here, before the next case's
       device run can start, it belongs to this case whenever the judge reads it */
    snprintf(cr->device_error, sizeof cr->device_error, "%s", gk_last_error());
    return NULL;
}

int gv_problem_given(gv_problem *p, const gv_given_inputs *given, gv_result *r)
{
    gv_result_set_inputs(r, given->inputs);
    /* A caller that says given buffers are the generator's own (replay of a dump of generated
       inputs) is taken at its word only where the bits agree: else they are given inputs. */
    if (given->inputs == GV_INPUTS_GENERATED && !gv_given_match(p, given))
        gv_result_set_inputs(r, GV_INPUTS_GIVEN);
    return gv_problem_apply_given(p, given);
}

void gv_case_prepare(gv_case_run *cr, const gv_case *c, int repeat, gv_result *r,
                     const gv_given_inputs *given)
{
    memset(cr, 0, sizeof *cr);
    cr->r = r;
    cr->repeat = gv_case_repeats(c, repeat); /* a repeat canary asks for more launches */
    const gv_op *op = c->op;
    gv_result_init(r, c);
    if (given) gv_result_set_inputs(r, given->inputs); /* what the caller says they are */
    if (!op->device) {
        gv_result_set(r, GV_SKIP, "built without CUDA", 0, 0);
        return;
    }
    /* Sizes first, from the layout alone: a case too large for the host or the device is a
       SKIP with the numbers before anything is allocated; the host's first, so that a case no
       machine of this size can run says so with or without a device. */
    gv_problem *p = &cr->p;
    p->c = *c;
    int rc = op->layout(c, &p->l);
    if (rc != GV_OK) {
        r->verdict = GV_ERROR;
        snprintf(r->reason, sizeof r->reason, "layout: %s", gv_strerror(rc));
        return;
    }
    double host_need = gv_case_host_bytes(c, &p->l);
    char host_why[160];
    if (gv_host_memory_check(c, &p->l, host_why, sizeof host_why) != GV_OK) {
        r->verdict = GV_SKIP;
        snprintf(r->reason, sizeof r->reason, "%s", host_why);
        return;
    }
    if (gk_device_count() == 0) {
        gv_result_set(r, GV_SKIP, "no CUDA device", 0, 0);
        return;
    }
    r->bytes_needed = gv_device_bytes(p);
    int64_t free_b = 0, total_b = 0;
    if (gk_mem_info(&free_b, &total_b) == GV_OK) {
        /* the free bytes are checked again just before the device run (gv_case_admit): a
           previous case may still hold its memory now */
        r->bytes_free = free_b;
        if (r->bytes_needed == INT64_MAX) {
            gv_result_set(r, GV_SKIP, "needs more than %.0f bytes of device memory, %.0f free",
                          (double)INT64_MAX, (double)free_b);
            return;
        }
        if (r->bytes_needed > total_b) {
            gv_result_set(r, GV_SKIP, "needs %.0f bytes of device memory, %.0f free",
                          (double)r->bytes_needed, (double)free_b);
            return;
        }
    }
    go_clear_error();
    double t_in = now_ms();
    rc = given ? gv_problem_init(p, c) : gv_problem_init_shared(p, c);
    r->inputs_ms = now_ms() - t_in;
    if (rc == GV_ENOMEM) {
        gv_result_set(r, GV_SKIP, "too little host memory for the inputs (%.0f bytes)", host_need,
                      0);
        return;
    }
    if (rc != GV_OK) {
        r->verdict = GV_ERROR;
        gv_oracle_reason(rc, "inputs", r->reason, sizeof r->reason);
        return;
    }
    cr->have_problem = true;
    cr->memo_first = !given && gv_judge_memo_may(r, cr->repeat);
    if (given && gv_problem_given(p, given, r) != GV_OK) {
        r->verdict = GV_ERROR;
        snprintf(r->reason, sizeof r->reason, "inputs: the given tensors do not match the layout");
        return;
    }
    cr->runnable = true;
}

bool gv_case_admit(gv_case_run *cr)
{
    if (!cr->runnable) return false;
    gv_result *r = cr->r;
    int64_t free_b = 0, total_b = 0;
    if (gk_mem_info(&free_b, &total_b) == GV_OK) {
        r->bytes_free = free_b;
        if (r->bytes_needed > free_b) {
            gv_result_set(r, GV_SKIP, "needs %.0f bytes of device memory, %.0f free",
                          (double)r->bytes_needed, (double)free_b);
            cr->runnable = false;
            return false;
        }
    }
    return true;
}

void gv_case_device_start(gv_case_run *cr, bool own_thread)
{
    if (!cr->runnable) return;
    gv_problem_launch(&cr->p, &cr->L, &cr->io);
    cr->device_pending = true;
    if (own_thread) cr->device_thread = pthread_create(&cr->thread, NULL, device_job_run, cr) == 0;
}

int gv_problem_oracle(gv_problem *p, gv_result *r)
{
    double t0 = now_ms();
    go_clear_error();
    bool cached = false; /* oracle_ms is then the time to read the reference back */
    gv_cache_counts before = gv_cache_counts_get();
    int rc = gv_cached_reference(p, &cached);
    r->oracle_ms = now_ms() - t0;
    gv_cache_counts after = gv_cache_counts_get();
    r->cache.hits = after.hits - before.hits;
    r->cache.misses = after.misses - before.misses;
    r->cache.stored = after.stored - before.stored;
    r->cache.rejected = after.rejected - before.rejected;
    r->cache.cheap = after.cheap - before.cheap;
    if (rc != GV_OK) {
        r->verdict = GV_ERROR;
        gv_oracle_reason(rc, "oracle", r->reason, sizeof r->reason);
    }
    return rc;
}

void gv_case_oracle(gv_case_run *cr)
{
    if (!cr->runnable) return;
    /* a reference the cache holds is a read, which the memo may make needless: it waits for
       the outputs (gv_case_finish). One to compute (a cold cache, or cheaper than a read)
       runs beside the device run, as the judgement is then seldom kept. */
    if (cr->memo_first && gv_reference_kept(&cr->p)) {
        cr->oracle_later = true;
        return;
    }
    if (gv_problem_oracle(&cr->p, cr->r) != GV_OK) cr->oracle_failed = true;
}

/* The reference of a case whose judge needs it after all (the memo did not hold its
   judgement): false when the oracle failed (the verdict its ERROR). */
static bool oracle_now(gv_case_run *cr)
{
    if (!cr->oracle_later) return !cr->oracle_failed;
    cr->oracle_later = false;
    if (gv_problem_oracle(&cr->p, cr->r) != GV_OK) cr->oracle_failed = true;
    return !cr->oracle_failed;
}

void gv_case_device_wait(gv_case_run *cr)
{
    if (!cr->device_pending) return;
    if (cr->device_thread)
        pthread_join(cr->thread, NULL);
    else
        device_job_run(cr); /* serial, or no thread could be made: run it here */
    cr->device_thread = false;
    cr->device_pending = false;
    cr->device_done = true;
}

/* The judgement of outputs that came back whole: from the memo where it holds them (the
   reference then unread if it was left for later), else the judge's, stored. */
static void finish_judge(gv_case_run *cr)
{
    gv_result *r = cr->r;
    gv_problem *p = &cr->p;
    double t0 = now_ms();
    if (cr->memo_first && gv_judge_memo_take(p, r, cr->repeat) == GV_JUDGE_MEMO_HIT) {
        r->oracle_unread = cr->oracle_later;
        cr->oracle_later = false;
        r->judge_ms = now_ms() - t0;
        return;
    }
    if (!oracle_now(cr)) return; /* the oracle's ERROR */
    t0 = now_ms();
    gv_judge_problem(p, r);
    gv_judge_memo_store(p, r, cr->repeat);
    r->judge_ms = now_ms() - t0;
    if (cr->repeat > 1) gv_repeat_judge(p, &cr->L, r, cr->repeat);
}

void gv_case_finish(gv_case_run *cr, gv_problem *keep)
{
    gv_case_device_wait(cr); /* nothing may still read the inputs when they are freed */
    gv_result *r = cr->r;
    gv_problem *p = &cr->p;
    const char *err = cr->device_error; /* as gk_last_error() was when the run ended */
    if (cr->device_done && !cr->oracle_failed) {
        int rc = cr->device_rc;
        r->device_ms = cr->device_ms;
        snprintf(r->math_mode, sizeof r->math_mode, "%s", cr->L.math_mode);
        if (rc == GV_EDEVMEM) {
            gv_result_set(r, GV_SKIP, "needs %.0f bytes of device memory, %.0f free",
                          (double)r->bytes_needed, (double)r->bytes_free);
        } else if (rc == GV_EUNSUPPORTED) {
            r->verdict = GV_SKIP;
            snprintf(r->reason, sizeof r->reason, "mode not supported: %.230s", err);
        } else if (rc == GV_EGUARD) {
            /* the outputs came back: fill the metrics, but a write outside a tensor or a
               changed input fails the case whatever the numbers say (gv_decide's first rule) */
            snprintf(r->guard, sizeof r->guard, "%.190s", err);
            if (oracle_now(cr)) gv_judge_problem(p, r);
        } else if (rc == GV_EINTERNAL) {
            r->verdict = GV_ERROR;
            snprintf(r->reason, sizeof r->reason, "internal: %.240s", err);
        } else if (rc != GV_OK) {
            r->verdict = GV_ERROR;
            snprintf(r->reason, sizeof r->reason, "%.250s", err);
        } else {
            /* outputs of this device on given inputs under a tensor-core mode: the envelope
               takes the model of this device's architecture (core/envelope_tc.h) */
            gk_device_info di;
            if (r->env.arch == 0 && r->inputs != GV_INPUTS_GENERATED &&
                gv_mode_get(r->c.mode)->bfma && gk_device_info_get(&di) == GV_OK)
                r->env.arch = di.cc_major * 10 + di.cc_minor;
            finish_judge(cr);
        }
    }
    if (cr->oracle_later) { /* in the cache, and nothing needed it: no verdict was judged */
        r->oracle_unread = true;
        cr->oracle_later = false;
    }
    if (cr->have_problem)
        release(p, keep);
    else if (keep)
        memset(keep, 0, sizeof *keep);
    cr->have_problem = cr->runnable = false;
}

int gv_run_case_io(const gv_case *c, gv_result *r, const gv_given_inputs *given, gv_problem *keep)
{
    gv_case_run cr;
    gv_case_prepare(&cr, c, 1, r, given);
    if (keep) cr.memo_first = false; /* a kept problem carries its reference */
    if (gv_case_admit(&cr)) {
        gv_case_device_start(&cr, !gv_knobs()->serial_case);
        gv_case_oracle(&cr);
    }
    gv_case_finish(&cr, keep);
    return GV_OK;
}
