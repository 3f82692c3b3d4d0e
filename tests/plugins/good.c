/* good.c: a valid plugin: an op with its own f64 reference (y = 2 x) and one judged as gemm,
 * neither with a launch hook (every case SKIPs), for tests/cpu/test_plugin.c. */
#include <gpuval.h>

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

static const gv_op_desc scale = {.name = "tplug.scale",
                                 .summary = "y = 2 x (test plugin)",
                                 .dims = "n",
                                 .dtypes = "f32,f64",
                                 .shapes = "1000",
                                 .n_in = 1,
                                 .n_out = 1,
                                 .layout = scale_layout,
                                 .reference = scale_reference,
                                 .depth = scale_depth};
static const gv_op_desc as_gemm = {.name = "tplug.gemm",
                                   .summary = "judged as gemm (test plugin)",
                                   .shapes = "8x8x8",
                                   .judge_as = "gemm"};
static const gv_op_desc *const ops[] = {&scale, &as_gemm, NULL};
static const gv_family fam = GV_FAMILY_INIT("tplug", ops);
static const gv_family *const fams[] = {&fam, NULL};

const gv_family *const *GPUVAL_PLUGIN_ENTRY(void)
{
    return fams;
}
