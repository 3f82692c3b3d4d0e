/* conv.c: oracles for the conv family (docs/error-models.md, section conv): the direct
 * convolution of an NCDHW input x (n x c x d x h x w) by the weights wt (o x c x kd x kh x kw)
 * with stride and zero padding, plus the bias (o) where there is one, as
 * torch.nn.functional.conv3d (a correlation: the window is not flipped), into
 * y (n x o x od x oh x ow); and the gauge sum |x||w| + |bias|. A 2-D convolution is the case
 * d = kd = 1, pd = 0 (go_conv). Each output's c kd kh kw (+ 1) terms are summed in long double (a
 * sum of K terms within K 2^-64 of the sum of |terms|, far inside what an f64 kernel is allowed)
 * and rounded once. Terms that fall in the padding are left out: its zeros are exact in any kernel.
 * Non-finite terms give the IEEE sum's outcome, which every order shares. go_conv3d_ex adds
 * torch's dilation (the window's taps dilation apart) and groups (the channels split into
 * groups parts, output channel oc reading the input channels of its part, oc / (o / groups),
 * and weights (o x c / groups x kd x kh x kw)). */
#include <math.h>
#include <stdbool.h>

#include "../abi/conv.h"
#include "go.h"

static int check_conv_args(const char *fn, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w,
                           int64_t o, int64_t kd, int64_t kh, int64_t kw, int64_t stride,
                           int64_t pd, int64_t ph, int64_t pw, const double *x, const double *wt,
                           const double *y)
{
    if (n < 0) return go_xerbla(fn, 1, "n");
    if (c < 1) return go_xerbla(fn, 2, "c");
    if (d < 1) return go_xerbla(fn, 3, "d");
    if (h < 1) return go_xerbla(fn, 4, "h");
    if (w < 1) return go_xerbla(fn, 5, "w");
    if (o < 0) return go_xerbla(fn, 6, "o");
    if (kd < 1) return go_xerbla(fn, 7, "kd");
    if (kh < 1) return go_xerbla(fn, 8, "kh");
    if (kw < 1) return go_xerbla(fn, 9, "kw");
    if (stride < 1) return go_xerbla(fn, 10, "stride");
    if (pd < 0 || pd >= kd) return go_xerbla(fn, 11, "pd");
    if (ph < 0 || ph >= kh) return go_xerbla(fn, 12, "ph");
    if (pw < 0 || pw >= kw) return go_xerbla(fn, 13, "pw");
    if (!x) return go_xerbla(fn, 14, "x");
    if (!wt) return go_xerbla(fn, 15, "wt");
    if (!y) return go_xerbla(fn, 17, "y");
    return 0;
}

/* The geometry of one convolution: input tap z of output k at k stride - pd + z dil (a
   transposed one: k - z, stride 1, dil -1, no padding), the weights of (oc, ci) at
   oc w_oc + ci w_ci (o x c / groups x taps, or c x o x taps transposed). */
typedef struct conv_geom {
    int64_t c, d, h, w, o, kd, kh, kw, stride, dil, groups, pd, ph, pw, od, oh, ow, w_oc, w_ci;
} conv_geom;

/* Outputs summed at once along a row: each its own accumulator. One long double sum waits on
   each of its additions in turn; CONV_JAM independent ones keep the adder busy. */
enum { CONV_JAM = 4 };

/* Term e of a tap row for output r of the group (r < nj), into acc where it is not in the
   padding: the single loop's product and its skipping, in that loop's order. */
#define CONV_TAP(r, acc)                                                                           \
    do {                                                                                           \
        const int64_t iw = iw0 + (r)*g->stride;                                                    \
        if ((r) < nj && iw >= 0 && iw < g->w) {                                                    \
            long double t = (long double)xr[iw] * wv;                                              \
            acc += gauge ? fabsl(t) : t;                                                           \
        }                                                                                          \
    } while (0)

/* Outputs j0 .. j0 + nj - 1 (nj <= CONV_JAM) of row (b, oc, k, i) into yrow: each output's
   sum is the one the single loop over its taps (ci, z, a, e) makes, term for term. */
static void conv_outputs(bool gauge, const conv_geom *g, int64_t b, int64_t oc, int64_t k,
                         int64_t i, int64_t j0, int64_t nj, const double *x, const double *wt,
                         const double *bias, double *yrow)
{
    const int64_t cg = g->c / g->groups, og = g->o / g->groups;
    const int64_t c0 = oc / og * cg; /* the first input channel of oc's group */
    long double acc0 = 0.0L, acc1 = 0.0L, acc2 = 0.0L, acc3 = 0.0L;
    for (int64_t ci = 0; ci < cg; ci++) {
        const double *xp = x + (b * g->c + c0 + ci) * g->d * g->h * g->w,
                     *wp = wt + oc * g->w_oc + ci * g->w_ci;
        for (int64_t z = 0; z < g->kd; z++) {
            const int64_t id = k * g->stride - g->pd + z * g->dil;
            if (id < 0 || id >= g->d) continue;
            for (int64_t a = 0; a < g->kh; a++) {
                const int64_t ih = i * g->stride - g->ph + a * g->dil;
                if (ih < 0 || ih >= g->h) continue;
                const double *xr = xp + (id * g->h + ih) * g->w;
                for (int64_t e = 0; e < g->kw; e++) {
                    const int64_t iw0 = j0 * g->stride - g->pw + e * g->dil;
                    const double wv = wp[(z * g->kh + a) * g->kw + e];
                    CONV_TAP(0, acc0);
                    CONV_TAP(1, acc1);
                    CONV_TAP(2, acc2);
                    CONV_TAP(3, acc3);
                }
            }
        }
    }
    long double acc[CONV_JAM] = {acc0, acc1, acc2, acc3};
    for (int64_t r = 0; r < nj; r++) {
        if (bias) acc[r] += gauge ? fabsl((long double)bias[oc]) : (long double)bias[oc];
        yrow[j0 + r] = (double)acc[r];
    }
}

/* n images of geometry g: y = the sums (gauge false) or the sums of the terms' absolute values
   (true); bias NULL: none. Rows of outputs on all cores, CONV_JAM outputs of a row at a time,
   each output's sum in its own order: the same bits whatever the threads. */
static void conv_rows(bool gauge, int64_t n, const conv_geom *g, const double *x, const double *wt,
                      const double *bias, double *y)
{
    const int64_t rows = n * g->o * g->od * g->oh, total = rows * g->ow;
    const double work = (double)total * (double)(g->c / g->groups * g->kd * g->kh * g->kw);
#pragma omp parallel for schedule(static) if (work >= GO_PAR_MIN)
    for (int64_t row = 0; row < rows; row++) {
        const int64_t i = row % g->oh, k = (row / g->oh) % g->od,
                      oc = (row / (g->oh * g->od)) % g->o, b = row / (g->oh * g->od * g->o);
        for (int64_t j0 = 0; j0 < g->ow; j0 += CONV_JAM)
            conv_outputs(gauge, g, b, oc, k, i, j0, g->ow - j0 < CONV_JAM ? g->ow - j0 : CONV_JAM,
                         x, wt, bias, y + row * g->ow);
    }
}

static void conv(bool gauge, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o,
                 int64_t kd, int64_t kh, int64_t kw, int64_t stride, int64_t dil, int64_t groups,
                 int64_t pd, int64_t ph, int64_t pw, const double *x, const double *wt,
                 const double *bias, double *y)
{
    const int64_t od = gk_conv_out_side_dil(d, kd, stride, pd, dil),
                  oh = gk_conv_out_side_dil(h, kh, stride, ph, dil),
                  ow = gk_conv_out_side_dil(w, kw, stride, pw, dil), taps = kd * kh * kw;
    const conv_geom g = {c,   d,      h,  w,  o,  kd, kh, kw, stride,
                         dil, groups, pd, ph, pw, od, oh, ow, c / groups * taps,
                         taps};
    conv_rows(gauge, n, &g, x, wt, bias, y);
}

int go_conv3d(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o, int64_t kd,
              int64_t kh, int64_t kw, int64_t stride, int64_t pd, int64_t ph, int64_t pw,
              const double *x, const double *wt, const double *bias, double *y)
{
    int rc = check_conv_args(__func__, n, c, d, h, w, o, kd, kh, kw, stride, pd, ph, pw, x, wt, y);
    if (rc) return rc;
    conv(false, n, c, d, h, w, o, kd, kh, kw, stride, 1, 1, pd, ph, pw, x, wt, bias, y);
    return 0;
}

/* g = sum |x||w| + |bias| over the output's terms, >= |y| (ASNA eq. 3.13's |A||B| for one dot
   product; the bias, where there is one, is its last term) */
int go_conv3d_gauge(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o, int64_t kd,
                    int64_t kh, int64_t kw, int64_t stride, int64_t pd, int64_t ph, int64_t pw,
                    const double *x, const double *wt, const double *bias, double *g)
{
    int rc = check_conv_args(__func__, n, c, d, h, w, o, kd, kh, kw, stride, pd, ph, pw, x, wt, g);
    if (rc) return rc;
    conv(true, n, c, d, h, w, o, kd, kh, kw, stride, 1, 1, pd, ph, pw, x, wt, bias, g);
    return 0;
}

/* go_conv3d with dilation and groups: the arguments of go_conv3d with dilation and groups after
   the stride (numbers 11 and 12; the paddings 13 to 15, x 16, wt 17, y 19). A padding may reach
   the dilated window's extent less one, dil (k - 1); c and o multiples of groups. */
static int check_conv_ex(const char *fn, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w,
                         int64_t o, int64_t kd, int64_t kh, int64_t kw, int64_t stride, int64_t dil,
                         int64_t groups, int64_t pd, int64_t ph, int64_t pw, const double *x,
                         const double *wt, const double *y)
{
    if (n < 0) return go_xerbla(fn, 1, "n");
    if (c < 1) return go_xerbla(fn, 2, "c");
    if (d < 1) return go_xerbla(fn, 3, "d");
    if (h < 1) return go_xerbla(fn, 4, "h");
    if (w < 1) return go_xerbla(fn, 5, "w");
    if (o < 0) return go_xerbla(fn, 6, "o");
    if (kd < 1) return go_xerbla(fn, 7, "kd");
    if (kh < 1) return go_xerbla(fn, 8, "kh");
    if (kw < 1) return go_xerbla(fn, 9, "kw");
    if (stride < 1) return go_xerbla(fn, 10, "stride");
    if (dil < 1) return go_xerbla(fn, 11, "dilation");
    if (groups < 1 || c % groups || o % groups) return go_xerbla(fn, 12, "groups");
    if (pd < 0 || pd > dil * (kd - 1)) return go_xerbla(fn, 13, "pd");
    if (ph < 0 || ph > dil * (kh - 1)) return go_xerbla(fn, 14, "ph");
    if (pw < 0 || pw > dil * (kw - 1)) return go_xerbla(fn, 15, "pw");
    if (!x) return go_xerbla(fn, 16, "x");
    if (!wt) return go_xerbla(fn, 17, "wt");
    if (!y) return go_xerbla(fn, 19, "y");
    return 0;
}

int go_conv3d_ex(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o, int64_t kd,
                 int64_t kh, int64_t kw, int64_t stride, int64_t dil, int64_t groups, int64_t pd,
                 int64_t ph, int64_t pw, const double *x, const double *wt, const double *bias,
                 double *y)
{
    int rc = check_conv_ex(__func__, n, c, d, h, w, o, kd, kh, kw, stride, dil, groups, pd, ph, pw,
                           x, wt, y);
    if (rc) return rc;
    conv(false, n, c, d, h, w, o, kd, kh, kw, stride, dil, groups, pd, ph, pw, x, wt, bias, y);
    return 0;
}

int go_conv3d_ex_gauge(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o, int64_t kd,
                       int64_t kh, int64_t kw, int64_t stride, int64_t dil, int64_t groups,
                       int64_t pd, int64_t ph, int64_t pw, const double *x, const double *wt,
                       const double *bias, double *g)
{
    int rc = check_conv_ex(__func__, n, c, d, h, w, o, kd, kh, kw, stride, dil, groups, pd, ph, pw,
                           x, wt, g);
    if (rc) return rc;
    conv(true, n, c, d, h, w, o, kd, kh, kw, stride, dil, groups, pd, ph, pw, x, wt, bias, g);
    return 0;
}

/* The 2-D forms keep their arguments' numbers (bias 13, y 14) and require the bias. */
static int check_conv2d(const char *fn, int64_t n, int64_t c, int64_t h, int64_t w, int64_t o,
                        int64_t kh, int64_t kw, int64_t stride, int64_t ph, int64_t pw,
                        const double *x, const double *wt, const double *bias, const double *y)
{
    if (n < 0) return go_xerbla(fn, 1, "n");
    if (c < 1) return go_xerbla(fn, 2, "c");
    if (h < 1) return go_xerbla(fn, 3, "h");
    if (w < 1) return go_xerbla(fn, 4, "w");
    if (o < 0) return go_xerbla(fn, 5, "o");
    if (kh < 1) return go_xerbla(fn, 6, "kh");
    if (kw < 1) return go_xerbla(fn, 7, "kw");
    if (stride < 1) return go_xerbla(fn, 8, "stride");
    if (ph < 0 || ph >= kh) return go_xerbla(fn, 9, "ph");
    if (pw < 0 || pw >= kw) return go_xerbla(fn, 10, "pw");
    if (!x) return go_xerbla(fn, 11, "x");
    if (!wt) return go_xerbla(fn, 12, "wt");
    if (!bias) return go_xerbla(fn, 13, "bias");
    if (!y) return go_xerbla(fn, 14, "y");
    return 0;
}

int go_conv(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh, int64_t kw,
            int64_t stride, int64_t ph, int64_t pw, const double *x, const double *wt,
            const double *bias, double *y)
{
    int rc = check_conv2d(__func__, n, c, h, w, o, kh, kw, stride, ph, pw, x, wt, bias, y);
    if (rc) return rc;
    conv(false, n, c, 1, h, w, o, 1, kh, kw, stride, 1, 1, 0, ph, pw, x, wt, bias, y);
    return 0;
}

int go_conv_gauge(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh, int64_t kw,
                  int64_t stride, int64_t ph, int64_t pw, const double *x, const double *wt,
                  const double *bias, double *g)
{
    int rc = check_conv2d(__func__, n, c, h, w, o, kh, kw, stride, ph, pw, x, wt, bias, g);
    if (rc) return rc;
    conv(true, n, c, 1, h, w, o, 1, kh, kw, stride, 1, 1, 0, ph, pw, x, wt, bias, g);
    return 0;
}

/* ConvTranspose at stride 1 and padding 0, from its definition: y(b, oc, k, i, j) = bias(oc) +
   sum over ci, z, a, e of x(b, ci, k - z, i - a, j - e) wt(ci, oc, z, a, e), the input's
   indices inside it; each output's terms in long double, rounded once (gauge: their absolute
   values). The output is d + kd - 1 (h + kh - 1, w + kw - 1) a side. */
static void conv_transposed(bool gauge, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w,
                            int64_t o, int64_t kd, int64_t kh, int64_t kw, const double *x,
                            const double *wt, const double *bias, double *y)
{
    /* tap z of output k reads input k - z: conv_rows' k stride - pd + z dil at stride 1,
       dilation -1 and no padding, the weights c x o x taps */
    const int64_t taps = kd * kh * kw;
    const conv_geom g = {c, d, h, w, o,          kd,         kh,         kw,   1,       -1,
                         1, 0, 0, 0, d + kd - 1, h + kh - 1, w + kw - 1, taps, o * taps};
    conv_rows(gauge, n, &g, x, wt, bias, y);
}

int go_conv3d_transposed(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o,
                         int64_t kd, int64_t kh, int64_t kw, const double *x, const double *wt,
                         const double *bias, double *y)
{
    int rc = check_conv_args(__func__, n, c, d, h, w, o, kd, kh, kw, 1, 0, 0, 0, x, wt, y);
    if (rc) return rc;
    conv_transposed(false, n, c, d, h, w, o, kd, kh, kw, x, wt, bias, y);
    return 0;
}

int go_conv3d_transposed_gauge(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o,
                               int64_t kd, int64_t kh, int64_t kw, const double *x,
                               const double *wt, const double *bias, double *g)
{
    int rc = check_conv_args(__func__, n, c, d, h, w, o, kd, kh, kw, 1, 0, 0, 0, x, wt, g);
    if (rc) return rc;
    conv_transposed(true, n, c, d, h, w, o, kd, kh, kw, x, wt, bias, g);
    return 0;
}
