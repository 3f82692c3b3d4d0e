/* vadd.c: op descriptors for c = a + b (seed 000), its operands off a 16-byte boundary
 * (vadd.offset), and its planted bugs (a rounding f64 path, additions that round toward zero
 * or one ulp up, stray stores past, before and into the buffers) and faults (an illegal
 * address, a hang, vector loads that assume 16-byte alignment).
 * Error model: docs/error-models.md, section vadd. */
#include "ops/opkit.h"

extern const gk_op gk_vadd, gk_vadd_f32round, gk_vadd_rz, gk_vadd_ulp, gk_vadd_ftz, gk_vadd_accum,
    gk_vadd_pastend, gk_vadd_prestart, gk_vadd_clobber, gk_vadd_illegal, gk_vadd_hang, gk_vadd_slow,
    gk_vadd_idx32, gk_vadd_aligned16;

/* The large tier's size: 2^31 + 5, past the last index a signed 32-bit int holds, and not a
   multiple of the 4-wide vector step (the tail loop runs past 2^31 too). */
#define VADD_LARGE "2147483653"

static int vadd_layout(const gv_case *c, gv_layout *l)
{
    int64_t n = c->shape.d[0];
    *l = (gv_layout){.n_in = 2, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"a", n};
    l->in[1] = (gv_tensor_spec){"b", n};
    l->out[0] = (gv_tensor_spec){"c", n};
    return GV_OK;
}

/* vadd.offset: every operand where a user's pointer may lie and a 16-byte vector load may not
   (abi/layout.h): f32 a, b, c at 4, 8 and 12 bytes past a 256-byte boundary (one, two and
   three elements); f64 all three at 8 bytes, one element (4 bytes is no legal address of a
   double). */
static int vadd_offset_layout(const gv_case *c, gv_layout *l)
{
    int rc = vadd_layout(c, l);
    int64_t es = (int64_t)gv_dtype_size(c->dtype);
    for (int t = 0; t < 3; t++) {
        gk_place *place = t < 2 ? &l->in_place[t] : &l->out_place[0];
        place->offset_bytes = gk_place_odd_offset(es, t);
    }
    return rc;
}

static double vadd_flops(const gv_case *c)
{
    return (double)c->shape.d[0];
}
static double vadd_bytes(const gv_case *c)
{
    return 3.0 * (double)c->shape.d[0] * gv_esize(c);
}
static double vadd_depth(const gv_case *c)
{
    (void)c;
    return 1.0;
}

static int vadd_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    gv_fill(p, 1, p->c.dist);
    return GV_OK;
}

static int vadd_oracle(gv_problem *p)
{
    int64_t n = p->c.shape.d[0];
    return gv_oracle_rc(go_vadd(n, p->in[0].ref, p->in[1].ref, p->out[0].ref));
}

static int vadd_gauge(gv_problem *p)
{
    int64_t n = p->c.shape.d[0];
    return gv_oracle_rc(go_vadd_gauge(n, p->in[0].ref, p->in[1].ref, p->out[0].gauge));
}

/* One correctly rounded addition an output: its error is symmetric on every distribution, so
   the bias rule judges them all. */
#define VADD_DISTS (GV_ALL_DISTS | GV_BIT(GV_DIST_WIDE) | GV_EDGE_DISTS)

/* VADD_COMMON with the default zero-mean inputs; vadd.rz takes VADD_BASE and wide inputs */
#define VADD_COMMON VADD_BASE, .default_dist = GV_DIST_UNIFORM11

/* VADD_BASE: dense operands; the kernel checks their alignment, so its interface takes any
   offset (vadd.offset runs one) */
#define VADD_BASE VADD_HOOKS, .layout = vadd_layout, .takes_layouts = GK_TAKES_OFFSET

#define VADD_HOOKS                                                                                 \
    .family = "vadd", .dims = "n", .in_dims = "n;n", .out_dims = "n",                              \
    .modes = GV_BIT(GV_MODE_NATIVE), .dists = VADD_DISTS, .bias_dists = VADD_DISTS,                \
    .zero_sign = true, .range_degree = 1,                                                          \
    .flops = vadd_flops, .bytes = vadd_bytes, .make_inputs = vadd_inputs, .oracle = vadd_oracle,   \
    .gauge = vadd_gauge, .depth = vadd_depth,                                                      \
    .error_model = "|c-r| <= u(|a|+|b|): gauge |a|+|b|, depth 1, one rounded addition "            \
                   "(Higham ASNA eq. 2.4) (docs/error-models.md)"

static const gv_op vadd = {
    .name = "vadd",
    .summary = "c = a + b, element-wise (seed 000)",
    .dtypes = GV_BOTH_DTYPES,
    .shapes = "1e3,1e5,100003,1048583,1e7,1e8",
    .test_shapes = "1,1000,4099,100003,1e6,1048583",
    .large_shapes = VADD_LARGE,
    /* uniform inputs lie on a 2^-52 grid where every f64 sum is exact: in f64 only inputs with
       full significands (wide) give the rounding something to do, and a rounding-direction bug
       something to show (vadd.rz) */
    .canaries = "wide:100003,tiny:100003,huge:100003,sparse-special:100003",
    .test_canaries = "wide:4099,tiny:4099,huge:4099,sparse-special:4099",
    .device = GV_KERNEL(gk_vadd),
    VADD_COMMON,
};

/* Operands as a user may pass them: none 16-byte aligned, so the kernel's run-time check sends
   every case down the scalar path (1001 and 100003 leave a tail of the vector step too). */
static const gv_op vadd_offset = {
    .name = "vadd.offset",
    .summary = "c = a + b with a, b, c off 16-byte boundaries (f32 +4/+8/+12 bytes, f64 +8)",
    .dtypes = GV_BOTH_DTYPES,
    .shapes = "1001,100003,1048583",
    .test_shapes = "1,1001,4099,100003",
    .device = GV_KERNEL(gk_vadd),
    VADD_HOOKS,
    .layout = vadd_offset_layout,
    .takes_layouts = GK_TAKES_OFFSET,
    .default_dist = GV_DIST_UNIFORM11,
};

static const gv_op vadd_f32round = {
    .name = "vadd.f32round",
    .summary = "planted bug: the f64 addition rounds through f32",
    .planted_bug = "f64 path computes in f32",
    .dtypes = GV_BIT(GV_F64),
    .shapes = "1e5",
    .test_shapes = "1000,4099",
    .device = GV_KERNEL(gk_vadd_f32round),
    VADD_COMMON,
};

/* Bias bugs: every result within one ulp of the right one, so the worst-case model (ratio at
   most 2 and 3 at depth 1), the tiers and the guards all pass; only the bias rule sees that
   the errors lean one way (docs/error-models.md, "Bias"; tests/cpu/model_bias.c plants the
   same arithmetic on the CPU). On signed inputs rounding toward zero cancels in the signed
   mean and shows in the sign(r)-weighted one; one ulp up shows in the signed one. vadd.rz
   takes wide inputs: on the uniform ones every f64 sum is exact and rounds no way at all. */
static const gv_op vadd_rz = {
    .name = "vadd.rz",
    .summary = "planted bug: the addition rounds toward zero (__fadd_rz, __dadd_rz)",
    .planted_bug = "rounds toward zero: errors lean toward zero",
    .dtypes = GV_BOTH_DTYPES,
    .shapes = "1000,100003",
    .test_shapes = "1001,4099,100003",
    .device = GV_KERNEL(gk_vadd_rz),
    VADD_BASE,
    .default_dist = GV_DIST_WIDE,
};

static const gv_op vadd_ulp = {
    .name = "vadd.ulp",
    .summary = "planted bug: the sum rounded to nearest, then one ulp up (nextafter to +inf)",
    .planted_bug = "one ulp up: errors lean upward",
    .dtypes = GV_BOTH_DTYPES,
    .shapes = "1000,100003",
    .test_shapes = "1001,4099,100003",
    .device = GV_KERNEL(gk_vadd_ulp),
    VADD_COMMON,
};

/* Edge bugs (docs/error-models.md, "The edges"): right on ordinary numbers, wrong at the edge
   their own inputs reach. The FTZ addition flushes the subnormals tiny inputs are made of
   (the judge's FTZ rule: native promises IEEE subnormals); the accumulating one loses the sign
   of -0 + -0, which sparse-special puts in both operands at the same positions. */
static const gv_op vadd_ftz = {
    .name = "vadd.ftz",
    .summary = "planted bug: f32 addition with flush-to-zero (add.rn.ftz.f32)",
    .planted_bug = "subnormal inputs and results flushed to zero",
    .dtypes = GV_BIT(GV_F32),
    .shapes = "100003",
    .test_shapes = "4099,100003",
    .device = GV_KERNEL(gk_vadd_ftz),
    VADD_BASE,
    .default_dist = GV_DIST_TINY,
};

static const gv_op vadd_accum = {
    .name = "vadd.accum",
    .summary = "planted bug: c zeroed, then a and b added into it (-0 + -0 comes out +0)",
    .planted_bug = "the sign of a -0 result lost",
    .dtypes = GV_BOTH_DTYPES,
    .shapes = "100003",
    .test_shapes = "4099,100003",
    .device = GV_KERNEL(gk_vadd_accum),
    VADD_BASE,
    .default_dist = GV_DIST_SPARSE_SPECIAL,
};

/* Guard bugs: c itself is right, so only gk_run's red zones and input check can FAIL
   them. 1001 is not a multiple of the 4-wide vector step: the tail loop runs. */
#define VADD_GUARD_COMMON                                                                          \
    .dtypes = GV_BOTH_DTYPES, .shapes = "1001", .test_shapes = "1,1001,4099", VADD_COMMON

static const gv_op vadd_pastend = {
    .name = "vadd.pastend",
    .summary = "planted bug: also writes c[n], one element past the end of c",
    .planted_bug = "writes one element past the end of its output",
    .device = GV_KERNEL(gk_vadd_pastend),
    VADD_GUARD_COMMON,
};

static const gv_op vadd_prestart = {
    .name = "vadd.prestart",
    .summary = "planted bug: also writes c[-1], one element before the start of c",
    .planted_bug = "writes one element before the start of its output",
    .device = GV_KERNEL(gk_vadd_prestart),
    VADD_GUARD_COMMON,
};

static const gv_op vadd_clobber = {
    .name = "vadd.clobber",
    .summary = "planted bug: overwrites the input a[n-1] after reading it",
    .planted_bug = "writes into its input a",
    .device = GV_KERNEL(gk_vadd_clobber),
    VADD_GUARD_COMMON,
};

/* Faults: each must fail its own case (ERROR, with the CUDA error's name or the timeout)
   and leave the other cases of the run to run and report (src/core/runner.c). */
static const gv_op vadd_illegal = {
    .name = "vadd.illegal",
    .summary = "planted fault: a store through a wild pointer (cudaErrorIllegalAddress)",
    .planted_bug = "illegal address: the CUDA context is lost",
    .planted_fault = true,
    .device = GV_KERNEL(gk_vadd_illegal),
    VADD_GUARD_COMMON,
};

static const gv_op vadd_hang = {
    .name = "vadd.hang",
    .summary = "planted fault: a kernel that spins for 30 minutes (check --case-timeout)",
    .planted_bug = "hangs: only the per-case timeout ends it",
    .planted_fault = true,
    .device = GV_KERNEL(gk_vadd_hang),
    VADD_GUARD_COMMON,
};

/* A fault of layout: float4 / double2 loads with no alignment check, on vadd.offset's
   operands. The hardware refuses a vector load off its natural alignment
   (cudaErrorMisalignedAddress, which leaves the context unusable): an ERROR of its own case,
   as vadd.illegal's. Its interface takes aligned operands only (takes_layouts 0). */
static const gv_op vadd_aligned16 = {
    .name = "vadd.aligned16",
    .summary = "planted fault: 16-byte vector loads without the alignment check, on offset "
               "operands (cudaErrorMisalignedAddress)",
    .planted_bug = "assumes 16-byte aligned operands: misaligned vector loads",
    .planted_fault = true,
    .dtypes = GV_BOTH_DTYPES,
    .shapes = "1001",
    .test_shapes = "1001,4099",
    .device = GV_KERNEL(gk_vadd_aligned16),
    VADD_HOOKS,
    .layout = vadd_offset_layout,
    .default_dist = GV_DIST_UNIFORM11,
};

/* A planted slowdown: vadd's results, bit for bit, at four times its memory traffic. The
   regression demo (ci/regression-demo) runs it `--as vadd` against a vadd baseline. */
static const gv_op vadd_slow = {
    .name = "vadd.slow",
    .summary = "planted slowdown: vadd's kernel run four times over the same buffers",
    .planted_slow = "four passes where one does",
    .dtypes = GV_BOTH_DTYPES,
    .shapes = "1e3,1e5,100003,1048583,1e7,1e8",
    .test_shapes = "1000,1048583",
    .device = GV_KERNEL(gk_vadd_slow),
    VADD_COMMON,
};

/* A bug of the large tier: the index and the count kept in a 32-bit int, the count clamped to
   INT_MAX so that the int index never overflows. Right up to 2^31 - 1 elements; past that the
   last n - (2^31 - 1) elements are never written, and the poison check FAILs them as unwritten.
   Selected only with check --large (its shapes are the large tier's). */
static const gv_op vadd_idx32 = {
    .name = "vadd.idx32",
    .summary = "planted bug: a 32-bit int element index, the count clamped to INT_MAX",
    .planted_bug = "32-bit index: elements from 2^31 - 1 on are never written",
    .dtypes = GV_BIT(GV_F32),
    .shapes = VADD_LARGE,
    .large_shapes = VADD_LARGE,
    .device = GV_KERNEL(gk_vadd_idx32),
    VADD_COMMON,
};

/* The faults come before the guard bugs: those cases run after a lost context and a kill,
   and must still be judged (FAIL with their guard message). */
const gv_op *const gv_family_vadd[] = {
    &vadd,         &vadd_offset,   &vadd_f32round, &vadd_rz,      &vadd_ulp,   &vadd_ftz,
    &vadd_accum,   &vadd_illegal,  &vadd_hang,     &vadd_aligned16, &vadd_pastend,
    &vadd_prestart, &vadd_clobber, &vadd_slow,     &vadd_idx32,   NULL};
