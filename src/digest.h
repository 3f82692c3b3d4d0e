/* digest.h: a 64-bit digest of output bytes (digest.c), recorded with every case so that runs
 * on different GPUs can be compared bit for bit without keeping the outputs. */
#ifndef GV_DIGEST_H
#define GV_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define GV_FNV1A64_INIT 0xcbf29ce484222325ull

/* FNV-1a 64 (Fowler, Noll, Vo; the IETF draft's offset basis and prime) of len bytes,
 * continuing from h: start with GV_FNV1A64_INIT; feeding buffers one after another gives the
 * digest of their concatenation. Not cryptographic: it tells equal outputs from different
 * ones, it does not resist someone forging a collision. */
uint64_t gv_fnv1a64(uint64_t h, const void *data, size_t len);

/* "0x" and 16 lower-case hex digits into buf (len >= 19); returns buf. */
char *gv_digest_format(uint64_t h, char *buf, size_t len);
/* The same text back: GV_OK-style 0, or -1 for anything else. */
int gv_digest_parse(const char *s, uint64_t *h);

#endif
