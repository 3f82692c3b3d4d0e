/* digest.c: FNV-1a 64 over bytes and its text form (digest.h). */
#include "digest.h"

#include <stdio.h>
#include <string.h>

uint64_t gv_fnv1a64(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull; /* the 64-bit FNV prime, 2^40 + 2^8 + 0xb3 */
    }
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
