/* mathfn.c: the reference of the mathfn family (y = f(x) element-wise for sin, exp and the
 * sigmoid 1 / (1 + exp(-x))), to more than f64's precision, rounded once:
 *  - go_mathfn: for f64 results, in __float128 through libquadmath (sinq, expq: 113-bit
 *    significand, within about 1 ulp of it; libquadmath reduces large arguments of sinq with
 *    enough bits of 2/pi, Payne-Hanek style). y is the f64 value rounded to nearest, lo the
 *    remainder rounded to nearest: y is the correctly rounded f64 result unless the exact one
 *    lies within ~2^-111 relative of an f64 midpoint (about 2^-58 of arguments). Where
 *    libquadmath is missing (GO_HAVE_QUADMATH unset), long double instead: on x86 its 64-bit
 *    significand leaves 11 bits beyond f64, so the rounding is wrong in about 2^-10 of cases
 *    by one step; go_mathfn_ref_bits says which, and the judge allows for it.
 *  - go_mathfn_odd: for f32 results, in long double (sinl, expl: 64-bit significand on x86,
 *    within about 1 ulp of it), rounded to odd at 53 bits: a value rounded to odd with at least
 *    two more bits than a format rounds to nearest in that format as the exact value would
 *    (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms
 *    using rounding to odd", IEEE Trans. Computers 57(4), 2008), so (float)y is the correctly
 *    rounded f32 result unless the exact one lies within ~2^-62 of an f32 midpoint.
 * The sigmoid is computed as 1 / (1 + exp(-x)) in the wide type: exp(-x) stays finite there
 * for every f64 x the op generates (|x| < 800, far inside long double's and __float128's
 * range), and the two roundings and exp's cost at most 3 units of the wide type.
 * Elements are independent: all cores (OpenMP), each element's arithmetic as on one. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef GO_HAVE_QUADMATH
#include <quadmath.h>
typedef __float128 go_wide;
#define GO_WIDE_SIN(x) sinq(x)
#define GO_WIDE_EXP(x) expq(x)
#define GO_WIDE_BITS   113
#else
typedef long double go_wide;
#define GO_WIDE_SIN(x) sinl(x)
#define GO_WIDE_EXP(x) expl(x)
#define GO_WIDE_BITS   64
#endif

#include "go.h"

int go_mathfn_ref_bits(void)
{
    return GO_WIDE_BITS;
}

static go_wide wide_eval(int fn, go_wide x)
{
    switch (fn) {
    case GO_MATH_SIN: return GO_WIDE_SIN(x);
    case GO_MATH_EXP: return GO_WIDE_EXP(x);
    default: return 1 / (1 + GO_WIDE_EXP(-x));
    }
}

static long double long_eval(int fn, long double x)
{
    switch (fn) {
    case GO_MATH_SIN: return sinl(x);
    case GO_MATH_EXP: return expl(x);
    default: return 1.0L / (1.0L + expl(-x));
    }
}

/* v rounded to odd at f64's 53 bits: truncated toward zero, then its last bit set where v was
   not exact (the neighbour with the odd significand). Finite v within f64's range. */
double go_round_to_odd(long double v)
{
    double d = (double)v;
    if ((long double)d == v) return d;
    if (fabsl((long double)d) > fabsl(v)) d = nextafter(d, 0.0);
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    bits |= 1; /* the magnitude's last bit: one step away from zero where it was even */
    memcpy(&d, &bits, sizeof d);
    return d;
}

static int check_args(const char *fn_name, int fn, int64_t n, const double *x, const double *y)
{
    if (fn < 0 || fn >= GO_MATH_NFN) return go_xerbla(fn_name, 1, "fn");
    if (n < 0) return go_xerbla(fn_name, 2, "n");
    if (!x) return go_xerbla(fn_name, 3, "x");
    if (!y) return go_xerbla(fn_name, 4, "y");
    return 0;
}

int go_mathfn(int fn, int64_t n, const double *x, double *y, double *lo)
{
    int rc = check_args(__func__, fn, n, x, y);
    if (rc) return rc;
#pragma omp parallel for schedule(static) if ((double)n >= GO_PAR_MIN / 64)
    for (int64_t i = 0; i < n; i++) {
        go_wide v = wide_eval(fn, (go_wide)x[i]);
        double hi = (double)v;
        y[i] = hi;
        /* a NaN or infinite x (or result) has no remainder */
        if (lo) lo[i] = isfinite(hi) ? (double)(v - (go_wide)hi) : 0.0;
    }
    return 0;
}

int go_mathfn_odd(int fn, int64_t n, const double *x, double *y)
{
    int rc = check_args(__func__, fn, n, x, y);
    if (rc) return rc;
#pragma omp parallel for schedule(static) if ((double)n >= GO_PAR_MIN / 16)
    for (int64_t i = 0; i < n; i++) {
        long double v = long_eval(fn, (long double)x[i]);
        y[i] = isfinite(v) && fabsl(v) <= DBL_MAX ? go_round_to_odd(v) : (double)v;
    }
    return 0;
}
