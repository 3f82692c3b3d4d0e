/* coll.h: NCCL collectives judged like any op (coll.c) — their names, per-rank inputs from
 * the seed, the f64 oracle and its error model (a sum over n ranks has depth n; max, gather
 * and broadcast are exact), nccl-tests' "#wrong" count, and algorithm and bus bandwidth as
 * nccl-tests defines them (doc/PERFORMANCE.md). Host C only; the device side is gk_coll_run. */
#ifndef GV_COLL_H
#define GV_COLL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/metrics.h"
#include "core/gv.h"

typedef struct gv_coll_desc {
    const char *name; /* "allreduce.sum" */
    int kind;         /* GK_COLL_* */
    bool exact;       /* every output element is one input element: bit for bit */
} gv_coll_desc;

extern const gv_coll_desc gv_colls[]; /* GK_NCOLLS entries, in GK_COLL_* order */
/* By name; NULL when there is none. */
const gv_coll_desc *gv_coll_find(const char *name);

/* nccl-tests' busbw = algbw x factor: all-reduce 2(n-1)/n, all-gather and reduce-scatter
 * (n-1)/n, broadcast 1. */
double gv_coll_busbw_factor(int kind, int nranks);
/* nccl-tests' S for algbw = S / t, in bytes: count x size for all-reduce and broadcast, the
 * whole array count x size x n for all-gather and reduce-scatter (count per rank). */
double gv_coll_algbw_bytes(int kind, int64_t count, int nranks, int dtype);

/* Inputs of rank r: gk_coll_in_count elements of gv_gen_fill(uniform11, dtype, seed, tensor
 * r), into ref (f64, rounded to dtype) and data (dtype; NULL: ref alone, as a rank of an MPI
 * job makes the other ranks' inputs for its oracle). */
void gv_coll_inputs(int kind, int dtype, int nranks, int64_t count, uint64_t seed, int rank,
                    double *ref, void *data);

/* The f64 reference of rank r's output and the error model's gauge (sum of |inputs| for the
 * sums, |r| otherwise), from every rank's rounded inputs in_ref[0..nranks). */
void gv_coll_reference(int kind, int nranks, int64_t count, const double *const *in_ref, int rank,
                       double *ref, double *gauge);

/* The error model of one rank's output: u of the dtype, depth nranks for the sums (1 for the
 * exact ones), exact for max, gather and broadcast. */
gv_error_model gv_coll_model(int kind, int dtype, int nranks, const double *gauge);

/* nccl-tests' #wrong: elements outside the model's tolerance — for the sums
 * |c - r| > GV_DEFAULT_RATIO_BOUND u g d, for the exact ones c != r; NaN, Inf in the wrong
 * place and unwritten (poisoned) elements are always wrong. */
int64_t gv_coll_wrong(const void *got, int dtype, const double *ref, const gv_error_model *em,
                      int64_t n);

#endif
