/* cache.h: the oracle cache (cache.c) — a case's f64 reference and gauges kept on disk, so a
 * second run of the same case skips the CPU oracle.
 *
 * Where: $XDG_CACHE_HOME/gpuval, else $HOME/.cache/gpuval. One file per case, named by a hash
 * of its key (op, family, dtype, mode, dist, seed, shape, and a hash of the inputs as generated;
 * the mode is "any" for ops whose reference never reads it, so their modes share one entry).
 * Each file holds a header (magic, the key in full, the version, the buffer sizes), the payload
 * (out[].ref, .gauge, .pgauge of every output) and a 64-bit checksum of all of it (XXH64 of
 * the header continued over the XXH64 of each 1 MiB chunk of the payload, so that the payload
 * is read and checked on all cores).
 *
 * Version: the gpuval version, a hash of the sources that decide the reference (oracle/,
 * src/ops/, the generator and the dtype table, hashed at build time), the OpenBLAS build and
 * thread count, glibc's and FFTW's versions. An entry whose version differs is stale: reported,
 * recomputed and replaced.
 *
 * Never trusted: a file of the wrong size (truncated), a bad magic or checksum (corrupt), a
 * different key (hash collision) or version (stale) is reported once on stderr, removed and
 * recomputed. Writes go to a unique temporary file in the cache directory (mkstemp) renamed
 * over the entry, so two runs sharing the cache each see whole entries. A hit touches the
 * entry's mtime; after a write the oldest entries are removed until the directory fits the cap
 * (GPUVAL_CACHE_MAX, bytes with an optional K, M, G or T suffix; default 16G).
 *
 * Only references worth keeping are written: those whose oracle took longer than 50 ms plus
 * 1 ms per 200 kB of entry (GPUVAL_CACHE_MIN_MS replaces the 50), so cheap element-wise
 * oracles and large, fast products never crowd out the costly small ones.
 */
#ifndef GV_CACHE_H
#define GV_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "op.h"

#define GV_CACHE_DEFAULT_MAX (16ull << 30)

/* ---- the store: keyed buffers in a directory -------------------------------------------- */

/* XXH64 (Y. Collet, xxHash specification) of n bytes with a seed. */
uint64_t gv_xxh64(const void *data, size_t n, uint64_t seed);

/* Entries' payloads are read, written and checksummed in chunks of this many bytes on all
 * cores (cache.c, move_chunks). */
#define GV_CACHE_CHUNK ((size_t)1 << 20)

/* XXH64 continued from seed over the XXH64 (seed 0) of each GV_CACHE_CHUNK-byte chunk of the
 * n bytes, chained in order: the chunks hashed on all cores, the value independent of the
 * thread count. */
uint64_t gv_xxh64_chunked(const void *data, size_t n, uint64_t seed);

/* The cache directory of this environment into buf; -1 when neither XDG_CACHE_HOME nor HOME
 * is set (or buf is too short). */
int gv_cache_default_dir(char *buf, size_t len);

/* GPUVAL_CACHE_MAX parsed, or the default; a bad value is reported and the default used. */
uint64_t gv_cache_max_bytes(void);

/* Look key up in dir: on a hit the nbuf buffers (bufs[i], sizes[i] bytes) are filled, the
 * entry's mtime is touched and 1 is returned. 0: a miss, bufs untouched. -1: an entry that was
 * stale, corrupt or truncated: reported on stderr and removed; bufs may hold part of it. */
int gv_cache_get(const char *dir, const char *key, const char *version, int nbuf, void *const *bufs,
                 const size_t *sizes);

/* Store the nbuf buffers under key (atomic: temporary file + rename), then evict down to
 * max_bytes. GV_OK; 1 when the entry alone is larger than max_bytes (not kept); or a negative
 * code (the cache is best effort: callers go on). */
int gv_cache_put(const char *dir, const char *key, const char *version, int nbuf,
                 const void *const *bufs, const size_t *sizes, uint64_t max_bytes);

/* Remove the least recently used entries (oldest mtime first) until the entries of dir take at
 * most max_bytes. Returns how many were removed. */
int gv_cache_evict(const char *dir, uint64_t max_bytes);

/* Entries and their bytes in dir (0, 0 when it does not exist). */
void gv_cache_stats(const char *dir, int *entries, uint64_t *bytes);

/* Remove every entry (and stray temporary file) of dir; returns how many files. */
int gv_cache_clear(const char *dir);

/* ---- the oracle's use of it ---------------------------------------------------------------- */

/* Turn the cache on or off for this process (check --no-cache); on by default. */
void gv_cache_enable(bool on);

/* Let gv_cache_memo use the cache (for check's runs); off by default. */
void gv_cache_memo_enable(bool on);

/* The reference of p (op->oracle, then the gauges: gv_reference), read from the cache when a
 * valid entry exists, else computed and, when worth it, stored. *hit says which. Returns what
 * gv_reference returns. */
int gv_cached_reference(gv_problem *p, bool *hit);

/* Buffers that are costly to make but a pure function of key and the sources that make them
 * (an input matrix built by factorisations): read from the cache when a valid entry exists,
 * else made by make(ctx) into bufs and, when worth it (the reference's rule), stored. Only
 * where gv_cache_memo_enable(true) was called (check does; a program on the library and the
 * tests make their inputs without touching the disk) and the cache is on. Entries
 * share the reference's directory, version, checks and eviction; keys are apart ("made="
 * prefix). Not counted in gv_cache_counts (those are the references'). Returns GV_OK on a hit,
 * else what make returns. */
int gv_cache_memo(const char *key, int nbuf, void *const *bufs, const size_t *sizes,
                  int (*make)(void *ctx), void *ctx);

/* This process's counts, for the run's last line. */
typedef struct gv_cache_counts {
    int hits, misses, stored, rejected; /* rejected: stale, corrupt or truncated entries */
} gv_cache_counts;
gv_cache_counts gv_cache_counts_get(void);

#endif
