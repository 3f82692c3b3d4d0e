/* coll_rank.c: `gpuval collectives` as the ranks of an MPI job (coll_rank.h): one process and
 * one GPU per rank, NCCL bootstrapped through MPI (rank 0's ncclGetUniqueId, MPI_Bcast,
 * ncclCommInitRank). The rows, oracle and judgement are the single-process driver's
 * (coll_rows.c): each rank makes every rank's inputs from (seed, rank) as that driver does, so
 * each can compute the f64 oracle of its own output; only the communicator and the ownership
 * of the buffers differ. Verdicts, #wrong and times are reduced over the ranks and rank 0
 * prints the table; each rank writes its own JSON.
 *
 * A rank that stops alone leaves the others waiting in a collective for ever, so every step
 * that can fail on one rank (a device, a path, host or device memory) is followed by a vote
 * (gv_mpi_all) before the next collective call, and all ranks leave together with one exit
 * code. What cannot be voted on is a failure inside an NCCL call itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cache.h" /* gv_xxh64 */
#include "core/gv.h"
#include "io/outfile.h"
#include "coll/coll_mpi.h"
#include "coll/coll_rank.h"
#include "io/json_util.h"
#include "io/run_doc.h"

typedef gv_coll_rank_gpu rank_gpu;

typedef struct job {
    int rank, size;
    gk_coll_comm *comm;
    bool broken;                /* an NCCL or CUDA call failed: no further collective is started */
    const gv_coll_table *table; /* rank 0's printers of the table */
} job;

/* PASS < SKIP < FAIL < ERROR: the worst verdict of the ranks is the job's. */
static int severity(gv_verdict v)
{
    return v == GV_PASS ? 0 : v == GV_SKIP ? 1 : v == GV_FAIL ? 2 : 3;
}

static gv_verdict of_severity(int64_t s)
{
    return s == 0 ? GV_PASS : s == 1 ? GV_SKIP : s == 2 ? GV_FAIL : GV_ERROR;
}

/* A row this rank could not run, said on this rank as it happens. */
static void row_error(const job *J, const gv_coll_row *row)
{
    char msg[sizeof row->reason + 64];
    snprintf(msg, sizeof msg, "%s %s: %s", row->d->name, gv_dtype_name((gv_dtype)row->dtype),
             row->reason);
    J->table->error(msg);
}

/* This rank's error (gk_last_error, or err) on this rank. */
static void rank_error(const gv_coll_table *table, int rank, const char *err)
{
    char msg[1024];
    snprintf(msg, sizeof msg, "rank %d: %s", rank, err);
    table->error(msg);
}

/* One row on this rank: inputs of every rank, this rank's device run, its judgement. Fills
   row->rank_*; returns false when this rank could not run it (why in row->reason). */
static bool run_rank(gv_coll_row *row, job *J, const gv_coll_plan *p, uint64_t *digest,
                     int *nccl_version)
{
    int kind = row->d->kind, dt = row->dtype, n = J->size;
    int64_t in_n = gk_coll_in_count(kind, row->count, n),
            out_n = gk_coll_out_count(kind, row->count, n);
    size_t es = gv_dtype_size(dt);
    double **in_ref = calloc((size_t)n, sizeof *in_ref);
    void *in = malloc((size_t)in_n * es), *out = malloc((size_t)out_n * es);
    double *ref = malloc((size_t)out_n * sizeof(double)), *gauge = malloc((size_t)out_n * 8);
    bool ok = in_ref && in && out && ref && gauge;
    for (int r = 0; r < n && ok; r++) {
        in_ref[r] = malloc((size_t)in_n * sizeof(double));
        ok = in_ref[r] != NULL;
        if (!ok) break;
        /* every rank's inputs, as the single-process driver makes them; the dtype copy of
           this rank's own is the one it sends */
        gv_coll_inputs(kind, dt, n, row->count, p->seed, r, in_ref[r], r == J->rank ? in : NULL);
    }
    row->rank_verdict = GV_ERROR;
    if (!ok) snprintf(row->reason, sizeof row->reason, "rank %d: out of host memory", J->rank);
    const void *ins[1] = {in};
    void *outs[1] = {out};
    gk_coll c = {.kind = kind,
                 .dtype = dt,
                 .nranks = n,
                 .count = row->count,
                 .in = ins,
                 .out = outs,
                 .warmup = 5,
                 .iters = p->iters};
    gk_clear_error();
    if (ok && gk_coll_comm_prepare(J->comm, &c) != GV_OK) {
        ok = false;
        snprintf(row->reason, sizeof row->reason, "rank %d: %s", J->rank, gk_last_error());
    }
    if (!ok) row_error(J, row);
    /* every rank ready, or none enters the collective */
    if (!gv_mpi_all(ok)) {
        if (ok) snprintf(row->reason, sizeof row->reason, "another rank could not prepare it");
        ok = false;
        goto done;
    }
    if (gk_coll_comm_run(J->comm, &c) != GV_OK) {
        ok = false;
        J->broken = true;
        snprintf(row->reason, sizeof row->reason, "rank %d: %s", J->rank, gk_last_error());
        row_error(J, row);
    }
    *nccl_version = c.nccl_version;
    if (ok) {
        gv_coll_row mine = *row;
        mine.wrong = 0;
        mine.ratio = 0;
        mine.nonfinite = false;
        gv_coll_judge_rank(&mine, n, (const double *const *)in_ref, J->rank, out, ref, gauge);
        gv_coll_decide(&mine, n);
        row->rank_wrong = mine.wrong;
        row->rank_ratio = mine.ratio;
        row->rank_verdict = mine.verdict;
        row->nonfinite = mine.nonfinite;
        row->rank_time_ms = c.time_ms;
        *digest = gv_xxh64(out, (size_t)out_n * es, 0);
    }
done:
    for (int r = 0; r < n && in_ref; r++)
        free(in_ref[r]);
    free(in_ref);
    free(in);
    free(out);
    free(ref);
    free(gauge);
    return ok;
}

/* The job's row from every rank's: #wrong summed, verdict the worst, ratio the largest (NaN
   wins), time the slowest rank's (as nccl-tests reports it), outputs compared by digest. */
static void reduce_row(gv_coll_row *row, job *J, bool ran, uint64_t digest)
{
    bool nan_ratio = isnan(row->rank_ratio);
    int64_t sum[1] = {row->rank_wrong};
    int64_t max[4] = {severity(row->rank_verdict), row->nonfinite, nan_ratio, (int64_t)digest};
    int64_t min[1] = {(int64_t)digest};
    double fmax[2] = {nan_ratio || !ran ? 0.0 : row->rank_ratio, row->rank_time_ms};
    gv_mpi_sum_i64(sum, 1);
    gv_mpi_max_i64(max, 4);
    gv_mpi_min_i64(min, 1);
    gv_mpi_max_f64(fmax, 2);
    row->wrong = sum[0];
    row->nonfinite = max[1] != 0;
    row->ratio = max[2] ? NAN : fmax[0];
    row->time_ms = fmax[1];
    row->ranks_identical = row->d->kind == GK_COLL_REDUCESCATTER_SUM || max[3] == min[0];
    gv_verdict worst = of_severity(max[0]);
    if (worst == GV_ERROR) {
        row->verdict = GV_ERROR;
        if (!row->reason[0]) snprintf(row->reason, sizeof row->reason, "an error on another rank");
        return;
    }
    gv_coll_decide(row, J->size);
    if (severity(worst) > severity(row->verdict)) row->verdict = worst;
    gv_coll_bandwidths(row, J->size);
}

/* Every rank's device: a clash (two ranks of one host on one GPU) makes NCCL refuse, so it is
   named first. Same answer on every rank (from the same gathered table). */
static bool gpus_distinct(const job *J, const rank_gpu *mine)
{
    rank_gpu *all = calloc((size_t)J->size, sizeof *all);
    if (!all) { /* a few bytes a rank: the others would wait in the gather for ever */
        rank_error(J->table, J->rank, "out of host memory");
        abort();
    }
    gv_mpi_allgather(mine, (int)sizeof *mine, all);
    bool distinct = true;
    for (int a = 0; a < J->size && distinct; a++)
        for (int b = a + 1; b < J->size && distinct; b++)
            if (strcmp(all[a].host, all[b].host) == 0 && strcmp(all[a].uuid, all[b].uuid) == 0) {
                if (J->rank == 0) J->table->shared_gpu(all, a, b);
                distinct = false;
            }
    if (J->rank == 0 && distinct) J->table->ranks(all, J->size);
    free(all);
    return distinct;
}

/* Before any device, each voted on: this rank's JSON path (*json, checked writable), the
   launcher's count of ranks against MPI's, and two ranks at least. GV_ST_OK to go on. */
static gv_status job_preflight(const gv_coll_plan *p, const gv_rank *launch, const job *J,
                               char *path_buf, size_t path_len, const char **json, gv_error *e)
{
    bool ok = true;
    *json = NULL;
    if (p->json_path) {
        *json = gv_rank_path(p->json_path, J->rank, path_buf, path_len);
        const char *outs[1] = {*json}, *out_opts[1] = {"--json"};
        if (!*json)
            gv_err_set(e, GV_ST_BAD_INPUT, "the per-rank path of '%s' is too long", p->json_path);
        ok = *json && gv_outputs_check(1, outs, out_opts, e) == 0;
    }
    if (!gv_mpi_all(ok)) return GV_ST_BAD_INPUT; /* e says why on the ranks that saw it */
    if (launch->world_size >= 0 && launch->world_size != J->size) {
        if (J->rank == 0)
            gv_err_set(e, GV_ST_RUNTIME,
                       "the launcher (%s) says %d ranks, MPI sees %d process%s: run gpuval "
                       "under mpirun or srun, not beside them",
                       launch->launcher, launch->world_size, J->size, J->size == 1 ? "" : "es");
        return GV_ST_RUNTIME;
    }
    if (J->size < 2) {
        J->table->too_few();
        return GV_ST_NODEV;
    }
    return GV_ST_OK;
}

/* This rank's device (*mine, *info; *present devices on its host), distinct from every other
   rank's, and the communicator over them in J->comm: GV_ST_OK, or the job's SKIP or ERROR
   with each rank's reason printed. */
static gv_status job_open(const gv_rank *launch, job *J, rank_gpu *mine, gk_device_info *info,
                          int *present)
{
    *present = gk_device_count();
    bool nccl = gk_coll_have_nccl() != 0;
    if (!gv_mpi_all(*present > 0 && nccl)) {
        /* every rank says its own reason: the test and the user see each one */
        J->table->rank_skip(J->rank, J->size,
                            *present == 0 ? "no CUDA device"
                            : !nccl       ? "this gpuval was built without NCCL"
                                          : "another rank has no CUDA device or no NCCL");
        return GV_ST_NODEV;
    }
    int local = launch->local_rank >= 0 ? launch->local_rank : J->rank;
    *mine = (rank_gpu){.device = local % *present};
    gk_device_select(mine->device);
    gk_device_count(); /* makes it current */
    bool have_info = gk_device_info_get(info) == GV_OK;
    if (!have_info) rank_error(J->table, J->rank, gk_last_error());
    snprintf(mine->uuid, sizeof mine->uuid, "%s", have_info ? info->uuid : "?");
    gethostname(mine->host, sizeof mine->host - 1);
    if (!gpus_distinct(J, mine)) return GV_ST_NODEV;
    if (!gv_mpi_all(have_info)) return GV_ST_RUNTIME;

    unsigned char id[GK_COLL_ID_BYTES] = {0};
    bool ok = J->rank != 0 || gk_coll_unique_id(id) == GV_OK;
    if (!ok) rank_error(J->table, 0, gk_last_error());
    if (!gv_mpi_all(ok)) return GV_ST_RUNTIME;
    gv_mpi_bcast(id, GK_COLL_ID_BYTES, 0);
    ok = gk_coll_comm_open(id, J->size, J->rank, mine->device, &J->comm) == GV_OK;
    if (!ok) rank_error(J->table, J->rank, gk_last_error());
    if (!gv_mpi_all(ok)) return GV_ST_RUNTIME;
    return GV_ST_OK;
}

typedef gv_coll_counts job_counts;

/* Every row of the plan on every rank, its verdict reduced over them and printed by rank 0;
   one rank's NCCL or CUDA error stops the rest. Returns the rows' JSON. */
static json_t *job_rows(const gv_coll_plan *p, job *J, job_counts *n, int *nccl_version)
{
    if (J->rank == 0 && !p->quiet) J->table->header();
    json_t *rows = json_array();
    gv_coll_row row;
    for (int i = 0; gv_coll_plan_row(p, J->size, i, &row); i++) {
        uint64_t digest = 0;
        bool ran = false;
        if (!J->broken)
            ran = run_rank(&row, J, p, &digest, nccl_version);
        else {
            row.rank_verdict = GV_ERROR;
            snprintf(row.reason, sizeof row.reason, "not run after an NCCL or CUDA error");
        }
        row.per_rank = true;
        J->broken = !gv_mpi_all(!J->broken); /* one rank's failure stops them all */
        reduce_row(&row, J, ran, digest);
        if (J->rank == 0 && !p->quiet) J->table->row(&row);
        n->pass += row.verdict == GV_PASS;
        n->fail += row.verdict == GV_FAIL;
        n->error += row.verdict == GV_ERROR;
        n->skip += row.verdict == GV_SKIP;
        json_array_append_new(rows, gv_coll_row_json(&row, J->size));
    }
    return rows;
}

/* MPI started: the checks every rank votes on, the communicator, then the rows. */
static gv_status run_job(const gv_coll_plan *p, const gv_rank *launch, job *J, gv_error *e)
{
    char path_buf[4096];
    const char *json = NULL;
    gv_status st = job_preflight(p, launch, J, path_buf, sizeof path_buf, &json, e);
    if (st != GV_ST_OK) return st;
    rank_gpu mine;
    gk_device_info info;
    int present = 0;
    st = job_open(launch, J, &mine, &info, &present);
    if (st != GV_ST_OK) return st;

    job_counts n = {0, 0, 0, 0};
    int nccl_version = 0;
    json_t *rows = job_rows(p, J, &n, &nccl_version);
    if (J->rank == 0) J->table->summary(&n, J->size, nccl_version);
    bool lost = false;
    if (json) {
        gv_fleet_info fleet;
        gv_fleet_info_fill(&fleet, &info, present, mine.device);
        json_t *extra = json_pack("{s:i, s:o, s:s}", "rank", J->rank, "fleet",
                                  gv_fleet_info_json(&fleet), "time_ms_is",
                                  "the slowest rank's median of iters, each timed between CUDA "
                                  "events; rank_time_ms is this rank's");
        lost = !gv_coll_write_json(json, rows, J->size, nccl_version, p, extra, e);
        json_decref(extra);
    } else {
        json_decref(rows);
    }
    lost = !gv_mpi_all(!lost);
    return gv_run_status(n.fail, n.error, n.pass, true, lost);
}

gv_status gv_coll_run_ranks(const gv_coll_plan *p, const gv_coll_table *table,
                            const gv_rank *launch, gv_error *e)
{
    e->status = GV_ST_OK;
    e->msg[0] = '\0';
    job J = {.rank = launch->rank, .size = launch->world_size, .table = table};
    char err[256];
    if (gv_mpi_start(&J.rank, &J.size, err, sizeof err) != 0) {
        if (gv_mpi_built()) {
            rank_error(table, launch->rank, err);
            return GV_ST_RUNTIME;
        }
        char why[sizeof err + 64];
        snprintf(why, sizeof why, "launched by %s: %s", launch->launcher, err);
        table->rank_skip(launch->rank, launch->world_size, why);
        return GV_ST_NODEV;
    }
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    gv_status rc = run_job(p, launch, &J, e);
    fflush(stdout);
    gk_coll_comm_close(J.comm);
    gv_mpi_finish();
    return rc;
}
