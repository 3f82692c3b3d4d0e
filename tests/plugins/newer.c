/* newer.c: the v1 entry, but a family that claims a newer minor version than the library's:
 * it may use fields this gpuval does not know, so it must be refused (test_plugin.c). */
#include <gpuval.h>

static const gv_op_desc op = {.name = "tnewer.op", .shapes = "8", .judge_as = "vadd"};
static const gv_op_desc *const ops[] = {&op, NULL};
static const gv_family fam = {GPUVAL_API_VERSION + 1, "tnewer", ops};
static const gv_family *const fams[] = {&fam, NULL};

const gv_family *const *GPUVAL_PLUGIN_ENTRY(void)
{
    return fams;
}
