/* reference.h: a case's f64 reference (reference.c): the op's oracle, then its error models'
 * gauges, through the oracle cache (cache.h) where a valid entry exists. */
#ifndef GV_REFERENCE_H
#define GV_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/op.h"

/* The f64 reference and the error model's gauge: op->oracle, then op->gauge if any. */
int gv_reference(gv_problem *p);
/* The error models' gauges alone (op->gauge, then op->pgauge), after the oracle: kept apart
 * so timed runs time the CPU's computation without the models' bookkeeping. */
int gv_error_gauges(gv_problem *p);

/* The oracle's BLAS and LAPACK calls on GO_BLAS_THREADS (oracle/go.h; on, the default:
 * references the same bits on any host and --jobs) or on the process's OpenBLAS count (off:
 * bench times the CPU oracle on the threads it records). */
void gv_oracle_blas_fixed(bool on);

/* Turn the cache on or off for this process (check --no-cache); on by default. */
void gv_cache_enable(bool on);

/* Whether the cache is on and its directory usable (cache.h, gv_cache_dir); the first call for
 * a directory that is not says why on stderr, once a process, and sweeps stale temporaries of
 * one that is. A run calls it before its cases (and their isolated children) start. */
bool gv_cache_usable(void);
/* The cache's directory into dir when it is on and usable (as gv_cache_usable): for the other
 * users of the one cache (judge_memo.h). */
bool gv_cache_run_dir(char *dir, size_t len);

/* Let gv_cache_memo use the cache (for check's runs); off by default. */
void gv_cache_memo_enable(bool on);

/* The reference of p (op->oracle, then the gauges: gv_reference), read from the cache when a
 * valid entry exists, else computed and, when worth it, stored. *hit says which. Returns what
 * gv_reference returns. */
int gv_cached_reference(gv_problem *p, bool *hit);

/* Whether the cache holds p's reference (an entry's file: read and checked only by
 * gv_cached_reference), or a note that an earlier run found it cheaper to compute than to
 * read (no reference kept: it is computed when needed). Either way it need not be made beside
 * the device run. Makes p's inputs hash, as gv_cached_reference does. */
bool gv_reference_kept(gv_problem *p);

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

/* The cache's key of p's reference: the reference's name, family, dtype, mode (or "any"),
 * dist, seed, a hash of the inputs as they are (generated or given), the buffers the entry
 * holds (pgauge, ref_lo) and the shape. Every one of them changes the reference or the entry;
 * tests/cpu/test_cache_key.c checks each changes the key. */
void gv_cache_case_key(const gv_problem *p, char *buf, size_t len);
/* Whether c's key names no mode ("any"): its op's oracle reads none (reference_ignores_mode,
 * oracle_ignores_mode) and c's mode is not a scaled fp8 one, whose operands it quantises. */
bool gv_cache_modes_share(const gv_case *c);
/* The version an entry must carry to be read (the gpuval version, the hash of the oracle's
 * sources, the libraries): compared apart from the key, so a new oracle never reads an old
 * entry. */
const char *gv_cache_version(void);

/* This process's counts, for the run's last line. */
typedef struct gv_cache_counts {
    int hits, misses, stored, rejected; /* rejected: stale, corrupt or truncated entries */
    int cheap; /* misses not stored: the oracle took less than a read would (gv_cache_worth) */
} gv_cache_counts;
gv_cache_counts gv_cache_counts_get(void);

/* The floor of the store rule (gv_cache_worth): GPUVAL_CACHE_MIN_MS, else
 * GV_CACHE_MIN_MS_DEFAULT. */
double gv_cache_min_ms(void);

/* A run's counts as one line (check's last, printed with -q too), every miss explained:
 * "oracle cache: 364 hits, 48 misses (0 stored; 48 cheap: the oracle took less than a read
 * of its entry, 1 ms + 4 GB/s; 0 not kept: an oracle error, or larger than the cap or not
 * writable), 0 rejected". */
void gv_cache_counts_line(const gv_cache_counts *c, char *buf, size_t len);

/* The file in the cache's directory where a run leaves its note (gv_cache_note_run). */
#define GV_CACHE_NOTE_NAME "last-run.txt"
/* After a run of n cases (results as the run reported them, counted where each ran): a note
 * in the cache's directory that `gpuval cache info` prints, the run's counts line and its
 * misses by op with why each missed (cheap: the oracle took less than a read of its entry
 * would; stored: there was no entry), so that a warm run's misses are explained where the
 * cache is looked at. Nothing when the cache is off or unusable; best effort. */
void gv_cache_note_run(const char *command, const gv_result *results, int n);

#endif
