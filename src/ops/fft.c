/* fft.c: op descriptors for batched 1-D FFTs through cuFFT (seed 001's GPU example), one op
 * per transform and direction so that `gpuval list` shows it: fft.c2c.fwd, fft.c2c.inv,
 * fft.r2c.fwd (real -> n/2 + 1 complex), fft.c2r.inv (n/2 + 1 complex -> real), and the
 * planted bug fft.c2c.fwd.wrongsign. Dims "n,batch": transform length and count. Complex
 * tensors are interleaved (re, im) pairs of the case's dtype, so a c2c tensor holds
 * 2 n batch reals. Forward is e^{-2 pi i jk/n}; inverses are NOT scaled by 1/n, as in
 * cuFFT and FFTW.
 * Error model: docs/error-models.md, section fft. */
#include "ops/opkit.h"

extern const gk_op gk_fft_c2c_fwd, gk_fft_c2c_inv, gk_fft_r2c_fwd, gk_fft_c2r_inv,
    gk_fft_c2c_fwd_wrongsign;

typedef enum fft_kind { FFT_C2C_FWD, FFT_C2C_INV, FFT_R2C, FFT_C2R } fft_kind;

#define FFT_MAX_N      (INT64_C(1) << 27)
#define FFT_MAX_POINTS (INT64_C(1) << 30)

static int64_t fft_n(const gv_case *c)
{
    return c->shape.d[0];
}
static int64_t fft_batch(const gv_case *c)
{
    return c->shape.d[1];
}
static int64_t half(int64_t n)
{
    return n / 2 + 1;
}

static int fft_check_shape(const gv_shape *s, char *why, size_t len)
{
    int64_t n = s->d[0], batch = s->d[1];
    if (n < 2) {
        snprintf(why, len, "fft n must be at least 2 (a 1-point transform is the identity)");
        return GV_EINVAL;
    }
    if (n > FFT_MAX_N || (double)n * (double)batch > (double)FFT_MAX_POINTS) {
        snprintf(why, len, "fft n must be at most 2^27 and n x batch at most 2^30 (got %lldx%lld)",
                 (long long)n, (long long)batch);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int64_t ceil_log2(int64_t n)
{
    int64_t d = 0;
    while ((INT64_C(1) << d) < n)
        d++;
    return d;
}

/* Only prime factors 2, 3, 5, 7: cuFFT's Cooley-Tukey sizes. */
static bool fft_smooth(int64_t n)
{
    static const int primes[] = {2, 3, 5, 7};
    for (int i = 0; i < 4; i++)
        while (n % primes[i] == 0)
            n /= primes[i];
    return n == 1;
}

static double fft_depth_of(int64_t n, fft_kind k)
{
    int64_t l = ceil_log2(n);
    double d = fft_smooth(n) ? (double)l : 2.0 * (double)l + 5.0;
    if (k == FFT_R2C || k == FFT_C2R) d += 1.0;
    return d < 1.0 ? 1.0 : d;
}

/* Mean square of one input real under dist (values in src/core/gen.c). */
static double dist_mean_square(gv_dist d)
{
    switch (d) {
    case GV_DIST_SMALLINT: return 408.0 / 17.0; /* k in [-8, 8]: 2 (1^2+..+8^2)/17 */
    case GV_DIST_OFFGRID: return 1536.0 * 1536.0 + (1024.0 * 1024.0 - 1.0) / 12.0;
    default: return 1.0 / 3.0; /* uniform [0,1) and [-1,1) */
    }
}

/* Root mean square of one real output component of the exact transform: ||y||^2 / count.
 * c2c: n ||x||^2 over 2n components = n s; r2c: the full spectrum n^2 s over 2n = n s / 2;
 * c2r: a half spectrum of ~n complex values of mean square 2s gives n (2 n s) over n = 2 n s. */
static double fft_output_rms(const gv_case *c, fft_kind k)
{
    double f = k == FFT_R2C ? 0.5 : k == FFT_C2R ? 2.0 : 1.0;
    return sqrt((double)fft_n(c) * dist_mean_square(c->dist) * f);
}

/* The allclose tier |c - r| <= t (1 + |r|) reduces to |c - r| <= t for outputs near 0, and an
 * FFT puts an absolute error of about u d rms(y) into every output, rms(y) = sqrt(n) rms(x):
 * errors spread over all bins, worst case O(u log n), mean O(u sqrt(log n)) relative to ||y||
 * (Johnson and Frigo, "Implementing FFTs in Practice", in Burrus, Fast Fourier Transforms,
 * sec. 10.8). Measured with FFTW f32 and an f32 Bluestein (uniform [-1,1), n <= 2^20):
 * max |c - r| <= 1.8 u ceil(log2 n) rms(y). So tier t is expected only while
 * 2 u d rms(y) <= t; beyond that some near-zero outputs miss it. */
static double fft_tier(const gv_case *c, fft_kind k, char *why, size_t len)
{
    double t = gv_dtype_tier(c->dtype);
    if (c->mode != GV_MODE_NATIVE) return 0.0;
    double u = gv_unit_roundoff(c->dtype, c->mode), d = fft_depth_of(fft_n(c), k);
    double rms = fft_output_rms(c, k), err = 2.0 * u * d * rms;
    if (err <= t) return t;
    snprintf(why, len,
             "an FFT's absolute error is ~u d rms(y) in every output, so outputs near 0 miss "
             "t(1+|r|): 2 u d rms(y) = 2 * %.3g * %.0f * %.3g = %.2g > %.0e",
             u, d, rms, err, t);
    return 0.0;
}

static int fft_layout_of(const gv_case *c, gv_layout *l, fft_kind k)
{
    int64_t n = fft_n(c), b = fft_batch(c);
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    switch (k) {
    case FFT_R2C:
        l->in[0] = (gv_tensor_spec){"x", n * b};
        l->out[0] = (gv_tensor_spec){"y", 2 * half(n) * b};
        break;
    case FFT_C2R:
        l->in[0] = (gv_tensor_spec){"x", 2 * half(n) * b};
        l->out[0] = (gv_tensor_spec){"y", n * b};
        /* cuFFT's C2R overwrites its input: launch transforms a copy */
        l->workspace_bytes = l->in[0].count * (int64_t)gv_dtype_size(c->dtype);
        break;
    default:
        l->in[0] = (gv_tensor_spec){"x", 2 * n * b};
        l->out[0] = (gv_tensor_spec){"y", 2 * n * b};
        break;
    }
    return GV_OK;
}

/* 5 n log2 n per complex transform, half that for real ones: the conventional FFT count
 * (as in FFTW's benchFFT), whatever algorithm runs. */
static double fft_flops_of(const gv_case *c, fft_kind k)
{
    double n = (double)fft_n(c), f = (k == FFT_R2C || k == FFT_C2R) ? 2.5 : 5.0;
    return f * n * log2(n) * (double)fft_batch(c);
}

static double fft_bytes_of(const gv_case *c, fft_kind k)
{
    gv_layout l;
    fft_layout_of(c, &l, k);
    return (double)(l.in[0].count + l.out[0].count) * gv_esize(c);
}

static int fft_inputs_of(gv_problem *p, fft_kind k)
{
    gv_fill(p, 0, p->c.dist);
    if (k != FFT_C2R) return GV_OK;
    /* A C2R input must be the half spectrum of a real signal: X_0 (and X_{n/2}, n even) real.
       What a library does with other imaginary parts there is not specified, so none. */
    int64_t n = fft_n(&p->c), h = half(n);
    for (int64_t b = 0; b < fft_batch(&p->c); b++) {
        double *row = p->in[0].ref + 2 * b * h;
        row[1] = 0.0;
        if (n % 2 == 0) row[2 * (h - 1) + 1] = 0.0;
    }
    gv_store_rounded(p, 0);
    return GV_OK;
}

static int fft_oracle_of(gv_problem *p, fft_kind k)
{
    int64_t n = fft_n(&p->c), b = fft_batch(&p->c), h = half(n);
    const double *x = p->in[0].ref;
    double *y = p->out[0].ref, *g = p->out[0].gauge;
    int rc;
    switch (k) {
    case FFT_R2C:
        rc = go_fft_r2c(n, b, x, n, y, h);
        if (!rc) rc = go_fft_r2c_gauge(n, b, x, n, g, h);
        break;
    case FFT_C2R:
        rc = go_fft_c2r(n, b, x, h, y, n);
        if (!rc) rc = go_fft_c2r_gauge(n, b, x, h, g, n);
        break;
    default:
        rc = go_fft_c2c(n, b, k == FFT_C2C_FWD ? -1 : 1, x, n, y, n);
        if (!rc) rc = go_fft_c2c_gauge(n, b, x, n, g, n);
        break;
    }
    return gv_oracle_rc(rc);
}

/* The arrays as `gpuval inputs` writes them: a row of each batch, complex values as a last dim
   of 2 (re, im) as they are interleaved; a real row is n long. */
static int fft_tensor_shape_of(const gv_case *c, bool output, fft_kind k, int64_t *shape)
{
    int64_t n = fft_n(c), b = fft_batch(c);
    bool real = (k == FFT_R2C && !output) || (k == FFT_C2R && output);
    bool halved = (k == FFT_R2C && output) || (k == FFT_C2R && !output);
    shape[0] = b;
    shape[1] = halved ? half(n) : n;
    if (real) return 2;
    shape[2] = 2;
    return 3;
}

/* The descriptor hooks take no context, so each kind gets its thin wrappers. */
#define FFT_HOOKS(K, s)                                                                            \
    static int layout_##s(const gv_case *c, gv_layout *l)                                          \
    {                                                                                              \
        return fft_layout_of(c, l, K);                                                             \
    }                                                                                              \
    static double flops_##s(const gv_case *c)                                                      \
    {                                                                                              \
        return fft_flops_of(c, K);                                                                 \
    }                                                                                              \
    static double bytes_##s(const gv_case *c)                                                      \
    {                                                                                              \
        return fft_bytes_of(c, K);                                                                 \
    }                                                                                              \
    static int inputs_##s(gv_problem *p)                                                           \
    {                                                                                              \
        return fft_inputs_of(p, K);                                                                \
    }                                                                                              \
    static int oracle_##s(gv_problem *p)                                                           \
    {                                                                                              \
        return fft_oracle_of(p, K);                                                                \
    }                                                                                              \
    static double depth_##s(const gv_case *c)                                                      \
    {                                                                                              \
        return fft_depth_of(fft_n(c), K);                                                          \
    }                                                                                              \
    static double tier_##s(const gv_case *c, char *why, size_t len)                                \
    {                                                                                              \
        return fft_tier(c, K, why, len);                                                           \
    }                                                                                              \
    static int shape_##s(const gv_case *c, const gv_layout *l, bool output, int i, int64_t *shape) \
    {                                                                                              \
        (void)l, (void)i;                                                                          \
        return fft_tensor_shape_of(c, output, K, shape);                                           \
    }

FFT_HOOKS(FFT_C2C_FWD, c2c_fwd)
FFT_HOOKS(FFT_C2C_INV, c2c_inv)
FFT_HOOKS(FFT_R2C, r2c)
FFT_HOOKS(FFT_C2R, c2r)

#define FFT_MODEL_BASE                                                                             \
    "gauge ||y_b||_2 = sqrt(n)||x_b||_2 for row b (Higham ASNA Thm 24.2); depth ceil(log2 n) "     \
    "for n = 2^a3^b5^c7^d, else 2ceil(log2 n)+5 (Bluestein)"
#define FFT_MODEL_C2C  FFT_MODEL_BASE " (docs/error-models.md)"
#define FFT_MODEL_REAL FFT_MODEL_BASE ", +1 for the real split/merge (docs/error-models.md)"

#define FFT_COMMON(s)                                                                              \
    .family = "fft", .dims = "n,batch", .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE), \
    .dists = GV_FINITE_DISTS, .default_dist = GV_DIST_UNIFORM11, .check_shape = fft_check_shape,   \
    .layout = layout_##s, .flops = flops_##s, .bytes = bytes_##s, .make_inputs = inputs_##s,       \
    .oracle = oracle_##s, .depth = depth_##s, .expected_tier = tier_##s, .tensor_shape = shape_##s

#define FFT_SHAPES      "1000x1000,4097x256,65537x16,2^20x8"
#define FFT_TEST_SHAPES "2x3,17x2,64x5,1000x4,4096x2,4097x3,7919x2,65537x2,2^20x1"

static const gv_op fft_c2c_fwd = {
    .name = "fft.c2c.fwd",
    .in_dims = "batch,n",
    .out_dims = "batch,n",
    .complex_in = 1,
    .complex_out = 1,
    .summary = "forward complex FFT, e^{-2pi i jk/n}, batched; cuFFT C2C/Z2Z (seed 001)",
    .shapes = FFT_SHAPES,
    .test_shapes = FFT_TEST_SHAPES,
    .error_model = FFT_MODEL_C2C,
    .device = GV_KERNEL(gk_fft_c2c_fwd),
    FFT_COMMON(c2c_fwd),
};

static const gv_op fft_c2c_inv = {
    .name = "fft.c2c.inv",
    .in_dims = "batch,n",
    .out_dims = "batch,n",
    .complex_in = 1,
    .complex_out = 1,
    .summary = "inverse complex FFT, e^{+2pi i jk/n}, unnormalised (no 1/n); cuFFT C2C/Z2Z",
    .shapes = FFT_SHAPES,
    .test_shapes = FFT_TEST_SHAPES,
    .error_model = FFT_MODEL_C2C,
    .device = GV_KERNEL(gk_fft_c2c_inv),
    FFT_COMMON(c2c_inv),
};

static const gv_op fft_r2c_fwd = {
    .name = "fft.r2c.fwd",
    .in_dims = "batch,n",
    .out_dims = "",
    .complex_out = 1,
    .summary = "forward real-to-complex FFT, n reals -> n/2+1 complex; cuFFT R2C/D2Z",
    .shapes = FFT_SHAPES,
    .test_shapes = FFT_TEST_SHAPES,
    .error_model = FFT_MODEL_REAL,
    .device = GV_KERNEL(gk_fft_r2c_fwd),
    FFT_COMMON(r2c),
};

static const gv_op fft_c2r_inv = {
    .name = "fft.c2r.inv",
    .in_dims = "",
    .out_dims = "batch,n",
    .complex_in = 1,
    .summary = "inverse complex-to-real FFT, n/2+1 complex -> n reals, unnormalised; C2R/Z2D",
    .shapes = FFT_SHAPES,
    .test_shapes = FFT_TEST_SHAPES,
    .error_model = FFT_MODEL_REAL,
    .device = GV_KERNEL(gk_fft_c2r_inv),
    FFT_COMMON(c2r),
};

/* A direction mix-up is the classic FFT mistake; for n > 2 it changes every bin but DC. */
static const gv_op fft_c2c_fwd_wrongsign = {
    .name = "fft.c2c.fwd.wrongsign",
    .in_dims = "batch,n",
    .out_dims = "batch,n",
    .complex_in = 1,
    .complex_out = 1,
    .summary = "planted bug: the forward transform executed with CUFFT_INVERSE",
    .planted_bug = "wrong transform direction",
    .shapes = "1000x4",
    .test_shapes = "1000x4,7919x2",
    .error_model = "as fft.c2c.fwd",
    .device = GV_KERNEL(gk_fft_c2c_fwd_wrongsign),
    FFT_COMMON(c2c_fwd),
};

const gv_op *const gv_family_fft[] = {&fft_c2c_fwd, &fft_c2c_inv,           &fft_r2c_fwd,
                                      &fft_c2r_inv, &fft_c2c_fwd_wrongsign, NULL};
