/* host_bench.c: the host side of a check's cases timed without a device — inputs, the
 * (cached) reference and the judge of an output equal to the reference rounded to the storage
 * dtype — so that the CPU's share of `gpuval check` can be measured and tuned on a machine
 * without a GPU. Run by hand, not installed, not a test.
 *
 *   gpuval-host-bench [--op GLOB] [--dtype f32|f64] [--dist NAME] [--steps] [--max-elems N]
 *                     [--repeat R]
 *
 * One line per case (milliseconds of each phase, CPU time of all threads — on a shared machine
 * steadier than wall time — and wall time: a phase whose wall time does not fall from
 * OMP_NUM_THREADS=1 to 2 runs on one core), then the sums per op and overall. The oracle cache is
 * the command's ($XDG_CACHE_HOME/gpuval); run twice for cold and warm. */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cache.h"
#include "core/model_floor.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "case_digest.h"

/* CPU time of the whole process (all threads), in ms: on a shared machine the work done is
   steadier than the wall time. */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Wall time, ms: what the judge's parallel parts save shows here, not in CPU time. */
static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static double layout_elems(const gv_case *c)
{
    gv_layout l;
    if (c->op->layout(c, &l) != GV_OK) return 0;
    double e = 0;
    for (int i = 0; i < l.n_in; i++)
        e += (double)l.in[i].count;
    for (int i = 0; i < l.n_out; i++)
        e += (double)l.out[i].count;
    return e;
}

int main(int argc, char **argv)
{
    gv_selection sel = {.dist = -1};
    double max_elems = 0;
    int repeat = 1;
    bool steps = false;
    static const struct option opts[] = {
        {"op", required_argument, 0, 'o'},        {"dtype", required_argument, 0, 't'},
        {"max-elems", required_argument, 0, 'm'}, {"repeat", required_argument, 0, 'r'},
        {"no-cache", no_argument, 0, 'n'},        {"dist", required_argument, 0, 'd'},
        {"steps", no_argument, 0, 's'},           {0, 0, 0, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': sel.op_glob = optarg; break;
        case 't': sel.dtypes = strcmp(optarg, "f32") == 0 ? 1u << GV_F32 : 1u << GV_F64; break;
        case 'm': max_elems = atof(optarg); break;
        case 'r': repeat = atoi(optarg); break;
        case 'n': gv_cache_enable(false); break;
        case 's': steps = true; break;
        case 'd': { /* every case on this distribution, as check --dist */
            gv_dist d;
            if (gv_dist_parse(optarg, &d) != 0) {
                fprintf(stderr, "unknown --dist %s\n", optarg);
                return 2;
            }
            sel.dist = (int)d;
            break;
        }
        default: return 2;
        }
    }
    gv_cache_memo_enable(true); /* as check: the solve matrices kept with the references */
    gv_case *cases = NULL;
    char err[512];
    int n = gv_select(&sel, &cases, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    double tot[6] = {0}, op_tot[6] = {0};
    const gv_op *op_now = NULL;
    int op_cases = 0;
    printf("%-24s %-5s %-10s %-18s %10s %10s %10s %10s %10s %10s %s\n", "op", "dtype", "mode",
           "shape", "in_cpu_ms", "in_wall_ms", "or_cpu_ms", "or_wall_ms", "ju_cpu_ms", "ju_wall_ms",
           "verdict digest dist");
    for (int i = 0; i <= n; i++) {
        if (i == n || cases[i].op != op_now) {
            if (op_now)
                printf("= %-22s %4d cases %37.0f %10.0f %10.0f %10.0f %10.0f %10.0f\n",
                       op_now->name, op_cases, op_tot[0], op_tot[1], op_tot[2], op_tot[3],
                       op_tot[4], op_tot[5]);
            if (i == n) break;
            op_now = cases[i].op;
            op_cases = 0;
            memset(op_tot, 0, sizeof op_tot);
        }
        const gv_case *c = &cases[i];
        if (max_elems > 0 && layout_elems(c) > max_elems) continue;
        for (int rep = 0; rep < repeat; rep++) {
            gv_problem p;
            gv_result r;
            gv_result_init(&r, c);
            double t0 = now_ms(), w0 = wall_ms();
            int rc = gv_problem_init(&p, c);
            double t_in = now_ms() - t0, w_in = wall_ms() - w0;
            if (rc != GV_OK) {
                printf("%s: inputs: %s\n", c->op->name, gv_strerror(rc));
                continue;
            }
            bool hit;
            t0 = now_ms(), w0 = wall_ms();
            rc = gv_cached_reference(&p, &hit);
            double t_or = now_ms() - t0, w_or = wall_ms() - w0;
            if (rc != GV_OK) {
                printf("%s: oracle: %s\n", c->op->name, gv_strerror(rc));
                gv_problem_free(&p);
                continue;
            }
            case_fake_output(&p, c->dtype, steps);
            t0 = now_ms(), w0 = wall_ms();
            gv_judge_problem(&p, &r);
            double t_j = now_ms() - t0, w_j = wall_ms() - w0;
            /* what the case computed from and its judgement, for comparing builds */
            uint64_t digest = case_data_digest(&p, c->dtype);
            gv_problem_free(&p);
            uint64_t jdig = case_judged_digest(&r);
            char shape[64];
            int len = 0;
            for (int d = 0; d < c->shape.nd; d++)
                len += snprintf(shape + len, sizeof shape - (size_t)len, "%s%lld", d ? "x" : "",
                                (long long)c->shape.d[d]);
            printf("%-24s %-5s %-10s %-18s %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %s %016llx "
                   "%016llx %s%s\n",
                   c->op->name, gv_dtype_name(c->dtype), gv_mode_name(c->mode), shape, t_in, w_in,
                   t_or, w_or, t_j, w_j, gv_verdict_name(r.verdict), (unsigned long long)digest,
                   (unsigned long long)jdig, gv_dist_name(c->dist), hit ? " (cached)" : "");
            fflush(stdout);
            double ph[6] = {t_in, w_in, t_or, w_or, t_j, w_j};
            for (int k = 0; k < 6; k++)
                op_tot[k] += ph[k], tot[k] += ph[k];
        }
        op_cases++;
    }
    printf("= total %54.0f %10.0f %10.0f %10.0f %10.0f %10.0f\n", tot[0], tot[1], tot[2], tot[3],
           tot[4], tot[5]);
    free(cases);
    return 0;
}
