/* test_misuse.c: gpuval refuses a wrong descriptor with the op and the fault named, and
 * registers nothing of a family that holds one; the example's own family registers. */
#include <string.h>

#include "../ops.h"
#include "../softmax_ref.h"
#include "check.h"

static void refused(const gv_op_desc *d, int want, const char *msg)
{
    const gv_op_desc *ops[] = {d, NULL};
    gv_family f = GV_FAMILY_INIT("misuse", ops);
    char err[512] = "";
    int rc = gv_register_family(&f, err, sizeof err);
    CHECK(rc == want, "rc %d (%s), want %d", rc, gv_api_strerror(rc), want);
    CHECK(strstr(err, msg) != NULL, "message '%s' lacks '%s'", err, msg);
}

int main(void)
{
    CHECK(gv_api_version() / 1000 == GPUVAL_API_VERSION_MAJOR, "library API %d, header %d",
          gv_api_version(), GPUVAL_API_VERSION);
    /* judge_as and an own reference at once */
    gv_op_desc both = ext_sgemm;
    both.name = "misuse.both";
    both.reference = ext_softmax_reference;
    refused(&both, GV_API_EINVAL, "misuse.both: judge_as takes the built-in's model");
    /* an own model without depth */
    gv_op_desc nodepth = ext_softmax;
    nodepth.name = "misuse.nodepth";
    nodepth.depth = NULL;
    refused(&nodepth, GV_API_EINVAL, "misuse.nodepth: depth is required");
    /* a shape of the wrong rank */
    gv_op_desc rank = ext_softmax;
    rank.name = "misuse.rank";
    rank.shapes = "1000";
    refused(&rank, GV_API_EINVAL, "misuse.rank takes 2 dims (rows,cols), got 1");
    /* a built-in that does not exist, and a dtype the built-in lacks */
    gv_op_desc as = ext_sgemm;
    as.name = "misuse.as";
    as.judge_as = "conv2d"; /* no such family (softmax became one) */
    refused(&as, GV_API_EINVAL, "judge_as names no built-in op or family 'conv2d'");
    as.judge_as = "vadd";
    as.shapes = "100";
    as.dtypes = "f16";
    refused(&as, GV_API_EINVAL, "misuse.as: unknown dtype 'f16'");
    /* a family from another major version */
    const gv_op_desc *ops[] = {&ext_softmax, NULL};
    gv_family old = {GPUVAL_API_VERSION + 1000, "old", ops};
    char err[512] = "";
    CHECK(gv_register_family(&old, err, sizeof err) == GV_API_EABI, "%s", err);
    /* the example's own family registers once, and a second time is a duplicate */
    CHECK(gv_register_family(ext_families[0], err, sizeof err) == GV_API_OK, "%s", err);
    CHECK(gv_register_family(ext_families[0], err, sizeof err) == GV_API_EEXIST, "%s", err);
    CHECK(strstr(err, "ext.softmax: an op of that name is already registered") != NULL, "%s", err);
    if (ext_failures) fprintf(stderr, "%d checks failed\n", ext_failures);
    return ext_failures ? 1 : 0;
}
