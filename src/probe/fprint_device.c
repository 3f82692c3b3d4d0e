/* fprint_device.c: the probes' GEMM through an op's device entry (fprint_device.h). */
#include "probe/fprint_device.h"

#include <stdio.h>
#include <string.h>

#include "core/gen.h"
#include "core/problem.h"

bool gv_fp_op_probeable(const gv_op *op)
{
    return op && op->device && op->family && strcmp(op->family, "gemm") == 0 && op->dims &&
           strcmp(op->dims, "m,k,n") == 0 && op->in_dims && strcmp(op->in_dims, "m,k;k,n") == 0;
}

int gv_fp_device_gemm(void *ctx, int64_t m, int64_t k, int64_t n, const double *A, const double *B,
                      double *C, char *why, size_t len)
{
    gv_fp_device *d = ctx;
    gv_case c = {.op = d->op,
                 .dtype = d->dtype,
                 .mode = d->mode,
                 .dist = GV_DIST_UNIFORM01,
                 .shape = {3, {m, k, n}},
                 .seed = 0};
    gv_problem p;
    int rc = gv_problem_init(&p, &c);
    if (rc != GV_OK) {
        snprintf(why, len, "%s: the probe's %lldx%lldx%lld problem: %s", d->op->name, (long long)m,
                 (long long)k, (long long)n, gv_strerror(rc));
        gv_problem_free(&p);
        return rc;
    }
    const double *src[2] = {A, B};
    for (int i = 0; i < 2; i++) {
        memcpy(p.in[i].ref, src[i], sizeof(double) * (size_t)p.in[i].count);
        gv_store_rounded(&p, i);
        if (memcmp(p.in[i].ref, src[i], sizeof(double) * (size_t)p.in[i].count) != 0) {
            snprintf(why, len, "a probe operand is not exact in %s (the probe's construction)",
                     gv_dtype_name(d->dtype));
            gv_problem_free(&p);
            return GV_EINTERNAL;
        }
    }
    gk_launch L;
    gk_host_io io;
    gv_problem_launch(&p, &L, &io);
    gk_clear_error();
    rc = gk_run(d->op->device, &L, &io);
    d->unsupported = rc == GV_EUNSUPPORTED;
    snprintf(d->math_mode, sizeof d->math_mode, "%s", L.math_mode);
    if (rc != GV_OK) {
        snprintf(why, len, "%s: %s", d->op->name, gk_last_error());
    } else {
        for (int64_t i = 0; i < m * n; i++) {
            bool poison;
            C[i] = gv_load(p.out[0].data, d->dtype, i, &poison);
        }
    }
    gv_problem_free(&p);
    return rc;
}
