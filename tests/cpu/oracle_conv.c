/* oracle_conv.c: the convolution oracles (oracle/conv.c) against sums in __float128 written
 * out by hand at small sizes (padding, stride 2, a plane of one row; go_conv3d's volumes, with
 * and without padding and bias), their gauges g >= |y|, a window that is not flipped (a
 * correlation, as conv2d and conv3d), and their bad arguments. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/conv.h"
#include "go.h"
#include "testkit.h"

static void check_against_float128(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o,
                                   int64_t kh, int64_t kw, int64_t st, int64_t ph, int64_t pw)
{
    const int64_t oh = gk_conv_out_side(h, kh, st, ph), ow = gk_conv_out_side(w, kw, st, pw);
    double *x = gv_test_matrix(n * c * h, w, w, 51, 0);
    double *wt = gv_test_matrix(o * c * kh, kw, kw, 52, 0);
    double *b = gv_test_matrix(1, o, o, 53, 0);
    double *y = gv_test_alloc(n * o * oh * ow), *g = gv_test_alloc(n * o * oh * ow);
    cr_assert_eq(go_conv(n, c, h, w, o, kh, kw, st, ph, pw, x, wt, b, y), 0);
    cr_assert_eq(go_conv_gauge(n, c, h, w, o, kh, kw, st, ph, pw, x, wt, b, g), 0);
    for (int64_t q = 0; q < n; q++)
        for (int64_t oc = 0; oc < o; oc++)
            for (int64_t i = 0; i < oh; i++)
                for (int64_t j = 0; j < ow; j++) {
                    __float128 sum = b[oc];
                    for (int64_t ci = 0; ci < c; ci++)
                        for (int64_t a = 0; a < kh; a++)
                            for (int64_t e = 0; e < kw; e++) {
                                int64_t r = i * st - ph + a, col = j * st - pw + e;
                                if (r < 0 || r >= h || col < 0 || col >= w) continue;
                                sum += (__float128)x[((q * c + ci) * h + r) * w + col] *
                                       wt[((oc * c + ci) * kh + a) * kw + e];
                            }
                    int64_t at = ((q * o + oc) * oh + i) * ow + j;
                    double want = (double)sum;
                    /* one f64 rounding, and K 2^-64 of the gauge for the long double sum (K <= 2^7)
                     */
                    cr_expect(fabs(y[at] - want) <= 0x1p-53 * fabs(want) + 0x1p-56 * g[at],
                              "%lldx%lld stride %lld: y[%lld] %.17g, float128 %.17g", (long long)kh,
                              (long long)kw, (long long)st, (long long)at, y[at], want);
                    cr_expect(g[at] >= fabs(y[at]), "gauge below |y| at %lld", (long long)at);
                }
    free(x);
    free(wt);
    free(b);
    free(y);
    free(g);
}

Test(conv_oracle, against_float128_with_padding_stride_and_one_row)
{
    check_against_float128(2, 3, 7, 5, 4, 3, 3, 1, 1, 1);   /* conv.2d */
    check_against_float128(1, 2, 11, 11, 3, 7, 7, 2, 3, 3); /* conv.2d.k7s2 */
    check_against_float128(2, 5, 4, 4, 2, 1, 1, 1, 0, 0);   /* conv.2d.k1 */
    check_against_float128(3, 4, 1, 19, 5, 1, 3, 1, 0, 1);  /* conv.1d */
}

/* A window with a single 1 at its top-left picks the input up and to the left of the output
   (a correlation); a convolution (the window flipped) would pick it down and to the right. */
Test(conv_oracle, correlation_not_convolution)
{
    double x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, wt[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0}, b = 0.5, y[9];
    cr_assert_eq(go_conv(1, 1, 3, 3, 1, 3, 3, 1, 1, 1, x, wt, &b, y), 0);
    cr_expect_eq(y[4], 1.5, "centre: x(0, 0) + bias");
    cr_expect_eq(y[8], 5.5, "bottom right: x(1, 1) + bias");
    cr_expect_eq(y[0], 0.5, "top left: the padding's zero + bias");
}

/* go_conv3d over a volume, bias or none (NULL), against __float128 sums */
static void check_3d_against_float128(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w,
                                      int64_t o, int64_t kd, int64_t kh, int64_t kw, int64_t st,
                                      int64_t pd, int64_t ph, int64_t pw, bool with_bias)
{
    const int64_t od = gk_conv_out_side(d, kd, st, pd), oh = gk_conv_out_side(h, kh, st, ph),
                  ow = gk_conv_out_side(w, kw, st, pw);
    double *x = gv_test_matrix(n * c * d * h, w, w, 61, 0);
    double *wt = gv_test_matrix(o * c * kd * kh, kw, kw, 62, 0);
    double *b = with_bias ? gv_test_matrix(1, o, o, 63, 0) : NULL;
    const int64_t ny = n * o * od * oh * ow;
    double *y = gv_test_alloc(ny), *g = gv_test_alloc(ny);
    cr_assert_eq(go_conv3d(n, c, d, h, w, o, kd, kh, kw, st, pd, ph, pw, x, wt, b, y), 0);
    cr_assert_eq(go_conv3d_gauge(n, c, d, h, w, o, kd, kh, kw, st, pd, ph, pw, x, wt, b, g), 0);
    for (int64_t at = 0; at < ny; at++) {
        const int64_t j = at % ow, i = (at / ow) % oh, k = (at / (ow * oh)) % od,
                      oc = (at / (ow * oh * od)) % o, q = at / (ow * oh * od * o);
        __float128 sum = b ? b[oc] : 0, abs = b ? fabs(b[oc]) : 0;
        for (int64_t ci = 0; ci < c; ci++)
            for (int64_t z = 0; z < kd; z++)
                for (int64_t a = 0; a < kh; a++)
                    for (int64_t e = 0; e < kw; e++) {
                        int64_t dz = k * st - pd + z, r = i * st - ph + a, col = j * st - pw + e;
                        if (dz < 0 || dz >= d || r < 0 || r >= h || col < 0 || col >= w) continue;
                        __float128 t = (__float128)x[(((q * c + ci) * d + dz) * h + r) * w + col] *
                                       wt[(((oc * c + ci) * kd + z) * kh + a) * kw + e];
                        sum += t;
                        abs += t < 0 ? -t : t;
                    }
        double want = (double)sum;
        /* one f64 rounding, and K 2^-64 of the gauge for the long double sum (K <= 2^8) */
        cr_expect(fabs(y[at] - want) <= 0x1p-53 * fabs(want) + 0x1p-55 * g[at],
                  "%lldx%lldx%lld bias %d: y[%lld] %.17g, float128 %.17g", (long long)kd,
                  (long long)kh, (long long)kw, (int)with_bias, (long long)at, y[at], want);
        cr_expect(fabs(g[at] - (double)abs) <= 0x1p-52 * (double)abs, "gauge at %lld",
                  (long long)at);
        cr_expect(g[at] >= fabs(y[at]), "gauge below |y| at %lld", (long long)at);
    }
    free(x);
    free(wt);
    free(b);
    free(y);
    free(g);
}

Test(conv_oracle, volumes_and_no_bias_against_float128)
{
    check_3d_against_float128(2, 3, 5, 5, 5, 4, 3, 3, 3, 1, 1, 1, 1, true);   /* conv.3d */
    check_3d_against_float128(1, 8, 6, 6, 6, 3, 3, 3, 3, 1, 0, 0, 0, false);  /* conv.3d.valid */
    check_3d_against_float128(2, 3, 1, 7, 5, 4, 1, 3, 3, 1, 0, 0, 0, false);  /* conv.2d.valid */
    check_3d_against_float128(3, 4, 1, 1, 19, 5, 1, 1, 3, 1, 0, 0, 0, false); /* conv.1d.valid */
    check_3d_against_float128(1, 2, 7, 7, 7, 2, 3, 3, 3, 2, 1, 1, 1, true);   /* stride 2 */
}

/* A plane is a volume of depth 1: go_conv3d with d = kd = 1 gives go_conv's bits, and with the
   bias NULL, go_conv's output less the bias exactly where the sum is exact (small integers). */
Test(conv_oracle, a_plane_is_a_volume_of_depth_one)
{
    const int64_t n = 2, c = 3, h = 7, w = 5, o = 4;
    double *x = gv_test_matrix(n * c * h, w, w, 71, 0),
           *wt = gv_test_matrix(o * c * 3, 3, 3, 72, 0);
    double b[4] = {1, -2, 3, 0.5}, y2[2 * 4 * 49], y3[2 * 4 * 49];
    cr_assert_eq(go_conv(n, c, h, w, o, 3, 3, 1, 1, 1, x, wt, b, y2), 0);
    cr_assert_eq(go_conv3d(n, c, 1, h, w, o, 1, 3, 3, 1, 0, 1, 1, x, wt, b, y3), 0);
    for (int i = 0; i < n * o * h * w; i++)
        cr_expect_eq(y2[i], y3[i], "at %d", i);
    double xi[2 * 3 * 49], wi[4 * 3 * 9];
    for (int i = 0; i < 2 * 3 * 49; i++)
        xi[i] = (double)(i % 7) - 3;
    for (int i = 0; i < 4 * 3 * 9; i++)
        wi[i] = (double)(i % 5) - 2;
    cr_assert_eq(go_conv(n, c, h, w, o, 3, 3, 1, 1, 1, xi, wi, b, y2), 0);
    cr_assert_eq(go_conv3d(n, c, 1, h, w, o, 1, 3, 3, 1, 0, 1, 1, xi, wi, NULL, y3), 0);
    for (int i = 0; i < n * o * h * w; i++)
        cr_expect_eq(y2[i] - b[(i / (h * w)) % o], y3[i], "no bias at %d", i);
    free(x);
    free(wt);
}

Test(conv_oracle, bad_arguments_name_themselves)
{
    double x[4] = {0}, w[4] = {0}, b[1] = {0}, y[4];
    cr_expect_eq(go_conv(-1, 1, 2, 2, 1, 1, 1, 1, 0, 0, x, w, b, y), -1);
    cr_expect_eq(go_conv(1, 0, 2, 2, 1, 1, 1, 1, 0, 0, x, w, b, y), -2);
    cr_expect_eq(go_conv(1, 1, 2, 2, 1, 1, 1, 0, 0, 0, x, w, b, y), -8);
    cr_expect_eq(go_conv(1, 1, 2, 2, 1, 3, 3, 1, 3, 1, x, w, b, y), -9);
    cr_expect_eq(go_conv(1, 1, 2, 2, 1, 1, 1, 1, 0, 0, x, w, NULL, y), -13);
}

Test(conv_oracle, bad_3d_arguments_name_themselves)
{
    double x[8] = {0}, w[8] = {0}, y[8];
    cr_expect_eq(go_conv3d(1, 1, 0, 2, 2, 1, 1, 1, 1, 1, 0, 0, 0, x, w, NULL, y), -3);
    cr_expect_eq(go_conv3d(1, 1, 2, 2, 2, 1, 0, 1, 1, 1, 0, 0, 0, x, w, NULL, y), -7);
    cr_expect_eq(go_conv3d(1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, x, w, NULL, y), -11);
    cr_expect_eq(go_conv3d(1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 0, 0, 0, NULL, w, NULL, y), -14);
    cr_expect_eq(go_conv3d(1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 0, 0, 0, x, w, NULL, NULL), -17);
    cr_expect_eq(go_conv3d(1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 0, 0, 0, x, w, NULL, y), 0,
                 "no bias is no error");
}

/* ConvTranspose from its definition against a scatter in __float128 (each input's products
   added to the outputs its window reaches: the other way of writing it), with and without a
   bias; and against go_conv3d of the input padded by the window less one with the weights
   flipped and read (in, out): the kernels' form, bit for bit where the sums are exact. */
static void check_transposed(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, int64_t o,
                             int64_t kd, int64_t kh, int64_t kw, bool with_bias)
{
    const int64_t od = d + kd - 1, oh = h + kh - 1, ow = w + kw - 1, ny = n * o * od * oh * ow;
    double *x = gv_test_matrix(n * c * d * h, w, w, 81, 0);
    double *wt = gv_test_matrix(c * o * kd * kh, kw, kw, 82, 0);
    double *b = with_bias ? gv_test_matrix(1, o, o, 83, 0) : NULL;
    double *y = gv_test_alloc(ny), *g = gv_test_alloc(ny);
    __float128 *q = calloc((size_t)ny, sizeof *q);
    cr_assert(q);
    cr_assert_eq(go_conv3d_transposed(n, c, d, h, w, o, kd, kh, kw, x, wt, b, y), 0);
    cr_assert_eq(go_conv3d_transposed_gauge(n, c, d, h, w, o, kd, kh, kw, x, wt, b, g), 0);
    for (int64_t q0 = 0; q0 < n; q0++)
        for (int64_t ci = 0; ci < c; ci++)
            for (int64_t k = 0; k < d; k++)
                for (int64_t i = 0; i < h; i++)
                    for (int64_t j = 0; j < w; j++) {
                        __float128 xv = x[(((q0 * c + ci) * d + k) * h + i) * w + j];
                        for (int64_t oc = 0; oc < o; oc++)
                            for (int64_t z = 0; z < kd; z++)
                                for (int64_t a = 0; a < kh; a++)
                                    for (int64_t e = 0; e < kw; e++)
                                        q[(((q0 * o + oc) * od + k + z) * oh + i + a) * ow + j +
                                          e] +=
                                            xv * wt[(((ci * o + oc) * kd + z) * kh + a) * kw + e];
                    }
    for (int64_t at = 0; at < ny; at++) {
        const int64_t oc = (at / (ow * oh * od)) % o;
        double want = (double)(q[at] + (b ? b[oc] : 0));
        cr_expect(fabs(y[at] - want) <= 0x1p-53 * fabs(want) + 0x1p-55 * g[at],
                  "transposed %lldx%lldx%lld: y[%lld] %.17g, scatter %.17g", (long long)kd,
                  (long long)kh, (long long)kw, (long long)at, y[at], want);
        cr_expect(g[at] >= fabs(y[at]), "gauge below |y| at %lld", (long long)at);
    }
    /* the kernels' form: pad kd-1, kh-1, kw-1, flip, weights (in, out) */
    double *wf = gv_test_alloc(o * c * kd * kh * kw), *yc = gv_test_alloc(ny);
    for (int64_t ci = 0; ci < c; ci++)
        for (int64_t oc = 0; oc < o; oc++)
            for (int64_t t = 0; t < kd * kh * kw; t++)
                wf[(oc * c + ci) * kd * kh * kw + (kd * kh * kw - 1 - t)] =
                    wt[(ci * o + oc) * kd * kh * kw + t];
    cr_assert_eq(go_conv3d(n, c, d, h, w, o, kd, kh, kw, 1, kd - 1, kh - 1, kw - 1, x, wf, b, yc),
                 0);
    for (int64_t at = 0; at < ny; at++)
        cr_expect(fabs(yc[at] - y[at]) <= 0x1p-52 * g[at], "padded flipped correlation at %lld",
                  (long long)at);
    free(x);
    free(wt);
    free(b);
    free(y);
    free(g);
    free(q);
    free(wf);
    free(yc);
}

Test(conv_oracle, transposed_against_a_scatter_and_the_flipped_padded_correlation)
{
    check_transposed(2, 3, 1, 7, 5, 4, 1, 3, 3, false);  /* conv.2d.transposed */
    check_transposed(3, 4, 1, 1, 19, 5, 1, 1, 3, false); /* conv.1d.transposed */
    check_transposed(1, 2, 4, 4, 4, 3, 3, 3, 3, false);  /* conv.3d.transposed */
    check_transposed(2, 3, 1, 6, 6, 2, 1, 3, 3, true);   /* with a bias */
}

/* go_conv3d_ex's dilation and groups from identities with go_conv3d (each written another way,
   bit for bit on small integers, whose sums are exact): groups g are g convolutions of the
   channel slices, each output channel's group oc / (o / g) (not oc mod g); dilation d is the
   window with d - 1 zeros between its taps (a window d (k - 1) + 1 a side), the same padding. */
Test(conv_oracle, dilation_and_groups_by_their_definitions)
{
    const int64_t n = 2, c = 6, h = 9, w = 9, o = 4, g = 2, k = 3, cg = c / g, og = o / g;
    double *x = gv_test_alloc(n * c * h * w), *wt = gv_test_alloc(o * cg * k * k),
           *b = gv_test_alloc(o);
    for (int64_t i = 0; i < n * c * h * w; i++)
        x[i] = (double)((i * 7 + 3) % 11) - 5;
    for (int64_t i = 0; i < o * cg * k * k; i++)
        wt[i] = (double)((i * 5 + 1) % 9) - 4;
    for (int64_t i = 0; i < o; i++)
        b[i] = (double)i - 1.5;
    /* groups: stride 2, padding 1 */
    const int64_t oh = gk_conv_out_side(h, k, 2, 1);
    double *y = gv_test_alloc(n * o * oh * oh);
    cr_assert_eq(go_conv3d_ex(n, c, 1, h, w, o, 1, k, k, 2, 1, g, 0, 1, 1, x, wt, b, y), 0);
    double *xs = gv_test_alloc(cg * h * w), *ys = gv_test_alloc(og * oh * oh);
    for (int64_t q = 0; q < n; q++)
        for (int64_t gi = 0; gi < g; gi++) {
            for (int64_t i = 0; i < cg * h * w; i++)
                xs[i] = x[(q * c + gi * cg) * h * w + i];
            cr_assert_eq(go_conv3d(1, cg, 1, h, w, og, 1, k, k, 2, 0, 1, 1, xs,
                                   wt + gi * og * cg * k * k, b + gi * og, ys),
                         0);
            for (int64_t i = 0; i < og * oh * oh; i++)
                cr_expect_eq(y[(q * o + gi * og) * oh * oh + i], ys[i], "group %lld at %lld",
                             (long long)gi, (long long)i);
        }
    free(y);
    free(xs);
    free(ys);
    /* dilation 2, padding 2, groups 1 (weights o x c x 3 x 3 of the first o c 9 values) */
    double *w6 = gv_test_alloc(o * c * k * k), *wd = gv_test_zeros(o * c * 5 * 5);
    for (int64_t i = 0; i < o * c * k * k; i++)
        w6[i] = (double)((i * 5 + 1) % 9) - 4;
    for (int64_t p = 0; p < o * c; p++)
        for (int64_t a = 0; a < k; a++)
            for (int64_t e = 0; e < k; e++)
                wd[(p * 5 + 2 * a) * 5 + 2 * e] = w6[(p * k + a) * k + e];
    const int64_t od = gk_conv_out_side_dil(h, k, 1, 2, 2);
    cr_expect_eq(od, gk_conv_out_side(h, 5, 1, 2));
    double *yd = gv_test_alloc(n * o * od * od), *yz = gv_test_alloc(n * o * od * od);
    cr_assert_eq(go_conv3d_ex(n, c, 1, h, w, o, 1, k, k, 1, 2, 1, 0, 2, 2, x, w6, NULL, yd), 0);
    cr_assert_eq(go_conv3d(n, c, 1, h, w, o, 1, 5, 5, 1, 0, 2, 2, x, wd, NULL, yz), 0);
    for (int64_t i = 0; i < n * o * od * od; i++)
        cr_expect_eq(yd[i], yz[i], "dilated at %lld", (long long)i);
    /* at groups 1 and dilation 1 it is go_conv3d */
    cr_assert_eq(go_conv3d_ex(n, c, 1, h, w, o, 1, k, k, 1, 1, 1, 0, 1, 1, x, w6, b, yd), 0);
    cr_assert_eq(go_conv3d(n, c, 1, h, w, o, 1, k, k, 1, 0, 1, 1, x, w6, b, yz), 0);
    for (int64_t i = 0; i < n * o * h * w; i++)
        cr_expect_eq(yd[i], yz[i], "plain at %lld", (long long)i);
    /* bad arguments name themselves */
    cr_expect_eq(go_conv3d_ex(n, c, 1, h, w, o, 1, k, k, 1, 0, 1, 0, 1, 1, x, w6, b, yd), -11);
    cr_expect_eq(go_conv3d_ex(n, c, 1, h, w, o, 1, k, k, 1, 1, 4, 0, 1, 1, x, w6, b, yd), -12,
                 "c = 6 is no multiple of 4 groups");
    cr_expect_eq(go_conv3d_ex(n, c, 1, h, w, o, 1, k, k, 1, 2, 1, 0, 5, 1, x, w6, b, yd), -14,
                 "a padding past the dilated window");
    cr_expect_eq(go_conv3d_ex(n, c, 1, h, w, o, 1, k, k, 1, 1, 1, 0, 1, 1, x, w6, b, NULL), -19);
    free(x);
    free(wt);
    free(b);
    free(w6);
    free(wd);
    free(yd);
    free(yz);
}

/* One output of go_conv3d_ex as a single long double sum over its taps (ci, z, a, e) in that
   order, padding left out, the bias last: the oracle sums several outputs at once and must
   give each this sum's bits. */
static double one_output(bool gauge, const int64_t *s, const double *x, const double *wt,
                         const double *bias, int64_t b, int64_t oc, int64_t k, int64_t i, int64_t j)
{
    const int64_t c = s[0], d = s[1], h = s[2], w = s[3], o = s[4], kk = s[5], st = s[6],
                  dil = s[7], groups = s[8], pad = s[9], cg = c / groups,
                  c0 = oc / (o / groups) * cg;
    long double acc = 0;
    for (int64_t ci = 0; ci < cg; ci++)
        for (int64_t z = 0; z < kk; z++)
            for (int64_t a = 0; a < kk; a++)
                for (int64_t e = 0; e < kk; e++) {
                    int64_t id = k * st - pad + z * dil, ih = i * st - pad + a * dil,
                            iw = j * st - pad + e * dil;
                    if (id < 0 || id >= d || ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
                    long double t =
                        (long double)x[(((b * c + c0 + ci) * d + id) * h + ih) * w + iw] *
                        wt[(((oc * cg + ci) * kk + z) * kk + a) * kk + e];
                    acc += gauge ? fabsl(t) : t;
                }
    if (bias) acc += gauge ? fabsl((long double)bias[oc]) : (long double)bias[oc];
    return (double)acc;
}

Test(conv_oracle, each_output_is_its_own_single_sum_bit_for_bit)
{
    /* widths 7 and 13 (rows of 4 outputs and a remainder), stride 2, dilation 2, 2 groups */
    const int64_t shapes[2][10] = {{4, 5, 6, 7, 6, 3, 1, 1, 2, 1}, {2, 3, 5, 13, 4, 3, 2, 2, 1, 2}};
    for (int t = 0; t < 2; t++) {
        const int64_t *s = shapes[t], n = 2, c = s[0], d = s[1], h = s[2], w = s[3], o = s[4],
                      kk = s[5], st = s[6], dil = s[7], groups = s[8], pad = s[9];
        const int64_t od = gk_conv_out_side_dil(d, kk, st, pad, dil),
                      oh = gk_conv_out_side_dil(h, kk, st, pad, dil),
                      ow = gk_conv_out_side_dil(w, kk, st, pad, dil), out = n * o * od * oh * ow;
        double *x = gv_test_matrix(n * c * d * h, w, w, 61 + t, 0);
        double *wt = gv_test_matrix(o * c / groups * kk * kk, kk, kk, 63 + t, 0);
        double *bias = gv_test_matrix(1, o, o, 65, 0);
        double *y = gv_test_alloc(out), *g = gv_test_alloc(out);
        cr_assert_eq(go_conv3d_ex(n, c, d, h, w, o, kk, kk, kk, st, dil, groups, pad, pad, pad, x,
                                  wt, bias, y),
                     0);
        cr_assert_eq(go_conv3d_ex_gauge(n, c, d, h, w, o, kk, kk, kk, st, dil, groups, pad, pad,
                                        pad, x, wt, bias, g),
                     0);
        for (int64_t idx = 0; idx < out; idx++) {
            int64_t j = idx % ow, i = idx / ow % oh, k = idx / (ow * oh) % od,
                    oc = idx / (ow * oh * od) % o, b = idx / (ow * oh * od * o);
            double ys = one_output(false, s, x, wt, bias, b, oc, k, i, j),
                   gs = one_output(true, s, x, wt, bias, b, oc, k, i, j);
            cr_expect(memcmp(&y[idx], &ys, sizeof ys) == 0, "shape %d output %lld", t,
                      (long long)idx);
            cr_expect(memcmp(&g[idx], &gs, sizeof gs) == 0, "shape %d gauge %lld", t,
                      (long long)idx);
        }
        free(x), free(wt), free(bias), free(y), free(g);
    }
}

/* The transposed oracle likewise: each output the single long double sum over (ci, z, a, e)
   of x(b, ci, k - z, i - a, j - e) wt(ci, oc, z, a, e), the input's indices inside it, the
   bias last (widths 5 + 3 - 1 = 7 and 11 + 3 - 1 = 13: rows of 4 and a remainder). */
Test(conv_oracle, each_transposed_output_is_its_own_single_sum_bit_for_bit)
{
    const int64_t n = 2, c = 3, o = 4, k = 3, sides[2][3] = {{3, 4, 5}, {1, 2, 11}};
    for (int t = 0; t < 2; t++) {
        const int64_t d = sides[t][0], h = sides[t][1], w = sides[t][2], kd = d > 1 ? k : 1;
        const int64_t od = d + kd - 1, oh = h + k - 1, ow = w + k - 1, out = n * o * od * oh * ow;
        double *x = gv_test_matrix(n * c * d * h, w, w, 71 + t, 0);
        double *wt = gv_test_matrix(c * o * kd * k, k, k, 73 + t, 0);
        double *bias = gv_test_matrix(1, o, o, 75, 0);
        double *y = gv_test_alloc(out), *g = gv_test_alloc(out);
        cr_assert_eq(go_conv3d_transposed(n, c, d, h, w, o, kd, k, k, x, wt, bias, y), 0);
        cr_assert_eq(go_conv3d_transposed_gauge(n, c, d, h, w, o, kd, k, k, x, wt, bias, g), 0);
        for (int64_t idx = 0; idx < out; idx++) {
            int64_t j = idx % ow, i = idx / ow % oh, kk = idx / (ow * oh) % od,
                    oc = idx / (ow * oh * od) % o, b = idx / (ow * oh * od * o);
            long double sum = 0, abs_sum = 0;
            for (int64_t ci = 0; ci < c; ci++)
                for (int64_t z = 0; z < kd; z++)
                    for (int64_t a = 0; a < k; a++)
                        for (int64_t e = 0; e < k; e++) {
                            int64_t id = kk - z, ih = i - a, iw = j - e;
                            if (id < 0 || id >= d || ih < 0 || ih >= h || iw < 0 || iw >= w)
                                continue;
                            long double tm =
                                (long double)x[(((b * c + ci) * d + id) * h + ih) * w + iw] *
                                wt[(((ci * o + oc) * kd + z) * k + a) * k + e];
                            sum += tm;
                            abs_sum += fabsl(tm);
                        }
            sum += (long double)bias[oc];
            abs_sum += fabsl((long double)bias[oc]);
            double ys = (double)sum, gs = (double)abs_sum;
            cr_expect(memcmp(&y[idx], &ys, sizeof ys) == 0, "sides %d output %lld", t,
                      (long long)idx);
            cr_expect(memcmp(&g[idx], &gs, sizeof gs) == 0, "sides %d gauge %lld", t,
                      (long long)idx);
        }
        free(x), free(wt), free(bias), free(y), free(g);
    }
}
