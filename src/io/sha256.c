/* sha256.c: SHA-256 as FIPS 180-4 section 6.2 describes it — 64-byte blocks, a 64-word message
 * schedule, 64 rounds with the constants K (the first 32 bits of the fractional parts of the
 * cube roots of the first 64 primes), the length in bits appended big-endian after a 1 bit.
 * On x86 CPUs with the SHA extensions the same rounds run on them (about 6x the portable
 * loop's bytes a second): the judge's records hash every output they are given, 400 MB for a
 * 10^8-element f32 vector, on one core. */
#include "io/sha256.h"
#include "io/infile.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GV_SHA256_X86 1
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const unsigned char *b)
{
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)b[4 * t] << 24 | (uint32_t)b[4 * t + 1] << 16 |
               (uint32_t)b[4 * t + 2] << 8 | (uint32_t)b[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 =
            hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = bb;
        bb = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += bb;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

#ifdef GV_SHA256_X86
/* The same compression on the SHA extensions, blocks at a time: the state held as ABEF and
   CDGH (the layout sha256rnds2 takes), four rounds a step, the message schedule by
   sha256msg1/msg2 (W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], four words at once).
   Checked against the portable loop and the FIPS vectors (tests/cpu/test_npy.c). */
__attribute__((target("sha,sse4.1"))) static void
compress_shani(uint32_t h[8], const unsigned char *b, size_t blocks)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1); /* CDAB */
    __m128i st1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B); /* EFGH */
    __m128i st0 = _mm_alignr_epi8(tmp, st1, 8);                                     /* ABEF */
    st1 = _mm_blend_epi16(st1, tmp, 0xF0);                                          /* CDGH */
    for (; blocks > 0; blocks--, b += 64) {
        __m128i abef = st0, cdgh = st1, w[4];
        for (int i = 0; i < 16; i++) {
            __m128i wi;
            if (i < 4)
                wi = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(b + 16 * i)), bswap);
            else
                wi = _mm_sha256msg2_epu32(
                    _mm_add_epi32(_mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]),
                                  _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4)),
                    w[(i + 3) & 3]);
            w[i & 3] = wi;
            __m128i msg = _mm_add_epi32(wi, _mm_loadu_si128((const __m128i *)&K[4 * i]));
            st1 = _mm_sha256rnds2_epu32(st1, st0, msg);
            st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(msg, 0x0E));
        }
        st0 = _mm_add_epi32(st0, abef);
        st1 = _mm_add_epi32(st1, cdgh);
    }
    tmp = _mm_shuffle_epi32(st0, 0x1B);    /* FEBA */
    st1 = _mm_shuffle_epi32(st1, 0xB1);    /* DCHG */
    st0 = _mm_blend_epi16(tmp, st1, 0xF0); /* DCBA */
    st1 = _mm_alignr_epi8(st1, tmp, 8);    /* HGFE */
    _mm_storeu_si128((__m128i *)&h[0], st0);
    _mm_storeu_si128((__m128i *)&h[4], st1);
}
#endif

#ifdef GV_SHA256_X86
/* Whether the CPU has the extensions: -1 not asked yet (asked once, on first use); 0 also where
   gv_sha256_use_hardware turned them off so that tests can compare the two paths. Atomic: the
   judge may hash on several threads at once. */
static _Atomic int use_hw = -1;
#endif

static bool hw_on(void)
{
#ifdef GV_SHA256_X86
    int v = atomic_load(&use_hw);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1");
        atomic_store(&use_hw, v);
    }
    return v == 1;
#else
    return false;
#endif
}

bool gv_sha256_use_hardware(bool on)
{
    bool was = hw_on();
#ifdef GV_SHA256_X86
    atomic_store(&use_hw, on ? -1 : 0); /* on: as the CPU has them */
#else
    (void)on;
#endif
    return was;
}

static void compress_blocks(uint32_t h[8], const unsigned char *b, size_t blocks)
{
#ifdef GV_SHA256_X86
    if (hw_on()) {
        compress_shani(h, b, blocks);
        return;
    }
#endif
    for (; blocks > 0; blocks--, b += 64)
        compress(h, b);
}

void gv_sha256_init(gv_sha256 *s)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof h0);
    s->total_bytes = 0;
    s->used = 0;
}

void gv_sha256_update(gv_sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    assert(s->used < 64); /* a full block is compressed at once */
    s->total_bytes += len;
    while (len > 0) {
        if (s->used == 0 && len >= 64) { /* whole blocks straight from the data */
            size_t blocks = len / 64;
            compress_blocks(s->h, p, blocks);
            p += blocks * 64;
            len -= blocks * 64;
            continue;
        }
        size_t take = 64 - s->used < len ? 64 - s->used : len;
        memcpy(s->block + s->used, p, take);
        s->used += take;
        p += take;
        len -= take;
        if (s->used == 64) {
            compress_blocks(s->h, s->block, 1);
            s->used = 0;
        }
    }
}

void gv_sha256_final(gv_sha256 *s, char hex[65])
{
    uint64_t bits = s->total_bytes * 8;
    unsigned char pad = 0x80;
    gv_sha256_update(s, &pad, 1);
    unsigned char zero = 0;
    while (s->used != 56)
        gv_sha256_update(s, &zero, 1);
    unsigned char len_be[8];
    for (int i = 0; i < 8; i++)
        len_be[i] = (unsigned char)(bits >> (56 - 8 * i));
    gv_sha256_update(s, len_be, 8);
    assert(s->used == 0); /* the length ended the last block (FIPS 180-4 5.1.1) */
    for (int i = 0; i < 8; i++)
        snprintf(hex + 8 * i, 9, "%08x", (unsigned)s->h[i]);
}

int gv_sha256_file(const char *path, char hex[65])
{
    char why[160];
    FILE *f = gv_fopen_regular(path, why, sizeof why);
    if (!f) return -1;
    gv_sha256 s;
    gv_sha256_init(&s);
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        gv_sha256_update(&s, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) return -1;
    gv_sha256_final(&s, hex);
    return 0;
}
