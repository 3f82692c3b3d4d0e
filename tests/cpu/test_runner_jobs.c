/* test_runner_jobs.c: several worker processes on one device (gv_runner.jobs > 1,
 * src/core/runner.c; `gpuval check --jobs N`). The runner is called directly on cases of the
 * registry (on a CPU-only build they SKIP: no device; with a device they run): on_done must see
 * every case once, in case order, after its on_start, whatever order the workers finish in;
 * every result must be the one --jobs 1 gives; a crash, a hang or an ERROR (injected with
 * GPUVAL_INJECT_FAULT) must fail the case of the worker it happened in and no other, and a
 * worker must not run another case after an ERROR. Each worker records its pid per case in
 * memory shared with this process, so that the tests see which process ran what. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/knobs.h"
#include "core/registry.h"
#include "core/runner.h"

#include "testkit.h"

/* The same selection as test_isolate.c: vadd's 10 cases first, then reduce.sum's 12, the
   one-pass sums' 8 and the column sums' 10 (src/ops/vadd.c, src/ops/reduce.c). */
#define N_VADD 10
#define N_SUM  12

typedef struct seen {
    int n;
    int done[256], n_done;   /* on_done's indices, in the order it was called */
    int start[256], n_start; /* on_start's */
    bool started[256];
    bool start_after_done; /* on_start of a case already done */
    bool done_unstarted;   /* on_done of a case whose on_start never came */
    pid_t *pid;            /* shared: the worker that ran case i (0: none reported it) */
} seen;

static void on_start(int i, void *ctx)
{
    seen *s = ctx;
    for (int k = 0; k < s->n_done; k++)
        if (s->done[k] == i) s->start_after_done = true;
    s->started[i] = true;
    if (s->n_start < 256) s->start[s->n_start++] = i;
}

static void on_done(int i, const gv_result *r, void *ctx)
{
    seen *s = ctx;
    (void)r;
    if (!s->started[i]) s->done_unstarted = true;
    if (s->n_done < 256) s->done[s->n_done++] = i;
}

/* In the worker that ran case i (on_kept runs there): its pid, into the shared table. */
static int on_kept(int i, const gv_problem *kept, const gv_result *r, void *ctx)
{
    seen *s = ctx;
    (void)kept;
    (void)r;
    s->pid[i] = getpid();
    return 0;
}

static gv_case *select_cases(int *n)
{
    gv_selection sel = {0};
    sel.dist = -1;
    sel.op_glob = "vadd,reduce.sum*,reduce.colsum*";
    sel.test_shapes = true;
    sel.dtypes = 1u << GV_F32;
    gv_case *cases = NULL;
    char err[256];
    *n = gv_select(&sel, &cases, err, sizeof err);
    cr_assert(*n > N_VADD + N_SUM && *n <= 256, "%d cases: %s", *n, err);
    return cases;
}

static void set_fault(const char *fault)
{
    if (fault)
        setenv("GPUVAL_INJECT_FAULT", fault, 1);
    else
        unsetenv("GPUVAL_INJECT_FAULT");
    gv_knobs_reload();
}

/* The cases by jobs workers, each case's limit timeout_s; s and results are filled. */
static double run_jobs(const gv_case *cases, int n, int jobs, double timeout_s, seen *s,
                       gv_result *results)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->pid =
        mmap(NULL, 256 * sizeof *s->pid, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(s->pid != MAP_FAILED);
    gv_runner run = {.isolate = true,
                     .case_timeout_s = timeout_s,
                     .case_timeout_given = true,
                     .repeat = 1,
                     .jobs = jobs,
                     .on_kept = on_kept,
                     .on_start = on_start,
                     .on_done = on_done,
                     .ctx = s};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cr_assert_eq(gv_run_cases(cases, n, &run, results), GV_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}

/* Every case reported once, in case order, each after its on_start. */
static void expect_in_order(const seen *s)
{
    cr_expect_eq(s->n_done, s->n, "on_done saw %d cases of %d", s->n_done, s->n);
    for (int k = 0; k < s->n_done; k++)
        cr_expect_eq(s->done[k], k, "on_done's call %d was case %d", k, s->done[k]);
    cr_expect(!s->done_unstarted, "on_done of a case before its on_start");
    cr_expect(!s->start_after_done, "on_start of a case already done");
    for (int k = 1; k < s->n_start; k++)
        cr_expect_gt(s->start[k], s->start[k - 1], "on_start out of order at call %d", k);
}

static bool is_op(const gv_case *c, const char *name)
{
    return strcmp(c->op->name, name) == 0;
}

static int distinct_pids(const seen *s)
{
    int d = 0;
    for (int i = 0; i < s->n; i++) {
        if (!s->pid[i]) continue;
        bool again = false;
        for (int k = 0; k < i && !again; k++)
            again = s->pid[k] == s->pid[i];
        d += !again;
    }
    return d;
}

/* Four workers give every case the verdict and reason one worker gives, reported in order,
   and more than one process ran them. */
Test(runner_jobs, four_workers_report_as_one_does, .timeout = 240)
{
    set_fault(NULL);
    int n;
    gv_case *cases = select_cases(&n);
    gv_result *one = calloc((size_t)n, sizeof *one), *four = calloc((size_t)n, sizeof *four);
    seen *s1 = calloc(1, sizeof *s1), *s4 = calloc(1, sizeof *s4);
    cr_assert(one && four && s1 && s4);
    run_jobs(cases, n, 1, 60, s1, one);
    run_jobs(cases, n, 4, 60, s4, four);
    expect_in_order(s1);
    expect_in_order(s4);
    for (int i = 0; i < n; i++) {
        cr_expect_eq(four[i].verdict, one[i].verdict, "case %d: %d with 4 workers, %d with one", i,
                     four[i].verdict, one[i].verdict);
        cr_expect_str_eq(four[i].reason, one[i].reason, "case %d", i);
        cr_expect_str_eq(four[i].c.op->name, cases[i].op->name, "case %d", i);
        cr_expect(four[i].verdict != GV_ERROR, "case %d: ERROR %s", i, four[i].reason);
    }
    cr_expect_eq(distinct_pids(s1), 1, "one worker ran %d processes", distinct_pids(s1));
    cr_expect_gt(distinct_pids(s4), 1, "four workers, yet one process ran every case");
    cr_expect_leq(distinct_pids(s4), 4);
    free(one);
    free(four);
    free(s1);
    free(s4);
    free(cases);
}

/* A crash fails the case of the worker it happened in, each reduce.sum case with SIGSEGV, and
   no case of another op: the other workers' cases in flight at the time survive. */
Test(runner_jobs, a_crash_fails_its_own_case_only, .timeout = 240)
{
    set_fault("crash:reduce.sum");
    int n;
    gv_case *cases = select_cases(&n);
    gv_result *res = calloc((size_t)n, sizeof *res);
    seen *s = calloc(1, sizeof *s);
    cr_assert(res && s);
    run_jobs(cases, n, 3, 60, s, res);
    set_fault(NULL);
    expect_in_order(s);
    int crashed = 0;
    for (int i = 0; i < n; i++) {
        if (is_op(&cases[i], "reduce.sum")) {
            crashed++;
            cr_expect_eq(res[i].verdict, GV_ERROR, "case %d: %d", i, res[i].verdict);
            cr_expect(strstr(res[i].reason, "SIGSEGV") != NULL, "case %d: %s", i, res[i].reason);
        } else {
            cr_expect_neq(res[i].verdict, GV_ERROR, "case %d (%s): ERROR %s", i, cases[i].op->name,
                          res[i].reason);
            cr_expect_neq(s->pid[i], 0, "case %d was not run to its end", i);
        }
    }
    cr_expect_eq(crashed, N_SUM);
    free(res);
    free(s);
    free(cases);
}

/* A crash while another worker's case is still in flight: vadd's cases hang (to their 2 s
   limit) and reduce.sum's crash at once, so the last vadd cases are running when the first
   sums crash. Each case keeps its own cause: a crash blamed on the first case not yet reported
   (the hung one) instead of the worker's own would show here. */
Test(runner_jobs, a_crash_beside_a_case_in_flight_is_the_crashing_case_s, .timeout = 240)
{
    set_fault("hang:vadd;crash:reduce.sum");
    int n;
    gv_case *cases = select_cases(&n);
    gv_result *res = calloc((size_t)n, sizeof *res);
    seen *s = calloc(1, sizeof *s);
    cr_assert(res && s);
    run_jobs(cases, n, 4, 2, s, res);
    set_fault(NULL);
    expect_in_order(s);
    for (int i = 0; i < n; i++) {
        const char *want = is_op(&cases[i], "vadd")         ? "timed out after 2 s"
                           : is_op(&cases[i], "reduce.sum") ? "SIGSEGV"
                                                            : NULL;
        if (want)
            cr_expect(res[i].verdict == GV_ERROR && strstr(res[i].reason, want),
                      "case %d (%s): %d %s, expected ERROR %s", i, cases[i].op->name,
                      res[i].verdict, res[i].reason, want);
        else
            cr_expect_neq(res[i].verdict, GV_ERROR, "case %d: ERROR %s", i, res[i].reason);
    }
    free(res);
    free(s);
    free(cases);
}

/* A hang is killed at its case's limit and placed on that case; the workers hang side by side,
   so ten hung cases at 1 s take about 10/4 s, not 10. */
Test(runner_jobs, hangs_time_out_on_their_cases_in_parallel, .timeout = 240)
{
    set_fault("hang:vadd");
    int n;
    gv_case *cases = select_cases(&n);
    gv_result *res = calloc((size_t)n, sizeof *res);
    seen *s = calloc(1, sizeof *s);
    cr_assert(res && s);
    double took = run_jobs(cases, n, 4, 1, s, res);
    set_fault(NULL);
    expect_in_order(s);
    for (int i = 0; i < n; i++) {
        if (is_op(&cases[i], "vadd"))
            cr_expect(res[i].verdict == GV_ERROR && strstr(res[i].reason, "timed out after 1 s"),
                      "case %d: %d %s", i, res[i].verdict, res[i].reason);
        else
            cr_expect_neq(res[i].verdict, GV_ERROR, "case %d: ERROR %s", i, res[i].reason);
    }
    /* one worker: at least N_VADD s of limits one after another */
    cr_expect_lt(took, N_VADD - 1.0, "the run took %.1f s: the hangs did not overlap", took);
    free(res);
    free(s);
    free(cases);
}

/* An ERROR ends its worker: no case after it runs in that process, and the run goes on in
   fresh workers. */
Test(runner_jobs, an_error_ends_its_worker, .timeout = 240)
{
    set_fault("error:reduce.sum");
    int n;
    gv_case *cases = select_cases(&n);
    gv_result *res = calloc((size_t)n, sizeof *res);
    seen *s = calloc(1, sizeof *s);
    int *order = calloc((size_t)n, sizeof *order), *pos = calloc((size_t)n, sizeof *pos);
    cr_assert(res && s && order && pos);
    gv_runner_order(cases, n, order, pos);
    run_jobs(cases, n, 2, 60, s, res);
    set_fault(NULL);
    expect_in_order(s);
    int errors = 0;
    for (int i = 0; i < n; i++) {
        bool faulted = is_op(&cases[i], "reduce.sum");
        cr_expect_eq(res[i].verdict == GV_ERROR, faulted, "case %d: %d %s", i, res[i].verdict,
                     res[i].reason);
        if (!faulted) continue;
        errors++;
        cr_expect(strstr(res[i].reason, "injected fault"), "case %d: %s", i, res[i].reason);
        cr_assert_neq(s->pid[i], 0, "case %d: no worker reported it", i);
        /* cases are handed out in gv_runner_order: one handed out later in this worker came
           after the ERROR */
        for (int k = 0; k < n; k++)
            if (pos[k] > pos[i])
                cr_expect_neq(s->pid[k], s->pid[i],
                              "case %d ran in the worker that ended in ERROR "
                              "at case %d",
                              k, i);
    }
    cr_expect_eq(errors, N_SUM);
    cr_expect_geq(distinct_pids(s), N_SUM + 1, "%d processes for %d ERRORs", distinct_pids(s),
                  N_SUM);
    free(order);
    free(pos);
    free(res);
    free(s);
    free(cases);
}

/* More workers than cases: only as many start as there are cases, and every case is
   reported once. */
Test(runner_jobs, more_workers_than_cases, .timeout = 120)
{
    set_fault(NULL);
    int n;
    gv_case *cases = select_cases(&n);
    gv_result *res = calloc(3, sizeof *res);
    seen *s = calloc(1, sizeof *s);
    cr_assert(res && s);
    run_jobs(cases, 3, 16, 60, s, res);
    cr_expect_eq(s->n_done, 3);
    expect_in_order(s);
    cr_expect_leq(distinct_pids(s), 3);
    for (int i = 0; i < 3; i++)
        cr_expect(res[i].verdict == GV_PASS || res[i].verdict == GV_SKIP, "case %d: %d %s", i,
                  res[i].verdict, res[i].reason);
    free(res);
    free(s);
    free(cases);
}

/* A case that will read the oracle cache entry an earlier case makes (another mode of the same
   reference) is handed out by its bytes, after cheaper cases that compute their own: beside
   the case computing the entry it would wait on the entry's lock with its cores idle. Modes
   whose references differ (act.silu's fast-math oracle) keep their cost. So does a case that
   builds a costly input an earlier case builds (an op's shared_input_key). */
Test(runner_jobs, a_case_sharing_an_earlier_reference_is_handed_out_later)
{
    gv_shape big = {.nd = 3, .d = {512, 512, 512}}, mid = {.nd = 3, .d = {256, 256, 256}};
    gv_shape sin = {.nd = 2, .d = {100000, 100}}, act = {.nd = 1, .d = {1 << 22}};
    gv_shape solve = {.nd = 2, .d = {1000, 6}};
    gv_case c[] = {
        gv_test_case("gemm.cublas", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, big, 0),
        gv_test_case("gemm.cublas", GV_F32, GV_MODE_TF32, GV_DIST_UNIFORM01, big, 0),
        gv_test_case("gemm.cublas", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, mid, 0),
        gv_test_case("sin_iter", GV_F32, GV_MODE_FASTMATH, GV_DIST_UNIFORM11, sin, 0),
        gv_test_case("sin_iter", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, sin, 0),
        gv_test_case("gemm.cublas", GV_F32, GV_MODE_TF32, GV_DIST_UNIFORM01, big, 1),
        gv_test_case("act.silu", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, act, 0),
        gv_test_case("act.silu", GV_F32, GV_MODE_FASTMATH, GV_DIST_UNIFORM11, act, 0),
        gv_test_case("solve.gesv", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11, solve, 0),
        gv_test_case("solve.gesv", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, solve, 0),
        gv_test_case("solve.posv", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, solve, 0),
    };
    int n = (int)(sizeof c / sizeof c[0]), order[11], pos[11];
    gv_runner_order(c, n, order, pos);
    /* gemm 512^3 native and seed 1's tf32 (its own inputs) first, then 256^3 */
    cr_expect_lt(pos[0], pos[2]);
    cr_expect_lt(pos[5], pos[2]);
    cr_expect_gt(pos[1], pos[2], "tf32 512^3 reads native's entry: after 256^3");
    cr_expect_gt(pos[1], pos[7], "tf32 512^3 after act.silu's 2^22 elements");
    cr_expect_lt(pos[3], pos[4] - 1, "sin_iter native reads fastmath's entry");
    cr_expect_eq(pos[7], pos[6] + 1, "act.silu's modes compute their own: equal costs, adjacent");
    cr_expect_lt(pos[7], pos[4], "act.silu fastmath before sin_iter native, which reads");
    /* solve's f32 and f64 build one conditioned matrix (its shared_input_key); posv's differs */
    cr_expect_eq(pos[8], 0, "gesv f64 1000x6, the costliest, first");
    cr_expect_gt(pos[9], pos[7], "gesv f32 reads f64's matrix: after act.silu's 2^22");
    cr_expect_lt(pos[10], pos[2], "posv f32 builds its own SPD matrix: it keeps its cost");
}
