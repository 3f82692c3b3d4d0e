/* oracle_stencil.c: the stencil family's oracles (oracle/stencil.c) against an independent
 * long double computation, dense operators and hand-worked grids, and their argument checks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

enum { LAPLACE = 0, FIXED = 1, PERIODIC = 2 };

static double *random_grid(int64_t n, unsigned seed, bool signed_values)
{
    double *f = malloc((size_t)n * sizeof *f + 1);
    cr_assert_not_null(f);
    srand(seed);
    for (int64_t i = 0; i < n; i++) {
        double v = (double)rand() / RAND_MAX;
        f[i] = signed_values ? 2 * v - 1 : v;
    }
    return f;
}

/* The truth: each step in long double, written independently of the oracle (neighbour
 * coordinates checked one by one). */
static void ld_sweep(int scheme, int64_t ny, int64_t nx, long double coeff, const long double *x,
                     long double *y)
{
    for (int64_t i = 0; i < ny; i++)
        for (int64_t j = 0; j < nx; j++) {
            long double f = x[i * nx + j], s = 0;
            if (scheme == PERIODIC) {
                s = x[((i + ny - 1) % ny) * nx + j] + x[((i + 1) % ny) * nx + j] +
                    x[i * nx + (j + nx - 1) % nx] + x[i * nx + (j + 1) % nx];
                y[i * nx + j] = f + coeff * (s - 4 * f);
                continue;
            }
            const int64_t di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
            for (int k = 0; k < 4; k++) {
                int64_t a = i + di[k], b = j + dj[k];
                if (a >= 0 && a < ny && b >= 0 && b < nx) s += x[a * nx + b];
            }
            y[i * nx + j] = scheme == LAPLACE ? 4 * f - s : f - 0.25L * (4 * f - s);
        }
}

static double normwise_vs_ld(int scheme, int64_t ny, int64_t nx, int64_t steps, unsigned seed)
{
    int64_t n = ny * nx;
    double *f = random_grid(n, seed, true), *out = malloc((size_t)n * sizeof *out);
    long double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    cr_assert(out && a && b);
    int rc = scheme == LAPLACE ? go_stencil_laplace(ny, nx, f, nx, out, nx)
             : scheme == FIXED ? go_diffusion_fixed(ny, nx, steps, f, nx, out, nx)
                               : go_diffusion_periodic(ny, nx, steps, 0.1, f, nx, out, nx);
    cr_assert_eq(rc, 0);
    for (int64_t i = 0; i < n; i++)
        a[i] = f[i];
    for (int64_t k = 0; k < (scheme == LAPLACE ? 1 : steps); k++) {
        ld_sweep(scheme, ny, nx, 0.1L, a, b);
        long double *t = a;
        a = b;
        b = t;
    }
    long double err = 0, ref = 0;
    for (int64_t i = 0; i < n; i++) {
        err += (out[i] - a[i]) * (out[i] - a[i]);
        ref += a[i] * a[i];
    }
    free(f);
    free(out);
    free(a);
    free(b);
    return ref > 0 ? (double)sqrtl(err / ref) : (double)sqrtl(err);
}

Test(stencil, oracles_match_long_double)
{
    const int64_t shapes[][3] = {{13, 17, 1}, {13, 17, 7}, {13, 17, 50}, {1, 9, 5},
                                 {9, 1, 5},   {2, 2, 3},   {1, 1, 2},    {40, 33, 200}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int scheme = LAPLACE; scheme <= PERIODIC; scheme++) {
            double e =
                normwise_vs_ld(scheme, shapes[s][0], shapes[s][1], shapes[s][2], (unsigned)(s + 1));
            cr_expect_leq(e, 1e-14, "scheme %d %lldx%lldx%lld: normwise %.3g", scheme,
                          (long long)shapes[s][0], (long long)shapes[s][1], (long long)shapes[s][2],
                          e);
        }
}

Test(stencil, hand_worked_grids)
{
    /* laplace of [1 0 0]: 4 - 0, 0 - 1 - 0, 0 - 0 (missing neighbours not subtracted) */
    double row[3] = {1, 0, 0}, out[9];
    cr_assert_eq(go_stencil_laplace(1, 3, row, 3, out, 3), 0);
    cr_expect(out[0] == 4 && out[1] == -1 && out[2] == 0, "%g %g %g", out[0], out[1], out[2]);
    /* one fixed step is the average of the existing neighbours times their count / 4 */
    cr_assert_eq(go_diffusion_fixed(1, 3, 1, row, 3, out, 3), 0);
    cr_expect(out[0] == 0 && out[1] == 0.25 && out[2] == 0, "%g %g %g", out[0], out[1], out[2]);
    double ones[4] = {1, 1, 1, 1};
    cr_assert_eq(go_diffusion_fixed(2, 2, 1, ones, 2, out, 2), 0);
    for (int i = 0; i < 4; i++)
        cr_expect_eq(out[i], 0.5);
    /* a single grid point: fixed edges take it to 0, periodic edges keep it */
    double one = 0.75;
    cr_assert_eq(go_diffusion_fixed(1, 1, 3, &one, 1, out, 1), 0);
    cr_expect_eq(out[0], 0.0);
    cr_assert_eq(go_diffusion_periodic(1, 1, 3, 0.1, &one, 1, out, 1), 0);
    cr_expect_eq(out[0], 0.75);
    /* periodic 3x3 delta in a corner: 0.6 stays, 0.1 to each wrapped neighbour */
    double delta[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    const double want[9] = {0.6, 0.1, 0.1, 0.1, 0, 0, 0.1, 0, 0};
    cr_assert_eq(go_diffusion_periodic(3, 3, 1, 0.1, delta, 3, out, 3), 0);
    for (int i = 0; i < 9; i++)
        cr_expect_float_eq(out[i], want[i], 1e-16, "element %d", i);
}

Test(stencil, periodic_conserves_the_sum_fixed_loses_it_at_the_edges)
{
    int64_t ny = 21, nx = 34, n = ny * nx;
    double *f = random_grid(n, 5, false), *out = malloc((size_t)n * sizeof *out);
    double s0 = 0, s1 = 0, s2 = 0;
    for (int64_t i = 0; i < n; i++)
        s0 += f[i];
    cr_assert_eq(go_diffusion_periodic(ny, nx, 100, 0.1, f, nx, out, nx), 0);
    for (int64_t i = 0; i < n; i++)
        s1 += out[i];
    cr_expect_float_eq(s1, s0, 1e-12 * s0);
    cr_assert_eq(go_diffusion_fixed(ny, nx, 100, f, nx, out, nx), 0);
    for (int64_t i = 0; i < n; i++)
        s2 += out[i];
    cr_expect_lt(s2, 0.9 * s0, "fixed edges leak: %g of %g left", s2, s0);
    free(f);
    free(out);
}

Test(stencil, leading_dimensions_are_honoured)
{
    int64_t ny = 7, nx = 5, ld = 9;
    double *wide = random_grid(ny * ld, 3, true), packed[35], a[35], b[7 * 9];
    for (int64_t i = 0; i < ny; i++)
        for (int64_t j = 0; j < nx; j++)
            packed[i * nx + j] = wide[i * ld + j];
    for (int scheme = LAPLACE; scheme <= PERIODIC; scheme++) {
        int rc1 = scheme == LAPLACE ? go_stencil_laplace(ny, nx, packed, nx, a, nx)
                  : scheme == FIXED ? go_diffusion_fixed(ny, nx, 4, packed, nx, a, nx)
                                    : go_diffusion_periodic(ny, nx, 4, 0.1, packed, nx, a, nx);
        int rc2 = scheme == LAPLACE ? go_stencil_laplace(ny, nx, wide, ld, b, ld)
                  : scheme == FIXED ? go_diffusion_fixed(ny, nx, 4, wide, ld, b, ld)
                                    : go_diffusion_periodic(ny, nx, 4, 0.1, wide, ld, b, ld);
        cr_assert(rc1 == 0 && rc2 == 0);
        for (int64_t i = 0; i < ny; i++)
            for (int64_t j = 0; j < nx; j++)
                cr_expect_eq(a[i * nx + j], b[i * ld + j], "scheme %d (%lld,%lld)", scheme,
                             (long long)i, (long long)j);
    }
    free(wide);
}

Test(stencil, bad_arguments_return_their_index)
{
    double f[4] = {0}, o[4];
    cr_expect_eq(go_stencil_laplace(-1, 2, f, 2, o, 2), -1);
    cr_expect_eq(go_stencil_laplace(2, -2, f, 2, o, 2), -2);
    cr_expect_eq(go_stencil_laplace(2, 2, NULL, 2, o, 2), -3);
    cr_expect_eq(go_stencil_laplace(2, 2, f, 1, o, 2), -4);
    cr_expect_eq(go_stencil_laplace(2, 2, f, 2, o, 1), -6);
    cr_expect_eq(go_diffusion_fixed(2, 2, 0, f, 2, o, 2), -3);
    cr_expect_eq(go_diffusion_fixed(2, 2, 1, f, 1, o, 2), -5);
    cr_expect_eq(go_diffusion_periodic(2, 2, 1, 0.3, f, 2, o, 2), -4);
    cr_expect_str_eq(go_last_error(), "go_diffusion_periodic: argument 4 (coeff) is invalid");
    cr_expect_eq(go_diffusion_periodic(2, 2, 1, 0.1, f, 2, NULL, 2), -7);
    cr_expect_eq(go_diffusion_periodic_gauge(2, 2, 1, -0.1, f, 2, o, 2), -4);
    cr_expect_eq(go_diffusion_fixed_gauge(2, 2, 1, f, 2, o, 1), -7);
    cr_expect_str_eq(go_last_error(), "go_diffusion_fixed_gauge: argument 7 (ldg) is invalid");
}

/* ---- the oracles and gauges against dense operators ------------------------------------ */

/* A second, deliberately different truth for tiny grids: the n x n matrices (n = ny nx) of the
 * operators, built from grid coordinates alone, applied by explicit matrix-vector products in
 * long double. Nothing here calls into oracle/stencil.c or shares ld_sweep's neighbour loops. */

static int64_t mod_of(int64_t x, int64_t m)
{
    return ((x % m) + m) % m;
}

/* A[p][q]: how many of point p's 4 neighbour slots hold point q. Fixed edges: q is a
 * neighbour iff it lies at Manhattan distance 1. Periodic edges: q is reached from p by +-1 in
 * one coordinate modulo the grid, once per direction, so a grid 1 or 2 wide reaches the same q
 * twice (torch.roll's repetition). */
static long double *dense_adjacency(bool periodic, int64_t ny, int64_t nx)
{
    int64_t n = ny * nx;
    long double *a = calloc((size_t)(n * n), sizeof *a);
    cr_assert_not_null(a);
    for (int64_t p = 0; p < n; p++)
        for (int64_t q = 0; q < n; q++) {
            int64_t i = p / nx, j = p % nx, k = q / nx, l = q % nx;
            int count = 0;
            if (!periodic) {
                count = llabs(i - k) + llabs(j - l) == 1;
            } else {
                if (l == j) count += (mod_of(k - i - 1, ny) == 0) + (mod_of(k - i + 1, ny) == 0);
                if (k == i) count += (mod_of(l - j - 1, nx) == 0) + (mod_of(l - j + 1, nx) == 0);
            }
            a[p * n + q] = count;
        }
    return a;
}

/* B = alpha I + beta A. */
static long double *dense_combine(int64_t n, long double alpha, long double beta,
                                  const long double *a)
{
    long double *b = malloc((size_t)(n * n) * sizeof *b);
    cr_assert_not_null(b);
    for (int64_t p = 0; p < n; p++)
        for (int64_t q = 0; q < n; q++)
            b[p * n + q] = (p == q ? alpha : 0) + beta * a[p * n + q];
    return b;
}

/* The step matrix from the step's definition: fixed f' = f - 0.25 (4 f - A f), periodic
 * f' = f + c (A f - 4 f), i.e. I - 0.25 (4I - A) and I + c (A - 4I), entry by entry. */
static long double *dense_step(bool periodic, int64_t n, long double c, const long double *a)
{
    long double *m = malloc((size_t)(n * n) * sizeof *m);
    cr_assert_not_null(m);
    for (int64_t p = 0; p < n; p++)
        for (int64_t q = 0; q < n; q++) {
            long double id = p == q ? 1 : 0;
            m[p * n + q] =
                periodic ? id + c * (a[p * n + q] - 4 * id) : id - 0.25L * (4 * id - a[p * n + q]);
        }
    return m;
}

/* x <- B x, times times. */
static void dense_apply(int64_t n, const long double *b, long double *x, int64_t times)
{
    long double *y = malloc((size_t)n * sizeof *y);
    cr_assert_not_null(y);
    for (int64_t t = 0; t < times; t++) {
        for (int64_t p = 0; p < n; p++) {
            long double s = 0;
            for (int64_t q = 0; q < n; q++)
                s += b[p * n + q] * x[q];
            y[p] = s;
        }
        memcpy(x, y, (size_t)n * sizeof *x);
    }
    free(y);
}

/* The dense truth of one case: result (oracle's output) and gauge, both n long. laplace:
 * (4I - A) f and (4I + A)|f|; diffusion: M^steps f and (I + A) M^(steps-1) |f|. */
static void dense_truth(int scheme, int64_t ny, int64_t nx, int64_t steps, double coeff,
                        const double *f, long double *result, long double *gauge)
{
    int64_t n = ny * nx;
    bool periodic = scheme == PERIODIC;
    long double *a = dense_adjacency(periodic, ny, nx);
    for (int64_t p = 0; p < n; p++) {
        result[p] = f[p];
        gauge[p] = fabsl((long double)f[p]);
    }
    if (scheme == LAPLACE) {
        long double *lap = dense_combine(n, 4, -1, a), *lap_abs = dense_combine(n, 4, 1, a);
        dense_apply(n, lap, result, 1);
        dense_apply(n, lap_abs, gauge, 1);
        free(lap);
        free(lap_abs);
    } else {
        long double *m = dense_step(periodic, n, coeff, a), *local = dense_combine(n, 1, 1, a);
        dense_apply(n, m, result, steps);
        dense_apply(n, m, gauge, steps - 1);
        dense_apply(n, local, gauge, 1);
        free(m);
        free(local);
    }
    free(a);
}

/* The oracle's gauge for the case (steps ignored by laplace). */
static void oracle_gauge(int scheme, int64_t ny, int64_t nx, int64_t steps, const double *f,
                         double *g)
{
    int rc = scheme == LAPLACE ? go_stencil_laplace_gauge(ny, nx, f, nx, g, nx)
             : scheme == FIXED ? go_diffusion_fixed_gauge(ny, nx, steps, f, nx, g, nx)
                               : go_diffusion_periodic_gauge(ny, nx, steps, 0.1, f, nx, g, nx);
    cr_assert_eq(rc, 0);
}

/* max_i |got_i - want_i| / want_i over non-negative want (0 / 0 counts as 0, x / 0 as Inf). */
static double max_rel_diff(int64_t n, const double *got, const long double *want)
{
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        long double d = fabsl(got[i] - want[i]);
        double r = d == 0 ? 0 : want[i] > 0 ? (double)(d / want[i]) : INFINITY;
        if (!(r <= worst)) worst = r;
    }
    return worst;
}

static const char *const scheme_names[] = {"laplace", "fixed", "periodic"};

/* Grids with ny != nx both ways, plus the degenerate ones where the edge rules bite (1 wide:
 * fixed has no neighbours across, periodic wraps onto itself; 2 wide: both wraps hit one q). */
static const int64_t dense_grids[][2] = {{5, 7}, {6, 4}, {1, 6}, {3, 1}, {2, 3}, {1, 1}};

static const int64_t dense_steps[] = {1, 2, 3, 10};

#define DENSE_TOL 1e-13

Test(stencil, gauges_match_dense_operators)
{
    for (size_t s = 0; s < sizeof dense_grids / sizeof dense_grids[0]; s++)
        for (int scheme = LAPLACE; scheme <= PERIODIC; scheme++)
            for (size_t k = 0; k < sizeof dense_steps / sizeof dense_steps[0]; k++) {
                int64_t ny = dense_grids[s][0], nx = dense_grids[s][1], n = ny * nx;
                int64_t steps = dense_steps[k];
                if (scheme == LAPLACE && k > 0) continue; /* no steps */
                double *f = random_grid(n, (unsigned)(100 + 10 * s + k), true);
                double g[64];
                long double res[64], want[64];
                cr_assert_leq(n, 64);
                oracle_gauge(scheme, ny, nx, steps, f, g);
                dense_truth(scheme, ny, nx, steps, 0.1, f, res, want);
                double e = max_rel_diff(n, g, want);
                cr_expect_leq(e, DENSE_TOL, "%s gauge %lldx%lld, %lld steps: max rel diff %.3g",
                              scheme_names[scheme], (long long)ny, (long long)nx, (long long)steps,
                              e);
                /* and the gauge bounds the exact result it is the gauge of */
                for (int64_t i = 0; i < n; i++)
                    cr_expect_geq(want[i], fabsl(res[i]), "%s %lldx%lldx%lld: gauge < |r| at %lld",
                                  scheme_names[scheme], (long long)ny, (long long)nx,
                                  (long long)steps, (long long)i);
                free(f);
            }
}

Test(stencil, oracles_match_dense_operators)
{
    for (size_t s = 0; s < sizeof dense_grids / sizeof dense_grids[0]; s++)
        for (int scheme = LAPLACE; scheme <= PERIODIC; scheme++)
            for (size_t k = 0; k < sizeof dense_steps / sizeof dense_steps[0]; k++) {
                int64_t ny = dense_grids[s][0], nx = dense_grids[s][1], n = ny * nx;
                int64_t steps = dense_steps[k];
                if (scheme == LAPLACE && k > 0) continue;
                double *f = random_grid(n, (unsigned)(200 + 10 * s + k), true);
                double out[64];
                long double res[64], gauge[64];
                cr_assert_leq(n, 64);
                int rc = scheme == LAPLACE ? go_stencil_laplace(ny, nx, f, nx, out, nx)
                         : scheme == FIXED
                             ? go_diffusion_fixed(ny, nx, steps, f, nx, out, nx)
                             : go_diffusion_periodic(ny, nx, steps, 0.1, f, nx, out, nx);
                cr_assert_eq(rc, 0);
                dense_truth(scheme, ny, nx, steps, 0.1, f, res, gauge);
                /* signed values cancel, so each element's error is judged against its gauge,
                 * the scale the error model itself uses (f64 rounding: ~1e-15 of it) */
                double worst = 0;
                for (int64_t i = 0; i < n; i++) {
                    long double d = fabsl(out[i] - res[i]);
                    double r = d == 0 ? 0 : gauge[i] > 0 ? (double)(d / gauge[i]) : INFINITY;
                    if (!(r <= worst)) worst = r;
                }
                cr_expect_leq(
                    worst, DENSE_TOL, "%s oracle %lldx%lld, %lld steps: max |out - r| / g = %.3g",
                    scheme_names[scheme], (long long)ny, (long long)nx, (long long)steps, worst);
                free(f);
            }
}

/* The comparisons above would notice a gauge that takes one averaging step too many or too
 * few: on the same input, the dense gauge for steps - 1 and steps + 1 is further than the
 * tolerance from the oracle's gauge for steps (by orders of magnitude). */
Test(stencil, gauge_comparison_sees_an_off_by_one_in_steps)
{
    for (size_t s = 0; s < 2; s++) /* the 5x7 and 6x4 grids */
        for (int scheme = FIXED; scheme <= PERIODIC; scheme++)
            for (size_t k = 0; k < sizeof dense_steps / sizeof dense_steps[0]; k++) {
                int64_t ny = dense_grids[s][0], nx = dense_grids[s][1], n = ny * nx;
                int64_t steps = dense_steps[k];
                double *f = random_grid(n, (unsigned)(300 + 10 * s + k), true);
                double g[64];
                long double res[64], want[64];
                oracle_gauge(scheme, ny, nx, steps, f, g);
                for (int64_t other = steps - 1; other <= steps + 1; other += 2) {
                    if (other < 1) continue;
                    dense_truth(scheme, ny, nx, other, 0.1, f, res, want);
                    double e = max_rel_diff(n, g, want);
                    cr_expect_gt(e, 1e3 * DENSE_TOL,
                                 "%s %lldx%lld: the gauge for %lld steps is within %.3g of the "
                                 "one for %lld",
                                 scheme_names[scheme], (long long)ny, (long long)nx,
                                 (long long)steps, e, (long long)other);
                }
                free(f);
            }
}

/* One step of each update cell by cell in f64, the operations in the order the seeds write
   them and the edges tested at every cell: the oracles take the cells inside the grid several
   an instruction and must give these bits. which: FIXED, PERIODIC, or their gauges' operator
   on non-negative x (w_self x + w_nbr (sum of the neighbours)) as FIXED + 2, PERIODIC + 2. */
static void one_step(int which, int64_t ny, int64_t nx, double a, double b, const double *x,
                     double *y)
{
    bool per = which == PERIODIC || which == PERIODIC + 2;
    for (int64_t i = 0; i < ny; i++)
        for (int64_t j = 0; j < nx; j++) {
            const double *up = per     ? x + (i > 0 ? i - 1 : ny - 1) * nx
                               : i > 0 ? x + (i - 1) * nx
                                       : NULL;
            const double *dn = per          ? x + (i < ny - 1 ? i + 1 : 0) * nx
                               : i < ny - 1 ? x + (i + 1) * nx
                                            : NULL;
            const double *cur = x + i * nx;
            double l = j > 0 ? cur[j - 1] : cur[nx - 1], r = j < nx - 1 ? cur[j + 1] : cur[0];
            double v;
            if (which == FIXED) {
                v = 4.0 * cur[j];
                if (up) v -= up[j];
                if (j > 0) v -= l;
                if (dn) v -= dn[j];
                if (j < nx - 1) v -= r;
                v = cur[j] - 0.25 * v;
            } else if (which == PERIODIC) {
                double s = up[j] + dn[j];
                s += l;
                s += r;
                v = cur[j] + a * (s - 4.0 * cur[j]);
            } else {
                double s = 0.0;
                if (up) s += up[j];
                if (dn) s += dn[j];
                if (j > 0 || per) s += l;
                if (j < nx - 1 || per) s += r;
                v = a * cur[j] + b * s;
            }
            y[i * nx + j] = v;
        }
}

Test(stencil, cells_inside_and_on_the_edges_bit_for_bit)
{
    const int64_t sides[][2] = {{1, 1}, {2, 2}, {3, 3}, {4, 5}, {7, 17}};
    const double coeff = 0.2;
    for (int t = 0; t < 5; t++) {
        const int64_t ny = sides[t][0], nx = sides[t][1], n = ny * nx;
        double *f = random_grid(n, 90 + (unsigned)t, true), *y = malloc((size_t)n * sizeof *y);
        double *s1 = malloc((size_t)n * sizeof *s1), *s2 = malloc((size_t)n * sizeof *s2);
        cr_assert(y && s1 && s2);
        for (int which = FIXED; which <= PERIODIC; which++) {
            /* two steps of the update */
            one_step(which, ny, nx, coeff, 0, f, s1);
            one_step(which, ny, nx, coeff, 0, s1, s2);
            int rc = which == FIXED ? go_diffusion_fixed(ny, nx, 2, f, nx, y, nx)
                                    : go_diffusion_periodic(ny, nx, 2, coeff, f, nx, y, nx);
            cr_assert_eq(rc, 0);
            cr_expect(memcmp(y, s2, (size_t)n * sizeof *y) == 0, "%d: %lld x %lld", which,
                      (long long)ny, (long long)nx);
            /* the gauge of two steps: (I + A) M |f| */
            double ws = which == FIXED ? 0.0 : 1.0 - 4.0 * coeff,
                   wn = which == FIXED ? 0.25 : coeff;
            for (int64_t i = 0; i < n; i++)
                s2[i] = fabs(f[i]);
            one_step(which + 2, ny, nx, ws, wn, s2, s1);
            one_step(which + 2, ny, nx, 1.0, 1.0, s1, s2);
            rc = which == FIXED ? go_diffusion_fixed_gauge(ny, nx, 2, f, nx, y, nx)
                                : go_diffusion_periodic_gauge(ny, nx, 2, coeff, f, nx, y, nx);
            cr_assert_eq(rc, 0);
            cr_expect(memcmp(y, s2, (size_t)n * sizeof *y) == 0, "gauge %d: %lld x %lld", which,
                      (long long)ny, (long long)nx);
        }
        free(f), free(y), free(s1), free(s2);
    }
}
