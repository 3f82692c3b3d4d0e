/* test_overlap.c: a case's device run on its own thread, overlapping the oracle
 * (src/core/run.c), must give what the serial order gives: the same verdict, the same output
 * bits (the output hash) and the same error metrics, for ops whose device runs take
 * inputs, aux data (lsmr's sparse pattern), a workspace, cuBLAS, cuSOLVER, cuFFT and
 * hand-written kernels, and for a planted bug that must still FAIL. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"

static gv_result run_one(const char *op, gv_dtype t, gv_shape s, bool serial)
{
    if (serial)
        setenv("GPUVAL_SERIAL_CASE", "1", 1);
    else
        unsetenv("GPUVAL_SERIAL_CASE");
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
    gv_case cs = {gv_op_find(op), t, GV_MODE_NATIVE, GV_DIST_UNIFORM11, s, 7};
    cr_assert_not_null(cs.op, "op %s is registered", op);
    char why[256] = "";
    cr_assert(gv_shape_ok(cs.op, &s, why, sizeof why), "%s: %s", op, why);
    cs.dist = cs.op->default_dist;
    gv_result r;
    cr_assert_eq(gv_run_case(&cs, &r), GV_OK);
    unsetenv("GPUVAL_SERIAL_CASE");
    gv_knobs_reload(); /* knobs are read once a process: again after a change */
    return r;
}

static void same(const char *op, gv_dtype t, gv_shape s, gv_verdict want)
{
    gv_result a = run_one(op, t, s, false), b = run_one(op, t, s, true);
    cr_log_info("%s %s: overlapped %s, serial %s; device %.1f ms, oracle %.1f ms", op,
                gv_dtype_name(t), gv_verdict_name(a.verdict), gv_verdict_name(b.verdict),
                a.device_ms, a.oracle_ms);
    cr_expect_eq(a.verdict, want, "%s %s: %s (%s)", op, gv_dtype_name(t),
                 gv_verdict_name(a.verdict), a.reason);
    cr_expect_eq(a.verdict, b.verdict, "%s: overlapped %s, serial %s", op,
                 gv_verdict_name(a.verdict), gv_verdict_name(b.verdict));
    cr_expect(a.have_hash && b.have_hash && a.output_hash == b.output_hash,
              "%s %s: the outputs differ between overlapped and serial runs", op, gv_dtype_name(t));
    cr_expect(memcmp(&a.m, &b.m, sizeof a.m) == 0, "%s %s: the metrics differ", op,
              gv_dtype_name(t));
}

Test(gpu_overlap, overlapped_and_serial_runs_agree, .timeout = 300)
{
    same("vadd", GV_F64, (gv_shape){1, {1000003}}, GV_PASS);
    same("gemm.cublas", GV_F32, (gv_shape){3, {300, 257, 129}}, GV_PASS);
    same("gemm.regblock", GV_F64, (gv_shape){3, {129, 65, 33}}, GV_PASS);
    same("diffusion.periodic", GV_F32, (gv_shape){3, {300, 257, 20}}, GV_PASS);
    same("lsmr.ridge", GV_F64, (gv_shape){3, {300, 200, 6}}, GV_PASS);
    same("solve.gesv", GV_F64, (gv_shape){2, {257, 6}}, GV_PASS);
    same("fft.c2c.fwd", GV_F32, (gv_shape){2, {1000, 4}}, GV_PASS);
    same("einsum.colsum.lastchunk", GV_F32, (gv_shape){3, {10000, 500, 300}}, GV_FAIL);
}
