/* cache.h: the oracle cache's store (cache.c) — keyed buffers on disk; reference.h puts a case's
 * f64 reference and gauges there, so a second run of the same case skips the CPU oracle.
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

#include "core/hash.h"

#define GV_CACHE_DEFAULT_MAX (16ull << 30)

/* ---- the store: keyed buffers in a directory -------------------------------------------- */

/* Entries' payloads are read, written and checksummed in chunks of this many bytes on all
 * cores (cache.c, move_chunks): gv_xxh64_chunked's chunks (hash.h). */
#define GV_CACHE_CHUNK GV_HASH_CHUNK

/* The longest key and version an entry holds. */
#define GV_CACHE_MAX_KEY 4096

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

#endif
