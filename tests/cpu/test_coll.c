/* test_coll.c: the collectives' host side without a GPU — nccl-tests' bus bandwidth factors
 * and sizes, the f64 oracle of each collective, the error model's #wrong on outputs computed
 * here the way a correct and a broken collective would, the command's skip, and `gpuval
 * merge` of the per-rank files of a job. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "gk.h"
#include "testkit.h"

Test(coll, busbw_factors_are_nccl_tests)
{
    for (int n = 2; n <= 16; n++) {
        double d = n;
        cr_expect_float_eq(gv_coll_busbw_factor(GK_COLL_ALLREDUCE_SUM, n), 2 * (d - 1) / d, 1e-15);
        cr_expect_float_eq(gv_coll_busbw_factor(GK_COLL_ALLREDUCE_MAX, n), 2 * (d - 1) / d, 1e-15);
        cr_expect_float_eq(gv_coll_busbw_factor(GK_COLL_ALLGATHER, n), (d - 1) / d, 1e-15);
        cr_expect_float_eq(gv_coll_busbw_factor(GK_COLL_REDUCESCATTER_SUM, n), (d - 1) / d, 1e-15);
        cr_expect_eq(gv_coll_busbw_factor(GK_COLL_BROADCAST, n), 1.0);
    }
    /* two ranks: all-reduce moves as much as it reduces, gather half of its array */
    cr_expect_eq(gv_coll_busbw_factor(GK_COLL_ALLREDUCE_SUM, 2), 1.0);
    cr_expect_eq(gv_coll_busbw_factor(GK_COLL_ALLGATHER, 2), 0.5);
    /* S: per-rank bytes, or the whole array for gather and reduce-scatter */
    cr_expect_eq(gv_coll_algbw_bytes(GK_COLL_ALLREDUCE_SUM, 1000, 4, GV_F32), 4000.0);
    cr_expect_eq(gv_coll_algbw_bytes(GK_COLL_BROADCAST, 1000, 4, GV_F64), 8000.0);
    cr_expect_eq(gv_coll_algbw_bytes(GK_COLL_ALLGATHER, 1000, 4, GV_F32), 16000.0);
    cr_expect_eq(gv_coll_algbw_bytes(GK_COLL_REDUCESCATTER_SUM, 1000, 4, GV_F64), 32000.0);
    cr_expect_eq(gk_coll_in_count(GK_COLL_REDUCESCATTER_SUM, 10, 3), 30);
    cr_expect_eq(gk_coll_out_count(GK_COLL_ALLGATHER, 10, 3), 30);
    cr_expect_eq(gk_coll_out_count(GK_COLL_REDUCESCATTER_SUM, 10, 3), 10);
}

enum { NR = 3, COUNT = 257 };

/* Every rank's inputs for kind, rounded to dtype. */
static void inputs(int kind, int dt, double *ref[NR], void *data[NR])
{
    int64_t n = gk_coll_in_count(kind, COUNT, NR);
    for (int r = 0; r < NR; r++) {
        ref[r] = malloc((size_t)n * sizeof(double));
        data[r] = malloc((size_t)n * 8);
        gv_coll_inputs(kind, dt, NR, COUNT, 5, r, ref[r], data[r]);
    }
}

static void free_inputs(double *ref[NR], void *data[NR])
{
    for (int r = 0; r < NR; r++) {
        free(ref[r]);
        free(data[r]);
    }
}

Test(coll, oracles_follow_the_definitions)
{
    double *in[NR], ref[NR * COUNT], gauge[NR * COUNT];
    void *data[NR];
    inputs(GK_COLL_ALLREDUCE_SUM, GV_F32, in, data);
    cr_expect_neq(in[0][0], in[1][0], "ranks draw different inputs");
    gv_coll_reference(GK_COLL_ALLREDUCE_SUM, NR, COUNT, (const double *const *)in, 1, ref, gauge);
    for (int i = 0; i < COUNT; i++) {
        cr_expect_eq(ref[i], in[0][i] + in[1][i] + in[2][i]);
        cr_expect_eq(gauge[i], fabs(in[0][i]) + fabs(in[1][i]) + fabs(in[2][i]));
    }
    gv_coll_reference(GK_COLL_ALLREDUCE_MAX, NR, COUNT, (const double *const *)in, 0, ref, gauge);
    for (int i = 0; i < COUNT; i++)
        cr_expect_eq(ref[i], fmax(in[0][i], fmax(in[1][i], in[2][i])));
    gv_coll_reference(GK_COLL_ALLGATHER, NR, COUNT, (const double *const *)in, 2, ref, gauge);
    for (int r = 0; r < NR; r++)
        cr_expect_eq(memcmp(ref + r * COUNT, in[r], COUNT * sizeof(double)), 0, "block %d", r);
    gv_coll_reference(GK_COLL_BROADCAST, NR, COUNT, (const double *const *)in, 2, ref, gauge);
    cr_expect_eq(memcmp(ref, in[0], COUNT * sizeof(double)), 0, "root 0's data");
    free_inputs(in, data);

    inputs(GK_COLL_REDUCESCATTER_SUM, GV_F64, in, data);
    gv_coll_reference(GK_COLL_REDUCESCATTER_SUM, NR, COUNT, (const double *const *)in, 2, ref,
                      gauge);
    for (int i = 0; i < COUNT; i++) {
        int k = 2 * COUNT + i; /* rank 2 receives block 2 of the sum */
        cr_expect_eq(ref[i], in[0][k] + in[1][k] + in[2][k]);
    }
    free_inputs(in, data);
}

Test(coll, wrong_counts_what_a_broken_collective_gets_wrong)
{
    double *in[NR], ref[COUNT], gauge[COUNT];
    void *data[NR];
    inputs(GK_COLL_ALLREDUCE_SUM, GV_F32, in, data);
    gv_coll_reference(GK_COLL_ALLREDUCE_SUM, NR, COUNT, (const double *const *)in, 0, ref, gauge);
    gv_error_model em = gv_coll_model(GK_COLL_ALLREDUCE_SUM, GV_F32, NR, gauge);
    cr_expect_eq(em.depth, NR, "depth: the number of ranks");
    cr_expect(!em.exact);
    /* a correct f32 all-reduce: the ranks' values summed in f32 in some order (a ring) */
    float got[COUNT];
    for (int i = 0; i < COUNT; i++) {
        const float *a = data[0], *b = data[1], *c = data[2];
        got[i] = (c[i] + a[i]) + b[i];
    }
    cr_expect_eq(gv_coll_wrong(got, GV_F32, ref, &em, COUNT), 0);
    gv_tiers none = {0};
    gv_metrics m;
    gv_compare(got, GV_F32, ref, COUNT, &none, &em, 24, &m);
    cr_expect_leq(m.ratio, 1.0, "f32 summation of %d terms: ratio %g", NR, m.ratio);
    /* one element with a dropped rank, one NaN */
    got[7] = ((const float *)data[0])[7] + ((const float *)data[1])[7];
    got[9] = NAN;
    cr_expect_eq(gv_coll_wrong(got, GV_F32, ref, &em, COUNT), 2);
    free_inputs(in, data);

    /* an f64 all-reduce that rounds through f32 is far outside the f64 model */
    inputs(GK_COLL_ALLREDUCE_SUM, GV_F64, in, data);
    gv_coll_reference(GK_COLL_ALLREDUCE_SUM, NR, COUNT, (const double *const *)in, 0, ref, gauge);
    em = gv_coll_model(GK_COLL_ALLREDUCE_SUM, GV_F64, NR, gauge);
    double good[COUNT], via_f32[COUNT];
    for (int i = 0; i < COUNT; i++) {
        good[i] = (in[2][i] + in[0][i]) + in[1][i];
        via_f32[i] = (float)good[i];
    }
    cr_expect_eq(gv_coll_wrong(good, GV_F64, ref, &em, COUNT), 0);
    cr_expect_gt(gv_coll_wrong(via_f32, GV_F64, ref, &em, COUNT), COUNT / 2);
    free_inputs(in, data);

    /* exact collectives: one ulp is wrong */
    inputs(GK_COLL_ALLGATHER, GV_F64, in, data);
    double gref[NR * COUNT], ggauge[NR * COUNT], gout[NR * COUNT];
    gv_coll_reference(GK_COLL_ALLGATHER, NR, COUNT, (const double *const *)in, 0, gref, ggauge);
    em = gv_coll_model(GK_COLL_ALLGATHER, GV_F64, NR, ggauge);
    cr_expect(em.exact);
    memcpy(gout, gref, sizeof gout);
    cr_expect_eq(gv_coll_wrong(gout, GV_F64, gref, &em, NR * COUNT), 0);
    gout[COUNT + 3] = nextafter(gout[COUNT + 3], 2.0);
    cr_expect_eq(gv_coll_wrong(gout, GV_F64, gref, &em, NR * COUNT), 1);
    free_inputs(in, data);
}

Test(coll, the_command_skips_below_two_devices, .timeout = 60)
{
    if (gk_device_count() >= 2) cr_skip_test("two devices here: tests/gpu/multi.c runs it");
    char out[4096];
    int rc = gv_test_run_cli("collectives --op allreduce.sum --bytes 4096", out, sizeof out);
    cr_expect_eq(rc, 77, "exit %d: %s", rc, out);
    cr_expect_not_null(strstr(out, "collectives: SKIP ("), "%s", out);
    rc = gv_test_run_cli("collectives --op allreduce.avg", out, sizeof out);
    cr_expect_eq(rc, 2, "exit %d: %s", rc, out);
}

/* ---- gpuval merge of the ranks' files ----------------------------------------------------- */

/* Rank r's gpuval-collectives/1 file of a 2-rank job with one all-reduce (f32, 2^20 bytes a
   rank): its own verdict, #wrong and median time as coll_rank.c writes them. */
static void write_rank(const char *path, int rank, const char *verdict, int wrong, double ms)
{
    json_t *row =
        json_pack("{s:s, s:s, s:i, s:i, s:i, s:s, s:s, s:i, s:f, s:s, s:i, s:f}", "collective",
                  "allreduce.sum", "dtype", "f32", "ranks", 2, "bytes_per_rank", 1 << 20, "count",
                  1 << 18, "verdict", verdict, "reason", "", "wrong", wrong, "time_ms", ms,
                  "rank_verdict", verdict, "rank_wrong", wrong, "rank_time_ms", ms);
    json_t *doc = json_pack("{s:s, s:i, s:i, s:i, s:{s:s, s:i}, s:[o]}", "schema",
                            "gpuval-collectives/1", "ranks", 2, "rank", rank, "seed", 0, "fleet",
                            "host", "node7", "device_index", rank, "collectives", row);
    cr_assert_not_null(doc);
    cr_assert_eq(json_dump_file(doc, path, 0), 0, "%s", path);
    json_decref(doc);
}

Test(coll, merge_of_the_ranks_files, .timeout = 60)
{
    char dir[] = "/tmp/gv-collmerge-XXXXXX", args[512], out[8192];
    cr_assert_not_null(mkdtemp(dir));
    char r0[128], r1[128];
    snprintf(r0, sizeof r0, "%s/c0.json", dir);
    snprintf(r1, sizeof r1, "%s/c1.json", dir);

    /* both pass: the job's busbw is the slower rank's, as nccl-tests reports it */
    write_rank(r0, 0, "PASS", 0, 0.020);
    write_rank(r1, 1, "PASS", 0, 0.021);
    snprintf(args, sizeof args, "merge %s %s", r1, r0); /* any order: ranks from the files */
    int rc = gv_test_run_cli(args, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "rank0=node7:dev0 rank1=node7:dev1"), "%s", out);
    double busbw = gv_coll_algbw_bytes(GK_COLL_ALLREDUCE_SUM, 1 << 18, 2, GV_F32) / 0.021e-3 / 1e9 *
                   gv_coll_busbw_factor(GK_COLL_ALLREDUCE_SUM, 2);
    char want[64];
    snprintf(want, sizeof want, "%11.2f  PASS\n", busbw);
    cr_expect_not_null(strstr(out, want), "busbw from the slower rank '%s':\n%s", want, out);
    cr_expect_not_null(strstr(out, "1 collectives on 2 ranks: 1 passed, 0 failed, 0 skipped, 0 "
                                   "errors; 0 slow ranks"),
                       "%s", out);

    /* one rank wrong: the job fails with its count; a rank 50 % slower is flagged */
    write_rank(r1, 1, "FAIL", 3, 0.030);
    rc = gv_test_run_cli(args, out, sizeof out);
    cr_expect_eq(rc, 1, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "rank1 0.030 ms SLOW"), "%s", out);
    cr_expect_not_null(strstr(out, "0 passed, 1 failed, 0 skipped, 0 errors; 1 slow rank\n"), "%s",
                       out);
    cr_expect_not_null(strstr(out, "       3 "), "#wrong 3 in the job's column:\n%s", out);

    /* not one job: a rank twice, a rank missing */
    snprintf(args, sizeof args, "merge %s %s", r0, r0);
    rc = gv_test_run_cli(args, out, sizeof out);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "rank 0 twice"), "%s", out);
    snprintf(args, sizeof args, "merge %s", r0);
    rc = gv_test_run_cli(args, out, sizeof out);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "is one of 2 ranks, 1 files given"), "%s", out);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    cr_expect_eq(system(args), 0);
}
