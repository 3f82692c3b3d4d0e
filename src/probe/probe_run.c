/* probe_run.c: one `gpuval probe` run's selection, measurement, judgement and replay (see
 * probe_run.h). docs/probe.md describes the features, the expectations and the replay. */
#include "probe/probe_run.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/gemm.h" /* GK_FP8_BLOCK_K */
#include "core/registry.h"
#include "probe/fprint_device.h"
#include "probe/replay_scaled.h"

/* Append (op, t, m) to rows[0..*n), growing *cap. GV_OK or GV_ENOMEM. */
static int add_row(gv_probe_row **rows, int *n, int *cap, const gv_op *op, gv_dtype t, gv_mode m)
{
    if (*n == *cap) {
        int grown_cap = *cap ? 2 * *cap : 64;
        gv_probe_row *grown = realloc(*rows, sizeof **rows * (size_t)grown_cap);
        if (!grown) return GV_ENOMEM;
        *rows = grown;
        *cap = grown_cap;
    }
    (*rows)[(*n)++] = (gv_probe_row){.op = op, .dtype = t, .mode = m};
    return GV_OK;
}

/* Whether (op, t, m) is selected and has a format to probe. */
static bool probed(const gv_op *op, int t, int m, unsigned dtypes, unsigned modes)
{
    gv_fp_arith a;
    return (dtypes & (1u << t)) && (modes & (1u << m)) && gv_mode_ok(op, (gv_dtype)t, (gv_mode)m) &&
           gv_fp_arith_of((gv_dtype)t, (gv_mode)m, &a) == GV_OK;
}

int gv_probe_select(const char *ops, unsigned dtypes, unsigned modes, gv_probe_row **rows, int *n)
{
    int cap = 0, rc = GV_OK;
    bool any_op = false;
    *rows = NULL;
    *n = 0;
    for (const gv_op *const *p = gv_registry(); *p && rc == GV_OK; p++) {
        const gv_op *op = *p;
        bool named = false;
        if (!gv_fp_op_probeable(op) || !gv_op_matches(ops, op->name, &named)) continue;
        if (op->planted_bug && !named) continue;
        any_op = true;
        for (int t = 0; t < GV_NDTYPES && rc == GV_OK; t++)
            for (int m = 0; m < GV_NMODES && rc == GV_OK; m++)
                if (probed(op, t, m, dtypes, modes))
                    rc = add_row(rows, n, &cap, op, (gv_dtype)t, (gv_mode)m);
    }
    if (rc == GV_OK && (!any_op || !*n)) rc = GV_EINVAL;
    if (rc != GV_OK) {
        free(*rows);
        *rows = NULL;
        *n = 0;
    }
    return rc;
}

void gv_probe_judge(gv_probe_row *r, const gv_fp_expect *e, const gv_fp_print *first)
{
    for (int f = 0; f < GV_FP_NFEATURES; f++) {
        r->rule[f] = e ? gv_fp_expect_find(e, r->op->name, r->dtype, r->mode, f) : NULL;
        gv_fp_verdict v = gv_fp_judge(r->rule[f], &r->fp.f[f]);
        if (first && strcmp(first->f[f].text, r->fp.f[f].text) != 0) {
            r->changed[f]++;
            v = GV_FP_FAIL;
        }
        if (v == GV_FP_FAIL) r->fails++;
        if (!first || v == GV_FP_FAIL) r->v[f] = v;
    }
}

int gv_probe_measure(gv_probe_row *r, const gv_fp_expect *e, long repeat)
{
    assert(repeat >= 1);
    gv_fp_arith a;
    int rc = gv_fp_arith_of(r->dtype, r->mode, &a);
    assert(rc == GV_OK); /* gv_probe_select took only rows with a format */
    gv_fp_device dev = {.op = r->op, .dtype = r->dtype, .mode = r->mode};
    gv_fp_print first;
    for (long k = 0; k < repeat; k++) {
        rc = gv_fp_measure(&a, gv_fp_device_gemm, &dev, &r->fp, r->why, sizeof r->why);
        snprintf(r->math_mode, sizeof r->math_mode, "%s", dev.math_mode);
        if (rc != GV_OK) {
            r->skipped = true;
            r->unsupported = dev.unsupported;
            return rc;
        }
        gv_probe_judge(r, e, k ? &first : NULL);
        if (!k) first = r->fp;
    }
    r->fp = first;
    return GV_OK;
}

/* A scaled fp8 mode's replay: one chunk of K (128) and four, each against the port and the
   second model, the chunks the probe's measured promotion interval (128 where none was
   measured: the blockwise scales are per 128 of K whatever the tensor core does). */
static int replay_scaled(gv_probe_row *r, int sm, long dots)
{
    r->model = gv_bfma_find(sm, "e4m3");
    if (!r->model || dots <= 0 || r->dtype != GV_F32) return GV_OK;
    gv_fp_device dev = {.op = r->op, .dtype = r->dtype, .mode = r->mode};
    double pr = r->fp.f[GV_FP_PROMOTION].num;
    int promote = isfinite(pr) && pr >= 1 && pr <= 4096 ? (int)pr : GK_FP8_BLOCK_K;
    int ks[2] = {GK_FP8_BLOCK_K, 4 * GK_FP8_BLOCK_K};
    for (int q = 0; q < 2; q++) {
        int rc = gv_replay_scaled_run(r->mode, r->model, gv_fp_device_gemm, &dev, ks[q], promote,
                                      dots, 0x5ca1e + (uint64_t)q, &r->replay[r->n_replay], r->why,
                                      sizeof r->why);
        if (rc != GV_OK) return rc;
        r->n_replay += 2;
    }
    return GV_OK;
}

int gv_probe_replay(gv_probe_row *r, int sm, long dots)
{
    assert(!r->skipped);
    if (gv_mode_scaled(r->mode)) return replay_scaled(r, sm, dots);
    const char *fmt = r->dtype == GV_F32 ? gv_replay_format(r->mode) : NULL;
    r->model = fmt && dots > 0 ? gv_bfma_find(sm, fmt) : NULL;
    if (!r->model) return GV_OK;
    gv_fp_arith a;
    gv_fp_arith_of(r->dtype, r->mode, &a);
    gv_fp_device dev = {.op = r->op, .dtype = r->dtype, .mode = r->mode};
    int ks[2] = {r->model->block, 256};
    /* where the probe measured a promotion interval, the model is given it */
    double pr = r->fp.f[GV_FP_PROMOTION].num;
    int promote = isfinite(pr) && pr >= 1 && pr <= 4096 ? (int)pr : 0;
    for (int q = 0; q < 2; q++) {
        int rc = gv_replay_run(&a, r->model, gv_fp_device_gemm, &dev, ks[q], promote, dots,
                               0x5eed + (uint64_t)q, &r->replay[q], r->why, sizeof r->why);
        if (rc != GV_OK) return rc;
        r->n_replay++;
    }
    return GV_OK;
}

int gv_probe_replays_short(const gv_probe_row *r)
{
    int n = 0;
    for (int q = 0; q < r->n_replay; q++)
        n += r->replay[q].agree != r->replay[q].dots && !r->model->unconfirmed;
    return n;
}
