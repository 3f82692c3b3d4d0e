/* coll_rows.h: the rows of a `gpuval collectives` run (coll_rows.c) — the plan the command
 * line makes, each row's judgement and JSON (its table line: render/coll_text.h), shared by the two
 * drivers: every local GPU from one process (gv_coll_run_local) and one GPU per rank of an MPI job
 * (coll_rank.h). */
#ifndef GV_COLL_ROWS_H
#define GV_COLL_ROWS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "coll/coll.h"
#include "../../kernels/gk.h"

#define GV_COLL_MAX_SIZES 16

/* What to run, from the command line. */
typedef struct gv_coll_plan {
    bool want[GK_NCOLLS];
    unsigned dtypes; /* 1u << gv_dtype */
    int64_t bytes[GV_COLL_MAX_SIZES];
    int n_sizes;
    uint64_t seed;
    int iters;
    const char *json_path;
    bool quiet; /* -q: no table, the summary line only */
} gv_coll_plan;

/* One collective, dtype and size: over the whole job, and (rank_*) on this rank alone when
 * each rank is a process. */
typedef struct gv_coll_row {
    const gv_coll_desc *d;
    int dtype;
    int64_t bytes, count;
    int64_t wrong;
    double ratio;
    bool nonfinite, ranks_identical;
    gv_verdict verdict;
    char reason[256];
    double time_ms, algbw, busbw;
    bool per_rank; /* rank_* below are set */
    int64_t rank_wrong;
    double rank_ratio, rank_time_ms;
    gv_verdict rank_verdict;
} gv_coll_row;

/* Row i of the plan for nranks ranks (collective, then dtype, then size), or false past the
 * last. */
bool gv_coll_plan_row(const gv_coll_plan *p, int nranks, int i, gv_coll_row *row);

/* Judge rank's output (gk_coll_out_count elements) against the oracle from every rank's
 * inputs in_ref[0..nranks), adding to row's wrong, ratio and nonfinite; ref and gauge are
 * scratch of the output's length. */
void gv_coll_judge_rank(gv_coll_row *row, int nranks, const double *const *in_ref, int rank,
                        const void *out, double *ref, double *gauge);
/* The verdict and its reason from row's wrong, ratio and nonfinite. */
void gv_coll_decide(gv_coll_row *row, int nranks);
/* algbw and busbw from row->time_ms. */
void gv_coll_bandwidths(gv_coll_row *row, int nranks);
/* One row over nranks local GPUs from this process: inputs, oracle, device run (iters timed
 * after 5 warm-up runs), judgement on every rank; the NCCL version into *nccl_version. */
void gv_coll_run_local(gv_coll_row *row, int nranks, uint64_t seed, int iters, int *nccl_version);

/* A rank's GPU as the MPI driver gathers it from every rank. */
typedef struct gv_coll_rank_gpu {
    char host[64];
    char uuid[40];
    int device;
} gv_coll_rank_gpu;

/* The counts of a job's rows by verdict. */
typedef struct gv_coll_counts {
    int pass, fail, error, skip;
} gv_coll_counts;

/* The printers of the table (render/coll_text.c's, which the command passes): the MPI driver
 * prints every line through them, the table's on rank 0, a rank's SKIP and errors on that rank. */
typedef struct gv_coll_table {
    void (*header)(void);
    void (*row)(const gv_coll_row *row);
    void (*ranks)(const gv_coll_rank_gpu *all, int size);          /* the ranks and their GPUs */
    void (*shared_gpu)(const gv_coll_rank_gpu *all, int a, int b); /* SKIP: a, b on one GPU */
    void (*too_few)(void);                                         /* SKIP: one rank */
    void (*rank_skip)(int rank, int size, const char *why);        /* SKIP: this rank cannot run */
    void (*summary)(const gv_coll_counts *n, int size, int nccl_version);
    void (*error)(const char *msg); /* a rank's error, as it happens (on stderr) */
} gv_coll_table;

json_t *gv_coll_row_json(const gv_coll_row *row, int nranks);
/* The gpuval-collectives/1 document (taking rows); extra's members (may be NULL) are added at
 * the top level. Returns false when the file could not be written (e says why). */
bool gv_coll_write_json(const char *path, json_t *rows, int nranks, int nccl_version,
                        const gv_coll_plan *p, json_t *extra, gv_error *e);

#endif
