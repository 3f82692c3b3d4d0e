/* sha256.h: SHA-256 (FIPS 180-4), for the checksums of fixtures/ (sha256.c). Small and
 * dependency-free; tests/cpu/test_npy.c checks it against the standard's test vectors. */
#ifndef GV_SHA256_H
#define GV_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gv_sha256 {
    uint32_t h[8];
    uint64_t total_bytes;
    unsigned char block[64];
    size_t used; /* bytes in block */
} gv_sha256;

void gv_sha256_init(gv_sha256 *s);
void gv_sha256_update(gv_sha256 *s, const void *data, size_t len);
/* The digest as 64 lower-case hex digits and a NUL into hex[65]. */
void gv_sha256_final(gv_sha256 *s, char hex[65]);
/* Whether the CPU's SHA extensions compute the blocks (where it has them); on = false makes
   the portable loop do it, so that tests can hold the two against each other. Returns
   whether they were in use. */
bool gv_sha256_use_hardware(bool on);
/* The digest of a whole file into hex[65]; 0, or -1 with errno. */
int gv_sha256_file(const char *path, char hex[65]);

#endif
