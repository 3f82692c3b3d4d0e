/* test_input_hash.c: the input guard's hash (kernels/gk_hash.h), the very functions the device
 * kernel sums (kernels/xfer.cu), on the host. Whatever a planted change does to a buffer, both
 * lanes must differ from the unchanged buffer's: every single bit flipped at every position
 * of small buffers (whole words and tails of 1..7 bytes), the first, a middle and the last
 * byte of large ones, two 4- or 8-byte elements swapped (in one word, across words, far
 * apart), a run shifted by one element. Writing the same bytes back, or the same bytes at
 * another address, gives the same hash; a buffer and its one-byte-longer extension differ. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gk_hash.h"

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}

static unsigned char *random_bytes(size_t n, uint64_t seed)
{
    unsigned char *p = malloc(n ? n : 1);
    cr_assert_not_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)lcg(&seed);
    return p;
}

/* Both lanes of buf differ from want's. */
static void expect_differs(const unsigned char *buf, size_t n, const uint64_t want[2],
                           const char *what, long long where)
{
    uint64_t got[2];
    gk_hash_bytes_host(buf, n, got);
    cr_expect(got[0] != want[0] && got[1] != want[1],
              "%s at %lld of %zu bytes: lanes %016llx %016llx, unchanged %016llx %016llx", what,
              where, n, (unsigned long long)got[0], (unsigned long long)got[1],
              (unsigned long long)want[0], (unsigned long long)want[1]);
}

Test(input_hash, every_bit_of_small_buffers_shows)
{
    for (size_t n = 1; n <= 40; n++) {
        unsigned char *p = random_bytes(n, 100 + n);
        uint64_t h[2];
        gk_hash_bytes_host(p, n, h);
        for (size_t k = 0; k < n; k++) {
            for (int bit = 0; bit < 8; bit++) {
                p[k] ^= (unsigned char)(1u << bit);
                expect_differs(p, n, h, "one bit", (long long)(8 * k + (size_t)bit));
                p[k] ^= (unsigned char)(1u << bit);
            }
        }
        free(p);
    }
}

Test(input_hash, first_middle_last_and_tail_of_large_buffers_show)
{
    const size_t sizes[] = {4004, 8008, 4004 + 3, (size_t)12000004, (size_t)20000000 + 5};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        unsigned char *p = random_bytes(n, 7 + s);
        uint64_t h[2];
        gk_hash_bytes_host(p, n, h);
        const size_t at[] = {0, 7, 8, n / 2, n - 9, n - 8, n - 5, n - 1};
        for (size_t j = 0; j < sizeof at / sizeof *at; j++) {
            p[at[j]] ^= 0x80;
            expect_differs(p, n, h, "top bit", (long long)at[j]);
            p[at[j]] ^= 0x80;
        }
        free(p);
    }
}

static void swap_elems(unsigned char *p, size_t es, size_t i, size_t j)
{
    unsigned char t[8];
    memcpy(t, p + i * es, es);
    memcpy(p + i * es, p + j * es, es);
    memcpy(p + j * es, t, es);
}

Test(input_hash, swapped_and_shifted_elements_show)
{
    for (size_t es = 4; es <= 8; es += 4) {
        size_t count = 1001, n = count * es;
        unsigned char *p = random_bytes(n, 31 + es);
        uint64_t h[2];
        gk_hash_bytes_host(p, n, h);
        const size_t pairs[][2] = {{0, 1},         {2, 3},         {3, 4},
                                   {5, count - 2}, {0, count - 1}, {500, 501}};
        for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
            cr_assert(memcmp(p + pairs[k][0] * es, p + pairs[k][1] * es, es) != 0);
            swap_elems(p, es, pairs[k][0], pairs[k][1]);
            expect_differs(p, n, h, "swap", (long long)pairs[k][0]);
            swap_elems(p, es, pairs[k][0], pairs[k][1]);
        }
        /* elements 100..199 moved one place up, as a shifted store would leave them */
        unsigned char *q = malloc(n);
        cr_assert_not_null(q);
        memcpy(q, p, n);
        memmove(q + 101 * es, p + 100 * es, 100 * es);
        expect_differs(q, n, h, "shift", 100);
        /* a rotation of the whole buffer by one element */
        memcpy(q, p + es, n - es);
        memcpy(q + n - es, p, es);
        expect_differs(q, n, h, "rotation", 0);
        free(q);
        free(p);
    }
}

Test(input_hash, same_bytes_same_hash_wherever_they_are)
{
    size_t n = 4004 + 3;
    unsigned char *p = random_bytes(n, 5), *q = malloc(n + 1);
    cr_assert_not_null(q);
    memcpy(q + 1, p, n); /* another address, not word-aligned */
    uint64_t a[2], b[2];
    gk_hash_bytes_host(p, n, a);
    gk_hash_bytes_host(q + 1, n, b);
    cr_expect(a[0] == b[0] && a[1] == b[1], "the hash depends on the bytes, not the address");
    unsigned char same = p[n / 2];
    p[n / 2] = same; /* the same value written back */
    gk_hash_bytes_host(p, n, b);
    cr_expect(a[0] == b[0] && a[1] == b[1]);
    /* a zero byte more is another buffer: the tail's length is in its word */
    unsigned char *r = calloc(n + 1, 1);
    cr_assert_not_null(r);
    memcpy(r, p, n);
    expect_differs(r, n + 1, a, "one zero byte more", (long long)n);
    free(r);
    free(q);
    free(p);
}
