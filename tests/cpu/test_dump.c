/* test_dump.c: what can be tested of check --inputs, --dump-failures and replay without a
 * GPU: a failing case planted by hand dumped to .npy files and case.json (and read back bit for
 * bit), the refusal to overwrite a dump, replay of a dump (a SKIP without a device, a changed
 * verdict with one), and every usage error of --inputs and replay (exit 2, nothing written). */
#include <stdlib.h>
#include <jansson.h>
#include <sys/stat.h>

#include "io/case_io.h"
#include "testkit.h"

static void fresh_dir(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/tmp/gv_test_dump_%d_%s", (int)getpid(), name);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", buf, buf);
    cr_assert_eq(system(cmd), 0);
}

static int entries(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *f = popen(cmd, "r");
    int n = -1;
    cr_assert_eq(fscanf(f, "%d", &n), 1);
    pclose(f);
    return n;
}

/* A judged case of op at shape with its device output planted: the oracle's values in the
   dtype, element `wrong` (if >= 0) off by one. */
static void planted_case(const char *op, const char *size, int64_t wrong, gv_problem *p,
                         gv_result *r)
{
    gv_case c = {.op = gv_op_find(op),
                 .dtype = GV_F32,
                 .mode = GV_MODE_NATIVE,
                 .dist = GV_DIST_UNIFORM11,
                 .seed = 7};
    cr_assert_not_null(c.op);
    char err[256];
    cr_assert_eq(gv_size_spec_parse(size, &c.shape, 1, err, sizeof err), 1, "%s", err);
    cr_assert_eq(gv_problem_init(p, &c), GV_OK);
    cr_assert_eq(gv_reference(p), GV_OK);
    gv_tensor *t = &p->out[0];
    gv_dtype_store_n(c.dtype, t->data, t->ref, t->count);
    if (wrong >= 0) gv_dtype_store(c.dtype, t->data, wrong, t->ref[wrong] + 1.0);
    gv_result_init(r, &c);
    gv_judge_problem(p, r);
}

static void expect_same_bits(const char *path, const void *data, int64_t count, size_t es)
{
    gv_npy a;
    char err[512];
    cr_assert_eq(gv_npy_read(path, &a, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(a.count, count, "%s", path);
    cr_expect(memcmp(a.data, data, (size_t)count * es) == 0, "%s: bits differ", path);
    gv_npy_free(&a);
}

Test(dump, writes_inputs_outputs_and_case_json)
{
    gv_problem p;
    gv_result r;
    planted_case("vadd", "1001", 5, &p, &r);
    cr_assert_eq(r.verdict, GV_FAIL, "%s", r.reason);
    char dir[256], err[512], name[256], path[1024];
    fresh_dir(dir, sizeof dir, "w");
    cr_assert_eq(gv_dump_case(dir, &p, &r, NULL, NULL, false, err, sizeof err), 0, "%s", err);
    gv_dump_name(&r.c, name, sizeof name);
    cr_expect_str_eq(name, "vadd-f32-native-uniform11-1001-s7");
    snprintf(path, sizeof path, "%s/%s/in_a.npy", dir, name);
    expect_same_bits(path, p.in[0].data, 1001, 4);
    snprintf(path, sizeof path, "%s/%s/in_b.npy", dir, name);
    expect_same_bits(path, p.in[1].data, 1001, 4);
    snprintf(path, sizeof path, "%s/%s/out_c.gpu.npy", dir, name);
    expect_same_bits(path, p.out[0].data, 1001, 4);
    snprintf(path, sizeof path, "%s/%s/out_c.oracle.npy", dir, name);
    expect_same_bits(path, p.out[0].ref, 1001, 8);

    snprintf(path, sizeof path, "%s/%s/case.json", dir, name);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    cr_assert_not_null(doc, "%s: %s", path, jerr.text);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "schema")), gv_schema(GV_DOC_CASE));
    cr_expect_str_eq(json_string_value(json_object_get(doc, "op")), "vadd");
    cr_expect_str_eq(json_string_value(json_object_get(doc, "dtype")), "f32");
    cr_expect_str_eq(json_string_value(json_object_get(doc, "mode")), "native");
    cr_expect_str_eq(json_string_value(json_object_get(doc, "dist")), "uniform11");
    cr_expect_str_eq(json_string_value(json_object_get(doc, "dims")), "n");
    cr_expect_eq(json_integer_value(json_array_get(json_object_get(doc, "shape"), 0)), 1001);
    cr_expect_eq(json_integer_value(json_object_get(doc, "seed")), 7);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "verdict")), "FAIL");
    cr_expect_str_eq(json_string_value(json_object_get(doc, "reason")), r.reason);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "gpuval_version")), GV_VERSION);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "inputs_from")), "generated");
    cr_expect(json_is_null(json_object_get(doc, "device")));
    json_t *res = json_object_get(doc, "result");
    cr_expect_str_eq(json_string_value(json_object_get(res, "verdict")), "FAIL");
    cr_expect(json_is_object(json_object_get(doc, "build")));
    json_t *outs = json_object_get(json_object_get(doc, "files"), "outputs");
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(outs, 0), "gpu")),
                     "out_c.gpu.npy");
    json_decref(doc);
    gv_problem_free(&p);
}

Test(dump, matrices_keep_their_shapes)
{
    gv_problem p;
    gv_result r;
    planted_case("gemm.cublas", "3x4x5", -1, &p, &r);
    char dir[256], err[512], name[256], path[1024];
    fresh_dir(dir, sizeof dir, "m");
    cr_assert_eq(gv_dump_case(dir, &p, &r, NULL, NULL, false, err, sizeof err), 0, "%s", err);
    gv_dump_name(&r.c, name, sizeof name);
    static const struct {
        const char *file;
        int64_t rows, cols;
    } want[] = {{"in_A.npy", 3, 4}, {"in_B.npy", 4, 5}, {"out_C.gpu.npy", 3, 5}};
    for (int i = 0; i < 3; i++) {
        gv_npy a;
        snprintf(path, sizeof path, "%s/%s/%s", dir, name, want[i].file);
        cr_assert_eq(gv_npy_read(path, &a, err, sizeof err), GV_OK, "%s", err);
        cr_expect_eq(a.nd, 2, "%s", path);
        cr_expect(a.shape[0] == want[i].rows && a.shape[1] == want[i].cols, "%s", path);
        gv_npy_free(&a);
    }
    gv_problem_free(&p);
}

/* The product of the dims a tensor entry names ("m,k": the op's dims m and k at the case's
   shape); -1 when it names a dim the op does not have. */
static int64_t entry_count(const gv_case *c, const char *entry)
{
    char names[256];
    snprintf(names, sizeof names, "%s", entry);
    int64_t prod = 1;
    char *s1 = NULL;
    for (char *n = strtok_r(names, ",", &s1); n; n = strtok_r(NULL, ",", &s1)) {
        int at = -1, d = 0;
        if (n[0] >= '1' && n[0] <= '9') { /* a side the op fixes (a window's: "o,c,3,3") */
            prod *= strtoll(n, NULL, 10);
            continue;
        }
        char copy[256], *s2 = NULL;
        snprintf(copy, sizeof copy, "%s", c->op->dims);
        for (char *o = strtok_r(copy, ",", &s2); o; o = strtok_r(NULL, ",", &s2), d++)
            if (strcmp(o, n) == 0) at = d;
        if (at < 0 || at >= c->shape.nd) return -1;
        prod *= c->shape.d[at];
    }
    return prod;
}

/* One side's tensor shapes (in_dims or out_dims) against the layout: one ';'-entry per tensor,
   each empty (a flat tensor) or multiplying to the tensor's count. */
static void expect_tensor_dims(const gv_case *c, const char *list, const gv_tensor_spec *t, int n,
                               const char *side, const char *shape)
{
    char copy[256];
    snprintf(copy, sizeof copy, "%s", list);
    int entries = 0;
    for (char *p = copy, *end; p; p = end ? end + 1 : NULL, entries++) {
        end = strchr(p, ';');
        if (end) *end = '\0';
        if (entries >= n || !p[0]) continue;
        /* a complex tensor's entry leaves out its (re, im) pairs' dim of 2 */
        int64_t want =
            entry_count(c, p) * (gv_tensor_complex(c->op, side[0] == 'o', entries) ? 2 : 1);
        cr_expect_eq(want, t[entries].count,
                     "%s at %s: %s tensor %d (%s) is '%s' = %lld elements, the layout has %lld",
                     c->op->name, shape, side, entries, t[entries].name, p, (long long)want,
                     (long long)t[entries].count);
    }
    cr_expect_eq(entries, n, "%s: %s_dims '%s' has %d entries for %d tensors", c->op->name, side,
                 list, entries, n);
}

/* gv_tensor_shape's contract (it asserts it): every op that declares its tensors' shapes
   declares one per tensor of its layout, and each multiplies to that tensor's count, at every
   test shape of every op. */
Test(dump, declared_tensor_shapes_match_the_layouts)
{
    int checked = 0;
    for (const gv_op *const *op = gv_registry(); *op; op++) {
        if (!(*op)->in_dims && !(*op)->out_dims) continue;
        gv_shape shapes[32];
        char err[256];
        const char *spec = (*op)->test_shapes ? (*op)->test_shapes : (*op)->shapes;
        int ns = gv_size_spec_parse(spec, shapes, 32, err, sizeof err);
        cr_assert_gt(ns, 0, "%s: %s", (*op)->name, err);
        for (int s = 0; s < ns; s++) {
            gv_case c = {*op, GV_F32, GV_MODE_NATIVE, (*op)->default_dist, shapes[s], 1};
            if (!((*op)->dtypes & (1u << GV_F32))) c.dtype = GV_F64;
            gv_layout l;
            cr_assert_eq((*op)->layout(&c, &l), GV_OK, "%s", (*op)->name);
            char shape[96];
            gv_shape_format(&c.shape, shape, sizeof shape);
            if ((*op)->in_dims) expect_tensor_dims(&c, (*op)->in_dims, l.in, l.n_in, "in", shape);
            if ((*op)->out_dims)
                expect_tensor_dims(&c, (*op)->out_dims, l.out, l.n_out, "out", shape);
            for (int i = 0; i < l.n_in; i++) {
                int64_t dims[GV_NPY_MAX_DIMS], prod = 1;
                int nd = gv_tensor_shape(&c, &l, false, i, dims);
                for (int k = 0; k < nd; k++)
                    prod *= dims[k];
                cr_expect_eq(prod, l.in[i].count, "%s: input %d", (*op)->name, i);
            }
            checked++;
        }
    }
    cr_expect_gt(checked, 10, "the families that declare shapes were found");
}

Test(dump, an_existing_case_is_replaced_only_with_force)
{
    gv_problem p;
    gv_result r;
    planted_case("vadd", "1001", 5, &p, &r);
    char dir[256], err[512];
    fresh_dir(dir, sizeof dir, "f");
    cr_assert_eq(gv_dump_case(dir, &p, &r, NULL, NULL, false, err, sizeof err), 0, "%s", err);
    cr_expect_eq(gv_dump_case(dir, &p, &r, NULL, NULL, false, err, sizeof err), -1);
    cr_expect(strstr(err, "exists") != NULL, "%s", err);
    cr_expect_eq(gv_dump_taken(dir, &r.c, 1, err, sizeof err), -1);
    cr_expect_eq(gv_dump_case(dir, &p, &r, NULL, NULL, true, err, sizeof err), 0, "%s", err);
    gv_problem_free(&p);
}

Test(replay, reruns_a_dump)
{
    gv_problem p;
    gv_result r;
    planted_case("vadd", "1001", 5, &p, &r);
    char dir[256], err[512], name[256], args[1024], out[8192];
    fresh_dir(dir, sizeof dir, "r");
    cr_assert_eq(gv_dump_case(dir, &p, &r, NULL, NULL, false, err, sizeof err), 0, "%s", err);
    gv_dump_name(&r.c, name, sizeof name);
    snprintf(args, sizeof args, "replay '%s/%s'", dir, name);
    int rc = gv_test_run_cli(args, out, sizeof out);
    if (gk_device_count() == 0) {
        /* no device: the case SKIPs, nothing is compared */
        cr_expect_eq(rc, 77, "%s", out);
        cr_expect(strstr(out, "verdict: SKIP, dumped FAIL: DIFFERENT") != NULL, "%s", out);
        cr_expect(strstr(out, "output c: not compared") != NULL, "%s", out);
    } else {
        /* a device computes c right, where the planted dump had it wrong */
        cr_expect_eq(rc, 1, "%s", out);
        cr_expect(strstr(out, "1 of 1001 elements differ from the dump (first at 5)") != NULL, "%s",
                  out);
    }
    gv_problem_free(&p);
}

Test(replay, usage_errors_exit_2)
{
    gv_problem p;
    gv_result r;
    planted_case("vadd", "1001", 5, &p, &r);
    char dir[256], err[512], name[256], args[2048], out[8192], cmd[2048];
    fresh_dir(dir, sizeof dir, "u");
    cr_assert_eq(gv_dump_case(dir, &p, &r, NULL, NULL, false, err, sizeof err), 0, "%s", err);
    gv_problem_free(&p);
    gv_dump_name(&r.c, name, sizeof name);

    cr_expect_eq(gv_test_run_cli("replay", out, sizeof out), 2);
    cr_expect(strstr(out, "replay takes one case directory") != NULL, "%s", out);
    cr_expect_eq(gv_test_run_cli("replay a b", out, sizeof out), 2);
    cr_expect_eq(gv_test_run_cli("replay --bogus x", out, sizeof out), 2);
    cr_expect_eq(gv_test_run_cli("replay /nonexistent/case", out, sizeof out), 2);
    cr_expect(strstr(out, "/nonexistent/case: not a case directory") != NULL, "%s", out);
    snprintf(args, sizeof args, "replay '%s'", dir); /* the parent: no case.json */
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2);
    cr_expect(strstr(out, "case.json") != NULL, "%s", out);

    /* each broken copy of the dump: the fault named, exit 2 */
    static const struct {
        const char *edit, *fault;
    } broken[] = {
        {"sed -i 's/gpuval-case\\/1/gpuval-run\\/1/' case.json", "is not a gpuval-case/1 run"},
        {"sed -i 's/\"op\": \"vadd\"/\"op\": \"nosuchop\"/' case.json", "op 'nosuchop'"},
        {"sed -i 's/\"mode\": \"native\"/\"mode\": \"warp\"/' case.json", "unknown dtype"},
        {"rm in_b.npy", "in_b.npy: cannot open"},
        {"cp out_c.oracle.npy in_a.npy",
         "in_a.npy: 1001 elements of f64, the case needs 1001 of f32"},
        {"head -c 100 out_c.gpu.npy > x && mv x out_c.gpu.npy", "out_c.gpu.npy: truncated"},
        {"echo '{' > case.json", "case.json"},
        /* a case this op cannot be: refused before a device is looked for (it was exit 77
           without one, SKIP for "mode unsupported") */
        {"sed -i 's/\"mode\": \"native\"/\"mode\": \"tf32\"/' case.json", "tf32"},
        {"sed -i 's/\"dist\": \"[a-z0-9]*\"/\"dist\": \"tie\"/' case.json", "tie"},
    };
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        snprintf(cmd, sizeof cmd, "cd '%s' && rm -rf copy && cp -r '%s' copy && cd copy && %s", dir,
                 name, broken[i].edit);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        snprintf(args, sizeof args, "replay '%s/copy'", dir);
        cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s: %s", broken[i].edit, out);
        cr_expect(strstr(out, broken[i].fault) != NULL, "%s: '%s' should name '%s'", broken[i].edit,
                  out, broken[i].fault);
    }
}

/* Run check with args in a fresh directory; expect exit 2 with fault in the output and nothing
   written there (the --dump-failures and --json targets are in it). */
static void expect_check_usage(const char *args, const char *fault)
{
    char dir[256], full[4096], out[8192];
    fresh_dir(dir, sizeof dir, "c");
    snprintf(full, sizeof full, "check %s --dump-failures '%s/dump' --json '%s/run.json'", args,
             dir, dir);
    cr_expect_eq(gv_test_run_cli(full, out, sizeof out), 2, "%s: %s", args, out);
    cr_expect(strstr(out, fault) != NULL, "%s: '%s' should name '%s'", args, out, fault);
    cr_expect_eq(entries(dir), 0, "%s wrote into %s", args, dir);
}

Test(check_inputs, usage_errors_exit_2_and_write_nothing)
{
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src);
    char a[1024], b[1024], args[4096];
    snprintf(a, sizeof a, "'%s/fixtures/vadd_f32_a.npy'", src);
    snprintf(b, sizeof b, "'%s/fixtures/gemm_f64_B.npy'", src);
    snprintf(args, sizeof args, "--inputs %s,%s", a, a);
    expect_check_usage(args, "--inputs needs --op naming one op exactly");
    snprintf(args, sizeof args, "--op 'vadd*' --inputs %s,%s", a, a);
    expect_check_usage(args, "--inputs needs --op naming one op exactly");
    snprintf(args, sizeof args, "--op vadd --size 33 --inputs %s,%s", a, a);
    expect_check_usage(args, "no --size");
    snprintf(args, sizeof args, "--op vadd --inputs %s", a);
    expect_check_usage(args, "vadd takes 2 input files");
    /* an empty item is said, never dropped: two files around it would have run */
    snprintf(args, sizeof args, "--op vadd --inputs %s,,%s", a, a);
    expect_check_usage(args, "an empty file name");
    snprintf(args, sizeof args, "--op vadd --inputs %s,%s,", a, a);
    expect_check_usage(args, "an empty file name");
    snprintf(args, sizeof args, "--op vadd --inputs %s,%s", a, b);
    expect_check_usage(args, "dtype f64, but");
    snprintf(args, sizeof args, "--op vadd --dtype f64 --inputs %s,%s", a, a);
    expect_check_usage(args, "--dtype leaves out");
    snprintf(args, sizeof args, "--op gemm.cublas --inputs %s,%s", b, b);
    expect_check_usage(args, "gives gemm.cublas's dim k = 5, but");
    snprintf(a, sizeof a, "'%s/fixtures/vadd_f64_a.npy'", src);
    snprintf(args, sizeof args, "--op gemm.cublas --inputs %s,%s", a, b);
    expect_check_usage(args, "has 1 dims; input 1 of gemm.cublas is (m,k), 2 dims");
    snprintf(args, sizeof args, "--op lsmr.ridge --inputs %s", a);
    expect_check_usage(args, "lsmr.ridge takes 4 input files");
    /* sin_iter's x carries n but not k, the applications */
    snprintf(args, sizeof args, "--op sin_iter --inputs %s", a);
    expect_check_usage(args, "no input carries its dim k");
    snprintf(args, sizeof args, "--op vadd --inputs %s,/nonexistent.npy", a);
    expect_check_usage(args, "/nonexistent.npy: cannot open");
}

Test(check_inputs, runs_the_op_on_the_files)
{
    const char *src = getenv("GPUVAL_SRCDIR");
    char args[4096], out[8192];
    snprintf(
        args, sizeof args,
        "check --op gemm.cublas --mode native --inputs '%s/fixtures/gemm_f64_A.npy,%s/fixtures/"
        "gemm_f64_B.npy'",
        src, src);
    int rc = gv_test_run_cli(args, out, sizeof out);
    /* the dims (m, k, n) = (4, 5, 3) and the dtype come from the files */
    cr_expect(strstr(out, "gemm.cublas              f64   native") != NULL, "%s", out);
    cr_expect(strstr(out, " 4x5x3 ") != NULL, "%s", out);
    cr_expect_eq(rc, gk_device_count() == 0 ? 77 : 0, "%s", out);
}

Test(check_dump, an_existing_case_directory_is_refused_before_any_work)
{
    char dir[256], args[1024], out[8192], cmd[1024];
    fresh_dir(dir, sizeof dir, "e");
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/d/vadd-f32-native-uniform11-1001-s0'", dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(args, sizeof args, "check --op vadd --dtype f32 --size 1001 --dump-failures '%s/d'",
             dir);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    cr_expect(strstr(out, "vadd-f32-native-uniform11-1001-s0 exists") != NULL, "%s", out);
    cr_expect(strstr(out, "device:") == NULL, "no case ran: %s", out);
    snprintf(args, sizeof args, "check --op vadd --size 1001 --dump-failures '%s/d/x' --force",
             dir);
    snprintf(cmd, sizeof cmd, "touch '%s/d/x'", dir);
    cr_assert_eq(system(cmd), 0);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    cr_expect(strstr(out, "is not a directory") != NULL, "%s", out);
}
