/* ctrl.c: a valid plugin whose op summary carries terminal controls (ESC sequences, BEL): `gpuval
 * list` must show them escaped, never send them to the terminal (tests/cpu/test_plugin.c). */
#include <gpuval.h>

static const gv_op_desc ctrl = {.name = "tctrl.gemm",
                                .summary = "judged as gemm\x1b[2J\x1b]0;title\x07 (test plugin)",
                                .shapes = "8x8x8",
                                .judge_as = "gemm"};
static const gv_op_desc *const ops[] = {&ctrl, NULL};
static const gv_family fam = GV_FAMILY_INIT("tctrl", ops);
static const gv_family *const fams[] = {&fam, NULL};

const gv_family *const *GPUVAL_PLUGIN_ENTRY(void)
{
    return fams;
}
