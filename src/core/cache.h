/* cache.h: the oracle cache's store (cache.c) — keyed buffers on disk; reference.h puts a case's
 * f64 reference and gauges there, so a second run of the same case skips the CPU oracle.
 *
 * Where: $XDG_CACHE_HOME/gpuval, else $HOME/.cache/gpuval. One file per case and version,
 * named by a hash of the version and the key (op, family, dtype, mode, dist, seed, shape, the buffers it holds (with or without
 * pgauge and the exact reference's ref_lo), and a hash of the inputs as generated;
 * the mode is "any" for ops whose reference never reads it, so their modes share one entry).
 * Each file holds a header (magic, the key in full, the version, the buffer sizes), the payload
 * (out[].ref, .gauge, .pgauge of every output) and a 64-bit checksum of all of it (XXH64 of
 * the header continued over the XXH64 of each 1 MiB chunk of the payload, so that the payload
 * is read and checked on all cores).
 *
 * Version: the gpuval version, a hash of the sources that decide the reference (oracle/,
 * src/ops/, the generator and the dtype table, hashed at build time), the OpenBLAS build and
 * thread count, glibc's and FFTW's versions. Each version has its own file for a key (the test
 * programs' OpenBLAS threads and core differ from the gpuval command's, and one file a key had
 * them replace each other's entries as stale); an entry whose header's version differs all the
 * same (a hash collision) is stale: reported, recomputed and replaced.
 *
 * Never trusted: an entry of the wrong size (truncated), a bad checksum (corrupt), another
 * format, a different key (hash collision) or version (stale) is reported once on stderr,
 * removed and recomputed; a file without the entry's magic is not gpuval's: reported and left.
 * Writes go to a unique temporary file in the cache directory (mkstemp) renamed over the entry, so
 * two runs sharing the cache each see whole entries. A hit touches the entry's mtime; after a write
 * the oldest entries are removed until the directory fits the cap (GPUVAL_CACHE_MAX, bytes with an
 * optional K, M, G or T suffix; default 32G).
 *
 * Only references worth keeping are written: those whose oracle took longer than reading the
 * entry back would, GV_CACHE_MIN_MS_DEFAULT (1 ms; GPUVAL_CACHE_MIN_MS replaces it) plus the
 * entry's bytes at GV_CACHE_READ_BYTES_PER_MS (gv_cache_worth). Below that the oracle is
 * cheaper than its entry (an element-wise add, a stencil): recomputed, and counted "cheap".
 */
#ifndef GV_CACHE_H
#define GV_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/hash.h"

/* 32 GiB: the default catalogue's kept references reached 16 GiB (945 cases on an H200: under a
   16 GiB cap the warm run re-stored 329 entries the cold run had kept; under 32 GiB, 14.4 GiB
   after a cold and a warm run, 811 hits of 945), and a cap under what one run keeps evicts each
   entry just before the next run reads it. */
#define GV_CACHE_DEFAULT_MAX (32ull << 30)

/* ---- the store: keyed buffers in a directory -------------------------------------------- */

/* Entries' payloads are read, written and checksummed in chunks of this many bytes on all
 * cores (cache.c, move_chunks): gv_xxh64_chunked's chunks (hash.h). */
#define GV_CACHE_CHUNK GV_HASH_CHUNK

/* What reading an entry back costs, for the rule that decides what is stored: a fixed part
 * (opening, the header, the key's comparison, touching the mtime: 0.1 to 1 ms measured on the
 * 16-core target) that GV_CACHE_MIN_MS_DEFAULT covers, and the payload at 4 GB/s. Measured:
 * hits of 64 to 400 MB entries read and checksummed at 10 to 30 GB/s on 16 cores from the
 * page cache (`check` run documents, oracle_ms of a hit); an entry that has left the page
 * cache reads at the disk's rate, a few GB/s, and fewer cores checksum slower. 4 GB/s errs
 * toward recomputing: what is stored is surely faster read than made. */
#define GV_CACHE_READ_BYTES_PER_MS 4e6
#define GV_CACHE_MIN_MS_DEFAULT    1.0

/* Whether a reference whose oracle took oracle_ms and whose entry holds bytes is worth
 * storing: oracle_ms > floor_ms + bytes / GV_CACHE_READ_BYTES_PER_MS (floor_ms: the knob
 * GPUVAL_CACHE_MIN_MS, else GV_CACHE_MIN_MS_DEFAULT). */
bool gv_cache_worth(double oracle_ms, uint64_t bytes, double floor_ms);

/* The longest key and version an entry holds. */
#define GV_CACHE_MAX_KEY 4096

/* The cache directory of this environment into buf; -1 when neither XDG_CACHE_HOME nor HOME
 * is set (or buf is too short). */
int gv_cache_default_dir(char *buf, size_t len);

/* The cache directory (gv_cache_default_dir) into buf, and whether it can be used: 0; -1 when
 * there is none (no XDG_CACHE_HOME or HOME); -2 when it cannot be used, why in why: it or a
 * directory above it is not a directory (a regular file), or the part below the user's base
 * directory ("gpuval", or ".cache/gpuval" under HOME) is reached through a symbolic link and
 * GPUVAL_CACHE_SYMLINK=1 is not set (a link there may point into a directory of the user's
 * that the cache would fill and evict from). A missing directory is usable: it is made. */
int gv_cache_dir(char *buf, size_t len, char *why, size_t why_len);

/* Temporaries are GV_CACHE_TMP_PREFIX and six characters of mkstemp's. One older than
 * GV_CACHE_TMP_MAX_AGE_S (an hour) was left by a run that was killed: a temporary lives only
 * while one entry is written, its mtime moving with every write, and the largest entry the
 * default cap admits (32 GiB) is written in minutes even at 100 MB/s. */
#define GV_CACHE_TMP_PREFIX    ".gvc-tmp-"
#define GV_CACHE_TMP_MAX_AGE_S 3600

/* GPUVAL_CACHE_MAX parsed, or the default; a bad value is reported and the default used. */
uint64_t gv_cache_max_bytes(void);

/* Look key up in dir: on a hit the nbuf buffers (bufs[i], sizes[i] bytes) are filled, the
 * entry's mtime is touched and 1 is returned. 0: a miss, bufs untouched. -1: an entry that was
 * stale, corrupt or truncated: reported on stderr and removed; bufs may hold part of it. */
int gv_cache_get(const char *dir, const char *key, const char *version, int nbuf, void *const *bufs,
                 const size_t *sizes);

/* Whether an entry of key and version is there (its file only: gv_cache_get still checks it
 * when it is read). */
bool gv_cache_has(const char *dir, const char *key, const char *version);

/* Store the nbuf buffers under key (atomic: temporary file + rename), then evict down to
 * max_bytes (after an entry of at most max_bytes / 1024, only every 64th such put of the
 * process: the cache may stand up to 1/16 over its cap between them). GV_OK; 1 when the entry
 * alone is larger than max_bytes (not kept); or a negative code (the cache is best effort:
 * callers go on). */
int gv_cache_put(const char *dir, const char *key, const char *version, int nbuf,
                 const void *const *bufs, const size_t *sizes, uint64_t max_bytes);

/* Computing an entry once for every process that shares the cache (`check --device all`, one
 * worker per GPU, runs the same cases at the same time: each computing every oracle of a cold
 * cache on all cores measured 4x one GPU's cold run on a node of two). gv_cache_lock takes an
 * exclusive flock on one of GV_CACHE_LOCK_STRIPES files of dir chosen by the key's hash
 * ("lock-NN": not entries, never counted or removed), waiting while another process holds it
 * for the same key (the holder writes its key's hash there; held for another key, it returns
 * GV_CACHE_NOT_LOCKED at once and the caller computes on its own); the caller looks the key
 * up again, computes and stores only on a second miss, then unlocks.
 * The kernel drops the lock of a process that dies. Not nested: while this thread holds one,
 * gv_cache_lock returns GV_CACHE_NOT_LOCKED at once (two keys of one stripe in one thread
 * would otherwise wait for each other); so does a directory where no lock file can be made.
 * Returns the lock's descriptor, or GV_CACHE_NOT_LOCKED; gv_cache_unlock takes either. */
#define GV_CACHE_LOCK_STRIPES 64
#define GV_CACHE_NOT_LOCKED   (-1)
int gv_cache_lock(const char *dir, const char *key);
void gv_cache_unlock(int fd);

/* Only files gpuval made are ever removed or counted: regular files (a symbolic link is never
 * followed), named as an entry or a temporary, beginning with an entry's magic (a temporary may
 * also be empty: killed before its header was written); each is checked
 * again just before it is removed. Anything else in the directory is left alone. */

/* Remove temporaries older than GV_CACHE_TMP_MAX_AGE_S, then the least recently used entries
 * (oldest mtime first) until the entries and the temporaries still being written take at most
 * max_bytes. Returns how many files were removed. */
int gv_cache_evict(const char *dir, uint64_t max_bytes);

/* What dir holds of gpuval's (all 0 when it does not exist). */
typedef struct gv_cache_usage {
    int entries, temporaries, stale_temporaries; /* stale: older than GV_CACHE_TMP_MAX_AGE_S */
    uint64_t entry_bytes, temporary_bytes;
} gv_cache_usage;
void gv_cache_usage_of(const char *dir, gv_cache_usage *u);

/* Entries and their bytes in dir (0, 0 when it does not exist). */
void gv_cache_stats(const char *dir, int *entries, uint64_t *bytes);

/* Remove every entry and every stale temporary of dir (a fresh one is another run's, being
 * written); returns how many files. */
int gv_cache_clear(const char *dir);

/* Remove the stale temporaries of dir (run once a process, when the cache is first used);
 * returns how many. */
int gv_cache_sweep(const char *dir);

#endif
