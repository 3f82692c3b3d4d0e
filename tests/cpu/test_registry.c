/* test_registry.c: the registry's census. The GPU suite is generated from gv_select over the
 * whole registry at test sizes; if that selection failed or shrank, the suite would pass with
 * nothing in it. Here the count is derived independently from the descriptors (shapes x
 * dtypes x valid modes, plus the native canaries and repeat canaries) and must match, every op must
 * yield cases, and the canary rules hold: every op with a reduced-precision mode carries zero-mean
 * native canaries at K >= 4096 in its catalogue. Modes the mode table keeps out of the default
 * selection (catalogue 0: the fixed-width emulation sweep, 16-bit storage) run their mode
 * probes there, and their shapes when named. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"

/* Entries of a comma-separated spec (0 for NULL or ""). */
static int entries(const char *spec)
{
    if (!spec || !*spec) return 0;
    int n = 1;
    for (const char *p = spec; *p; p++)
        n += *p == ',';
    return n;
}

static int valid_modes(const gv_op *op, gv_dtype t, bool *native)
{
    int n = 0;
    *native = false;
    for (int m = 0; m < GV_NMODES; m++)
        if (gv_mode_ok(op, t, (gv_mode)m) &&
            (gv_mode_get(m)->catalogue || gv_op_runs_off_catalogue(op))) {
            n++;
            if (m == GV_MODE_NATIVE) *native = true;
        }
    return n;
}

/* The distributions of a "DIST:SHAPE,..." list, into d (at most max); their count. */
static int probe_dists(const char *spec, gv_dist *d, int max)
{
    int n = 0;
    for (const char *p = spec; p && *p && n < max;) {
        const char *colon = strchr(p, ':');
        char name[32];
        cr_assert(colon && colon - p < (long)sizeof name, "malformed probe list %s", spec);
        snprintf(name, sizeof name, "%.*s", (int)(colon - p), p);
        cr_assert_eq(gv_dist_parse(name, &d[n]), GV_OK, "probe distribution %s", name);
        n++;
        p = strchr(p, ',');
        if (p) p++;
    }
    return n;
}

/* A bug planted in the large tier (right below 2^31) is left out of the other selections. */
static bool large_only(const gv_op *op)
{
    return op->planted_bug && op->large_shapes;
}

static int expected_cases(const gv_op *op, bool test_sizes)
{
    if (large_only(op)) return 0;
    int shapes = entries(test_sizes && op->test_shapes ? op->test_shapes : op->shapes);
    /* native canaries, and the repeat canaries (one list for both size choices) */
    int canaries =
        entries(test_sizes ? op->test_canaries : op->canaries) + entries(op->repeat_canaries);
    gv_dist probes[8];
    int np = probe_dists(test_sizes ? op->test_mode_probes : op->mode_probes, probes, 8);
    int n = 0;
    for (int t = 0; t < GV_NDTYPES; t++) {
        bool native;
        int modes = valid_modes(op, (gv_dtype)t, &native);
        n += modes * shapes + (native ? canaries : 0);
        /* a mode probe in every mode it probes: the catalogue's modes with their shapes, the
           others (f16, bf16, fp8, fp64emu32..56, ...) through their probes alone */
        for (int m = 0; m < GV_NMODES; m++)
            if (gv_mode_ok(op, (gv_dtype)t, (gv_mode)m))
                for (int s = 0; s < np; s++)
                    n += gv_probe_applies(probes[s], (gv_dtype)t, (gv_mode)m);
    }
    return n;
}

static void census(bool test_sizes)
{
    gv_selection sel = {.dist = -1, .test_shapes = test_sizes, .planted = true, .seed = 7};
    gv_case *cases = NULL;
    char err[256] = "";
    int n = gv_select(&sel, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "the whole registry selects (%s)", err);
    int want = 0, ops = 0;
    for (const gv_op *const *op = gv_registry(); *op; op++) {
        int per_op = expected_cases(*op, test_sizes), got = 0;
        for (int i = 0; i < n; i++)
            got += cases[i].op == *op;
        if (!large_only(*op)) cr_expect_gt(per_op, 0, "%s yields no case", (*op)->name);
        cr_expect_eq(got, per_op, "%s: %d cases selected, %d from its descriptor", (*op)->name, got,
                     per_op);
        want += per_op;
        ops++;
    }
    cr_expect_eq(n, want, "selected %d cases, the descriptors give %d", n, want);
    cr_expect_geq(ops, 34, "the catalogue holds the seeds' ops (%d registered)", ops);
    cr_log_info("%s: %d ops, %d cases", test_sizes ? "test sizes" : "catalogue", ops, n);
    free(cases);
}

Test(registry, whole_registry_at_test_sizes_matches_the_descriptors)
{
    census(true);
}

Test(registry, whole_catalogue_matches_the_descriptors)
{
    census(false);
}

Test(registry, reduced_precision_ops_carry_zero_mean_canaries_at_k_4096)
{
    for (const gv_op *const *opp = gv_registry(); *opp; opp++) {
        const gv_op *op = *opp;
        if (!(op->modes & (1u << GV_MODE_TF32)) || !(op->modes & (1u << GV_MODE_NATIVE))) continue;
        cr_assert_not_null(op->canaries, "%s has a TF32 mode but no canaries", op->name);
        gv_selection sel = {
            .dist = -1, .op_glob = op->name, .seed = 0, .modes = 1u << GV_MODE_NATIVE};
        gv_case *cases = NULL;
        char err[256] = "";
        int n = gv_select(&sel, &cases, err, sizeof err);
        cr_assert_gt(n, 0, "%s: %s", op->name, err);
        /* K is the dim named k (m,k,n: the second; b,m,k,n: the third) */
        int kdim = 1;
        for (int d = 0, i = 0; op->dims[i]; i++) {
            if (op->dims[i] == ',') d++;
            else if (op->dims[i] == 'k' && (i == 0 || op->dims[i - 1] == ',') &&
                     (op->dims[i + 1] == ',' || op->dims[i + 1] == '\0'))
                kdim = d;
        }
        bool zero_mean_deep = false;
        for (int i = 0; i < n; i++)
            if (cases[i].dist == GV_DIST_UNIFORM11 && cases[i].shape.nd > kdim &&
                cases[i].shape.d[kdim] >= 4096)
                zero_mean_deep = true;
        cr_expect(zero_mean_deep, "%s: no native zero-mean case with K >= 4096 in its catalogue",
                  op->name);
        free(cases);
    }
}

Test(registry, canaries_are_native_and_not_added_when_the_user_chooses)
{
    const gv_op *op = gv_op_find("gemm.cublas");
    cr_assert_not_null(op);
    gv_selection sel = {.dist = -1, .op_glob = "gemm.cublas", .seed = 0};
    gv_case *cases = NULL;
    char err[256] = "";
    int n = gv_select(&sel, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s", err);
    int canaries = 0, probes = 0;
    for (int i = 0; i < n; i++) {
        if (cases[i].dist == op->default_dist) continue;
        if (gv_probe_applies(cases[i].dist, cases[i].dtype, cases[i].mode)) {
            probes++; /* a mode probe, in the mode it probes (tf32, fp64emu) */
            continue;
        }
        canaries++;
        cr_expect_eq(cases[i].mode, GV_MODE_NATIVE, "a canary runs in native mode");
    }
    cr_expect_eq(canaries, 2 * entries(op->canaries), "canaries for f32 and f64");
    /* by default every mode's probes: tie in tf32, f16, bf16 and f16acc; narrow in f16, bf16
       and fp8; wide in the three scaled fp8 modes; width in fp64emu32, 40, 48 and 56 (the
       automatic fp64emu, which chooses its own width, has none: the mode fingerprint judges
       it, src/probe/probe_check.h) */
    cr_expect_eq(probes, 4 + 3 + 3 + 4, "mode probes of every reduced mode");
    free(cases);
    /* an explicit --dist or --size is the user's choice: no canaries */
    gv_selection chosen = {.dist = GV_DIST_UNIFORM01, .op_glob = "gemm.cublas", .seed = 0};
    n = gv_select(&chosen, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s", err);
    for (int i = 0; i < n; i++)
        cr_expect_eq(cases[i].dist, GV_DIST_UNIFORM01);
    free(cases);
}

/* A mode out of the default selection (catalogue 0) runs its probes there and nothing else;
   named, it runs its shapes too. So a mode impostor meets its label's probes in a plain check,
   and the catalogue does not grow by the mode's full shapes. */
Test(registry, modes_out_of_the_catalogue_run_their_probes_alone)
{
    const gv_op *op = gv_op_find("gemm.cublas");
    cr_assert_not_null(op);
    gv_selection sel = {.dist = -1, .op_glob = "gemm.cublas", .seed = 0};
    gv_case *cases = NULL;
    char err[256] = "";
    int n = gv_select(&sel, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s", err);
    const gv_mode reduced[] = {GV_MODE_F16,        GV_MODE_BF16,       GV_MODE_F16ACC,
                               GV_MODE_FP8,        GV_MODE_FP8E5M2,    GV_MODE_FP8ROW,
                               GV_MODE_FP8BLK,     GV_MODE_FP64EMU_32, GV_MODE_FP64EMU_40,
                               GV_MODE_FP64EMU_48, GV_MODE_FP64EMU_56};
    for (size_t k = 0; k < sizeof reduced / sizeof reduced[0]; k++) {
        cr_assert_eq(gv_mode_get(reduced[k])->catalogue, 0, "%s", gv_mode_name(reduced[k]));
        int in_mode = 0;
        for (int i = 0; i < n; i++) {
            if (cases[i].mode != reduced[k]) continue;
            in_mode++;
            cr_expect(gv_probe_applies(cases[i].dist, cases[i].dtype, cases[i].mode),
                      "%s runs a case that is not its probe (dist %s)", gv_mode_name(reduced[k]),
                      gv_dist_name(cases[i].dist));
        }
        cr_expect_gt(in_mode, 0, "%s has no case in the default catalogue",
                     gv_mode_name(reduced[k]));
    }
    free(cases);
    /* named, the mode runs its shapes beside its probes */
    gv_selection named = {
        .dist = -1, .op_glob = "gemm.cublas", .seed = 0, .modes = 1u << GV_MODE_F16};
    n = gv_select(&named, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s", err);
    int own = 0;
    for (int i = 0; i < n; i++)
        own += cases[i].dist == op->default_dist;
    cr_expect_eq(own, entries(op->shapes), "--mode f16 runs the op's shapes");
    free(cases);
    /* a chosen distribution or size is the user's: no probes of other modes */
    gv_selection chosen = {.dist = GV_DIST_UNIFORM01, .op_glob = "gemm.cublas", .seed = 0};
    n = gv_select(&chosen, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s", err);
    for (int i = 0; i < n; i++)
        cr_expect(gv_mode_get(cases[i].mode)->catalogue, "%s selected with --dist",
                  gv_mode_name(cases[i].mode));
    free(cases);
}

/* --op takes several globs, comma-separated: the union of what each selects, in registry
   order, each case once; a planted variant named exactly among them is selected without
   --planted; a list where no glob matches is an error naming the list. */
static int count_cases(const char *globs, bool planted)
{
    gv_selection sel = {.op_glob = globs, .dist = -1, .test_shapes = true, .planted = planted};
    gv_case *cases = NULL;
    char err[256];
    int n = gv_select(&sel, &cases, err, sizeof err);
    free(cases);
    return n;
}

Test(registry, op_takes_a_comma_separated_list_of_globs)
{
    int a = count_cases("diffusion.fixed", false), b = count_cases("vadd", false);
    cr_assert_gt(a, 0);
    cr_assert_gt(b, 0);
    cr_expect_eq(count_cases("diffusion.fixed,vadd", false), a + b);
    cr_expect_eq(count_cases("vadd,diffusion.fixed", false), a + b);
    cr_expect_eq(count_cases("vadd,vadd", false), b, "an op matched twice is selected once");
    cr_expect_eq(count_cases("diffusion.*,vadd", false), count_cases("diffusion.*", false) + b);
    int plant = count_cases("vadd.f32round", false);
    cr_assert_gt(plant, 0, "a planted variant named exactly is selected");
    cr_expect_eq(count_cases("vadd,vadd.f32round", false), b + plant);
    cr_expect_eq(count_cases("vadd,nosuchop", false), b, "a glob that matches nothing is ignored");
    gv_selection sel = {.op_glob = "nosuch,neither", .dist = -1, .test_shapes = true};
    gv_case *cases = NULL;
    char err[256];
    cr_expect_lt(gv_select(&sel, &cases, err, sizeof err), 0);
    cr_expect(strstr(err, "nosuch,neither") != NULL, "%s", err);
    bool exact = true;
    cr_expect(gv_op_matches(NULL, "vadd", &exact) && !exact);
    cr_expect(gv_op_matches("gemm.*,vadd", "vadd", &exact) && exact);
    cr_expect(gv_op_matches("gemm.*,vadd", "gemm.tiled", &exact) && !exact);
    cr_expect(!gv_op_matches("gemm.*,vadd", "vadd.slow", &exact));
    cr_expect(!gv_op_matches(",", "vadd", NULL), "empty globs match nothing");
}

/* gv_op_flaw, which gv_registry applies to every op it lists (aborting on a flaw): every
   registered op is whole, and a descriptor missing any one of the parts a case needs is
   named as broken. */
Test(registry, descriptors_are_whole_and_each_missing_part_is_a_flaw)
{
    for (const gv_op *const *op = gv_registry(); *op; op++)
        cr_expect_null(gv_op_flaw(*op), "%s: %s", (*op)->name, gv_op_flaw(*op));
    const gv_op *vadd = gv_op_find("vadd");
    cr_assert_not_null(vadd);
    gv_op broken[15];
    for (int i = 0; i < 15; i++)
        broken[i] = *vadd;
    broken[0].name = "";
    broken[1].family = NULL;
    broken[2].summary = NULL;
    broken[3].dims = "";
    broken[4].dims = "a,b,c,d,e";
    broken[5].shapes = NULL;
    broken[6].layout = NULL;
    broken[7].make_inputs = NULL;
    broken[8].oracle = NULL;
    broken[9].depth = NULL;
    broken[10].flops = NULL;
    broken[11].bytes = NULL;
    broken[12].dtypes = 0;
    broken[13].modes = 0;
    broken[14].dists = 1u << GV_DIST_SMALLINT;
    broken[14].default_dist = GV_DIST_UNIFORM01;
    for (int i = 0; i < 15; i++)
        cr_expect_not_null(gv_op_flaw(&broken[i]), "broken descriptor %d passes", i);
}

/* The registry's names are unique (gv_registry aborts otherwise): gv_op_find by each name
   finds that very op. */
Test(registry, every_name_finds_its_own_op)
{
    for (const gv_op *const *op = gv_registry(); *op; op++)
        cr_expect_eq(gv_op_find((*op)->name), *op, "%s", (*op)->name);
}

/* A probe dist asked for at the ops' own sizes leaves out the shapes its construction cannot
   take (gemm's width probe: k >= 3, n >= 3), so such a run has no case that can only be an
   ERROR; a shape the user names for it is refused with the reason. */
Test(registry, a_probe_dist_keeps_only_the_shapes_it_can_lay_out)
{
    gv_selection sel = {.op_glob = "gemm.*", .dist = GV_DIST_WIDTH, .test_shapes = true};
    gv_case *cases = NULL;
    char err[256] = "";
    int n = gv_select(&sel, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s", err);
    for (int i = 0; i < n; i++)
        cr_expect(cases[i].shape.d[1] >= 3 && cases[i].shape.d[2] >= 3,
                  "%s at %lldx%lldx%lld", cases[i].op->name, (long long)cases[i].shape.d[0],
                  (long long)cases[i].shape.d[1], (long long)cases[i].shape.d[2]);
    free(cases);
    gv_shape one = {.nd = 3, .d = {1, 1, 1}};
    gv_selection named = {.op_glob = "gemm.tiled", .dist = GV_DIST_WIDTH, .shapes = &one,
                          .n_shapes = 1};
    cases = NULL;
    cr_expect_eq(gv_select(&named, &cases, err, sizeof err), GV_EINVAL);
    cr_expect(strstr(err, "width probe needs k >= 3") != NULL, "%s", err);
    free(cases);
}
