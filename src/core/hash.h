/* hash.h: the 64-bit hashes gpuval keeps (hash.c): XXH64 (the cache's checksums and keys, the
 * inputs' hash), its chunked form for large buffers, the digest of a case's outputs that runs
 * record so that two GPUs or two modes can be compared bit for bit without keeping the outputs,
 * and the digest's text. Not cryptographic: they tell equal bytes from different ones, they do
 * not resist someone forging a collision. */
#ifndef GV_HASH_H
#define GV_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "core/op.h"

/* XXH64 (Y. Collet, xxHash specification) of n bytes with a seed. */
uint64_t gv_xxh64(const void *data, size_t n, uint64_t seed);

/* The chunk of gv_xxh64_chunked, in bytes. */
#define GV_HASH_CHUNK ((size_t)1 << 20)

/* XXH64 continued from seed over the XXH64 (seed 0) of each GV_HASH_CHUNK-byte chunk of the
 * n bytes, chained in order: the chunks hashed on all cores, the value independent of the
 * thread count. */
uint64_t gv_xxh64_chunked(const void *data, size_t n, uint64_t seed);

/* A 64-bit digest of the bytes of every output the device wrote, in order: XXH64 of each,
 * seeded with the digest so far. Tells two modes' outputs apart (tradeoffs) and two GPUs' (merge).
 */
uint64_t gv_output_hash(const gv_problem *p);
/* The digest's first seed. Any constant would do; this one (FNV-1a's offset basis, from when
 * the digest was FNV) is kept so that run files written before still compare equal. */
#define GV_OUTPUT_HASH_SEED 0xcbf29ce484222325ull

/* A digest's text: "0x" and 16 lower-case hex digits into buf (len >= 19); returns buf. */
char *gv_digest_format(uint64_t h, char *buf, size_t len);
/* The same text back: 0, or -1 for anything else. */
int gv_digest_parse(const char *s, uint64_t *h);

#endif
