/* test_large.c: the large tier (check --large) without a GPU — which ops and shapes it selects
 * (each past 2^31 elements, native only, its planted bug nowhere else), the host memory each
 * case is counted to need (every buffer of gv_problem_init and the op's oracle scratch), the
 * SKIP a host too small gives with both numbers, and the command line (options that conflict,
 * the memory table of --help). */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/problem.h"
#include "core/registry.h"
#include "testkit.h"

static gv_case large_case(const char *name, gv_dtype t, int64_t d0, int64_t d1, int64_t d2, int nd)
{
    const gv_op *op = gv_op_find(name);
    cr_assert_not_null(op, "%s", name);
    gv_case c = {op, t, GV_MODE_NATIVE, op->default_dist, {.nd = nd, .d = {d0, d1, d2}}, 0};
    return c;
}

static gv_layout layout_of(const gv_case *c)
{
    gv_layout l;
    cr_assert_eq(c->op->layout(c, &l), GV_OK);
    return l;
}

/* The most elements of the case's dtype any tensor or the workspace holds. */
static double index_space(const gv_case *c)
{
    gv_layout l = layout_of(c);
    double most = (double)l.workspace_bytes / (double)gv_dtype_size(c->dtype);
    for (int i = 0; i < l.n_in; i++)
        if ((double)l.in[i].count > most) most = (double)l.in[i].count;
    for (int i = 0; i < l.n_out; i++)
        if ((double)l.out[i].count > most) most = (double)l.out[i].count;
    return most;
}

Test(large, the_tier_is_the_ops_with_large_shapes_each_past_2_31_native_only)
{
    gv_selection sel = {.dist = -1, .large = true, .planted = true};
    gv_case *cases = NULL;
    char err[256] = "";
    int n = gv_select(&sel, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s", err);
    int want = 0;
    const char *families[] = {"vadd", "reduce", "colsum", "stencil"};
    bool family_seen[4] = {false, false, false, false};
    for (const gv_op *const *op = gv_registry(); *op; op++) {
        if (!(*op)->large_shapes) continue;
        gv_shape shapes[8];
        int ns = gv_size_spec_parse((*op)->large_shapes, shapes, 8, err, sizeof err);
        cr_assert_gt(ns, 0, "%s: %s", (*op)->name, err);
        for (int t = 0; t < GV_NDTYPES; t++)
            want += gv_mode_ok(*op, (gv_dtype)t, GV_MODE_NATIVE) ? ns : 0;
        for (int f = 0; f < 4; f++)
            family_seen[f] |= strcmp((*op)->family, families[f]) == 0;
    }
    cr_expect_eq(n, want, "%d cases selected, the descriptors give %d", n, want);
    for (int f = 0; f < 4; f++)
        cr_expect(family_seen[f], "family %s has no large shape", families[f]);
    for (int i = 0; i < n; i++) {
        char label[160];
        gv_case_label(&cases[i], label, sizeof label);
        cr_expect_not_null(cases[i].op->large_shapes, "%s", label);
        cr_expect_eq(cases[i].mode, GV_MODE_NATIVE, "%s", label);
        cr_expect_eq(cases[i].dist, cases[i].op->default_dist, "%s: no canary or probe", label);
        cr_expect_gt(index_space(&cases[i]), 2147483648.0, "%s stays below 2^31 elements", label);
    }
    free(cases);
}

Test(large, the_planted_32_bit_index_is_selected_only_in_the_tier)
{
    for (int t = 0; t < 2; t++) {
        gv_selection sel = {.dist = -1, .test_shapes = t == 1, .planted = true};
        gv_case *cases = NULL;
        char err[256] = "";
        int n = gv_select(&sel, &cases, err, sizeof err);
        cr_assert_gt(n, 0, "%s", err);
        for (int i = 0; i < n; i++)
            cr_expect_neq(strcmp(cases[i].op->name, "vadd.idx32"), 0,
                          "vadd.idx32 selected without --large (%s sizes)",
                          t ? "test" : "catalogue");
        free(cases);
    }
    /* named without the tier and without sizes: a message, not an empty run */
    gv_selection named = {.op_glob = "vadd.idx32", .dist = -1};
    gv_case *cases = NULL;
    char err[256] = "";
    cr_expect_eq(gv_select(&named, &cases, err, sizeof err), GV_EINVAL);
    cr_expect_not_null(strstr(err, "large tier"), "%s", err);
    /* with sizes given it runs there (and is right: tests/gpu/test_large.c) */
    gv_shape small = {.nd = 1, .d = {4099}};
    named.shapes = &small;
    named.n_shapes = 1;
    cr_expect_eq(gv_select(&named, &cases, err, sizeof err), 1, "%s", err);
    free(cases);
    /* in the tier, with --planted or named */
    gv_selection tier = {.op_glob = "vadd*", .dist = -1, .large = true};
    cr_assert_gt(gv_select(&tier, &cases, err, sizeof err), 0, "%s", err);
    for (int i = 0; cases && i < 2; i++)
        cr_expect_str_eq(cases[i].op->name, "vadd", "without --planted, vadd only");
    free(cases);
    tier.op_glob = "vadd.idx32";
    cr_expect_eq(gv_select(&tier, &cases, err, sizeof err), 1, "%s", err);
    free(cases);
    tier.op_glob = "gemm.cublas";
    cr_expect_eq(gv_select(&tier, &cases, err, sizeof err), GV_EINVAL);
    cr_expect_not_null(strstr(err, "large shapes"), "%s", err);
}

/* The host bytes of a case, from the buffers gv_problem_init takes (problem.c): an input's f64
   values (8 bytes) and dtype copy (es); an output's reference, dtype copy and gauge (16 + es),
   its G where the op has pgauge (8), its remainder where the exact reference is wanted (8);
   the op's oracle scratch; 1 GiB for the process. */
Test(large, host_bytes_count_every_buffer_of_the_case)
{
    const double process = 1073741824.0;
    int64_t n = 2147483653; /* vadd: 2 inputs of n, 1 output of n, no G */
    gv_case c = large_case("vadd", GV_F32, n, 0, 0, 1);
    gv_layout l = layout_of(&c);
    cr_expect_eq(gv_case_host_bytes(&c, &l), (double)n * (2 * (8 + 4) + (16 + 4)) + process);
    c = large_case("vadd", GV_F64, n, 0, 0, 1);
    l = layout_of(&c);
    cr_expect_eq(gv_case_host_bytes(&c, &l), (double)n * (2 * (8 + 8) + (16 + 8)) + process);
    /* reduce.sum f64: G and the exact reference's remainder on its one output */
    c = large_case("reduce.sum", GV_F64, n, 0, 0, 1);
    l = layout_of(&c);
    cr_expect(gv_exact_wanted(&c), "an f64 sum of 2^31 terms is under GV_EXACT_MAX_FLOPS");
    cr_expect_eq(gv_case_host_bytes(&c, &l), (double)n * (8 + 8) + (16 + 8 + 8 + 8) + process);
    /* diffusion: one f64 grid of oracle scratch besides the problem's */
    int64_t ny = 32768, nx = 65537, cells = ny * nx;
    c = large_case("diffusion.fixed", GV_F32, ny, nx, 8, 3);
    l = layout_of(&c);
    cr_expect_eq(gv_case_host_bytes(&c, &l), (double)cells * ((8 + 4) + (16 + 4) + 8) + process);
    c = large_case("stencil.laplace", GV_F32, ny, nx, 0, 2);
    l = layout_of(&c);
    cr_expect_eq(gv_case_host_bytes(&c, &l), (double)cells * ((8 + 4) + (16 + 4)) + process);
}

Test(large, a_case_larger_than_the_host_is_refused_with_both_numbers)
{
    double total = gv_host_memory_bytes();
    cr_assert_gt(total, 0, "/proc/meminfo gives MemTotal");
    cr_expect_gt(gv_host_available_bytes(), 0, "/proc/meminfo gives MemAvailable");
    cr_expect_leq(gv_host_available_bytes(), total + (double)(16ull << 30),
                  "MemAvailable and the pool's kept buffers: at most the host and the pool cap");
    /* a vadd of 44 bytes an element (f32) that needs twice the host */
    int64_t n = (int64_t)(2 * total / 44);
    gv_case c = large_case("vadd", GV_F32, n, 0, 0, 1);
    gv_layout l = layout_of(&c);
    char why[160] = "";
    cr_assert_eq(gv_host_memory_check(&c, &l, why, sizeof why), GV_ENOMEM);
    char need[32], has[32];
    snprintf(need, sizeof need, "needs %.1f GB", gv_case_host_bytes(&c, &l) / 1e9);
    snprintf(has, sizeof has, "the host has %.1f GB", total / 1e9);
    cr_expect_not_null(strstr(why, need), "%s (want '%s')", why, need);
    cr_expect_not_null(strstr(why, has), "%s (want '%s')", why, has);
    /* a small one passes both checks */
    c.shape.d[0] = 1000;
    l = layout_of(&c);
    cr_expect_eq(gv_host_memory_check(&c, &l, why, sizeof why), GV_OK, "%s", why);
}

Test(large, check_large_refuses_what_it_cannot_mean)
{
    char out[8192];
    const char *bad[] = {"check --large --size 1000", "check --large --test-sizes",
                         "check --large --op gemm.cublas", "check --op vadd.idx32"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(gv_test_run_cli(bad[i], out, sizeof out), 2, "%s: %s", bad[i], out);
}

/* --help lists every case of the tier with the host and device memory the run will check. */
Test(large, check_help_lists_the_tier_with_its_memory)
{
    static char out[65536];
    cr_assert_eq(gv_test_run_cli("check --help", out, sizeof out), 0);
    gv_selection sel = {.dist = -1, .large = true, .planted = true};
    gv_case *cases = NULL;
    char err[256] = "";
    int n = gv_select(&sel, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s", err);
    for (int i = 0; i < n; i++) {
        gv_problem p;
        memset(&p, 0, sizeof p);
        p.c = cases[i];
        cr_assert_eq(cases[i].op->layout(&cases[i], &p.l), GV_OK);
        char shape[64], row[160];
        snprintf(row, sizeof row, "  %-24s %-18s %-5s %9.1f %10.1f", cases[i].op->name,
                 gv_shape_format(&cases[i].shape, shape, sizeof shape),
                 gv_dtype_name(cases[i].dtype), gv_case_host_bytes(&cases[i], &p.l) / 1e9,
                 (double)gv_device_bytes(&p) / 1e9);
        cr_expect_not_null(strstr(out, row), "--help lacks the row '%s'", row);
    }
    free(cases);
}

/* On a machine without a device, the whole tier is a run of SKIPs (exit 77): none allocates a
   byte, and each case this host cannot hold at all says so with both numbers. (With a device it
   would run the cases: that is tests/gpu/test_large.c's, not the CPU suite's.) */
Test(large, check_large_without_a_device_skips_every_case, .timeout = 120)
{
    static char out[65536];
    if (gv_test_run_cli("info", out, sizeof out) != 77) cr_skip_test("a device is present");
    int st = gv_test_run_cli("check --large --planted", out, sizeof out);
    cr_expect_eq(st, 77, "exit %d: %s", st, out);
    gv_selection sel = {.dist = -1, .large = true, .planted = true};
    gv_case *cases = NULL;
    char err[256] = "";
    int n = gv_select(&sel, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s", err);
    double total = gv_host_memory_bytes();
    int rows = 0;
    for (const char *p = out; (p = strstr(p, " SKIP")) != NULL; p++)
        rows++;
    cr_expect_eq(rows, n, "one SKIP a case: %d of %d\n%s", rows, n, out);
    /* a build without CUDA skips each case for that before it weighs the host's memory (the
       sanitizer build of .ci/run): the memory reasons are a CUDA build's */
    if (strstr(out, "SKIP (built without CUDA)")) {
        cr_expect_null(strstr(out, " PASS"), "%s", out);
        free(cases);
        return;
    }
    for (int i = 0; i < n; i++) {
        gv_layout l = layout_of(&cases[i]);
        double need = gv_case_host_bytes(&cases[i], &l);
        if (need <= total) continue;
        char want[96];
        snprintf(want, sizeof want, "needs %.1f GB of host memory, the host has %.1f GB",
                 need / 1e9, total / 1e9);
        cr_expect_not_null(strstr(out, want), "no '%s' in\n%s", want, out);
    }
    free(cases);
}

/* The host buffer pool (problem.c): a case's buffers of 1 MiB or more are kept at
   gv_problem_free and handed to the next case. A reused buffer never carries the earlier
   case's values into the new one: its outputs are poisoned and its G NaN (never computed) as
   from fresh memory, and its inputs are the same bits as those made in fresh memory. */
Test(large, a_reused_host_buffer_leaks_nothing_of_the_case_before)
{
    gv_case c = large_case("gemm.cublas", GV_F32, 512, 512, 512, 3); /* 1 to 2 MiB tensors */
    c.dist = GV_DIST_UNIFORM11;
    gv_pool_release();
    gv_problem fresh;
    cr_assert_eq(gv_problem_init(&fresh, &c), GV_OK);
    cr_assert_not_null(fresh.out[0].pgauge, "gemm has a probabilistic gauge");
    int64_t n_in[2] = {fresh.in[0].count, fresh.in[1].count};
    double *want[2];
    for (int i = 0; i < 2; i++) {
        want[i] = malloc(sizeof(double) * (size_t)n_in[i]);
        cr_assert_not_null(want[i]);
        memcpy(want[i], fresh.in[i].ref, sizeof(double) * (size_t)n_in[i]);
    }
    /* the case before: every buffer written with values that are neither poison nor NaN */
    const void *used[16];
    int n_used = 0;
    for (int i = 0; i < fresh.l.n_in; i++) {
        gv_tensor *t = &fresh.in[i];
        memset(t->ref, 0, sizeof(double) * (size_t)t->count);
        memset(t->data, 0, gv_dtype_size(c.dtype) * (size_t)t->count);
        used[n_used++] = t->ref, used[n_used++] = t->data;
    }
    gv_tensor *o = &fresh.out[0];
    for (int64_t k = 0; k < o->count; k++)
        o->ref[k] = o->gauge[k] = o->pgauge[k] = 1.0;
    memset(o->data, 0, gv_dtype_size(c.dtype) * (size_t)o->count);
    used[n_used++] = o->ref, used[n_used++] = o->data, used[n_used++] = o->gauge;
    used[n_used++] = o->pgauge;
    gv_problem_free(&fresh);

    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    const void *now[] = {p.in[0].ref,  p.in[0].data,  p.in[1].ref,    p.in[1].data,
                         p.out[0].ref, p.out[0].data, p.out[0].gauge, p.out[0].pgauge};
    int reused = 0;
    for (size_t a = 0; a < sizeof now / sizeof now[0]; a++)
        for (int b = 0; b < n_used; b++)
            reused += now[a] == used[b];
    cr_expect_eq(reused, (int)(sizeof now / sizeof now[0]), "every buffer came from the pool");
    const unsigned char *d = p.out[0].data;
    size_t bytes = gv_dtype_size(c.dtype) * (size_t)p.out[0].count, bad = 0;
    for (size_t k = 0; k < bytes; k++)
        bad += d[k] != GV_POISON_BYTE;
    cr_expect_eq(bad, 0, "the output is poisoned, not the last case's bytes");
    int64_t not_nan = 0;
    for (int64_t k = 0; k < p.out[0].count; k++)
        not_nan += !isnan(p.out[0].pgauge[k]);
    cr_expect_eq(not_nan, 0, "G is NaN until computed");
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(p.in[i].count, n_in[i]);
        cr_expect_eq(memcmp(p.in[i].ref, want[i], sizeof(double) * (size_t)n_in[i]), 0,
                     "input %d as made in fresh memory", i);
        free(want[i]);
    }
    gv_problem_free(&p);
    gv_pool_release();
}
