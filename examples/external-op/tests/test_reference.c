/* test_reference.c: the softmax's f64 reference against closed forms, and its gauge against
 * the model's promises (g >= |r|, finite), on the CPU. */
#include <math.h>
#include <stdlib.h>

#include "../softmax_ref.h"
#include "check.h"

/* a row of equal logits: every y is 1/n, even at logits far beyond exp's range */
static void equal_logits(void)
{
    double x[7], y[7];
    for (int j = 0; j < 7; j++)
        x[j] = 1000.0;
    ext_softmax_row(x, y, 7);
    for (int j = 0; j < 7; j++)
        CHECK(fabs(y[j] - 1.0 / 7) <= 2e-16, "y[%d] = %.17g, want 1/7", j, y[j]);
}

/* x_j = log(j + 1): y_j = (j + 1) / (n (n + 1) / 2) */
static void log_logits(void)
{
    enum { n = 100 };
    double x[n], y[n];
    for (int j = 0; j < n; j++)
        x[j] = log(j + 1.0);
    ext_softmax_row(x, y, n);
    for (int j = 0; j < n; j++) {
        double want = (j + 1.0) / (n * (n + 1) / 2.0);
        CHECK(fabs(y[j] - want) <= 1e-14 * want, "y[%d] = %.17g, want %.17g", j, y[j], want);
    }
}

/* two logits a apart: y = (1, e^-a) / (1 + e^-a); shift-invariant (the max is subtracted:
   at a shift of 800 exp alone overflows f64) */
static void two_logits_and_shift(void)
{
    for (double shift = -800; shift <= 800; shift += 400) {
        double x[2] = {shift + 3.0, shift}, y[2];
        ext_softmax_row(x, y, 2);
        double want0 = 1 / (1 + exp(-3.0)), want1 = exp(-3.0) / (1 + exp(-3.0));
        CHECK(fabs(y[0] - want0) <= 1e-15 && fabs(y[1] - want1) <= 1e-15,
              "shift %g: y = (%.17g, %.17g), want (%.17g, %.17g)", shift, y[0], y[1], want0, want1);
    }
}

/* the hooks on a case: rows sum to 1, gauge >= |y| and finite, inputs inside the range */
static void hooks_on_a_case(void)
{
    gv_case_info c = {
        .dtype = GV_DTYPE_F32, .mode = "native", .nd = 2, .dims = {5, 300}, .seed = 3};
    gv_layout_info l = {{0}, {0}, 0};
    CHECK(ext_softmax_layout(&c, &l, NULL) == GV_API_OK, "layout");
    CHECK(l.in_count[0] == 1500 && l.out_count[0] == 1500, "counts %lld %lld",
          (long long)l.in_count[0], (long long)l.out_count[0]);
    double *x = malloc(1500 * sizeof *x), *y = malloc(1500 * sizeof *y),
           *g = malloc(1500 * sizeof *g);
    ext_softmax_inputs(&c, &x, l.in_count, NULL);
    int over = 0;
    for (int i = 0; i < 1500; i++) {
        CHECK(fabs(x[i]) <= EXT_LOGIT_RANGE, "x[%d] = %g", i, x[i]);
        over += x[i] > 88.8; /* the planted bug needs logits where expf overflows */
    }
    CHECK(over > 0, "no logit above 88.8 in 1500");
    const double *in[1] = {x}, *ref[1] = {y};
    ext_softmax_reference(&c, in, &y, NULL);
    ext_softmax_gauge(&c, in, ref, &g, NULL);
    for (int r = 0; r < 5; r++) {
        double s = 0;
        for (int j = 0; j < 300; j++)
            s += y[r * 300 + j];
        CHECK(fabs(s - 1) <= 1e-13, "row %d sums to %.17g", r, s);
    }
    for (int i = 0; i < 1500; i++)
        CHECK(isfinite(g[i]) && g[i] >= fabs(y[i]), "gauge[%d] = %g < |y| = %g", i, g[i], y[i]);
    CHECK(ext_softmax_depth(&c, NULL) == 308, "depth %g", ext_softmax_depth(&c, NULL));
    free(x);
    free(y);
    free(g);
}

int main(void)
{
    equal_logits();
    log_logits();
    two_logits_and_shift();
    hooks_on_a_case();
    if (ext_failures) fprintf(stderr, "%d checks failed\n", ext_failures);
    return ext_failures ? 1 : 0;
}
