/* coll.c: the collectives' oracle, error model, #wrong and bandwidths (coll.h). */
#include "coll/coll.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "../../kernels/gk.h"
#include "core/gen.h"

const gv_coll_desc gv_colls[] = {
    {"allreduce.sum", GK_COLL_ALLREDUCE_SUM, false},
    {"allreduce.max", GK_COLL_ALLREDUCE_MAX, true},
    {"allgather", GK_COLL_ALLGATHER, true},
    {"reducescatter.sum", GK_COLL_REDUCESCATTER_SUM, false},
    {"broadcast", GK_COLL_BROADCAST, true},
};
/* coll.h: GK_NCOLLS entries in GK_COLL_* order, so that gv_colls[kind] is kind's */
_Static_assert(sizeof gv_colls / sizeof gv_colls[0] == GK_NCOLLS, "one entry per collective");

const gv_coll_desc *gv_coll_find(const char *name)
{
    for (int i = 0; i < GK_NCOLLS; i++) {
        assert(gv_colls[i].kind == i);
        if (strcmp(gv_colls[i].name, name) == 0) return &gv_colls[i];
    }
    return NULL;
}

double gv_coll_busbw_factor(int kind, int nranks)
{
    double n = nranks;
    switch (kind) {
    case GK_COLL_ALLREDUCE_SUM:
    case GK_COLL_ALLREDUCE_MAX: return 2.0 * (n - 1) / n;
    case GK_COLL_ALLGATHER:
    case GK_COLL_REDUCESCATTER_SUM: return (n - 1) / n;
    default: return 1.0;
    }
}

double gv_coll_algbw_bytes(int kind, int64_t count, int nranks, int dtype)
{
    double bytes = (double)count * (double)gv_dtype_size(dtype);
    return kind == GK_COLL_ALLGATHER || kind == GK_COLL_REDUCESCATTER_SUM ? bytes * nranks : bytes;
}

void gv_coll_inputs(int kind, int dtype, int nranks, int64_t count, uint64_t seed, int rank,
                    double *ref, void *data)
{
    int64_t n = gk_coll_in_count(kind, count, nranks);
    gv_gen_fill(ref, n, GV_DIST_UNIFORM11, (gv_dtype)dtype, seed, (uint64_t)rank);
    if (data) gv_dtype_store_n(dtype, data, ref, n);
}

void gv_coll_reference(int kind, int nranks, int64_t count, const double *const *in_ref, int rank,
                       double *ref, double *gauge)
{
    /* in_ref holds every rank's inputs; reduce-scatter reads block `rank` of them */
    assert(nranks >= 1 && rank >= 0 && rank < nranks && count >= 0);
    switch (kind) {
    case GK_COLL_ALLREDUCE_SUM:
    case GK_COLL_REDUCESCATTER_SUM: {
        /* reduce-scatter: rank r receives block r of the element-wise sum */
        int64_t off = kind == GK_COLL_REDUCESCATTER_SUM ? (int64_t)rank * count : 0;
        for (int64_t i = 0; i < count; i++) {
            double s = 0, g = 0;
            for (int k = 0; k < nranks; k++) {
                s += in_ref[k][off + i];
                g += fabs(in_ref[k][off + i]);
            }
            ref[i] = s;
            gauge[i] = g;
        }
        break;
    }
    case GK_COLL_ALLREDUCE_MAX:
        for (int64_t i = 0; i < count; i++) {
            double m = in_ref[0][i];
            for (int k = 1; k < nranks; k++)
                m = in_ref[k][i] > m ? in_ref[k][i] : m;
            ref[i] = m;
            gauge[i] = fabs(m);
        }
        break;
    case GK_COLL_ALLGATHER:
        for (int k = 0; k < nranks; k++)
            for (int64_t i = 0; i < count; i++) {
                ref[k * count + i] = in_ref[k][i];
                gauge[k * count + i] = fabs(in_ref[k][i]);
            }
        break;
    default: /* broadcast from root 0 */
        for (int64_t i = 0; i < count; i++) {
            ref[i] = in_ref[0][i];
            gauge[i] = fabs(in_ref[0][i]);
        }
    }
}

gv_error_model gv_coll_model(int kind, int dtype, int nranks, const double *gauge)
{
    bool sum = kind == GK_COLL_ALLREDUCE_SUM || kind == GK_COLL_REDUCESCATTER_SUM;
    gv_error_model em = {.gauge = gauge,
                         .depth = sum ? (double)nranks : 1.0,
                         .u = gv_unit_roundoff((gv_dtype)dtype, GV_MODE_NATIVE),
                         .exact = !sum};
    return em;
}

int64_t gv_coll_wrong(const void *got, int dtype, const double *ref, const gv_error_model *em,
                      int64_t n)
{
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; i++) {
        double c = gv_dtype_load(dtype, got, i), r = ref[i];
        bool ok;
        if (em->exact)
            ok = c == r; /* NaN never equals anything */
        else
            ok = fabs(c - r) <= GV_DEFAULT_RATIO_BOUND * em->u * em->gauge[i] * em->depth;
        wrong += !ok;
    }
    return wrong;
}
