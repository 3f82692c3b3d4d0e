/* stencil.c: oracles for the 5-point stencil family of seeds 002 and 003, and their gauges.
 *  - laplace (seed 002, fixed edges): out = 4 f - (sum of the neighbours that exist); a
 *    neighbour outside the grid is simply not subtracted.
 *  - diffusion, fixed edges (seed 002): f <- f - 0.25 laplace(f), steps times.
 *  - diffusion, periodic edges (seed 003, torch.roll): f <- f + coeff (sum of the 4 wrapped
 *    neighbours - 4 f), steps times.
 * Each step reads the whole previous field (two buffers, ping-pong): the seed's in-place
 * update inside one launch races across tiles and is not what it means to compute.
 * Arithmetic is f64 in the order the seeds write it (up, left, down, right for seed 002;
 * up + down + left + right - 4 f for seed 003), so the oracle rounds like the kernels.
 * The gauges are the error model's g of src/ops/stencil.c, where they are derived. */
#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "go.h"

/* Common argument checks of the grid routines (go.h: -(index) of the bad one, named). */
static int grid_args(const char *fn, int64_t ny, int64_t nx, const double *f, int64_t ldf,
                     const double *out, int64_t ldo, int first_ptr_index, bool gauge)
{
    if (ny < 0) return go_xerbla(fn, 1, "ny");
    if (nx < 0) return go_xerbla(fn, 2, "nx");
    if (!f && ny * nx > 0) return go_xerbla(fn, first_ptr_index, "f");
    if (ldf < (nx > 1 ? nx : 1)) return go_xerbla(fn, first_ptr_index + 1, "ldf");
    if (!out && ny * nx > 0) return go_xerbla(fn, first_ptr_index + 2, gauge ? "g" : "out");
    if (ldo < (nx > 1 ? nx : 1)) return go_xerbla(fn, first_ptr_index + 3, gauge ? "ldg" : "ldo");
    return 0;
}

/* One fixed-edge cell of seed 002: v = 4 f - up - left - down - right (missing neighbours
 * skipped); laplace stores v, a diffusion step stores f - 0.25 v. up/down NULL at the edge. */
static inline double fixed_cell(int64_t nx, const double *up, const double *cur, const double *down,
                                int64_t j, bool step)
{
    double v = 4.0 * cur[j];
    if (up) v -= up[j];
    if (j > 0) v -= cur[j - 1];
    if (down) v -= down[j];
    if (j < nx - 1) v -= cur[j + 1];
    return step ? cur[j] - 0.25 * v : v;
}

/* One row of fixed_cell. Inside the grid (both neighbour rows, j away from the edges) the same
 * operations in the same order without the tests, which lets the compiler take several cells
 * an instruction (each cell's arithmetic unchanged: the same bits). */
static void fixed_row(int64_t nx, const double *up, const double *cur, const double *down,
                      double *dst, bool step)
{
    if (!up || !down || nx < 3) {
        for (int64_t j = 0; j < nx; j++)
            dst[j] = fixed_cell(nx, up, cur, down, j, step);
        return;
    }
    dst[0] = fixed_cell(nx, up, cur, down, 0, step);
#pragma omp simd
    for (int64_t j = 1; j < nx - 1; j++) {
        double v = 4.0 * cur[j];
        v -= up[j];
        v -= cur[j - 1];
        v -= down[j];
        v -= cur[j + 1];
        dst[j] = step ? cur[j] - 0.25 * v : v;
    }
    dst[nx - 1] = fixed_cell(nx, up, cur, down, nx - 1, step);
}

/* The laplace gauge 4|f| + |up| + |left| + |down| + |right|, summed in fixed_row's order:
 * rounding is monotone, so each partial sum of magnitudes stays >= the magnitude of the
 * matching partial sum of fixed_row, and the computed gauge is >= the computed |v|. */
static void laplace_gauge_row(int64_t nx, const double *up, const double *cur, const double *down,
                              double *dst)
{
    for (int64_t j = 0; j < nx; j++) {
        double v = 4.0 * fabs(cur[j]);
        if (up) v += fabs(up[j]);
        if (j > 0) v += fabs(cur[j - 1]);
        if (down) v += fabs(down[j]);
        if (j < nx - 1) v += fabs(cur[j + 1]);
        dst[j] = v;
    }
}

/* One periodic cell of seed 003: lap = up + down + left + right - 4 f, out = f + coeff lap. */
static inline double periodic_cell(double up, double cur, double down, double left, double right,
                                   double coeff)
{
    double s = up + down;
    s += left;
    s += right;
    double lap = s - 4.0 * cur;
    return cur + coeff * lap;
}

/* A row of periodic_cell, the cells away from the row's ends several an instruction. */
static void periodic_row(int64_t nx, const double *up, const double *cur, const double *down,
                         double coeff, double *dst)
{
    if (nx < 3) {
        for (int64_t j = 0; j < nx; j++)
            dst[j] = periodic_cell(up[j], cur[j], down[j], cur[j > 0 ? j - 1 : nx - 1],
                                   cur[j < nx - 1 ? j + 1 : 0], coeff);
        return;
    }
    dst[0] = periodic_cell(up[0], cur[0], down[0], cur[nx - 1], cur[1], coeff);
#pragma omp simd
    for (int64_t j = 1; j < nx - 1; j++)
        dst[j] = periodic_cell(up[j], cur[j], down[j], cur[j - 1], cur[j + 1], coeff);
    dst[nx - 1] = periodic_cell(up[nx - 1], cur[nx - 1], down[nx - 1], cur[nx - 2], cur[0], coeff);
}

typedef enum scheme { FIXED_LAPLACE, FIXED_STEP, PERIODIC_STEP, LAPLACE_GAUGE } scheme;

static void sweep(scheme sc, int64_t ny, int64_t nx, double coeff, const double *src, int64_t lds,
                  double *dst, int64_t ldd)
{
    assert(ny >= 0 && nx >= 0 && lds >= nx && ldd >= nx); /* grid_args checked the callers' */
    /* rows are independent: on all cores, each row's arithmetic as in one thread */
#pragma omp parallel for schedule(static) if ((double)ny * (double)nx >= GO_PAR_MIN)
    for (int64_t i = 0; i < ny; i++) {
        const double *cur = src + i * lds;
        if (sc == PERIODIC_STEP) {
            const double *up = src + (i > 0 ? i - 1 : ny - 1) * lds;
            const double *down = src + (i < ny - 1 ? i + 1 : 0) * lds;
            periodic_row(nx, up, cur, down, coeff, dst + i * ldd);
        } else {
            const double *up = i > 0 ? cur - lds : NULL;
            const double *down = i < ny - 1 ? cur + lds : NULL;
            if (sc == LAPLACE_GAUGE)
                laplace_gauge_row(nx, up, cur, down, dst + i * ldd);
            else
                fixed_row(nx, up, cur, down, dst + i * ldd, sc == FIXED_STEP);
        }
    }
}

/* steps sweeps from f into out; the intermediate fields alternate between out and a
 * scratch grid so that the last sweep lands in out. */
static int evolve(const char *fn, scheme sc, int64_t ny, int64_t nx, int64_t steps, double coeff,
                  const double *f, int64_t ldf, double *out, int64_t ldo)
{
    double *tmp = NULL;
    if (steps > 1) {
        tmp = malloc((size_t)(ny * nx) * sizeof *tmp + 1);
        if (!tmp) return go_enomem(fn);
    }
    const double *src = f;
    int64_t lds = ldf;
    assert(steps >= 1); /* the callers refuse fewer */
    for (int64_t k = 0; k < steps; k++) {
        bool to_out = (steps - 1 - k) % 2 == 0;
        double *dst = to_out ? out : tmp;
        int64_t ldd = to_out ? ldo : nx;
        sweep(sc, ny, nx, coeff, src, lds, dst, ldd);
        src = dst;
        lds = ldd;
    }
    assert(src == out); /* the parity above put the last sweep there */
    free(tmp);
    return 0;
}

int go_stencil_laplace(int64_t ny, int64_t nx, const double *f, int64_t ldf, double *out,
                       int64_t ldo)
{
    int rc = grid_args(__func__, ny, nx, f, ldf, out, ldo, 3, false);
    if (rc) return rc;
    sweep(FIXED_LAPLACE, ny, nx, 0.0, f, ldf, out, ldo);
    return 0;
}

int go_diffusion_fixed(int64_t ny, int64_t nx, int64_t steps, const double *f, int64_t ldf,
                       double *out, int64_t ldo)
{
    if (steps < 1) return go_xerbla(__func__, 3, "steps");
    int rc = grid_args(__func__, ny, nx, f, ldf, out, ldo, 4, false);
    if (rc) return rc;
    return evolve(__func__, FIXED_STEP, ny, nx, steps, 0.0, f, ldf, out, ldo);
}

int go_diffusion_periodic(int64_t ny, int64_t nx, int64_t steps, double coeff, const double *f,
                          int64_t ldf, double *out, int64_t ldo)
{
    if (steps < 1) return go_xerbla(__func__, 3, "steps");
    if (!(coeff >= 0.0 && coeff <= 0.25)) return go_xerbla(__func__, 4, "coeff");
    int rc = grid_args(__func__, ny, nx, f, ldf, out, ldo, 5, false);
    if (rc) return rc;
    return evolve(__func__, PERIODIC_STEP, ny, nx, steps, coeff, f, ldf, out, ldo);
}

/* dst = w_self x + w_nbr (sum of x's neighbours), for x >= 0: the non-negative operators
 * of the gauges. Fixed edges count only neighbours that exist; periodic edges count the 4
 * wrapped ones, with repetition on a grid 1 or 2 wide (as torch.roll does). */
static inline double nonneg_cell(bool periodic, int64_t nx, const double *up, const double *cur,
                                 const double *down, int64_t j, double w_self, double w_nbr)
{
    double s = 0.0;
    if (up) s += up[j];
    if (down) s += down[j];
    if (j > 0)
        s += cur[j - 1];
    else if (periodic)
        s += cur[nx - 1];
    if (j < nx - 1)
        s += cur[j + 1];
    else if (periodic)
        s += cur[0];
    return w_self * cur[j] + w_nbr * s;
}

/* Inside the grid (both neighbour rows, j away from the edges) nonneg_cell's operations in its
   order without the tests, several cells an instruction (the same bits). */
static void nonneg_apply(bool periodic, int64_t ny, int64_t nx, double w_self, double w_nbr,
                         const double *x, double *dst)
{
#pragma omp parallel for schedule(static) if ((double)ny * (double)nx >= GO_PAR_MIN)
    for (int64_t i = 0; i < ny; i++) {
        const double *cur = x + i * nx;
        const double *up = periodic ? x + (i > 0 ? i - 1 : ny - 1) * nx : i > 0 ? cur - nx : NULL;
        const double *down = periodic     ? x + (i < ny - 1 ? i + 1 : 0) * nx
                             : i < ny - 1 ? cur + nx
                                          : NULL;
        double *row = dst + i * nx;
        if (!up || !down || nx < 3) {
            for (int64_t j = 0; j < nx; j++)
                row[j] = nonneg_cell(periodic, nx, up, cur, down, j, w_self, w_nbr);
            continue;
        }
        row[0] = nonneg_cell(periodic, nx, up, cur, down, 0, w_self, w_nbr);
#pragma omp simd
        for (int64_t j = 1; j < nx - 1; j++) {
            double s = 0.0;
            s += up[j];
            s += down[j];
            s += cur[j - 1];
            s += cur[j + 1];
            row[j] = w_self * cur[j] + w_nbr * s;
        }
        row[nx - 1] = nonneg_cell(periodic, nx, up, cur, down, nx - 1, w_self, w_nbr);
    }
}

/* g = (I + A) M^(steps-1) |f|, with M = w_self I + w_nbr A the step's operator on
 * non-negative fields and A the neighbour (adjacency) operator of the edge rule. The steps
 * applications alternate between two grids; where g is one (ldg == nx) it is the second, the
 * first grid chosen so that the last application lands in g: one grid of scratch instead of
 * two (what the large tier's grids of 2^31 cells can afford; the op's oracle_scratch_bytes
 * counts it). */
static int gauge_impl(const char *fn, bool periodic, int64_t ny, int64_t nx, int64_t steps,
                      double w_self, double w_nbr, const double *f, int64_t ldf, double *g,
                      int64_t ldg)
{
    assert(steps >= 1 && nx >= 0 && ldf >= nx && ldg >= nx); /* checked by the callers */
    size_t n = (size_t)(ny * nx);
    bool in_g = ldg == nx;
    double *scratch = malloc((n + 1) * sizeof *scratch);
    double *other = in_g ? g : malloc((n + 1) * sizeof *other);
    if (!scratch || !other) {
        free(scratch);
        if (!in_g) free(other);
        return go_enomem(fn);
    }
    /* steps applications from a to b and back: the last lands in `other` when steps is odd
       and |f| starts in scratch, or steps is even and |f| starts in other */
    double *a = steps % 2 ? scratch : other, *b = steps % 2 ? other : scratch;
#pragma omp parallel for schedule(static) if ((double)ny * (double)nx >= GO_PAR_MIN)
    for (int64_t i = 0; i < ny; i++)
        for (int64_t j = 0; j < nx; j++)
            a[i * nx + j] = fabs(f[i * ldf + j]);
    for (int64_t k = 0; k + 1 < steps; k++) {
        nonneg_apply(periodic, ny, nx, w_self, w_nbr, a, b);
        double *t = a;
        a = b;
        b = t;
    }
    nonneg_apply(periodic, ny, nx, 1.0, 1.0, a, b);
    assert(b == other); /* the parity above put the last application there */
    if (!in_g) {
#pragma omp parallel for schedule(static) if ((double)ny * (double)nx >= GO_PAR_MIN)
        for (int64_t i = 0; i < ny; i++)
            for (int64_t j = 0; j < nx; j++)
                g[i * ldg + j] = other[i * nx + j];
        free(other);
    }
    free(scratch);
    return 0;
}

int go_stencil_laplace_gauge(int64_t ny, int64_t nx, const double *f, int64_t ldf, double *g,
                             int64_t ldg)
{
    int rc = grid_args(__func__, ny, nx, f, ldf, g, ldg, 3, true);
    if (rc) return rc;
    /* 4|f| + sum of |f| over the existing neighbours: the summands of 4 f - sum(neighbours) */
    sweep(LAPLACE_GAUGE, ny, nx, 0.0, f, ldf, g, ldg);
    return 0;
}

int go_diffusion_fixed_gauge(int64_t ny, int64_t nx, int64_t steps, const double *f, int64_t ldf,
                             double *g, int64_t ldg)
{
    if (steps < 1) return go_xerbla(__func__, 3, "steps");
    int rc = grid_args(__func__, ny, nx, f, ldf, g, ldg, 4, true);
    if (rc) return rc;
    return gauge_impl(__func__, false, ny, nx, steps, 0.0, 0.25, f, ldf, g, ldg);
}

int go_diffusion_periodic_gauge(int64_t ny, int64_t nx, int64_t steps, double coeff,
                                const double *f, int64_t ldf, double *g, int64_t ldg)
{
    if (steps < 1) return go_xerbla(__func__, 3, "steps");
    if (!(coeff >= 0.0 && coeff <= 0.25)) return go_xerbla(__func__, 4, "coeff");
    int rc = grid_args(__func__, ny, nx, f, ldf, g, ldg, 5, true);
    if (rc) return rc;
    return gauge_impl(__func__, true, ny, nx, steps, 1.0 - 4.0 * coeff, coeff, f, ldf, g, ldg);
}
