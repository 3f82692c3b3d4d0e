/* gk_hash.h: the input guard's hash (used by kernels/xfer.cu on the device; the host
 * version here is what tests/cpu/test_input_hash.c checks). Two independent 64-bit lanes, each
 * the sum (mod 2^64) over a buffer's 8-byte words w_i (little-endian) of f(w_i, i), where
 * f(., i) is a bijection of the word keyed by its index: lane a = murmur(w ^ stafford(i + c1)),
 * lane b = stafford((w + murmur(i ^ c2)) * odd). One changed word therefore always changes
 * both lanes; several changed words (swapped, shifted) leave both equal only by accident. The
 * last 1..7 bytes that do not fill a word form one more word at index nwords, zero-padded,
 * with their count in the top byte. Plain C, also compiled as CUDA host and device code. */
#ifndef GK_HASH_H
#define GK_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define GK_HASH_FN static inline __host__ __device__
#else
#define GK_HASH_FN static inline
#endif

/* MurmurHash3's 64-bit finaliser and Stafford's variant 13 (SplitMix64's): both bijections of
   64-bit words (xor-shifts and odd multipliers are invertible). */
GK_HASH_FN uint64_t gk_hash_murmur(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    return k ^ (k >> 33);
}

GK_HASH_FN uint64_t gk_hash_stafford13(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Adds word w at index i to the lanes a, b. */
GK_HASH_FN void gk_hash_word(uint64_t w, uint64_t i, uint64_t *a, uint64_t *b)
{
    *a += gk_hash_murmur(w ^ gk_hash_stafford13(i + 0x9e3779b97f4a7c15ULL));
    *b +=
        gk_hash_stafford13((w + gk_hash_murmur(i ^ 0x632be59bd9b4e019ULL)) * 0xd6e8feb86659fd93ULL);
}

/* The word of a tail of len (1..7) bytes. */
GK_HASH_FN uint64_t gk_hash_tail_word(const unsigned char *t, int len)
{
    uint64_t w = (uint64_t)len << 56;
    for (int k = 0; k < len; k++)
        w |= (uint64_t)t[k] << (8 * k);
    return w;
}

/* The hash of `bytes` at p on the host (little-endian words, as the device reads them). */
GK_HASH_FN void gk_hash_bytes_host(const void *p, size_t bytes, uint64_t lanes[2])
{
    const unsigned char *c = (const unsigned char *)p;
    uint64_t a = 0, b = 0;
    size_t nwords = bytes / 8;
    for (size_t i = 0; i < nwords; i++) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++)
            w |= (uint64_t)c[8 * i + k] << (8 * k);
        gk_hash_word(w, (uint64_t)i, &a, &b);
    }
    if (bytes % 8)
        gk_hash_word(gk_hash_tail_word(c + 8 * nwords, (int)(bytes % 8)), nwords, &a, &b);
    lanes[0] = a;
    lanes[1] = b;
}

#undef GK_HASH_FN
#endif
