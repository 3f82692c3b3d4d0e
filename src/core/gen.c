/* gen.c: the counter-based input generator. Each value is a pure function of
 * (seed, tensor, index) through the splitmix64 finaliser (Steele, Lea and Flood, "Fast
 * splittable pseudorandom number generators", OOPSLA 2014), a bijection on 64 bits, so any
 * element can be drawn on its own and every machine gets the same bits. */
#include "core/gen.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "core/op.h"

static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t gv_gen_bits(uint64_t seed, uint64_t tensor, uint64_t index)
{
    return mix64(mix64(mix64(seed) ^ tensor) ^ index);
}

double gv_gen_unit(uint64_t seed, uint64_t tensor, uint64_t index)
{
    return (double)(gv_gen_bits(seed, tensor, index) >> 11) * 0x1p-53;
}

/* Special values, one in eight elements of GV_DIST_SPECIAL; the subnormals are f32
 * subnormals (also subnormal-free-of-rounding in f64, where they are normal numbers). */
static double special_value(uint64_t bits)
{
    switch (bits % 6) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return -0.0;
    case 4: return 0x1p-140; /* an f32 subnormal */
    default: return -0x1p-130;
    }
}

/* The window a tiny, huge or sparse-special value takes when none is given (gv_gen_value):
   [1, 256) and one special in 64. */
static const gv_dist_window default_window = {7, 8, 1.0 / 64.0};

/* The double whose bits are b. */
static inline double from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* An edge value: sign from bit 0, the binade from bits 1..10 (about uniform over the window's
   width <= 1024), p - 1 fraction bits from the top (disjoint from both): +-m 2^e with
   m = 1 + (bits >> (65 - p)) 2^(1 - p), exact in a dtype of p bits wherever it is normal, and
   returned rounded (to nearest even) to the dtype of p bits whose smallest normal is 2^emin
   (f64: p = 53, emin = -1022, where that rounding is ldexp's own; f32: 24, -126).
   It is built from bits, never by arithmetic on a subnormal: ldexp(m, e) into the subnormals
   and the conversion of a subnormal to f32 take a microcode assist of ~100 cycles each on
   x86, which made tiny's generation 13 times slower than uniform01's. The values are those of
   gv_round_to(ldexp(m, e), t), bit for bit (tests/cpu/test_gen.c pins them). */
static double edge_value(uint64_t bits, const gv_dist_window *w, int p, int emin)
{
    uint64_t frac = bits >> (65 - p); /* p - 1 bits */
    int e = w->top - (int)((((bits >> 1) & 0x3FF) * (uint64_t)w->width) >> 10);
    uint64_t sign = (bits & 1) << 63, mag;
    if (e >= emin && e >= -1022) {
        /* normal in the dtype and in f64: exponent and fraction fields */
        mag = e > 1 - emin ? 0x7FF0000000000000ull /* past the dtype's largest binade */
                           : ((uint64_t)(e + 1023) << 52) | (frac << (53 - p));
    } else {
        /* below the dtype's normals: M 2^(e - p + 1), M = 2^(p-1) + frac, on the subnormal
           grid 2^q, q = emin - p + 1, is M 2^-r units of 2^q, r = emin - e >= 1: rounded to
           the nearest integer K, ties to even */
        uint64_t M = (1ull << (p - 1)) | frac, K = 0;
        int r = emin - e, q = emin - p + 1;
        if (r < 64) {
            uint64_t rem = M & ((1ull << r) - 1), half = 1ull << (r - 1);
            K = M >> r;
            K += rem > half || (rem == half && (K & 1));
        }
        if (q >= -1022) {
            /* K 2^q: an integer below 2^p times a normal power of two, exact and normal in f64
               (f32's subnormals are f64 normals) */
            double v = (double)K * from_bits((uint64_t)(q + 1023) << 52);
            memcpy(&mag, &v, sizeof mag);
        } else {
            /* f64's own subnormals (q = -1074): K units of 2^-1074 are the bits K, and K =
               2^52 (rounded up) the bits of 2^-1022 */
            mag = K << (q + 1074);
        }
    }
    return from_bits(sign | mag);
}

/* Whether index is one of sparse-special's special positions: a function of (seed, index)
   alone, the same in every tensor. */
static bool special_position(uint64_t seed, uint64_t index, double rate)
{
    return gv_gen_unit(seed, 0x5eca1c0ffee5eedull, index) < rate;
}

static double sparse_special_value(uint64_t bits, uint64_t seed, uint64_t index, double rate)
{
    if (special_position(seed, index, rate)) {
        switch (bits & 3) {
        case 0: return NAN;
        case 1: return INFINITY;
        case 2: return -INFINITY;
        default: return -0.0;
        }
    }
    return 2.0 * ((double)(bits >> 11) * 0x1p-53) - 1.0;
}

/* The value of distribution d for element index, whose bits are gv_gen_bits(seed, tensor,
   index). */
static inline double value_of_bits(gv_dist d, uint64_t bits, uint64_t seed, uint64_t tensor,
                                   uint64_t index)
{
    double u = (double)(bits >> 11) * 0x1p-53;
    switch (d) {
    case GV_DIST_UNIFORM01: return u;
    case GV_DIST_UNIFORM11: return 2.0 * u - 1.0;
    case GV_DIST_SMALLINT: return (double)(int64_t)(bits % 17) - 8.0;
    case GV_DIST_SPECIAL:
        /* the low 3 bits choose special or not; the rest are independent of them */
        if ((bits & 7) == 0) return special_value(bits >> 3);
        return 2.0 * u - 1.0;
    case GV_DIST_OFFGRID: return 1024.0 + (double)(bits % 1024) + 0.5;
    case GV_DIST_TIE:
        if (tensor == 0) return (2048.0 + 4.0 * (double)(bits % 512) + 1.0) / 2048.0;
        return (bits >> 63) ? -1.0 : 1.0;
    case GV_DIST_PERM2:
        /* 1 + 51 random fraction bits: 52 significant bits (gv_gen_fill trims f32's to 23) */
        if (tensor == 0) return 1.0 + (double)((bits >> 13) << 1) * 0x1p-52;
        return (bits >> 63) ? -1.0 : 1.0;
    case GV_DIST_NARROW:
        /* 14 at index 0: the tensor's largest magnitude is 14 whatever its size; non-negative,
           so that partial sums grow with k (a narrow accumulator must lose bits) rather than
           wander near zero */
        return index == 0 ? 14.0 : (double)(bits % 15);
    case GV_DIST_WIDTH: return 0.0; /* the op lays the probe out itself */
    case GV_DIST_TINY:
    case GV_DIST_HUGE: return edge_value(bits, &default_window, 53, -1022);
    case GV_DIST_SPARSE_SPECIAL:
        return sparse_special_value(bits, seed, index, default_window.special_rate);
    case GV_DIST_WIDE: {
        /* Box-Muller on two independent draws: N(0,1), then +-exp(2 N) */
        double u1 = 1.0 - u; /* in (0, 1] */
        double u2 = gv_gen_unit(seed, tensor ^ 0x5bd1e9955bd1e995ull, index);
        double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
        double v = exp(2.0 * z);
        return (bits & 1) ? -v : v;
    }
    default: return NAN;
    }
}

double gv_gen_value(gv_dist d, uint64_t seed, uint64_t tensor, uint64_t index)
{
    return value_of_bits(d, gv_gen_bits(seed, tensor, index), seed, tensor, index);
}

/* x in [1, 2) cut to its leading p significant bits (truncation: exact, and stays in [1,2)) */
static double trim_bits(double x, int p)
{
    return ldexp(floor(ldexp(x, p - 1)), 1 - p);
}

double gv_round_to(double x, gv_dtype t)
{
    return gv_dtype_round(t, x);
}

void gv_gen_fill(double *out, int64_t n, gv_dist d, gv_dtype t, uint64_t seed, uint64_t tensor)
{
    if (d == GV_DIST_PERM2 && tensor == 0) {
        /* p - 1 bits, so that a + b and a - b of two of them are exact in the dtype */
        int p = gv_dtype_mantissa_bits(t) - 1;
#pragma omp parallel for schedule(static) if (n >= GV_PAR_MIN)
        for (int64_t i = 0; i < n; i++)
            out[i] = trim_bits(gv_gen_value(d, seed, tensor, (uint64_t)i), p);
        return;
    }
    /* each element a pure function of (seed, tensor, i): on all cores, the same bits. The
       first two rounds of gv_gen_bits depend on (seed, tensor) alone; f64 needs no rounding. */
    uint64_t base = mix64(mix64(seed) ^ tensor);
    if (t == GV_F64) {
#pragma omp parallel for schedule(static) if (n >= GV_PAR_MIN)
        for (int64_t i = 0; i < n; i++)
            out[i] = value_of_bits(d, mix64(base ^ (uint64_t)i), seed, tensor, (uint64_t)i);
    } else if (t == GV_F32) {
#pragma omp parallel for schedule(static) if (n >= GV_PAR_MIN)
        for (int64_t i = 0; i < n; i++)
            out[i] = (double)(float)value_of_bits(d, mix64(base ^ (uint64_t)i), seed, tensor,
                                                  (uint64_t)i);
    } else {
#pragma omp parallel for schedule(static) if (n >= GV_PAR_MIN)
        for (int64_t i = 0; i < n; i++)
            out[i] = gv_round_to(
                value_of_bits(d, mix64(base ^ (uint64_t)i), seed, tensor, (uint64_t)i), t);
    }
}

void gv_gen_perm2(double *out, int64_t rows, int64_t cols, uint64_t seed, uint64_t tensor)
{
    for (int64_t i = 0; i < rows * cols; i++)
        out[i] = 0.0;
    for (int64_t j = 0; j < cols; j++) {
        uint64_t b1 = gv_gen_bits(seed, tensor, (uint64_t)j);
        uint64_t b2 = gv_gen_bits(seed, tensor ^ 0x9e3779b97f4a7c15ull, (uint64_t)j);
        int64_t r1 = (int64_t)(b1 % (uint64_t)rows);
        out[r1 * cols + j] = (b1 >> 63) ? -1.0 : 1.0;
        if (rows > 1) {
            /* a second row, distinct from the first */
            int64_t r2 = (r1 + 1 + (int64_t)(b2 % (uint64_t)(rows - 1))) % rows;
            out[r2 * cols + j] = (b2 >> 63) ? -1.0 : 1.0;
        }
    }
}

void gv_gen_fill_at(double *out, int64_t start, int64_t n, gv_dist d, gv_dtype t, uint64_t seed,
                    uint64_t tensor)
{
    if (d == GV_DIST_PERM2 && tensor == 0) {
        int p = gv_dtype_mantissa_bits(t) - 1; /* as gv_gen_fill */
        for (int64_t k = 0; k < n; k++)
            out[k] = trim_bits(gv_gen_value(d, seed, tensor, (uint64_t)(start + k)), p);
        return;
    }
    uint64_t base = mix64(mix64(seed) ^ tensor);
    for (int64_t k = 0; k < n; k++) {
        uint64_t i = (uint64_t)(start + k);
        double v = value_of_bits(d, mix64(base ^ i), seed, tensor, i);
        out[k] = t == GV_F64 ? v : t == GV_F32 ? (double)(float)v : gv_round_to(v, t);
    }
}

bool gv_dist_windowed(gv_dist d)
{
    return d == GV_DIST_TINY || d == GV_DIST_HUGE || d == GV_DIST_SPARSE_SPECIAL;
}

/* ceil(log2(x)) for x >= 1 */
static int ceil_log2(double x)
{
    return x > 1.0 ? (int)ceil(log2(x)) : 0;
}

void gv_dist_window_of(const gv_case *c, gv_dist d, int64_t count, gv_dist_window *w)
{
    *w = default_window;
    const gv_op *op = c->op;
    int p = gv_dtype_mantissa_bits(c->dtype), emin = gv_dtype_min_exp(c->dtype);
    int emax = 1 - emin;
    int degree = op && op->range_degree > 1 ? 2 : 1;
    gv_case native = *c;
    native.mode = GV_MODE_NATIVE;
    double depth = !op                    ? 1.0
                   : op->order_free_depth ? op->order_free_depth(&native)
                   : op->depth            ? op->depth(&native)
                                          : 1.0;
    if (!(depth >= 1.0)) depth = 1.0;
    int lg = ceil_log2(depth);
    if (d == GV_DIST_TINY) {
        if (degree == 1) {
            w->top = emin + 1;
            w->width = p + 1;
        } else {
            /* products over [emin - p, emin + 2 - lg / 2]: the operands' binades halve that */
            w->top = (int)floor((emin + 2 - lg / 2.0) / 2.0);
            w->width = (p + 2) / 2 + 2;
        }
    } else if (d == GV_DIST_HUGE) {
        w->width = 4;
        if (degree == 1 && depth <= 1.0)
            w->top = emax;
        else if (degree == 1)
            w->top = emax - 2 - lg; /* d terms below 2^(top + 1) each: the sum below 2^(emax-1) */
        else
            w->top = (int)floor((emax - 3 - lg) / 2.0); /* products below 2^(2 top + 2) */
    } else if (d == GV_DIST_SPARSE_SPECIAL) {
        double rate = 1.0 / (4.0 * depth), least = count > 0 ? 4.0 / (double)count : 0.0;
        if (rate < least) rate = least;
        if (rate > 1.0 / 64.0) rate = 1.0 / 64.0;
        w->special_rate = rate;
    }
}

void gv_gen_fill_window(double *out, int64_t start, int64_t n, gv_dist d, gv_dtype t, uint64_t seed,
                        uint64_t tensor, const gv_dist_window *w)
{
    if (!gv_dist_windowed(d) || !w) {
        gv_gen_fill_at(out, start, n, d, t, seed, tensor);
        return;
    }
    uint64_t base = mix64(mix64(seed) ^ tensor);
    if (d == GV_DIST_SPARSE_SPECIAL) {
        for (int64_t k = 0; k < n; k++) {
            uint64_t i = (uint64_t)(start + k);
            out[k] =
                gv_round_to(sparse_special_value(mix64(base ^ i), seed, i, w->special_rate), t);
        }
        return;
    }
    /* rounded to the dtype's grid by edge_value itself: exact where normal, subnormals
       rounded to nearest even */
    int p = gv_dtype_mantissa_bits(t), emin = gv_dtype_min_exp(t);
    for (int64_t k = 0; k < n; k++)
        out[k] = edge_value(mix64(base ^ (uint64_t)(start + k)), w, p, emin);
}
