/* envelope_kit.h: what the envelope's CPU tests share (model_envelope.c, model_envelope_tc.c;
 * header-only, everything static): the envelope switched on under the tests whatever the
 * caller's environment says, a log line to both Criterion's log and stdout (the numbers the
 * docs quote), the counter-based generator the families are built from, the orthonormal DCT-II
 * basis and a rounding to p significant bits of the tests' own (apart from the engine's). */
#ifndef GV_TEST_ENVELOPE_KIT_H
#define GV_TEST_ENVELOPE_KIT_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/knobs.h"

/* The envelope is on unless GPUVAL_ENVELOPE says 0 or off (core/knobs.h): set here all the
   same, so that a caller's environment cannot turn it off under these tests. */
static void envelope_on(void)
{
    setenv("GPUVAL_ENVELOPE", "1", 1);
    gv_knobs_reload();
}

static void emit(const char *line)
{
    cr_log_info("%s", line);
    printf("%s\n", line);
    fflush(stdout);
}

/* splitmix64: the next value of the stream *s */
static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double unif(uint64_t *s) /* [0, 1) */
{
    return (double)(mix(s) >> 11) * 0x1p-53;
}

/* DCT-II, orthonormal: q_f(l) = s_f cos(pi (l + 1/2) f / K), s_0 = sqrt(1/K), else sqrt(2/K) */
static double dct(int64_t f, int64_t l, int64_t k)
{
    double s = sqrt((f ? 2.0 : 1.0) / (double)k);
    return s * cos(M_PI * ((double)l + 0.5) * (double)f / (double)k);
}

/* x to p significant bits, to nearest even (the families stay in every format's normal
   range) */
static double round_bits(double x, int p)
{
    if (x == 0.0 || !isfinite(x)) return x;
    int e;
    frexp(x, &e);
    return ldexp(nearbyint(ldexp(x, p - e)), e - p);
}

#endif
