/* bench_targets.c: the performance targets (bench_targets.h) as data, their check against
 * the registry, and their evaluation from the timed cases. */
#include "bench/bench_targets.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/registry.h"

const gv_target_spec gv_target_specs[] = {
    {"vadd", GV_F32, "2^28", "2^28 elements", GV_TARGET_COPY_FRACTION, 0.85, NULL},
    {"einsum.colsum", GV_F32, "10000x5000x7000", "10000x5000x7000", GV_TARGET_COPY_FRACTION, 0.85,
     NULL},
    {"einsum.colsum", GV_F64, "10000x5000x7000", "10000x5000x7000", GV_TARGET_COPY_FRACTION, 0.85,
     NULL},
    {"reduce.colsum", GV_F32, "10000x7000", "10000x7000", GV_TARGET_COPY_FRACTION, 0.85, NULL},
    {"reduce.colsum", GV_F64, "10000x7000", "10000x7000", GV_TARGET_COPY_FRACTION, 0.85, NULL},
    {"gemm.tiled", GV_F32, "4096x4096x4096", "4096^3", GV_TARGET_TIME_RATIO, NAN, "gemm.cublas"},
    {"gemm.tiled", GV_F64, "4096x4096x4096", "4096^3", GV_TARGET_TIME_RATIO, NAN, "gemm.cublas"},
    /* one step of a grid far larger than the L2: the streamed one-step kernel */
    {"diffusion.fixed", GV_F32, "8192x8192x1", "8192^2 x 1 step", GV_TARGET_COPY_FRACTION, 0.85,
     NULL},
    {"diffusion.periodic", GV_F32, "8192x8192x1", "8192^2 x 1 step", GV_TARGET_COPY_FRACTION, 0.85,
     NULL},
    /* the f32 goal is >= 85% of cuBLAS pedantic SGEMM: a time ratio <= 1 / 0.85 = 1.18 */
    {"gemm.regblock", GV_F32, "4096x4096x4096", "4096^3", GV_TARGET_TIME_RATIO, NAN, "gemm.cublas"},
    {"gemm.regblock", GV_F64, "4096x4096x4096", "4096^3", GV_TARGET_TIME_RATIO, NAN, "gemm.cublas"},
};
const int gv_n_target_specs = (int)(sizeof gv_target_specs / sizeof gv_target_specs[0]);

static int check_op(const gv_target_spec *t, const char *name, const gv_shape *s, char *why,
                    size_t len)
{
    const gv_op *op = gv_op_find(name);
    char reason[256];
    if (!op)
        snprintf(why, len, "target %s %s %s: no op '%s' in the registry", t->op,
                 gv_dtype_name(t->dtype), t->shape, name);
    else if (!(op->dtypes & (1u << t->dtype)))
        snprintf(why, len, "target %s %s %s: %s has no dtype %s", t->op, gv_dtype_name(t->dtype),
                 t->shape, name, gv_dtype_name(t->dtype));
    else if (!gv_shape_ok(op, s, reason, sizeof reason))
        snprintf(why, len, "target %s %s %s: %s", t->op, gv_dtype_name(t->dtype), t->shape, reason);
    else
        return GV_OK;
    return GV_EINTERNAL;
}

int gv_target_spec_check(const gv_target_spec *t, char *why, size_t len)
{
    gv_shape s;
    char err[256];
    if (gv_size_spec_parse(t->shape, &s, 1, err, sizeof err) != 1) {
        snprintf(why, len, "target %s %s '%s': not one shape: %s", t->op, gv_dtype_name(t->dtype),
                 t->shape, err);
        return GV_EINTERNAL;
    }
    int rc = check_op(t, t->op, &s, why, len);
    if (rc == GV_OK && t->metric == GV_TARGET_TIME_RATIO) {
        if (!t->ref_op) {
            snprintf(why, len, "target %s %s %s: a time ratio without a ref_op", t->op,
                     gv_dtype_name(t->dtype), t->shape);
            return GV_EINTERNAL;
        }
        rc = check_op(t, t->ref_op, &s, why, len);
    }
    return rc;
}

int gv_bench_targets_check(char *why, size_t len)
{
    for (int i = 0; i < gv_n_target_specs; i++) {
        int rc = gv_target_spec_check(&gv_target_specs[i], why, len);
        if (rc != GV_OK) return rc;
    }
    return GV_OK;
}

static bool same_shape(const gv_shape *a, const gv_shape *b)
{
    if (a->nd != b->nd) return false;
    for (int i = 0; i < a->nd; i++)
        if (a->d[i] != b->d[i]) return false;
    return true;
}

static bool matches(const gv_bench_case_result *r, const char *op, gv_dtype t, const gv_shape *s)
{
    const gv_case *c = &r->bc.c;
    return strcmp(c->op->name, op) == 0 && c->dtype == t && same_shape(&c->shape, s);
}

static bool eval_one(const gv_target_spec *t, const gv_shape *s, const gv_bench_case_result *cases,
                     int n, int i, const gv_ceiling_values *ce, gv_bench_target *out)
{
    const gv_bench_case_result *c = &cases[i];
    memset(out, 0, sizeof *out);
    out->spec = t;
    out->c = c;
    out->scope = gv_bench_kernel_scope(c);
    const char *dt = gv_dtype_name(c->bc.c.dtype);
    if (t->metric == GV_TARGET_COPY_FRACTION) {
        const gv_bench_achieved *a = &c->achieved[out->scope];
        snprintf(out->name, sizeof out->name, "%s at %s %s: >= %.0f%% of the copy bandwidth", t->op,
                 t->at, dt, t->goal * 100);
        out->value_gbps = a->present ? a->gbps : NAN;
        out->fraction = a->present ? a->frac_copy : NAN;
        out->ceiling_gbps = ce ? ce->copy_gbps : NAN;
        return true;
    }
    for (int j = 0; j < n; j++) {
        const gv_bench_case_result *d = &cases[j];
        if (!matches(d, t->ref_op, t->dtype, s) || d->bc.c.mode != c->bc.c.mode) continue;
        out->ref = d;
        snprintf(out->name, sizeof out->name, "%s time / %s time at %s %s", t->op, t->ref_op, t->at,
                 dt);
        out->ms = gv_bench_median_ms(c, out->scope);
        out->ref_ms = gv_bench_median_ms(d, out->scope);
        out->ratio = out->ms / out->ref_ms;
        out->frac_gemm = c->achieved[out->scope].present ? c->achieved[out->scope].frac_gemm : NAN;
        out->ref_frac_gemm =
            d->achieved[out->scope].present ? d->achieved[out->scope].frac_gemm : NAN;
        return true;
    }
    return false;
}

int gv_bench_targets_eval(const gv_bench_case_result *cases, int n, const gv_ceiling_values *ce,
                          gv_bench_target *out, int max)
{
    int k = 0;
    for (int i = 0; i < n && k < max; i++)
        for (int e = 0; e < gv_n_target_specs && k < max; e++) {
            const gv_target_spec *t = &gv_target_specs[e];
            gv_shape s;
            char err[256];
            if (gv_size_spec_parse(t->shape, &s, 1, err, sizeof err) != 1) continue;
            if (matches(&cases[i], t->op, t->dtype, &s) &&
                eval_one(t, &s, cases, n, i, ce, &out[k]))
                k++;
        }
    return k;
}
