/* test_probe.c: `gpuval probe`'s measurements on the device (src/probe/): every probed mode of
 * gemm.cublas and the hand-written GEMMs meets the expectation file of the device's
 * architecture (PASS or NEW, never FAIL), and every planted impostor FAILs the feature that
 * tells it apart. Where the architecture has no expectation file, each test is skipped. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/registry.h"
#include "probe/expect.h"
#include "probe/fprint_device.h"

static int g_sm; /* the device's compute capability x 10, set by load */

static bool load(gv_fp_expect *e)
{
    gk_device_info info;
    if (gk_device_info_get(&info) != GV_OK) return false;
    char err[512];
    g_sm = info.cc_major * 10 + info.cc_minor;
    return gv_fp_expect_builtin(g_sm, e, err, sizeof err) == GV_OK;
}

/* The fingerprint of (op, t, m) judged: returns the number of FAILs, the verdict of feature
   `want` (when >= 0) in *verdict. */
static int probe_one(const gv_fp_expect *e, const char *opname, gv_dtype t, gv_mode m, int want,
                     gv_fp_verdict *verdict, char *text, size_t len)
{
    const gv_op *op = gv_op_find(opname);
    cr_assert_not_null(op, "%s is registered", opname);
    gv_fp_arith a;
    cr_assert_eq(gv_fp_arith_of(t, m, &a), GV_OK);
    gv_fp_device dev = {.op = op, .dtype = t, .mode = m};
    gv_fp_print fp;
    char why[256] = "";
    int rc = gv_fp_measure(&a, gv_fp_device_gemm, &dev, &fp, why, sizeof why);
    cr_assert_eq(rc, GV_OK, "%s %s %s: %s", opname, gv_dtype_name(t), gv_mode_name(m), why);
    int fails = 0;
    for (int f = 0; f < GV_FP_NFEATURES; f++) {
        gv_fp_verdict v = gv_fp_judge(gv_fp_expect_find(e, opname, t, m, f), &fp.f[f]);
        if (v == GV_FP_FAIL) {
            fails++;
            cr_log_info("%s %s %s: %s = %s FAILs (%s)", opname, gv_dtype_name(t), gv_mode_name(m),
                        gv_fp_feature_name(f), fp.f[f].text, fp.f[f].detail);
        }
        if (f == want) {
            *verdict = v;
            snprintf(text, len, "%s (%s)", fp.f[f].text, fp.f[f].detail);
        }
    }
    return fails;
}

Test(gpu_probe, every_mode_meets_its_architecture, .timeout = 120)
{
    gv_fp_expect e;
    if (!load(&e)) cr_skip_test("no expectation file for this architecture");
    static const struct {
        const char *op;
        gv_dtype t;
        gv_mode m;
    } rows[] = {
        {"gemm.cublas", GV_F32, GV_MODE_NATIVE},    {"gemm.cublas", GV_F32, GV_MODE_TF32},
        {"gemm.cublas", GV_F32, GV_MODE_F16},       {"gemm.cublas", GV_F32, GV_MODE_BF16},
        {"gemm.cublas", GV_F32, GV_MODE_F16ACC},    {"gemm.cublas", GV_F32, GV_MODE_FP8},
        {"gemm.cublas", GV_F64, GV_MODE_NATIVE},    {"gemm.cublas", GV_F64, GV_MODE_FP64EMU_32},
        {"gemm.cublas", GV_F64, GV_MODE_FP64EMU_40}, {"gemm.tiled", GV_F32, GV_MODE_NATIVE},
        {"gemm.tiled", GV_F64, GV_MODE_NATIVE},     {"gemm.regblock", GV_F32, GV_MODE_NATIVE},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        gv_fp_verdict v;
        char text[256];
        int fails = probe_one(&e, rows[i].op, rows[i].t, rows[i].m, -1, &v, text, sizeof text);
        cr_expect_eq(fails, 0, "%s %s %s: %d features FAIL their expectation", rows[i].op,
                     gv_dtype_name(rows[i].t), gv_mode_name(rows[i].m), fails);
    }
    /* the emulations' correctly rounded share, and the scaled fp8 modes (9.0 only) */
    static const gv_mode emu[] = {GV_MODE_FP64EMU, GV_MODE_FP64EMU_48, GV_MODE_FP64EMU_56};
    for (size_t i = 0; i < sizeof emu / sizeof emu[0]; i++) {
        gv_fp_verdict v;
        char text[256];
        cr_expect_eq(probe_one(&e, "gemm.cublas", GV_F64, emu[i], -1, &v, text, sizeof text), 0,
                     "gemm.cublas f64 %s FAILs", gv_mode_name(emu[i]));
    }
    static const gv_mode scaled[] = {GV_MODE_FP8E5M2, GV_MODE_FP8ROW, GV_MODE_FP8BLK};
    for (size_t i = 0; g_sm == 90 && i < sizeof scaled / sizeof scaled[0]; i++) {
        gv_fp_verdict v;
        char text[256];
        cr_expect_eq(probe_one(&e, "gemm.cublas", GV_F32, scaled[i], -1, &v, text, sizeof text),
                     0, "gemm.cublas f32 %s FAILs", gv_mode_name(scaled[i]));
    }
    gv_fp_expect_free(&e);
}

Test(gpu_probe, each_impostor_fails_its_feature, .timeout = 120)
{
    gv_fp_expect e;
    if (!load(&e)) cr_skip_test("no expectation file for this architecture");
    static const struct {
        const char *op;
        gv_dtype t;
        gv_mode m;
        int feature;
    } plants[] = {
        {"gemm.cublas.tf32native", GV_F32, GV_MODE_NATIVE, GV_FP_IN_BITS_A},
        {"gemm.cublas.bf16tf32", GV_F32, GV_MODE_TF32, GV_FP_IN_BITS_A},
        {"gemm.cublas.fp8fast", GV_F32, GV_MODE_FP8, GV_FP_PROMOTION},
        {"gemm.cublas.emuwidth", GV_F64, GV_MODE_FP64EMU_40, GV_FP_ROW_BITS},
        {"gemm.cublas.emunative", GV_F64, GV_MODE_FP64EMU_32, GV_FP_ROW_BITS},
        {"gemm.cublas.rzconv", GV_F32, GV_MODE_F16, GV_FP_IN_ROUND_A},
        {"gemm.cublas.rzconv", GV_F32, GV_MODE_BF16, GV_FP_IN_ROUND_B},
        {"gemm.tiled.unfused", GV_F32, GV_MODE_NATIVE, GV_FP_PRODUCTS},
        {"gemm.tiled.unfused", GV_F64, GV_MODE_NATIVE, GV_FP_PRODUCTS},
        {"gemm.tiled.ftz", GV_F32, GV_MODE_NATIVE, GV_FP_SUBNORMAL_IN},
        {"gemm.cublas.emuauto", GV_F64, GV_MODE_FP64EMU, GV_FP_CR_SHARE},
        {"gemm.cublas.emuwidth", GV_F64, GV_MODE_FP64EMU_56, GV_FP_CR_SHARE},
        /* the scaled fp8 plants: 9.0 only (the loop stops before them elsewhere) */
        {"gemm.cublas.fp8noscale", GV_F32, GV_MODE_FP8E5M2, GV_FP_SCALE_A},
        {"gemm.cublas.fp8noscale", GV_F32, GV_MODE_FP8ROW, GV_FP_SCALE_B},
        {"gemm.cublas.fp8rowtensor", GV_F32, GV_MODE_FP8ROW, GV_FP_SCALE_A},
        {"gemm.cublas.fp8e5m2b", GV_F32, GV_MODE_FP8ROW, GV_FP_IN_BITS_B},
        {"gemm.cublas.fp8e5m2b", GV_F32, GV_MODE_FP8BLK, GV_FP_IN_BITS_B},
        {"gemm.cublas.fp8blkrow", GV_F32, GV_MODE_FP8BLK, GV_FP_SCALE_A},
    };
    for (size_t i = 0; i < sizeof plants / sizeof plants[0]; i++) {
        if (g_sm != 90 && strncmp(plants[i].op, "gemm.cublas.fp8", 15) == 0 &&
            plants[i].m != GV_MODE_FP8)
            continue;
        gv_fp_verdict v = GV_FP_NEW;
        char text[256] = "";
        probe_one(&e, plants[i].op, plants[i].t, plants[i].m, plants[i].feature, &v, text,
                  sizeof text);
        cr_expect_eq(v, GV_FP_FAIL, "%s %s %s: %s is %s, not a FAIL: %s", plants[i].op,
                     gv_dtype_name(plants[i].t), gv_mode_name(plants[i].m),
                     gv_fp_feature_name(plants[i].feature), gv_fp_verdict_name(v), text);
    }
    gv_fp_expect_free(&e);
}
