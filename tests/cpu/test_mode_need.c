/* test_mode_need.c: what each precision mode needs of the device (gv_mode_need, abi/gv_abi.h),
 * by compute capability: a mode the device lacks is a SKIP with the reason, never run under
 * its label. Every mode is asked at every architecture CUDA 13 builds for, and the answers
 * are compared with the thresholds written here from the hardware's documented features. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <string.h>

#include "gv_abi.h"

static const int ccs[] = {75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121};

/* The oldest capability at which the mode runs, or -1 for "10.x only" (bf16x9), -2 for "9.x
   only" (cuBLASLt's outer-vector and blockwise fp8 scaling with Hopper's accumulator model:
   NVIDIA/CUDALibrarySamples issue 310, "Hopper (sm_90) only"). */
static int needed(int mode)
{
    switch (mode) {
    case GV_MODE_FP8E5M2: return 89;
    case GV_MODE_FP8ROW:
    case GV_MODE_FP8BLK: return -2;
    case GV_MODE_TF32:
    case GV_MODE_IRS_TF32:
    case GV_MODE_BF16:
    case GV_MODE_IRS_BF16: return 80;
    case GV_MODE_FP8: return 89;
    case GV_MODE_BF16X9: return -1;
    case GV_MODE_FP64EMU:
    case GV_MODE_FP64EMU_32:
    case GV_MODE_FP64EMU_40:
    case GV_MODE_FP64EMU_48:
    case GV_MODE_FP64EMU_56: return 90;
    default: return 0;
    }
}

Test(mode_need, every_mode_at_every_architecture)
{
    for (int m = 0; m < (int)GV_NMODES; m++)
        for (size_t i = 0; i < sizeof ccs / sizeof ccs[0]; i++) {
            int cc = ccs[i], need = needed(m);
            bool runs = need == -1 ? cc / 10 == 10 : need == -2 ? cc / 10 == 9 : cc >= need;
            char why[256] = "";
            const char *lack = gv_mode_need(m, cc, why, sizeof why);
            cr_expect_eq(lack == NULL, runs, "%s at %d.%d: %s", gv_mode_get(m)->name, cc / 10,
                         cc % 10, lack ? lack : "runs");
            if (lack) {
                /* the reason names the device's capability, so the SKIP says what was seen */
                char dev[32];
                snprintf(dev, sizeof dev, "%d.%d", cc / 10, cc % 10);
                cr_expect(strstr(lack, dev) != NULL, "'%s' names %s", lack, dev);
                cr_expect(lack == why, "the reason is written into the caller's buffer");
            }
        }
}

Test(mode_need, the_reasons_say_what_is_missing)
{
    char why[256];
    const char *r = gv_mode_need(GV_MODE_FP8, 86, why, sizeof why);
    cr_assert_not_null(r);
    cr_expect(strstr(r, "8.9") != NULL, "%s", r);
    r = gv_mode_need(GV_MODE_TF32, 75, why, sizeof why);
    cr_assert_not_null(r);
    cr_expect(strstr(r, "TF32") != NULL && strstr(r, "7.5") != NULL, "%s", r);
    r = gv_mode_need(GV_MODE_BF16X9, 90, why, sizeof why);
    cr_assert_not_null(r);
    cr_expect(strstr(r, "10.x") != NULL && strstr(r, "9.0") != NULL, "%s", r);
    /* a short buffer is cut, never overrun */
    char tiny[8];
    volatile size_t n = sizeof tiny; /* a size the compiler cannot see (its truncation warning) */
    r = gv_mode_need(GV_MODE_FP8, 75, tiny, n);
    cr_assert_not_null(r);
    cr_expect_eq(strlen(r), sizeof tiny - 1);
}

/* The emulation column marks exactly the modes that emulate the dtype's arithmetic, and with
   input bits it picks the fixed-width fp64 sweep (fp64emu32 ... 56) that trade-offs' report
   draws and the WIDTH probe runs: named here from the modes' documented meaning, so a new row
   that forgets the column fails. */
Test(mode_need, the_emulated_column_marks_the_emulations)
{
    for (int m = 0; m < (int)GV_NMODES; m++) {
        const gv_mode_info *i = gv_mode_get(m);
        bool emu = m == GV_MODE_BF16X9 || m == GV_MODE_FP64EMU || m == GV_MODE_FP64EMU_32 ||
                   m == GV_MODE_FP64EMU_40 || m == GV_MODE_FP64EMU_48 || m == GV_MODE_FP64EMU_56;
        cr_expect_eq(i->emulated != 0, emu, "%s", i->name);
        bool sweep = strncmp(i->name, "fp64emu", 7) == 0 && i->name[7] != '\0';
        cr_expect_eq(i->emulated && i->input_bits > 0, sweep, "%s", i->name);
        /* a mode that cannot run somewhere says why */
        cr_expect_eq(i->cc_min > 0 || i->cc_end > 0, i->need != NULL, "%s", i->name);
    }
}
