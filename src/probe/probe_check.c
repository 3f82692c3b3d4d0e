/* probe_check.c: the mode fingerprint inside `gpuval check` (see probe_check.h): which rows a
 * check's cases call for, the reason a FAILed row gives, and the cases it FAILs.
 *
 * Why check runs it: the catalogue's mode probes (tie, narrow, width, wide: src/ops/gemm.c)
 * see what an arithmetic does to outputs the op's model judges, and an arithmetic that stays
 * inside that model (operands truncated where the mode rounds them to nearest; the automatic
 * fp64 emulation run natively) passes them. The probe's features see it, measured through
 * the op's own call and judged against the architecture's file (probe/sm_XY.expect), and
 * cost some 50 ms a row on an H100: cheap enough for every mode of every check. */
#include "probe/probe_check.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/fprint_device.h"

/* Whether case i ran (PASS or FAIL) on gpuval's inputs in a (dtype, mode) the probe measures. */
static bool fingerprinted(const gv_case *c, const gv_result *r)
{
    gv_fp_arith a;
    bool ran = !r || ((r->verdict == GV_PASS || r->verdict == GV_FAIL) &&
                      r->inputs == GV_INPUTS_GENERATED);
    return ran && c->op && gv_fp_op_probeable(c->op) &&
           gv_fp_arith_of(c->dtype, c->mode, &a) == GV_OK;
}

/* Whether case c runs the arithmetic of row (op, t, m): the same kernel entry in the same dtype
   and mode. Layout variants (gemm.cublas.strided, .transposed) call gemm.cublas's kernel with
   other leading dimensions; they are probed once, through the first op met (the registry's
   order: gemm.cublas), whose call the expectations were measured with. */
static bool same_arithmetic(const gv_op *op, gv_dtype t, gv_mode m, const gv_case *c)
{
    return (c->op == op || (c->op->device && c->op->device == op->device)) && c->dtype == t &&
           c->mode == m;
}

int gv_probe_check_rows(const gv_case *cases, const gv_result *results, int n, gv_probe_row **rows,
                        int *nrows)
{
    *rows = NULL;
    *nrows = 0;
    int cap = 0;
    for (int i = 0; i < n; i++) {
        const gv_case *c = &cases[i];
        if (!fingerprinted(c, results ? &results[i] : NULL)) continue;
        bool seen = false;
        for (int k = 0; k < *nrows && !seen; k++)
            seen = same_arithmetic((*rows)[k].op, (*rows)[k].dtype, (*rows)[k].mode, c);
        if (seen) continue;
        if (*nrows == cap) {
            int grown_cap = cap ? 2 * cap : 16;
            gv_probe_row *grown = realloc(*rows, sizeof **rows * (size_t)grown_cap);
            if (!grown) {
                free(*rows);
                *rows = NULL;
                *nrows = 0;
                return GV_ENOMEM;
            }
            *rows = grown;
            cap = grown_cap;
        }
        (*rows)[(*nrows)++] = (gv_probe_row){.op = c->op, .dtype = c->dtype, .mode = c->mode};
    }
    return GV_OK;
}

void gv_probe_check_reason(const gv_probe_row *r, char *buf, size_t len)
{
    assert(len > 0);
    buf[0] = '\0';
    if (r->skipped || r->fails == 0) return;
    size_t used = (size_t)snprintf(buf, len, "mode fingerprint (gpuval probe):");
    const char *sep = " ";
    for (int f = 0; f < GV_FP_NFEATURES && used < len; f++) {
        if (r->v[f] != GV_FP_FAIL) continue;
        const char *want = r->rule[f] ? r->rule[f]->value : "?";
        if (r->changed[f])
            used += (size_t)snprintf(buf + used, len - used, "%s%s changed between runs", sep,
                                     gv_fp_feature_name(f));
        else
            used += (size_t)snprintf(buf + used, len - used, "%s%s %s where %s is expected", sep,
                                     gv_fp_feature_name(f), r->fp.f[f].text, want);
        sep = "; ";
    }
}

int gv_probe_check_apply(const gv_probe_row *rows, int nrows, const gv_case *cases,
                         gv_result *results, int n)
{
    int changed = 0;
    for (int k = 0; k < nrows; k++) {
        const gv_probe_row *row = &rows[k];
        if (row->skipped || row->fails == 0) continue;
        char reason[sizeof results[0].reason];
        gv_probe_check_reason(row, reason, sizeof reason);
        for (int i = 0; i < n; i++) {
            gv_result *r = &results[i];
            if (!same_arithmetic(row->op, row->dtype, row->mode, &cases[i]) ||
                r->verdict != GV_PASS || r->inputs != GV_INPUTS_GENERATED)
                continue;
            r->verdict = GV_FAIL;
            r->cause = GV_CAUSE_RESIDUAL;
            snprintf(r->reason, sizeof r->reason, "%s", reason);
            changed++;
        }
    }
    return changed;
}
