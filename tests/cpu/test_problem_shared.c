/* test_problem_shared.c: gv_problem_init_shared (src/core/problem.h), which check's cases use.
 * An f64 case's inputs keep one buffer for the oracle's values and the device's copy; that is
 * sound only where they are the same bytes and nothing writes either afterwards. For every
 * case of the catalogue at test sizes in f64 (its canaries and mode probes too): the inputs
 * equal, bit for bit, those of gv_problem_init, in both buffers; the oracle and the gauges
 * leave them as they were (an oracle that factorised its input in place would hand the device
 * the factors); and the reference and gauges equal those made on separate buffers. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/problem.h"
#include "core/reference.h"
#include "core/registry.h"
#include "testkit.h"

static uint64_t inputs_digest(const gv_problem *p)
{
    uint64_t h = 0;
    for (int i = 0; i < p->l.n_in; i++) {
        h = gv_xxh64(p->in[i].ref, (size_t)p->in[i].count * sizeof(double), h);
        h = gv_xxh64(p->in[i].data, (size_t)p->in[i].count * gv_dtype_size(p->c.dtype), h);
    }
    return h;
}

static uint64_t outputs_digest(const gv_problem *p)
{
    uint64_t h = 0;
    for (int i = 0; i < p->l.n_out; i++) {
        size_t b = (size_t)p->out[i].count * sizeof(double);
        h = gv_xxh64(p->out[i].ref, b, h);
        h = gv_xxh64(p->out[i].gauge, b, h);
        if (p->out[i].pgauge) h = gv_xxh64(p->out[i].pgauge, b, h);
    }
    return h;
}

Test(problem_shared, f64_inputs_in_one_buffer_are_the_same_and_stay_so, .timeout = 900)
{
    gv_cache_enable(false); /* every reference computed, none read back */
    gv_selection sel = {.dist = -1, .dtypes = 1u << GV_F64, .test_shapes = true};
    gv_case *cases = NULL;
    char err[256];
    int n = gv_select(&sel, &cases, err, sizeof err);
    cr_assert_gt(n, 100, "%s", err);
    int shared_cases = 0;
    for (int k = 0; k < n; k++) {
        const gv_case *c = &cases[k];
        gv_problem a, b;
        int ra = gv_problem_init(&a, c), rb = gv_problem_init_shared(&b, c);
        cr_assert_eq(ra, rb, "%s", c->op->name);
        if (ra != GV_OK) continue;
        for (int i = 0; i < b.l.n_in; i++)
            cr_assert(b.in[i].data == (void *)b.in[i].ref, "%s: input %d in one buffer",
                      c->op->name, i);
        shared_cases += b.l.n_in > 0;
        uint64_t before = inputs_digest(&b);
        cr_expect_eq(before, inputs_digest(&a), "%s %s %s: the same inputs", c->op->name,
                     gv_mode_name(c->mode), gv_dist_name(c->dist));
        int oa = gv_reference(&a), ob = gv_reference(&b);
        cr_expect_eq(oa, ob, "%s", c->op->name);
        cr_expect_eq(inputs_digest(&b), before, "%s %s %s: the oracle wrote to its inputs",
                     c->op->name, gv_mode_name(c->mode), gv_dist_name(c->dist));
        if (oa == GV_OK && ob == GV_OK)
            cr_expect_eq(outputs_digest(&b), outputs_digest(&a), "%s %s %s: the same reference",
                         c->op->name, gv_mode_name(c->mode), gv_dist_name(c->dist));
        gv_problem_free(&a);
        gv_problem_free(&b);
    }
    cr_expect_gt(shared_cases, 100);
    free(cases);
    gv_cache_enable(true);
}

/* f32 inputs keep their two buffers: the dtype copy is the rounded values' other bytes. */
Test(problem_shared, f32_inputs_keep_two_buffers)
{
    gv_shape s = {.nd = 1, .d = {1000}};
    gv_case c = gv_test_case("vadd", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, s, 1);
    gv_problem p;
    cr_assert_eq(gv_problem_init_shared(&p, &c), GV_OK);
    cr_expect(p.in[0].data != (void *)p.in[0].ref);
    gv_problem_free(&p);
}
