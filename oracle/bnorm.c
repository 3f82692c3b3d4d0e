/* bnorm.c: the oracle of norm.batch, training-mode batch norm of an NCHW tensor (nb images, nc
 * channels, hw values a plane), and the gauge of its error model (docs/error-models.md,
 * section norm.batch). A channel's nb hw values are layer norm's row: each channel is gathered
 * into a row of an nc x (nb hw) matrix, normalised by go_norm_layer (long double, compensated
 * sums, rounded once) and scattered back; the gauge likewise by go_norm_layer_gauge, with the
 * depths of the batch kernel (the same per row as norm.layer's kernel at n = nb hw). The
 * copies take 3 nb nc hw doubles of scratch at most (src/ops/bnorm.c counts them). */
#include <stdlib.h>

#include "go.h"

static int check_bnorm(const char *fn, int64_t nb, int64_t nc, int64_t hw, const double *x,
                       const double *y)
{
    if (nb < 1) return go_xerbla(fn, 1, "nb");
    if (nc < 0) return go_xerbla(fn, 2, "nc");
    if (hw < 1) return go_xerbla(fn, 3, "hw");
    if (!x) return go_xerbla(fn, 4, "x");
    if (!y) return go_xerbla(fn, 6, "y");
    return 0;
}

/* to: 1 gathers a (NCHW) into r (channel rows), 0 scatters r back into a; channels on all
   cores (copies: the same bits on any thread count) */
static void move(int to, int64_t nb, int64_t nc, int64_t hw, double *a, double *r)
{
    const int64_t len = nb * hw;
#pragma omp parallel for schedule(static) if ((double)nc * (double)len >= GO_PAR_MIN)
    for (int64_t c = 0; c < nc; c++)
        for (int64_t i = 0; i < nb; i++)
            for (int64_t p = 0; p < hw; p++) {
                double *nchw = a + (i * nc + c) * hw + p, *row = r + c * len + i * hw + p;
                if (to)
                    *row = *nchw;
                else
                    *nchw = *row;
            }
}

int go_norm_batch(int64_t nb, int64_t nc, int64_t hw, const double *x, double eps, double *y)
{
    int rc = check_bnorm(__func__, nb, nc, hw, x, y);
    if (rc) return rc;
    const size_t count = (size_t)(nb * nc * hw);
    double *xr = malloc(count * sizeof *xr + 1), *yr = malloc(count * sizeof *yr + 1);
    if (!xr || !yr) {
        free(xr);
        free(yr);
        return go_enomem(__func__);
    }
    move(1, nb, nc, hw, (double *)x, xr);
    rc = go_norm_layer(nc, nb * hw, xr, nb * hw, eps, yr, nb * hw);
    if (rc == 0) move(0, nb, nc, hw, y, yr);
    free(xr);
    free(yr);
    return rc;
}

int go_norm_batch_gauge(int64_t nb, int64_t nc, int64_t hw, const double *x, double eps,
                        const double *y, double u, double spacing, double depth, double sum_depth,
                        double *g)
{
    int rc = check_bnorm(__func__, nb, nc, hw, x, y);
    if (rc) return rc;
    if (!g) return go_xerbla(__func__, 11, "g");
    const size_t count = (size_t)(nb * nc * hw);
    double *xr = malloc(count * sizeof *xr + 1), *yr = malloc(count * sizeof *yr + 1),
           *gr = malloc(count * sizeof *gr + 1);
    if (!xr || !yr || !gr) {
        free(xr);
        free(yr);
        free(gr);
        return go_enomem(__func__);
    }
    move(1, nb, nc, hw, (double *)x, xr);
    move(1, nb, nc, hw, (double *)y, yr);
    const int64_t len = nb * hw;
    rc = go_norm_layer_gauge(nc, len, xr, len, eps, yr, len, u, spacing, depth, sum_depth, gr, len);
    if (rc == 0) move(0, nb, nc, hw, g, gr);
    free(xr);
    free(yr);
    free(gr);
    return rc;
}
