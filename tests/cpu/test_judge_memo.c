/* test_judge_memo.c: the judgement memo (src/core/judge_memo.h). A judgement taken from the
 * cache is the judgement the judge makes of the same outputs, member for member of the run's
 * record (its timings and the judge_cache word aside); an output that differs in one bit, a
 * FAIL among them, is judged again; and where the memo does not apply (given inputs, --repeat,
 * the knob, no cache) nothing is read or written. The "device" outputs are made on the host:
 * the reference off by a few ulps (tools/case_digest.h), as a GPU's are. Every test runs in its
 * own XDG_CACHE_HOME. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../tools/case_digest.h"
#include "core/inputs.h"
#include "core/judge.h"
#include "core/judge_memo.h"
#include "core/knobs.h"
#include "core/problem.h"
#include "core/reference.h"
#include "io/run_doc.h"
#include "testkit.h"

static char tmpdir[512];

static void make_tmp(void)
{
    gv_test_scratch_dir(tmpdir, sizeof tmpdir, "judgememo");
    setenv("XDG_CACHE_HOME", tmpdir, 1);
    unsetenv("GPUVAL_NO_JUDGE_CACHE");
    gv_knobs_reload();
    gv_cache_enable(true);
    gv_judge_memo_enable(true);
}

static void rm_tmp(void)
{
    gv_judge_memo_enable(false);
    unsetenv("GPUVAL_NO_JUDGE_CACHE");
    gv_knobs_reload();
    gv_test_remove_dir(tmpdir);
}

/* A case made ready to judge: inputs, the reference (through the cache, which makes the
   inputs' hash the memo's key reads), and outputs a few steps off it. */
static void ready(const gv_case *c, gv_problem *p)
{
    cr_assert_eq(gv_problem_init(p, c), GV_OK, "%s", c->op->name);
    bool hit;
    cr_assert_eq(gv_cached_reference(p, &hit), GV_OK, "%s", c->op->name);
    case_fake_output(p, c->dtype, true);
}

/* r's record as text, the members that differ from run to run left out. */
static char *record_text(const gv_result *r)
{
    json_t *o = gv_result_json(r);
    cr_assert(o);
    const char *drop[] = {"inputs_ms", "oracle_ms", "device_ms", "judge_ms", "judge_cache"};
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
        json_object_del(o, drop[i]);
    char *s = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(o);
    return s;
}

static void judged(const gv_problem *p, gv_result *r, bool memo, int repeat)
{
    gv_result_init(r, &p->c);
    if (memo)
        gv_judge_or_memo(p, r, repeat);
    else
        gv_judge_problem(p, r);
}

/* Ops whose judgements carry extras, checks, the probabilistic model, an exact reference or
   several outputs, in both dtypes. */
static const struct {
    const char *op;
    gv_mode mode;
    gv_shape s;
} cases[] = {
    {"vadd", GV_MODE_NATIVE, {.nd = 1, .d = {100003}}},
    {"gemm.cublas", GV_MODE_TF32, {.nd = 3, .d = {64, 48, 80}}},
    {"gemm.cublas", GV_MODE_NATIVE, {.nd = 3, .d = {33, 17, 65}}},
    {"softmax.rows", GV_MODE_NATIVE, {.nd = 2, .d = {16, 300}}},
    {"solve.gesv", GV_MODE_NATIVE, {.nd = 2, .d = {40, 2}}},
    {"lsmr.ridge", GV_MODE_NATIVE, {.nd = 3, .d = {60, 50, 1}}},
    {"reduce.sum", GV_MODE_NATIVE, {.nd = 1, .d = {70001}}},
    {"loss.xent.mean", GV_MODE_NATIVE, {.nd = 2, .d = {64, 100}}},
};

Test(judge_memo, a_judgement_taken_back_is_the_judges_own, .init = make_tmp, .fini = rm_tmp)
{
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int t = 0; t < 2; t++) {
            gv_dtype dt = t ? GV_F64 : GV_F32;
            if (cases[k].mode == GV_MODE_TF32 && dt == GV_F64) continue;
            gv_case c = gv_test_case(cases[k].op, dt, cases[k].mode, GV_DIST_UNIFORM11, cases[k].s, 5);
            gv_problem p;
            ready(&c, &p);
            gv_result direct, first, again;
            judged(&p, &direct, false, 1);
            judged(&p, &first, true, 1);
            judged(&p, &again, true, 1);
            cr_expect_eq(first.judge_memo, GV_JUDGE_MEMO_STORED, "%s %s: %s", c.op->name,
                         gv_dtype_name(dt), gv_judge_memo_name(first.judge_memo));
            cr_expect_eq(again.judge_memo, GV_JUDGE_MEMO_HIT, "%s %s: %s", c.op->name,
                         gv_dtype_name(dt), gv_judge_memo_name(again.judge_memo));
            char *a = record_text(&direct), *b = record_text(&first), *m = record_text(&again);
            cr_expect_str_eq(b, a, "%s %s: judged through the memo", c.op->name, gv_dtype_name(dt));
            cr_expect_str_eq(m, a, "%s %s: taken from the memo", c.op->name, gv_dtype_name(dt));
            free(a);
            free(b);
            free(m);
            gv_problem_free(&p);
        }
}

/* check's workers send each result to check's process as bytes (core/runner.c): a judgement
   taken from the memo in a forked worker is written by the parent as the judge wrote it, the
   names of its extras and checks included (they must not point into the worker's heap). */
Test(judge_memo, taken_back_in_a_worker_and_written_by_its_parent, .init = make_tmp, .fini = rm_tmp)
{
    gv_shape s = {.nd = 2, .d = {40, 2}};
    gv_case c = gv_test_case("solve.gesv", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11, s, 4);
    gv_problem p;
    ready(&c, &p);
    gv_result direct, r;
    judged(&p, &direct, false, 1);
    cr_assert_gt(direct.n_extra, 0, "solve's judgement names extras");
    judged(&p, &r, true, 1);
    cr_assert_eq(r.judge_memo, GV_JUDGE_MEMO_STORED);
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) { /* the worker: a fresh list of names, the memo's hit */
        close(fd[0]);
        gv_result w;
        judged(&p, &w, true, 1);
        ssize_t put = write(fd[1], &w, sizeof w);
        _exit(put == (ssize_t)sizeof w && w.judge_memo == GV_JUDGE_MEMO_HIT ? 0 : 1);
    }
    close(fd[1]);
    gv_result got;
    size_t have = 0;
    while (have < sizeof got) {
        ssize_t n = read(fd[0], (char *)&got + have, sizeof got - have);
        if (n <= 0) break;
        have += (size_t)n;
    }
    close(fd[0]);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the worker took the judgement back");
    cr_assert_eq(have, sizeof got);
    got.c = direct.c; /* the parent's own case, as the runner keeps it */
    char *a = record_text(&direct), *b = record_text(&got);
    cr_expect_str_eq(b, a);
    free(a);
    free(b);
    gv_problem_free(&p);
}

/* One bit of one output changed after a PASS was stored: judged again, not the stored PASS;
   and an error far past the model FAILs through the memo as it does without it. */
Test(judge_memo, another_output_is_judged_again, .init = make_tmp, .fini = rm_tmp)
{
    gv_shape s = {.nd = 3, .d = {40, 30, 50}};
    gv_case c = gv_test_case("gemm.cublas", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, s, 9);
    gv_problem p;
    ready(&c, &p);
    gv_result r;
    judged(&p, &r, true, 1);
    cr_assert_eq(r.verdict, GV_PASS, "%s", r.reason);
    cr_assert_eq(r.judge_memo, GV_JUDGE_MEMO_STORED);
    uint32_t *bits = p.out[0].data;
    bits[123] ^= 1u; /* the last bit of one element */
    judged(&p, &r, true, 1);
    cr_expect_eq(r.judge_memo, GV_JUDGE_MEMO_STORED, "%s", gv_judge_memo_name(r.judge_memo));
    float *f = p.out[0].data;
    f[77] *= 1.001f; /* 8000 ulps */
    gv_result direct;
    judged(&p, &direct, false, 1);
    cr_assert_eq(direct.verdict, GV_FAIL, "%s", direct.reason);
    for (int round = 0; round < 2; round++) {
        judged(&p, &r, true, 1);
        cr_expect_eq(r.verdict, GV_FAIL, "round %d: %s", round, r.reason);
        cr_expect_str_eq(r.reason, direct.reason);
        cr_expect_eq(r.judge_memo, round ? GV_JUDGE_MEMO_HIT : GV_JUDGE_MEMO_STORED);
    }
    gv_problem_free(&p);
}

/* Where the memo does not apply, nothing is read or written: the judge runs every time. */
Test(judge_memo, off_where_it_does_not_apply, .init = make_tmp, .fini = rm_tmp)
{
    gv_shape s = {.nd = 1, .d = {5000}};
    gv_case c = gv_test_case("vadd", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11, s, 2);
    gv_problem p;
    ready(&c, &p);
    gv_result r;
    /* --repeat: the launches are judged against each other too */
    for (int i = 0; i < 2; i++) {
        judged(&p, &r, true, 3);
        cr_expect_eq(r.judge_memo, GV_JUDGE_MEMO_OFF);
    }
    /* given inputs (judge, --inputs): the user's data is judged, never looked up */
    for (int i = 0; i < 2; i++) {
        gv_result_init(&r, &p.c);
        gv_result_set_inputs(&r, GV_INPUTS_GIVEN);
        gv_judge_or_memo(&p, &r, 1);
        cr_expect_eq(r.judge_memo, GV_JUDGE_MEMO_OFF);
    }
    /* the knob */
    setenv("GPUVAL_NO_JUDGE_CACHE", "1", 1);
    gv_knobs_reload();
    for (int i = 0; i < 2; i++) {
        judged(&p, &r, true, 1);
        cr_expect_eq(r.judge_memo, GV_JUDGE_MEMO_OFF);
    }
    unsetenv("GPUVAL_NO_JUDGE_CACHE");
    gv_knobs_reload();
    /* a process that did not turn it on (the library's callers) */
    gv_judge_memo_enable(false);
    for (int i = 0; i < 2; i++) {
        judged(&p, &r, true, 1);
        cr_expect_eq(r.judge_memo, GV_JUDGE_MEMO_OFF);
    }
    gv_judge_memo_enable(true);
    judged(&p, &r, true, 1);
    cr_expect_eq(r.judge_memo, GV_JUDGE_MEMO_STORED);
    judged(&p, &r, true, 1);
    cr_expect_eq(r.judge_memo, GV_JUDGE_MEMO_HIT);
    gv_problem_free(&p);
}

/* A reference cheaper to compute than to read is not kept, but noted: the next run's case
   knows it need not compute it beside the device run (and, where the judgement is kept, not at
   all: gv_reference_kept); a reference never computed is neither kept nor noted. */
Test(judge_memo, a_cheap_reference_is_noted_not_kept, .init = make_tmp, .fini = rm_tmp)
{
    setenv("GPUVAL_CACHE_MIN_MS", "1e9", 1); /* every oracle counts as cheap */
    gv_knobs_reload();
    gv_cache_memo_enable(true); /* as check does: the cheap references noted */
    gv_shape s = {.nd = 1, .d = {4096}};
    gv_case c = gv_test_case("vadd", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, s, 8);
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_expect(!gv_reference_kept(&p), "nothing computed yet");
    gv_cache_counts before = gv_cache_counts_get();
    bool hit;
    cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
    gv_cache_counts after = gv_cache_counts_get();
    cr_expect(!hit && after.cheap == before.cheap + 1 && after.stored == before.stored);
    gv_problem_free(&p);
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_expect(gv_reference_kept(&p), "the cheap reference is noted");
    gv_case other = c;
    other.seed = 9;
    gv_problem q;
    cr_assert_eq(gv_problem_init(&q, &other), GV_OK);
    cr_expect(!gv_reference_kept(&q), "another seed's is not");
    gv_problem_free(&q);
    /* and read back as before: computed again, counted cheap, never a hit */
    before = gv_cache_counts_get();
    cr_assert_eq(gv_cached_reference(&p, &hit), GV_OK);
    after = gv_cache_counts_get();
    cr_expect(!hit && after.cheap == before.cheap + 1);
    gv_problem_free(&p);
    gv_cache_memo_enable(false);
    unsetenv("GPUVAL_CACHE_MIN_MS");
    gv_knobs_reload();
}
