/* lowp.c: the low-precision storage formats of given arrays (lowp.h): their table, exact
 * decoding, the preimage of a stored value under round-to-nearest-even, and the projection of
 * the reference onto it that the judge then holds to the compute precision's model.
 *
 * Formats: bfloat16 (8 significand bits, binary32's exponent range); IEEE binary16; OCP 8-bit
 * Floating Point Specification 1.0 (2023) E4M3 (bias 7, no infinities, S.1111.111 is NaN,
 * largest finite 448) and E5M2 (bias 15, IEEE-like with infinities, largest finite 57344).
 * Overflow: bf16, f16 and E5M2 round to infinity from max + ulp/2 on (f16: 65520); E4M3 has no
 * infinity: the conversions that produce fp8 results for matrix products (cuBLASLt, CUDA's
 * __nv_cvt_float_to_fp8 with __NV_SATFINITE) saturate to +-448, so the preimage of +-448 runs
 * to infinity; PyTorch's tensor.to(torch.float8_e4m3fn) gives NaN there instead, and that NaN
 * is judged as NaN (a FAIL where the reference is finite). */
#include "api/lowp.h"

#include <assert.h>
#include <math.h>
#include <string.h>

static const gv_lowp_info formats[] = {
    {GV_DTYPE_BF16, "bf16", 2, 8, -126, 0x1.fep127, true, "infinity from (2 - 2^-8) 2^127 on"},
    {GV_DTYPE_F16, "f16", 2, 11, -14, 65504.0, true, "infinity from 65520 on"},
    {GV_DTYPE_E4M3, "e4m3", 1, 4, -6, 448.0, false,
     "no infinity: +-448 read as saturated (cuBLASLt, __NV_SATFINITE); PyTorch's NaN is NaN"},
    {GV_DTYPE_E5M2, "e5m2", 1, 3, -14, 57344.0, true, "infinity from 61440 on"},
};

const gv_lowp_info *gv_lowp_get(int dtype)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].dtype == dtype) return &formats[i];
    return NULL;
}

const char *gv_lowp_dtype_name(int dtype)
{
    if (dtype == GV_DTYPE_F32) return "f32";
    if (dtype == GV_DTYPE_F64) return "f64";
    const gv_lowp_info *f = gv_lowp_get(dtype);
    return f ? f->name : "?";
}

int gv_lowp_dtype_parse(const char *name)
{
    if (!name) return -1;
    if (strcmp(name, "f32") == 0) return GV_DTYPE_F32;
    if (strcmp(name, "f64") == 0) return GV_DTYPE_F64;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(formats[i].name, name) == 0) return formats[i].dtype;
    return -1;
}

int gv_lowp_dtype_bytes(int dtype)
{
    if (dtype == GV_DTYPE_F32) return 4;
    if (dtype == GV_DTYPE_F64) return 8;
    const gv_lowp_info *f = gv_lowp_get(dtype);
    return f ? f->bytes : 0;
}

static double decode_bits(const gv_lowp_info *f, uint32_t b)
{
    switch (f->dtype) {
    case GV_DTYPE_BF16: {
        uint32_t bits = b << 16;
        float v;
        memcpy(&v, &bits, 4);
        return v;
    }
    case GV_DTYPE_F16: {
        int sign = (int)(b >> 15), e = (int)((b >> 10) & 0x1f), m = (int)(b & 0x3ff);
        double v = e == 0    ? ldexp(m, -24)
                   : e == 31 ? (m ? NAN : INFINITY)
                             : ldexp(m | 0x400, e - 25);
        return sign ? -v : v;
    }
    case GV_DTYPE_E4M3: {
        int sign = (int)(b >> 7), e = (int)((b >> 3) & 0xf), m = (int)(b & 7);
        double v = (e == 15 && m == 7) ? NAN : e == 0 ? ldexp(m, -9) : ldexp(8 | m, e - 10);
        return sign ? -v : v;
    }
    case GV_DTYPE_E5M2: {
        int sign = (int)(b >> 7), e = (int)((b >> 2) & 0x1f), m = (int)(b & 3);
        double v = e == 31 ? (m ? NAN : INFINITY) : e == 0 ? ldexp(m, -16) : ldexp(4 | m, e - 17);
        return sign ? -v : v;
    }
    default: assert(!"gv_lowp: not a low-precision format"); return NAN;
    }
}

double gv_lowp_decode(const gv_lowp_info *f, const void *buf, int64_t i)
{
    const unsigned char *p = (const unsigned char *)buf + (size_t)i * (size_t)f->bytes;
    uint32_t b = f->bytes == 2 ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : p[0]; /* little-endian */
    return decode_bits(f, b);
}

void gv_lowp_preimage(const gv_lowp_info *f, double c, double *lo, double *hi)
{
    if (isnan(c)) {
        *lo = *hi = NAN;
        return;
    }
    double a = fabs(c), top_ulp = ldexp(1.0, ilogb(f->max_finite) - f->p + 1);
    double l, h;
    if (isinf(a)) { /* only formats with infinities store one: what overflowed */
        l = f->max_finite + top_ulp / 2;
        h = INFINITY;
    } else if (a == 0.0) {
        l = 0.0; /* mirrored below: [-half, +half] of the smallest subnormal */
        h = ldexp(1.0, f->emin - f->p) /* half the subnormal spacing 2^(emin - p + 1) */;
    } else {
        int e = ilogb(a);
        int e_eff = e < f->emin ? f->emin : e;
        double ulp_up = ldexp(1.0, e_eff - f->p + 1);
        /* below a power of two of the normal range the spacing halves */
        double ulp_down = (a == ldexp(1.0, e) && e > f->emin) ? ulp_up / 2 : ulp_up;
        l = a - ulp_down / 2;
        h = a + ulp_up / 2;
        if (a == f->max_finite && !f->has_inf) h = INFINITY; /* saturated */
    }
    if (a == 0.0) {
        *lo = -h;
        *hi = h;
    } else if (signbit(c)) {
        *lo = -h;
        *hi = -l;
    } else {
        *lo = l;
        *hi = h;
    }
}

void gv_lowp_project(const gv_lowp_info *f, const void *buf, const double *ref, int64_t n,
                     double *dst)
{
    for (int64_t k = 0; k < n; k++) {
        double c = gv_lowp_decode(f, buf, k), r = ref[k];
        if (isnan(c) || !isfinite(r)) {
            dst[k] = c;
            continue;
        }
        double lo, hi;
        gv_lowp_preimage(f, c, &lo, &hi);
        double x = r < lo ? lo : r > hi ? hi : r;
        /* a zero output whose preimage holds r keeps its own sign where r is zero */
        if (x == 0.0) x = c;
        dst[k] = x;
        assert(!((float)x < lo) && !((float)x > hi));
    }
}

const char *gv_lowp_family_refused(const char *family)
{
    static const char *const allowed[] = {"vadd",   "gemm",    "colsum", "dense", "act",
                                          "mathfn", "softmax", "norm",   "norms", "scan",
                                          "loss",   "pool",    "reduce"};
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (strcmp(family, allowed[i]) == 0) return NULL;
    if (strcmp(family, "solve") == 0 || strcmp(family, "lsmr") == 0)
        return "is judged by its backward error (the residual of the solution), which a "
               "rounded output has no model in";
    if (strcmp(family, "fft") == 0)
        return "is judged normwise over complex outputs, not element by element";
    return "is not judged element by element by a forward-error model (low-precision outputs "
           "are judged for vadd, gemm, colsum, dense, act, mathfn, softmax, norms, scan, loss, "
           "pool and reduce)";
}
