/* invalid.c: a plugin whose descriptor has no reference and no judge_as (test_plugin.c). */
#include <gpuval.h>

static const gv_op_desc op = {.name = "tinvalid.op", .dims = "n", .shapes = "8", .n_out = 1};
static const gv_op_desc *const ops[] = {&op, NULL};
static const gv_family fam = GV_FAMILY_INIT("tinvalid", ops);
static const gv_family *const fams[] = {&fam, NULL};

const gv_family *const *GPUVAL_PLUGIN_ENTRY(void)
{
    return fams;
}
