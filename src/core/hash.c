/* hash.c: the 64-bit hashes gpuval keeps (hash.h): XXH64, its chunked form for large buffers,
 * the digest of a case's outputs and the digest's text. */
#include "core/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* XXH64 as the xxHash specification (Y. Collet) gives it: four lanes of 8-byte rounds, the
   merge, the tail and the avalanche. */
static const uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full,
                      P3 = 0x165667B19E3779F9ull, P4 = 0x85EBCA77C2B2AE63ull,
                      P5 = 0x27D4EB2F165667C5ull;

static uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static uint64_t rd64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t rd32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t xround(uint64_t acc, uint64_t in)
{
    acc += in * P2;
    return rotl(acc, 31) * P1;
}

static uint64_t xmerge(uint64_t acc, uint64_t v)
{
    acc ^= xround(0, v);
    return acc * P1 + P4;
}

uint64_t gv_xxh64(const void *data, size_t n, uint64_t seed)
{
    const unsigned char *p = data, *end = p + n;
    uint64_t h;
    if (n >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        const unsigned char *limit = end - 32;
        do {
            v1 = xround(v1, rd64(p));
            v2 = xround(v2, rd64(p + 8));
            v3 = xround(v3, rd64(p + 16));
            v4 = xround(v4, rd64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
        h = xmerge(xmerge(xmerge(xmerge(h, v1), v2), v3), v4);
    } else {
        h = seed + P5;
    }
    h += (uint64_t)n;
    for (; p + 8 <= end; p += 8)
        h = rotl(h ^ xround(0, rd64(p)), 27) * P1 + P4;
    if (p + 4 <= end) {
        h = rotl(h ^ ((uint64_t)rd32(p) * P1), 23) * P2 + P3;
        p += 4;
    }
    for (; p < end; p++)
        h = rotl(h ^ (*p * P5), 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ (h >> 32);
}

uint64_t gv_xxh64_chunked(const void *data, size_t n, uint64_t seed)
{
    int64_t count = (int64_t)((n + GV_HASH_CHUNK - 1) / GV_HASH_CHUNK);
    uint64_t small[64], *hash = count <= 64 ? small : malloc(sizeof *hash * (size_t)count);
    if (!hash) { /* no memory for the list: one chunk at a time, the same value */
        uint64_t h = seed;
        for (int64_t k = 0; k < count; k++) {
            size_t off = (size_t)k * GV_HASH_CHUNK;
            uint64_t one = gv_xxh64((const char *)data + off,
                                    n - off < GV_HASH_CHUNK ? n - off : GV_HASH_CHUNK, 0);
            h = gv_xxh64(&one, 8, h);
        }
        return h;
    }
#pragma omp parallel for schedule(dynamic, 1) if (count >= 4)
    for (int64_t k = 0; k < count; k++) {
        size_t off = (size_t)k * GV_HASH_CHUNK;
        hash[k] = gv_xxh64((const char *)data + off,
                           n - off < GV_HASH_CHUNK ? n - off : GV_HASH_CHUNK, 0);
    }
    uint64_t h = seed;
    for (int64_t k = 0; k < count; k++)
        h = gv_xxh64(&hash[k], 8, h);
    if (hash != small) free(hash);
    return h;
}

uint64_t gv_output_hash(const gv_problem *p)
{
    uint64_t h = GV_OUTPUT_HASH_SEED;
    for (int i = 0; i < p->l.n_out; i++)
        if (p->out[i].data)
            h = gv_xxh64(p->out[i].data, (size_t)p->out[i].count * gv_dtype_size(p->c.dtype), h);
    return h;
}

char *gv_digest_format(uint64_t h, char *buf, size_t len)
{
    snprintf(buf, len, "0x%016llx", (unsigned long long)h);
    return buf;
}

int gv_digest_parse(const char *s, uint64_t *h)
{
    if (!s || strlen(s) != 18 || s[0] != '0' || s[1] != 'x') return -1;
    uint64_t v = 0;
    for (int i = 2; i < 18; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) return -1;
        v = v << 4 | (uint64_t)d;
    }
    *h = v;
    return 0;
}
