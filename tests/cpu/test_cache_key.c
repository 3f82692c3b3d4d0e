/* test_cache_key.c: the oracle cache's identity of a reference (src/core/reference.c) — every
 * field of a case that changes its reference (the op's reference, dtype, mode where the
 * reference reads it, shape, dist, seed, the inputs as given, the oracle's version) changes
 * what an entry is found by, and a stored reference or memo is never served to a case that
 * differs in one of them: each served result is compared bit for bit with the one computed
 * without the cache. Every test runs in its own XDG_CACHE_HOME. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/gpuval.h"
#include "core/cache.h"
#include "core/knobs.h"
#include "core/problem.h"
#include "core/reference.h"
#include "core/registry.h"
#include "testkit.h"

static char tmpdir[512], dir[600];

static void make_tmp(void)
{
    gv_test_scratch_dir(tmpdir, sizeof tmpdir, "cachekey");
    setenv("XDG_CACHE_HOME", tmpdir, 1);
    setenv("GPUVAL_CACHE_MIN_MS", "0", 1); /* every reference and memo is stored */
    gv_knobs_reload();
    snprintf(dir, sizeof dir, "%s/gpuval", tmpdir);
}

static void rm_tmp(void)
{
    unsetenv("GPUVAL_CACHE_MIN_MS");
    gv_knobs_reload();
    gv_test_remove_dir(tmpdir);
}

static void key_of(const gv_case *c, char *key, size_t len, void (*edit)(gv_problem *))
{
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, c), GV_OK, "%s", c->op->name);
    if (edit) edit(&p);
    gv_cache_case_key(&p, key, len);
    gv_problem_free(&p);
}

/* The inputs as a user gave them (--inputs): one element other than the generator's. */
static void nudge_input(gv_problem *p)
{
    p->in[0].ref[p->in[0].count / 2] += 0.125;
}

/* The base case and one variant per field: each key differs from the base's and from every
   other variant's. The mode is varied on act.silu, whose fast-math oracle and gauge read it. */
Test(cache_key, every_field_of_the_reference_changes_the_key, .init = make_tmp, .fini = rm_tmp)
{
    gv_shape s = {.nd = 1, .d = {3001}}, s2 = {.nd = 1, .d = {3002}};
    gv_case base = gv_test_case("act.silu", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, s, 3);
    cr_assert(!base.op->reference_ignores_mode && !base.op->oracle_ignores_mode,
              "act.silu's reference reads the mode");
    struct {
        const char *field;
        gv_case c;
        void (*edit)(gv_problem *);
    } v[] = {
        {"base", base, NULL},
        {"op",
         gv_test_case("vadd", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                      (gv_shape){.nd = 1, .d = {3001}}, 3),
         NULL},
        {"dtype", base, NULL},
        {"mode", base, NULL},
        {"shape", base, NULL},
        {"dist", base, NULL},
        {"seed", base, NULL},
        {"given inputs", base, nudge_input},
    };
    v[2].c.dtype = GV_F64;
    v[3].c.mode = GV_MODE_FASTMATH;
    v[4].c.shape = s2;
    v[5].c.dist = GV_DIST_UNIFORM01;
    v[6].c.seed = 4;
    size_t n = sizeof v / sizeof v[0];
    char keys[8][1024];
    for (size_t i = 0; i < n; i++) {
        cr_assert(gv_mode_ok(v[i].c.op, v[i].c.dtype, v[i].c.mode), "%s", v[i].field);
        cr_assert(v[i].c.op->dists & (1u << v[i].c.dist), "%s", v[i].field);
        key_of(&v[i].c, keys[i], sizeof keys[i], v[i].edit);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            cr_expect_str_neq(keys[i], keys[j], "%s and %s share the key %s", v[i].field,
                              v[j].field, keys[i]);
    /* the same case twice: the same key (the key is a function of the case, nothing else) */
    char again[1024];
    key_of(&base, again, sizeof again, NULL);
    cr_expect_str_eq(again, keys[0]);
}

/* The oracle's version is compared apart from the key: an entry stored under another version
   is never read back (stale), whatever its key. */
Test(cache_key, another_oracle_version_is_never_served, .init = make_tmp, .fini = rm_tmp)
{
    double a[64], back[64];
    for (int i = 0; i < 64; i++)
        a[i] = i * 0.5;
    void *in[1] = {a}, *out[1] = {back};
    size_t sizes[1] = {sizeof a};
    char other[2048];
    snprintf(other, sizeof other, "%s; oracle changed", gv_cache_version());
    cr_assert_eq(gv_cache_put(dir, "k", other, 1, (const void *const *)in, sizes, 1 << 20), GV_OK);
    cr_expect_neq(gv_cache_get(dir, "k", gv_cache_version(), 1, out, sizes), 1,
                  "an entry of another oracle version is served");
}

/* Reference and gauges of c through the cache (after whatever is stored), against the ones
   computed without it: bit for bit, and *hit says whether it was served. */
static void served_equals_computed(const gv_case *c, void (*edit)(gv_problem *), bool *hit,
                                   const char *what)
{
    gv_problem cached, plain;
    cr_assert_eq(gv_problem_init(&cached, c), GV_OK);
    cr_assert_eq(gv_problem_init(&plain, c), GV_OK);
    if (edit) {
        edit(&cached);
        edit(&plain);
    }
    cr_assert_eq(gv_cached_reference(&cached, hit), GV_OK);
    cr_assert_eq(gv_reference(&plain), GV_OK);
    for (int o = 0; o < cached.l.n_out; o++) {
        size_t b = (size_t)plain.out[o].count * sizeof(double);
        cr_expect_eq(memcmp(cached.out[o].ref, plain.out[o].ref, b), 0,
                     "%s: the reference served is another case's", what);
        cr_expect_eq(memcmp(cached.out[o].gauge, plain.out[o].gauge, b), 0,
                     "%s: the gauge served is another case's", what);
        if (plain.out[o].pgauge)
            cr_expect_eq(memcmp(cached.out[o].pgauge, plain.out[o].pgauge, b), 0,
                         "%s: the probabilistic gauge served is another case's", what);
    }
    gv_problem_free(&cached);
    gv_problem_free(&plain);
}

/* The base reference stored, then each variant: never a hit, always its own reference. */
Test(cache_key, a_stored_reference_is_never_served_to_another_case, .init = make_tmp,
     .fini = rm_tmp)
{
    gv_shape s = {.nd = 1, .d = {3001}};
    gv_case base = gv_test_case("act.silu", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, s, 3);
    bool hit;
    served_equals_computed(&base, NULL, &hit, "base");
    cr_expect(!hit, "an empty cache");
    served_equals_computed(&base, NULL, &hit, "base again");
    cr_assert(hit, "the same case is served");
    gv_case v[5] = {base, base, base, base, base};
    const char *what[5] = {"dtype", "mode", "shape", "dist", "seed"};
    v[0].dtype = GV_F64;
    v[1].mode = GV_MODE_FASTMATH;
    v[2].shape.d[0] = 3002;
    v[3].dist = GV_DIST_UNIFORM01;
    v[4].seed = 4;
    for (int i = 0; i < 5; i++) {
        served_equals_computed(&v[i], NULL, &hit, what[i]);
        cr_expect(!hit, "%s: another case's entry was served", what[i]);
    }
    /* the same case with other inputs (--inputs): its own reference, not the generated one's */
    served_equals_computed(&base, nudge_input, &hit, "given inputs");
    cr_expect(!hit, "given inputs: the generated inputs' entry was served");
}

/* sin_iter's f32 native and fast-math cases share one entry (the oracle reads no mode), but
   each is served its own gauge: max(|r|, FLT_MIN) and 1. Either mode may make the entry. */
Test(cache_key, modes_sharing_an_oracle_get_their_own_gauges, .init = make_tmp, .fini = rm_tmp)
{
    gv_shape s = {.nd = 2, .d = {3001, 50}};
    for (int first = 0; first < 2; first++) {
        gv_case c[2] = {
            gv_test_case("sin_iter", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, s, 3 + first),
            gv_test_case("sin_iter", GV_F32, GV_MODE_FASTMATH, GV_DIST_UNIFORM11, s, 3 + first)};
        cr_assert(c[0].op->oracle_ignores_mode && !c[0].op->reference_ignores_mode);
        bool hit;
        served_equals_computed(&c[first], NULL, &hit, gv_mode_name(c[first].mode));
        cr_expect(!hit, "an empty cache");
        served_equals_computed(&c[1 - first], NULL, &hit, gv_mode_name(c[1 - first].mode));
        cr_expect(hit, "%s: the other mode's entry not shared", gv_mode_name(c[1 - first].mode));
    }
}

/* solve's matrices are memos keyed on (kind, n, kappa, dist, seed): with the memo on, every
   case's input is the matrix built without the cache, whatever was stored before it. A memo
   keyed on part of that (one without the seed, say) serves the previous case's matrix. */
Test(cache_key, a_memo_is_never_served_to_another_case, .init = make_tmp, .fini = rm_tmp)
{
    gv_cache_memo_enable(true);
    struct {
        const char *op;
        int64_t n, d;
        uint64_t seed;
    } v[] = {
        {"solve.gesv", 37, 6, 1}, {"solve.gesv", 37, 6, 2}, /* seed */
        {"solve.gesv", 38, 6, 2},                           /* n */
        {"solve.gesv", 38, 1, 2},                           /* kappa */
        {"solve.posv", 38, 1, 2},                           /* kind */
        {"solve.gesv", 37, 6, 1},                           /* the first again: served */
    };
    int n = (int)(sizeof v / sizeof v[0]);
    for (int i = 0; i < n; i++) {
        gv_case c = gv_test_case(v[i].op, GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                                 (gv_shape){.nd = 2, .d = {v[i].n, v[i].d}}, v[i].seed);
        gv_problem memo, plain;
        cr_assert_eq(gv_problem_init(&memo, &c), GV_OK);
        gv_cache_memo_enable(false);
        cr_assert_eq(gv_problem_init(&plain, &c), GV_OK);
        gv_cache_memo_enable(true);
        size_t bytes = (size_t)plain.in[0].count * sizeof(double);
        cr_expect_eq(memcmp(memo.in[0].ref, plain.in[0].ref, bytes), 0,
                     "case %d (%s n=%lld d=%lld seed %llu): the matrix is another case's", i,
                     v[i].op, (long long)v[i].n, (long long)v[i].d, (unsigned long long)v[i].seed);
        gv_problem_free(&memo);
        gv_problem_free(&plain);
    }
    int entries;
    uint64_t total;
    gv_cache_stats(dir, &entries, &total);
    cr_expect_eq(entries, n - 1, "one memo per distinct matrix, the repeat read back");
    gv_cache_memo_enable(false);
}

/* The oracle_cache member of a gv_judge case JSON ("hit", "stored", "miss", "off"). */
static void judge_given_sum(const double *x, int64_t n, double out, gv_judgement *j, char *cached,
                            size_t len)
{
    char size[32];
    snprintf(size, sizeof size, "%lld", (long long)n);
    gv_array in = {GV_DTYPE_F64, x, n, "x"}, o = {GV_DTYPE_F64, &out, 1, "s"};
    gv_judge_spec spec = {
        .op = "reduce.sum", .size = size, .n_in = 1, .n_out = 1, .in = &in, .out = &o};
    cr_assert_eq(gv_judge(&spec, j), GV_API_OK, "%s", j->reason);
    const char *k = strstr(j->json, "\"oracle_cache\": \"");
    cr_assert_not_null(k, "%s", j->json);
    k += strlen("\"oracle_cache\": \"");
    snprintf(cached, len, "%.*s", (int)strcspn(k, "\""), k);
}

/* Two given arrays of one shape (gv_judge, as gpuval judge and the Python package call it)
   never share a cached reference: the second is computed afresh (its correct sum PASSes; the
   first's reference would FAIL it by far), and the first judged again is served its own. The
   key hashes the inputs' values (gv_cache_case_key); outputs are never part of an entry. */
Test(cache_key, given_arrays_of_one_shape_never_share_a_reference, .init = make_tmp, .fini = rm_tmp)
{
    enum { N = 4096 };
    static double a[N], b[N];
    double sa = 0.0, sb = 0.0;
    for (int i = 0; i < N; i++) {
        a[i] = (double)(i % 97) / 97.0; /* sums of these are exact in f64 far below 2^53 */
        b[i] = (double)(i % 89) / 89.0 + 1.0;
    }
    for (int i = 0; i < N; i++) {
        sa += a[i];
        sb += b[i];
    }
    cr_assert(sb > sa + 1000.0, "other data, another sum");
    gv_judgement j;
    char cached[16];
    judge_given_sum(a, N, sa, &j, cached, sizeof cached);
    cr_expect_eq(j.verdict, GV_VERDICT_PASS, "a: %s", j.reason);
    cr_expect_str_eq(cached, "stored", "a's reference is kept (GPUVAL_CACHE_MIN_MS=0)");
    gv_judgement_free(&j);
    judge_given_sum(b, N, sb, &j, cached, sizeof cached);
    cr_expect_eq(j.verdict, GV_VERDICT_PASS, "b judged against another array's reference: %s",
                 j.reason);
    cr_expect_str_neq(cached, "hit", "b was served a's entry");
    gv_judgement_free(&j);
    judge_given_sum(a, N, sa, &j, cached, sizeof cached);
    cr_expect_eq(j.verdict, GV_VERDICT_PASS, "a again: %s", j.reason);
    cr_expect_str_eq(cached, "hit", "a again is served its own entry");
    gv_judgement_free(&j);
    /* a's reference with b's output: a FAIL, whatever the cache holds */
    judge_given_sum(a, N, sb, &j, cached, sizeof cached);
    cr_expect_eq(j.verdict, GV_VERDICT_FAIL, "a judged with b's sum: %s", j.reason);
    gv_judgement_free(&j);
}

/* A reference whose oracle is cheaper than a read of its entry is said so in the case's
   document: "cheap", computed again by the next judgement, never "hit". */
Test(cache_key, a_cheap_reference_says_so_in_the_document, .init = make_tmp, .fini = rm_tmp)
{
    setenv("GPUVAL_CACHE_MIN_MS", "1e9", 1); /* no oracle takes this long */
    gv_knobs_reload();
    enum { N = 512 };
    static double a[N];
    double sa = 0.0;
    for (int i = 0; i < N; i++)
        sa += a[i] = (double)(i % 13); /* small integers: the sum is exact */
    gv_judgement j;
    char cached[16];
    for (int k = 0; k < 2; k++) {
        judge_given_sum(a, N, sa, &j, cached, sizeof cached);
        cr_expect_eq(j.verdict, GV_VERDICT_PASS, "%s", j.reason);
        cr_expect_str_eq(cached, "cheap", "judgement %d", k);
        gv_judgement_free(&j);
    }
}

/* Ops that share a reference name may keep other buffers: einsum.colsum f64 wants the exact
   reference (its flops m k + 2 k n under GV_EXACT_MAX_FLOPS) where matmul_colsum's 2 m k n is
   past it. Each keeps an entry of its own, and each is served its own on the next run: one
   key for both made each find the other's entry of other sizes stale, every run. */
Test(cache_key, ops_sharing_a_reference_keep_entries_of_other_buffers_apart, .init = make_tmp,
     .fini = rm_tmp)
{
    gv_shape s = {.nd = 3, .d = {132000, 1, 132000}}; /* 2 m k n = 3.48e10 > 2^35 */
    gv_case e = gv_test_case("einsum.colsum", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM01, s, 3);
    gv_case m = gv_test_case("matmul_colsum", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM01, s, 3);
    cr_assert_str_eq(gv_reference_name(e.op), gv_reference_name(m.op), "one reference name");
    cr_assert(gv_exact_wanted(&e) && !gv_exact_wanted(&m), "one exact, one not");
    gv_cache_counts before = gv_cache_counts_get();
    bool hit;
    for (int run = 0; run < 2; run++) {
        served_equals_computed(&e, NULL, &hit, "einsum.colsum");
        cr_expect_eq(hit, run == 1, "einsum.colsum, run %d", run);
        served_equals_computed(&m, NULL, &hit, "matmul_colsum");
        cr_expect_eq(hit, run == 1, "matmul_colsum, run %d", run);
    }
    cr_expect_eq(gv_cache_counts_get().rejected, before.rejected, "no entry found stale");
}
