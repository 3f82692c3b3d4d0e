/* ops.c: the example's ops described to gpuval. ext.softmax brings its own f64 reference and
 * error model (softmax_ref.c); ext.sgemm is judged as gpuval's gemm (its oracle, gauge, depth
 * and probabilistic model). Each has planted bugs the checker must FAIL: the softmax without
 * the max subtracted, an sgemm off by one in k, an sgemm writing past its output (gpuval's
 * red zones around a user's tensors catch it, as around its own). Without CUDA the launch hooks are
 * NULL and every case SKIPs. */
#include "ops.h"

#include "softmax_ref.h"

#ifdef EXT_HAVE_CUDA
#define EXT_LAUNCH(f) (f)
#else
#define EXT_LAUNCH(f) NULL
#endif

/* the inputs are the op's own (ext_softmax_inputs): uniform logits, named uniform11 */
#define SOFTMAX_MODEL                                                                              \
    .dims = "rows,cols", .dists = "uniform11", .n_in = 1, .n_out = 1, .in_names = {"x"},           \
    .out_names = {"y"}, .layout = ext_softmax_layout, .flops = ext_softmax_flops,                  \
    .bytes = ext_softmax_bytes, .make_inputs = ext_softmax_inputs,                                 \
    .reference = ext_softmax_reference, .gauge = ext_softmax_gauge, .depth = ext_softmax_depth,    \
    .error_model = "|y'-y| <= u y (|x-m| + sum y|x-m| + n + 8) (softmax_ref.c)"

const gv_op_desc ext_softmax = {
    .name = "ext.softmax",
    .summary = "row softmax, max subtracted (examples/external-op)",
    .dtypes = "f32,f64",
    .shapes = "1000x1000,4096x4096,16x65536",
    .test_shapes = "1x1,7x33,128x1000,33x4097,4x65536",
    .launch = EXT_LAUNCH(ext_softmax_launch),
    SOFTMAX_MODEL,
};

const gv_op_desc ext_softmax_nomax = {
    .name = "ext.softmax.nomax",
    .summary = "planted bug: softmax without the max subtracted",
    .planted_bug = "exp(x) overflows f32 for logits above 88.7",
    .dtypes = "f32",
    .shapes = "128x1000",
    .test_shapes = "7x33,128x1000",
    .launch = EXT_LAUNCH(ext_softmax_nomax_launch),
    SOFTMAX_MODEL,
};

const gv_op_desc ext_sgemm = {
    .name = "ext.sgemm",
    .summary = "naive f32 C = A B, one thread per element, judged as gemm",
    .judge_as = "gemm",
    .dtypes = "f32",
    .shapes = "128x128x128,1000x999x1001",
    .test_shapes = "64x64x64,100x37x129,33x65x31,1x1x1",
    .launch = EXT_LAUNCH(ext_sgemm_launch),
};

const gv_op_desc ext_sgemm_lastk = {
    .name = "ext.sgemm.lastk",
    .summary = "planted bug: the naive sgemm drops the last term of each dot product",
    .planted_bug = "off by one in the k loop",
    .judge_as = "gemm",
    .dtypes = "f32",
    .shapes = "100x37x129",
    .test_shapes = "100x37x129,33x65x31",
    .launch = EXT_LAUNCH(ext_sgemm_lastk_launch),
};

const gv_op_desc ext_sgemm_past = {
    .name = "ext.sgemm.past",
    .summary = "planted bug: the naive sgemm also writes one element past the end of C",
    .planted_bug = "writes C[m n], outside its output",
    .judge_as = "gemm",
    .dtypes = "f32",
    .shapes = "100x37x129",
    .test_shapes = "100x37x129",
    .launch = EXT_LAUNCH(ext_sgemm_past_launch),
};

static const gv_op_desc *const ext_ops[] = {&ext_softmax,     &ext_softmax_nomax, &ext_sgemm,
                                            &ext_sgemm_lastk, &ext_sgemm_past,    NULL};
static const gv_family ext_family = GV_FAMILY_INIT("ext", ext_ops);
const gv_family *const ext_families[] = {&ext_family, NULL};
