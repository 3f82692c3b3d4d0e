/* run_device.h: the GPU tests' direct launch of one op's device kernel on a problem's inputs,
 * bypassing the judge, for tests that compare outputs bit for bit. */
#ifndef GV_TEST_RUN_DEVICE_H
#define GV_TEST_RUN_DEVICE_H

#include <criterion/criterion.h>

#include "gk.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"

/* Run op's device kernel on p's inputs; the output into out (p's dtype). */
static inline void run_device(const gv_op *op, gv_problem *p, void *out)
{
    gk_launch L;
    gk_host_io io;
    gv_problem_launch(p, &L, &io);
    io.out[0] = out;
    int rc = gk_run(op->device, &L, &io);
    cr_assert_eq(rc, GV_OK, "%s: %s", op->name, gk_last_error());
}

#endif
