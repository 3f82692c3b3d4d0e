/* coll_cmd.c: `gpuval collectives` — NCCL all-reduce (sum, max), all-gather, reduce-scatter
 * and broadcast over every local GPU from one process, each judged against the f64 oracle by
 * its error model on every rank (coll.h), with nccl-tests' #wrong, then timed (algbw, busbw).
 * Needs two devices: with fewer, or without NCCL, it says why and exits 77. Launched as the
 * ranks of an MPI job (mpirun, srun: the launcher's variables, fleet_info.h), it hands over to
 * coll_rank.c, one GPU per rank; the rows, judgement, table and JSON here serve both. */
#include "coll_cmd.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "coll.h"
#include "coll_rank.h"
#include "json_util.h"
#include "report.h"

static const char coll_help[] =
    "usage: gpuval collectives [options]\n"
    "\n"
    "NCCL collectives over every local GPU (one rank each, ncclCommInitAll, out of place),\n"
    "with NVLink multicast off (NCCL_NVLS_ENABLE=0). Inputs per rank from the seed\n"
    "(uniform11); every rank's output judged against the float64 oracle: the sums by the\n"
    "error model |c-r| <= 16 u g d with g the sum of |inputs| and depth d = ranks, max, gather\n"
    "and broadcast bit for bit. #wrong counts the elements outside that (as nccl-tests'\n"
    "column). Then timed: mean of --iters after 5 warm-up runs; algbw = S/t and busbw =\n"
    "algbw x 2(n-1)/n (all-reduce), (n-1)/n (all-gather, reduce-scatter), 1 (broadcast),\n"
    "as nccl-tests' doc/PERFORMANCE.md defines them (S: bytes per rank, x n for all-gather\n"
    "and reduce-scatter).\n"
    "\n"
    "Under mpirun or srun with 2 or more ranks (found from the launcher's variables: Open\n"
    "MPI's OMPI_COMM_WORLD_*, Slurm's SLURM_PROCID..., PMI_RANK...), each rank is one process\n"
    "on one GPU (its local rank modulo the devices it sees) and NCCL is bootstrapped through\n"
    "MPI (ncclCommInitRank). Each rank makes every rank's inputs from the seed and judges its\n"
    "own output; verdicts (worst), #wrong (sum) and times (max over ranks of each rank's\n"
    "median of --iters, timed between CUDA events) are reduced over the ranks and rank 0\n"
    "prints the one table. --json: one file per rank (run.json: run.rank0.json ..., or\n"
    "%r in the path replaced by the rank).\n"
    "\n"
    "  --op LIST     allreduce.sum,allreduce.max,allgather,reducescatter.sum,broadcast (all)\n"
    "  --dtype LIST  f32,f64 (both)\n"
    "  --bytes SPEC  bytes per rank, sizes as --size writes them (default 2^20,2^26)\n"
    "  --seed N      input seed (default 0)\n"
    "  --iters N     timed repetitions (default 20)\n"
    "  --json FILE   write the run (schema gpuval-collectives/1)\n"
    "\n"
    "exit: 0 all passed, 1 a collective was wrong, 2 bad usage, 3 an NCCL or CUDA error,\n"
    "      77 fewer than two devices (or ranks), no device on a rank, or built without NCCL\n"
    "      (or, under a launcher, without MPI); every rank of a job exits with the same code\n";

bool gv_coll_plan_row(const gv_coll_plan *p, int nranks, int i, gv_coll_row *row)
{
    int at = 0;
    for (int k = 0; k < GK_NCOLLS; k++) {
        if (!p->want[k]) continue;
        for (int dt = 0; dt < GV_NDTYPES; dt++) {
            if (!(p->dtypes & (1u << dt)) || (dt != GV_F32 && dt != GV_F64)) continue;
            for (int s = 0; s < p->n_sizes; s++, at++) {
                if (at != i) continue;
                memset(row, 0, sizeof *row);
                row->d = &gv_colls[k];
                row->dtype = dt;
                row->bytes = p->bytes[s];
                int64_t per_rank_elems = row->bytes / (int64_t)gv_dtype_size(dt);
                /* reduce-scatter's count is what each rank receives: bytes/rank sent / n */
                row->count =
                    k == GK_COLL_REDUCESCATTER_SUM ? per_rank_elems / nranks : per_rank_elems;
                if (row->count < 1) row->count = 1;
                return true;
            }
        }
    }
    return false;
}

void gv_coll_judge_rank(gv_coll_row *row, int nranks, const double *const *in_ref, int rank,
                        const void *out, double *ref, double *gauge)
{
    int kind = row->d->kind, dt = row->dtype;
    int64_t out_n = gk_coll_out_count(kind, row->count, nranks);
    gv_tiers no_tiers = {0};
    gv_coll_reference(kind, nranks, row->count, in_ref, rank, ref, gauge);
    gv_error_model em = gv_coll_model(kind, dt, nranks, gauge);
    gv_metrics m;
    gv_compare(out, (gv_dtype)dt, ref, out_n, &no_tiers, &em,
               gv_mode_precision_bits((gv_dtype)dt, GV_MODE_NATIVE), &m);
    row->wrong += gv_coll_wrong(out, dt, ref, &em, out_n);
    if (isnan(m.ratio) || m.ratio > row->ratio) row->ratio = m.ratio; /* NaN sticks */
    if (m.nonfinite_mismatches || m.poisoned) row->nonfinite = true;
}

void gv_coll_decide(gv_coll_row *row, int nranks)
{
    if (row->wrong == 0 && !row->nonfinite && row->ratio <= GV_DEFAULT_RATIO_BOUND) {
        row->verdict = GV_PASS;
        row->reason[0] = '\0';
    } else {
        row->verdict = GV_FAIL;
        snprintf(row->reason, sizeof row->reason,
                 "%lld elements outside the tolerance over %d ranks; ratio %.3g (bound %.3g)%s",
                 (long long)row->wrong, nranks, row->ratio, GV_DEFAULT_RATIO_BOUND,
                 row->nonfinite ? "; NaN/Inf or unwritten elements" : "");
    }
}

void gv_coll_bandwidths(gv_coll_row *row, int nranks)
{
    int kind = row->d->kind;
    row->algbw =
        gv_coll_algbw_bytes(kind, row->count, nranks, row->dtype) / (row->time_ms * 1e-3) / 1e9;
    row->busbw = row->algbw * gv_coll_busbw_factor(kind, nranks);
}

void gv_coll_print_header(void)
{
    printf("%-18s %-5s %12s %11s %7s %9s %11s %11s %11s  %s\n", "collective", "dtype", "bytes/rank",
           "count", "#wrong", "ratio", "time us", "algbw GB/s", "busbw GB/s", "verdict");
}

void gv_coll_print_row(const gv_coll_row *row)
{
    printf("%-18s %-5s %12lld %11lld %7lld %9.3g %11.1f %11.2f %11.2f  %s", row->d->name,
           gv_dtype_name((gv_dtype)row->dtype), (long long)row->bytes, (long long)row->count,
           (long long)row->wrong, row->ratio, row->time_ms * 1e3, row->algbw, row->busbw,
           gv_verdict_name(row->verdict));
    if (row->reason[0]) printf(" (%s)", row->reason);
    if (row->verdict == GV_PASS && !row->ranks_identical)
        printf(" [ranks' outputs not bit-identical]");
    printf("\n");
    fflush(stdout);
}

/* One collective: inputs, oracle, device run, judgement on every rank. */
static void run_one(gv_coll_row *row, int nranks, uint64_t seed, int iters, int *nccl_version)
{
    int kind = row->d->kind, dt = row->dtype;
    int64_t count = row->count;
    int64_t in_n = gk_coll_in_count(kind, count, nranks),
            out_n = gk_coll_out_count(kind, count, nranks);
    size_t es = gv_dtype_size(dt);
    double *in_ref[GK_COLL_MAX_RANKS] = {0};
    void *in[GK_COLL_MAX_RANKS] = {0}, *out[GK_COLL_MAX_RANKS] = {0};
    double *ref = malloc((size_t)out_n * sizeof(double)), *gauge = malloc((size_t)out_n * 8);
    bool ok = ref && gauge;
    for (int r = 0; r < nranks && ok; r++) {
        in_ref[r] = malloc((size_t)in_n * sizeof(double));
        in[r] = malloc((size_t)in_n * es);
        out[r] = malloc((size_t)out_n * es);
        ok = in_ref[r] && in[r] && out[r];
        if (ok) gv_coll_inputs(kind, dt, nranks, count, seed, r, in_ref[r], in[r]);
    }
    row->verdict = GV_ERROR;
    if (!ok) {
        snprintf(row->reason, sizeof row->reason, "out of host memory");
        goto done;
    }
    gk_coll c = {.kind = kind,
                 .dtype = dt,
                 .nranks = nranks,
                 .count = count,
                 .in = (const void *const *)in,
                 .out = (void *const *)out,
                 .warmup = 5,
                 .iters = iters};
    gk_clear_error();
    int rc = gk_coll_run(&c);
    *nccl_version = c.nccl_version;
    if (rc != GV_OK) {
        row->verdict = rc == GV_EUNSUPPORTED ? GV_SKIP : GV_ERROR;
        snprintf(row->reason, sizeof row->reason, "%s", gk_last_error());
        goto done;
    }
    row->time_ms = c.time_ms;
    gv_coll_bandwidths(row, nranks);
    row->ranks_identical = true;
    for (int r = 0; r < nranks; r++) {
        gv_coll_judge_rank(row, nranks, (const double *const *)in_ref, r, out[r], ref, gauge);
        if (r > 0 && kind != GK_COLL_REDUCESCATTER_SUM &&
            memcmp(out[r], out[0], (size_t)out_n * es) != 0)
            row->ranks_identical = false;
    }
    gv_coll_decide(row, nranks);
done:
    for (int r = 0; r < nranks; r++) {
        free(in_ref[r]);
        free(in[r]);
        free(out[r]);
    }
    free(ref);
    free(gauge);
}

json_t *gv_coll_row_json(const gv_coll_row *r, int nranks)
{
    json_t *o = json_object();
    json_object_set_new(o, "collective", json_string(r->d->name));
    json_object_set_new(o, "dtype", json_string(gv_dtype_name((gv_dtype)r->dtype)));
    json_object_set_new(o, "ranks", json_integer(nranks));
    json_object_set_new(o, "bytes_per_rank", json_integer(r->bytes));
    json_object_set_new(o, "count", json_integer(r->count));
    json_object_set_new(o, "verdict", json_string(gv_verdict_name(r->verdict)));
    json_object_set_new(o, "reason", json_string(r->reason));
    json_object_set_new(o, "exact", json_boolean(r->d->exact));
    json_object_set_new(o, "wrong", json_integer(r->wrong));
    json_object_set_new(o, "ratio", gv_json_num(r->ratio));
    json_object_set_new(o, "ranks_identical", json_boolean(r->ranks_identical));
    json_object_set_new(o, "time_ms", gv_json_num(r->time_ms));
    json_object_set_new(o, "algbw_gbs", gv_json_num(r->algbw));
    json_object_set_new(o, "busbw_gbs", gv_json_num(r->busbw));
    json_object_set_new(o, "busbw_factor", gv_json_num(gv_coll_busbw_factor(r->d->kind, nranks)));
    if (r->per_rank) { /* this rank alone; the fields above are the whole job's */
        json_object_set_new(o, "rank_verdict", json_string(gv_verdict_name(r->rank_verdict)));
        json_object_set_new(o, "rank_wrong", json_integer(r->rank_wrong));
        json_object_set_new(o, "rank_ratio", gv_json_num(r->rank_ratio));
        json_object_set_new(o, "rank_time_ms", gv_json_num(r->rank_time_ms));
    }
    return o;
}

static int emit_json(FILE *f, void *doc)
{
    return json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
}

bool gv_coll_write_json(const char *path, json_t *rows, int nranks, int nccl_version,
                        const gv_coll_plan *p, json_t *extra)
{
    gv_run_info info;
    memset(&info, 0, sizeof info);
    info.have_device = gk_device_info_get(&info.device) == GV_OK;
    json_t *root = json_object();
    char when[64];
    json_object_set_new(root, "schema", json_string("gpuval-collectives/1"));
    json_object_set_new(root, "created", json_string(gv_json_now(when, sizeof when)));
    json_object_set_new(root, "host", gv_json_host(0));
    json_object_set_new(root, "device",
                        info.have_device ? gv_json_device(&info.device) : json_null());
    json_object_set_new(root, "ranks", json_integer(nranks));
    json_object_set_new(root, "nccl_version", json_integer(nccl_version));
    json_object_set_new(root, "seed", gv_json_seed(p->seed));
    json_object_set_new(root, "iters", json_integer(p->iters));
    if (extra) json_object_update(root, extra);
    json_object_set_new(root, "collectives", rows);
    bool written = gv_write_file(path, emit_json, root) == 0;
    if (!written) gv_usage_error("could not write %s", path);
    json_decref(root);
    return written;
}

/* The options into p; -1 to go on, or the exit code. */
static int parse(int argc, char **argv, gv_coll_plan *p)
{
    const char *ops = NULL, *bytes_spec = "2^20,2^26";
    memset(p, 0, sizeof *p);
    p->dtypes = (1u << GV_F32) | (1u << GV_F64);
    p->iters = 20;
    enum { O_OP = 256, O_DTYPE, O_BYTES, O_SEED, O_ITERS, O_JSON };
    static const struct option opts[] = {{"op", required_argument, 0, O_OP},
                                         {"dtype", required_argument, 0, O_DTYPE},
                                         {"bytes", required_argument, 0, O_BYTES},
                                         {"seed", required_argument, 0, O_SEED},
                                         {"iters", required_argument, 0, O_ITERS},
                                         {"json", required_argument, 0, O_JSON},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case O_OP: ops = optarg; break;
        case O_DTYPE:
            if (gv_parse_dtype_list(optarg, &p->dtypes)) return GV_EXIT_USAGE;
            break;
        case O_BYTES: bytes_spec = optarg; break;
        case O_SEED:
            if (gv_parse_seed(optarg, &p->seed)) return GV_EXIT_USAGE;
            break;
        case O_ITERS: {
            char *end = NULL;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 100000) {
                gv_usage_error("--iters takes 1 to 100000, not '%s'", optarg);
                return GV_EXIT_USAGE;
            }
            p->iters = (int)v;
            break;
        }
        case O_JSON: p->json_path = optarg; break;
        case 'h': fputs(coll_help, stdout); return GV_EXIT_OK;
        default:
            gv_bad_option("collectives", argv);
            fputs(coll_help, stderr);
            return GV_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        gv_usage_error("collectives takes no positional arguments ('%s')", argv[optind]);
        return GV_EXIT_USAGE;
    }
    if (!ops) {
        for (int k = 0; k < GK_NCOLLS; k++)
            p->want[k] = true;
    } else {
        char *copy = strdup(ops), *save = NULL;
        if (!copy) return GV_EXIT_RUNTIME;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            const gv_coll_desc *d = gv_coll_find(t);
            if (!d) {
                gv_usage_error("unknown collective '%s'; valid: allreduce.sum allreduce.max "
                               "allgather reducescatter.sum broadcast",
                               t);
                free(copy);
                return GV_EXIT_USAGE;
            }
            p->want[d->kind] = true;
        }
        free(copy);
    }
    gv_shape shapes[GV_COLL_MAX_SIZES];
    char err[256];
    p->n_sizes = gv_size_spec_parse(bytes_spec, shapes, GV_COLL_MAX_SIZES, err, sizeof err);
    if (p->n_sizes < 0) {
        gv_usage_error("--bytes: %s", err);
        return GV_EXIT_USAGE;
    }
    for (int s = 0; s < p->n_sizes; s++) {
        if (shapes[s].nd != 1 || shapes[s].d[0] < 8 || shapes[s].d[0] > ((int64_t)1 << 34)) {
            gv_usage_error("--bytes takes one number per size, 8 to 2^34 bytes per rank");
            return GV_EXIT_USAGE;
        }
        p->bytes[s] = shapes[s].d[0];
    }
    return -1;
}

static const char *env_get(const char *name)
{
    return getenv(name);
}

int gv_cmd_collectives(int argc, char **argv)
{
    gv_coll_plan plan;
    int rc = parse(argc, argv, &plan);
    if (rc >= 0) return rc;
    /* the ranks of an MPI job: one GPU each (coll_rank.c); the per-rank path is probed there */
    gv_rank launch;
    char err[256];
    if (gv_rank_parse(env_get, &launch, err, sizeof err) < 0) {
        gv_usage_error("launcher variables: %s", err);
        return GV_EXIT_USAGE;
    }
    if (launch.launcher && launch.world_size != 1) return gv_coll_run_ranks(&plan, &launch);

    const char *outs[1] = {plan.json_path}, *out_opts[1] = {"--json"};
    if (gv_probe_outputs(1, outs, out_opts) != 0) return GV_EXIT_USAGE;
    int present = gk_device_count();
    if (present < 2) {
        printf("collectives: SKIP (%d CUDA device%s; they need 2 or more)\n", present,
               present == 1 ? "" : "s");
        return GV_EXIT_NODEV;
    }
    int nranks = present < GK_COLL_MAX_RANKS ? present : GK_COLL_MAX_RANKS;
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    printf("collectives on %d devices, one rank each (NCCL_NVLS_ENABLE=0)\n", nranks);
    gv_coll_print_header();
    json_t *rows = json_array();
    int pass = 0, fail = 0, error = 0, skip = 0, nccl_version = 0;
    gv_coll_row row;
    for (int i = 0; gv_coll_plan_row(&plan, nranks, i, &row); i++) {
        run_one(&row, nranks, plan.seed, plan.iters, &nccl_version);
        gv_coll_print_row(&row);
        pass += row.verdict == GV_PASS;
        fail += row.verdict == GV_FAIL;
        error += row.verdict == GV_ERROR;
        skip += row.verdict == GV_SKIP;
        json_array_append_new(rows, gv_coll_row_json(&row, nranks));
    }
    printf("%d collectives: %d passed, %d failed, %d skipped, %d errors (NCCL %d)\n",
           pass + fail + error + skip, pass, fail, skip, error, nccl_version);
    bool lost = false;
    if (plan.json_path)
        lost = !gv_coll_write_json(plan.json_path, rows, nranks, nccl_version, &plan, NULL);
    else
        json_decref(rows);
    if (pass + fail + error == 0 && skip > 0) return GV_EXIT_NODEV; /* built without NCCL */
    return gv_exit_code(fail, error, pass, true, lost);
}
