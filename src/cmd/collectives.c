/* collectives.c: `gpuval collectives` — NCCL all-reduce (sum, max), all-gather, reduce-scatter
 * and broadcast over every local GPU from one process, each judged against the f64 oracle by
 * its error model on every rank (coll.h), with nccl-tests' #wrong, then timed (algbw, busbw).
 * Needs two devices: with fewer, or without NCCL, it says why and exits 77. Launched as the
 * ranks of an MPI job (mpirun, srun: the launcher's variables, run_info.h), it hands over to
 * coll_rank.c, one GPU per rank; the rows, judgement, table and JSON here serve both. */
#include "cmd/collectives.h"
#include "core/knobs.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "coll/coll.h"
#include "coll/coll_rank.h"
#include "io/json_util.h"
#include "io/run_doc.h"
#include "render/coll_text.h"

/* The parser's labels for collectives' options. */
enum { O_OP = 256, O_DTYPE, O_BYTES, O_SEED, O_ITERS, O_JSON };

/* collectives' options, once: its parser and its --help read this table. */
static const gv_opt coll_opts[] = {
    {.name = "op",
     .id = O_OP,
     .arg = "LIST",
     .help = "allreduce.sum,allreduce.max,allgather,reducescatter.sum,broadcast (all)"},
    {.name = "dtype", .id = O_DTYPE, .arg = "LIST", .help = "f32,f64 (both)"},
    {.name = "bytes",
     .id = O_BYTES,
     .arg = "SPEC",
     .help = "bytes per rank, sizes as --size writes them (default 2^20,2^26)"},
    {.name = "seed", .id = O_SEED, .arg = "N", .help = "input seed (default 0)"},
    {.name = "iters", .id = O_ITERS, .arg = "N", .help = "timed repetitions (default 20)"},
    {.name = "json",
     .id = O_JSON,
     .arg = "FILE",
     .help = "write the run (schema gpuval-collectives/1)"},
    {.name = "quiet", .id = 'q', .help = "print no table: the summary line only"},
    {.name = "help", .id = 'h'},
};
const gv_opt_table gv_coll_options = {"collectives", coll_opts, GV_NOPTS(coll_opts)};

static const char coll_head[] =
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
    "%r in the path replaced by the rank). Built without NCCL, or under a launcher without\n"
    "MPI, it exits 77. Every rank of a job exits with the same code.\n"
    "\n";

static const gv_exit_line coll_exits[] = {
    {GV_EXIT_OK, "all passed"},
    {GV_EXIT_FAIL, "a collective was wrong"},
    {GV_EXIT_USAGE, NULL},
    {GV_EXIT_RUNTIME, "an NCCL or CUDA error, or an output lost"},
    {GV_EXIT_NODEV, "fewer than two devices or ranks, a rank without a device, or no NCCL/MPI"},
};

static const gv_help coll_help = {.head = coll_head,
                                  .opts = &gv_coll_options,
                                  .col = 16,
                                  .exits = coll_exits,
                                  .n_exits = GV_NEXITS(coll_exits)};

/* --op LIST into p->want: -1 to go on, or the exit code after a message. */
static int parse_ops(const char *ops, gv_coll_plan *p)
{
    char *copy = strdup(ops), *save = NULL;
    if (!copy) return GV_EXIT_RUNTIME;
    int rc = -1;
    for (char *t = strtok_r(copy, ",", &save); t && rc < 0; t = strtok_r(NULL, ",", &save)) {
        const gv_coll_desc *d = gv_coll_find(t);
        if (d) {
            p->want[d->kind] = true;
            continue;
        }
        gv_usage_error("unknown collective '%s'; valid: allreduce.sum allreduce.max "
                       "allgather reducescatter.sum broadcast",
                       t);
        rc = GV_EXIT_USAGE;
    }
    free(copy);
    return rc;
}

/* The options into p; -1 to go on, or the exit code. */
static int parse(int argc, char **argv, gv_coll_plan *p)
{
    const char *ops = NULL, *bytes_spec = "2^20,2^26";
    memset(p, 0, sizeof *p);
    p->dtypes = (1u << GV_F32) | (1u << GV_F64);
    p->iters = 20;
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_coll_options);
    int c;
    while ((c = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        switch (c) {
        case O_OP: ops = optarg; break;
        case O_DTYPE:
            if (gv_cmd_parse_dtype_list(optarg, &p->dtypes)) return GV_EXIT_USAGE;
            break;
        case O_BYTES: bytes_spec = optarg; break;
        case O_SEED:
            if (gv_cmd_parse_seed(optarg, &p->seed)) return GV_EXIT_USAGE;
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
        case 'q': p->quiet = true; break;
        case 'h': gv_cmd_help_print(stdout, &coll_help); return GV_EXIT_OK;
        default: gv_cmd_bad_option("collectives", argv); return GV_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        gv_cmd_usage_cmd("collectives", "collectives takes no positional arguments ('%s')",
                         argv[optind]);
        return GV_EXIT_USAGE;
    }
    if (!ops) {
        for (int k = 0; k < GK_NCOLLS; k++)
            p->want[k] = true;
    } else {
        int rc = parse_ops(ops, p);
        if (rc >= 0) return rc;
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

int gv_cmd_collectives(int argc, char **argv)
{
    gv_coll_plan plan;
    int rc = parse(argc, argv, &plan);
    if (rc >= 0) return rc;
    /* the ranks of an MPI job: one GPU each (coll_rank.c); the per-rank path is probed there */
    gv_rank launch;
    char err[256];
    if (gv_rank_parse(gv_env, &launch, err, sizeof err) < 0) {
        gv_usage_error("launcher variables: %s", err);
        return GV_EXIT_USAGE;
    }
    if (launch.launcher && launch.world_size != 1) {
        gv_error e;
        gv_status st = gv_coll_run_ranks(&plan, &gv_coll_text_table, &launch, &e);
        return gv_cmd_end(st, &e);
    }

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
    if (!plan.quiet) gv_coll_print_header();
    json_t *rows = json_array();
    int pass = 0, fail = 0, error = 0, skip = 0, nccl_version = 0;
    gv_coll_row row;
    for (int i = 0; gv_coll_plan_row(&plan, nranks, i, &row); i++) {
        gv_coll_run_local(&row, nranks, plan.seed, plan.iters, &nccl_version);
        if (!plan.quiet) gv_coll_print_row(&row);
        pass += row.verdict == GV_PASS;
        fail += row.verdict == GV_FAIL;
        error += row.verdict == GV_ERROR;
        skip += row.verdict == GV_SKIP;
        json_array_append_new(rows, gv_coll_row_json(&row, nranks));
    }
    printf("%d collectives: %d passed, %d failed, %d skipped, %d errors (NCCL %d)\n",
           pass + fail + error + skip, pass, fail, skip, error, nccl_version);
    bool lost = false;
    gv_error e = {.status = GV_ST_OK};
    if (plan.json_path)
        lost = !gv_coll_write_json(plan.json_path, rows, nranks, nccl_version, &plan, NULL, &e);
    else
        json_decref(rows);
    if (lost) gv_cmd_fail(&e); /* why the document is missing; the exit says it was lost */
    if (pass + fail + error == 0 && skip > 0) return GV_EXIT_NODEV; /* built without NCCL */
    return gv_exit_code(fail, error, pass, true, lost);
}
