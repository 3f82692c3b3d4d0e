/* test_api.c: include/gpuval.h on the CPU — a descriptor's misuse named before anything is
 * registered; an op with its own f64 reference built into gpuval's descriptor (inputs,
 * reference, gauge, depth) and judged by gv_judge_problem like a built-in; an op judged as gemm using
 * gemm's oracle and model; the launch hook receiving the device layer's pointers and dims. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h"
#include "gpuval.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"

static int scale_layout(const gv_case_info *c, gv_layout_info *l, void *user)
{
    (void)user;
    l->in_count[0] = c->dims[0];
    l->out_count[0] = c->dims[0];
    return GV_API_OK;
}

static int scale_reference(const gv_case_info *c, const double *const *in, double *const *out,
                           void *user)
{
    (void)user;
    for (int64_t i = 0; i < c->dims[0]; i++)
        out[0][i] = 2 * in[0][i];
    return GV_API_OK;
}

static double scale_depth(const gv_case_info *c, void *user)
{
    (void)c;
    (void)user;
    return 1;
}

static gv_launch_args g_seen;
static int g_user_tag;
static int record_launch(const gv_launch_args *a)
{
    g_seen = *a;
    return 0;
}

#define SCALE_DESC(op_name)                                                                        \
    {                                                                                              \
        .name = (op_name), .dims = "n", .dtypes = "f32,f64", .shapes = "100", .n_in = 1,           \
        .n_out = 1, .layout = scale_layout, .reference = scale_reference, .depth = scale_depth,    \
        .launch = record_launch, .user = &g_user_tag                                               \
    }

/* Register one descriptor in a family of its own; the rc, the message in err. */
static int register_one(const gv_op_desc *d, char *err, size_t len)
{
    const gv_op_desc *ops[] = {d, NULL};
    gv_family f = GV_FAMILY_INIT("t", ops);
    return gv_register_family(&f, err, len);
}

static void expect_refused(const gv_op_desc *d, int rc_want, const char *msg)
{
    char err[512];
    int rc = register_one(d, err, sizeof err);
    cr_assert_eq(rc, rc_want, "rc %d, want %d (%s)", rc, rc_want, err);
    cr_assert(strstr(err, msg), "message '%s' lacks '%s'", err, msg);
    if (d->name && rc_want != GV_API_EEXIST)
        cr_assert_null(gv_op_find(d->name), "a refused op is not registered");
}

Test(api, version)
{
    cr_assert_eq(gv_api_version(), GPUVAL_API_VERSION);
    cr_assert_eq(GPUVAL_API_VERSION, GPUVAL_API_VERSION_MAJOR * 1000 + GPUVAL_API_VERSION_MINOR);
}

Test(api, misuse_is_named)
{
    gv_op_desc d = SCALE_DESC(NULL);
    expect_refused(&d, GV_API_EINVAL, "name is required");
    d = (gv_op_desc)SCALE_DESC("t.bad name");
    expect_refused(&d, GV_API_EINVAL, "op names take letters");
    d = (gv_op_desc)SCALE_DESC("t.x");
    d.dtypes = "f32,f16x";
    expect_refused(&d, GV_API_EINVAL, "t.x: unknown dtype 'f16x'");
    d = (gv_op_desc)SCALE_DESC("t.x");
    d.modes = "native,turbo";
    expect_refused(&d, GV_API_EINVAL, "t.x: unknown mode 'turbo'");
    d = (gv_op_desc)SCALE_DESC("t.x");
    d.reference = NULL;
    expect_refused(&d, GV_API_EINVAL, "t.x: reference is required without judge_as");
    d = (gv_op_desc)SCALE_DESC("t.x");
    d.depth = NULL;
    expect_refused(&d, GV_API_EINVAL, "t.x: depth is required");
    d = (gv_op_desc)SCALE_DESC("t.x");
    d.n_out = 0;
    expect_refused(&d, GV_API_EINVAL, "n_out 1..6");
    d = (gv_op_desc)SCALE_DESC("t.x");
    d.shapes = "100x";
    expect_refused(&d, GV_API_EINVAL, "t.x: bad shapes");
    d = (gv_op_desc)SCALE_DESC("t.x");
    d.shapes = "10x10";
    expect_refused(&d, GV_API_EINVAL, "takes 1 dim");
    d = (gv_op_desc)SCALE_DESC("t.x");
    d.dists = "uniform01,gaussian";
    expect_refused(&d, GV_API_EINVAL, "unknown input distribution 'gaussian'");
    d = (gv_op_desc)SCALE_DESC("t.x");
    d.judge_as = "gemm";
    expect_refused(&d, GV_API_EINVAL, "judge_as takes the built-in's model");
    gv_op_desc as = {.name = "t.y", .shapes = "8x8x8", .judge_as = "nosuch"};
    expect_refused(&as, GV_API_EINVAL, "judge_as names no built-in op or family 'nosuch'");
    as.judge_as = "gemm";
    as.dims = "m,n";
    expect_refused(&as, GV_API_EINVAL, "dims differ from the built-in's");
    as.dims = NULL;
    as.judge_as = "gemm.tiled";
    as.modes = "native,tf32";
    expect_refused(&as, GV_API_EINVAL, "t.y: a mode the built-in does not take: 'native,tf32'");
    as.modes = NULL;
    as.judge_as = "gemm";
    as.dtypes = "f64";
    as.shapes = "8x8";
    expect_refused(&as, GV_API_EINVAL, "takes 3 dims");
    d = (gv_op_desc)SCALE_DESC("gemm.cublas");
    expect_refused(&d, GV_API_EEXIST, "already registered");
}

Test(api, version_mismatch_and_partial_family_register_nothing)
{
    gv_op_desc ok = SCALE_DESC("t.ok"), bad = SCALE_DESC("t.bad");
    bad.layout = NULL;
    const gv_op_desc *ops[] = {&ok, &bad, NULL};
    gv_family f = {GPUVAL_API_VERSION_MAJOR * 1000 + 1000, "future", ops};
    char err[512];
    cr_assert_eq(gv_register_family(&f, err, sizeof err), GV_API_EABI, "%s", err);
    cr_assert(strstr(err, "family 'future' was built against gpuval API 2.0"), "%s", err);
    f.api_version = GPUVAL_API_VERSION;
    cr_assert_eq(gv_register_family(&f, err, sizeof err), GV_API_EINVAL);
    cr_assert(strstr(err, "t.bad: layout is required"), "%s", err);
    cr_assert_null(gv_op_find("t.ok"), "nothing of a refused family is registered");
    cr_assert_eq(gv_register_family(NULL, err, sizeof err), GV_API_EINVAL);
}

/* The problem, reference and judgement of one case of op, as gv_run_case builds them. */
static void problem(const char *op_name, gv_dtype t, const char *shape, gv_problem *p)
{
    const gv_op *op = gv_op_find(op_name);
    cr_assert_not_null(op, "%s registered", op_name);
    gv_case c = {op, t, GV_MODE_NATIVE, op->default_dist, {0}, 7};
    char err[128];
    cr_assert_eq(gv_size_spec_parse(shape, &c.shape, 1, err, sizeof err), 1);
    cr_assert_eq(gv_problem_init(p, &c), GV_OK);
    cr_assert_eq(gv_reference(p), GV_OK);
}

static gv_verdict judge(const gv_problem *p)
{
    gv_result r;
    gv_result_init(&r, &p->c);
    gv_judge_problem(p, &r);
    return r.verdict;
}

/* out[0].data := the reference rounded to the dtype (what a right kernel writes) */
static void write_reference(gv_problem *p)
{
    gv_tensor *o = &p->out[0];
    gv_dtype_store_n(p->c.dtype, o->data, o->ref, o->count);
}

Test(api, own_reference_is_judged_like_a_builtin)
{
    gv_op_desc d = SCALE_DESC("t.scale");
    char err[256];
    cr_assert_eq(register_one(&d, err, sizeof err), GV_API_OK, "%s", err);
    for (int t = 0; t < GV_NDTYPES; t++) {
        gv_problem p;
        problem("t.scale", (gv_dtype)t, "1000", &p);
        cr_assert_eq(p.out[0].count, 1000);
        for (int64_t i = 0; i < 1000; i++) {
            cr_assert_eq(p.out[0].ref[i], 2 * p.in[0].ref[i], "reference at %lld", (long long)i);
            cr_assert_eq(p.out[0].gauge[i], fabs(p.out[0].ref[i]), "default gauge |r|");
            /* the inputs are the generator's, rounded to the dtype */
            cr_assert_eq(p.in[0].ref[i], gv_round_to(p.in[0].ref[i], (gv_dtype)t));
        }
        write_reference(&p);
        cr_assert_eq(judge(&p), GV_PASS);
        gv_dtype_store(p.c.dtype, p.out[0].data, 17, p.out[0].ref[17] * (1 + 1e-3));
        cr_assert_eq(judge(&p), GV_FAIL, "an error of 1e-3 relative fails");
        gv_dtype_store(p.c.dtype, p.out[0].data, 17, NAN);
        cr_assert_eq(judge(&p), GV_FAIL, "NaN never passes");
        gv_problem_free(&p);
    }
}

Test(api, judged_as_gemm_uses_gemms_oracle_and_model)
{
    gv_op_desc d = {
        .name = "t.mygemm", .shapes = "33x65x31", .judge_as = "gemm", .launch = record_launch};
    char err[256];
    cr_assert_eq(register_one(&d, err, sizeof err), GV_API_OK, "%s", err);
    const gv_op *mine = gv_op_find("t.mygemm"), *gemm = gv_builtin_find("gemm");
    cr_assert_not_null(gemm);
    cr_assert_str_eq(mine->dims, "m,k,n");
    cr_assert(mine->oracle == gemm->oracle && mine->gauge == gemm->gauge &&
              mine->depth == gemm->depth && mine->pgauge == gemm->pgauge);
    gv_problem p;
    problem("t.mygemm", GV_F32, "33x65x31", &p);
    for (int i = 0; i < 33; i++)
        for (int j = 0; j < 31; j++) {
            double s = 0;
            for (int k = 0; k < 65; k++)
                s += p.in[0].ref[i * 65 + k] * p.in[1].ref[k * 31 + j];
            cr_assert_float_eq(p.out[0].ref[i * 31 + j], s, 1e-12 * (1 + fabs(s)));
        }
    write_reference(&p);
    cr_assert_eq(judge(&p), GV_PASS);
    gv_dtype_store(GV_F32, p.out[0].data, 5, p.out[0].ref[5] + 1e-2);
    cr_assert_eq(judge(&p), GV_FAIL);
    gv_problem_free(&p);
}

Test(api, launch_hook_receives_the_device_layers_view)
{
    gv_op_desc d = SCALE_DESC("t.launch");
    char err[256];
    cr_assert_eq(register_one(&d, err, sizeof err), GV_API_OK, "%s", err);
    const gv_op *op = gv_op_find("t.launch");
    cr_assert_not_null(op->device, "a launch hook makes a device op");
    float in[4], out[4];
    gk_launch L;
    memset(&L, 0, sizeof L);
    L.dtype = GV_F32;
    L.mode = GV_MODE_NATIVE;
    L.nd = 1;
    L.dims[0] = 4;
    L.n_in = L.n_out = 1;
    L.in[0] = in;
    L.out[0] = out;
    L.in_count[0] = L.out_count[0] = 4;
    L.stream = (void *)&L;
    L.op = op->device;
    memset(&g_seen, 0, sizeof g_seen);
    /* the status after the hook needs a CUDA runtime; what the hook saw does not */
    (void)op->device->launch(&L);
    cr_assert_eq(g_seen.dtype, GV_DTYPE_F32);
    cr_assert_str_eq(g_seen.mode, "native");
    cr_assert_eq(g_seen.nd, 1);
    cr_assert_eq(g_seen.dims[0], 4);
    cr_assert(g_seen.in[0] == in && g_seen.out[0] == out && g_seen.stream == (void *)&L);
    cr_assert_eq(g_seen.in_count[0], 4);
    cr_assert_eq(g_seen.out_count[0], 4);
    cr_assert(g_seen.user == &g_user_tag);
    d.launch = NULL;
    d.name = "t.nolaunch";
    cr_assert_eq(register_one(&d, err, sizeof err), GV_API_OK, "%s", err);
    cr_assert_null(gv_op_find("t.nolaunch")->device, "no hook: the op SKIPs");
}
