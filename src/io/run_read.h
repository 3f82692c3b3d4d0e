/* run_read.h: the one strict reader of run files (run_read.c) — compare, merge, report and
 * `check --baseline` load a run through it, so a file that breaks the schema is refused the same
 * way everywhere: exit 2, the file, the case and the member named.
 *
 * What it holds a file to (docs/schemas.md, "What a reader refuses"):
 *  - a regular file (a FIFO or a directory is refused, never waited on), whole JSON (a file cut
 *    short is named as truncated), a known "schema" with its array;
 *  - gpuval-run/1 and gpuval-bench/1 cases: op, dtype, mode, dist strings; shape an array of
 *    non-negative integers; seed an integer or a string of decimal digits below 2^64; verdict
 *    exactly PASS, FAIL, SKIP or ERROR; no two cases with one key (op, dtype, mode, dist, shape,
 *    seed); numbers a number or one of "inf", "-inf", "nan"; a PASS's accurate bits a
 *    non-negative number or "inf" (+inf: the outputs equal the reference), its error ratio and
 *    relative errors never NaN; bench samples finite and non-negative;
 *  - gpuval-tradeoffs/1 rows: the same verdicts and accurate bits;
 *  - gpuval-collectives/1: ranks an integer in [1, 65536], rank an integer in [0, ranks), the
 *    rows' verdicts legal, counts non-negative integers, fleet.device_index (when present) an
 *    int;
 *  - gpuval-probe/1 (probe --json): the rows' rules of io/probe_read.h. */
#ifndef GV_RUN_READ_H
#define GV_RUN_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The longest case key gv_run_case_key writes (with its NUL). */
#define GV_RUN_KEY_LEN 1024 /* the digests of up to 8 input files fit */

/* The largest rank count a collectives file may state. */
#define GV_RUN_MAX_RANKS 65536

/* Load path and hold it to its schema: GV_OK with *doc (the caller's), or GV_EINVAL with *doc
 * NULL and "PATH: ..." in err (missing, not a regular file, empty, truncated, invalid JSON with
 * line and column, unknown schema, or "PATH: case N (KEY): MEMBER: what is wrong"). schemas:
 * the schemas the caller takes, NULL-terminated; NULL takes any the reader knows. */
int gv_run_read(const char *path, const char *const *schemas, json_t **doc, char *err, size_t len);

/* Load any document of io/schemas.h's table (report renders them all): those gv_run_read knows
 * held to their schema the same way, any other kind only to being a JSON object (the file rules
 * above hold for all). GV_OK with *doc, or GV_EINVAL with *doc NULL and the fault in err. */
int gv_doc_read(const char *path, json_t **doc, char *err, size_t len);

/* Hold an already parsed document to its schema (gv_run_read's checks after the JSON); name
 * stands for the file in err. GV_OK or GV_EINVAL. */
int gv_run_validate(const json_t *doc, const char *name, char *err, size_t len);

/* The key that matches a case across runs: "OP DTYPE/MODE/DIST/SHAPE SEED" (shape as 4x5, the
 * seed in decimal as an unsigned 64-bit number), and for a case whose "inputs" are not
 * "generated" " inputs:" and the SHA-256 of each of its "input_files" (comma-separated), or
 * "unrecorded" in a file written before they were. Of a case gv_run_validate accepted. */
void gv_run_case_key(const json_t *c, char *buf, size_t len);

/* The cases of one array by key, in a hash table: building and each look-up are linear in the
 * cases and constant time on average, so matching two runs of n cases costs O(n). */
typedef struct gv_run_index {
    size_t n, cap;                /* cases; slots (a power of two, at least 2n) */
    char (*keys)[GV_RUN_KEY_LEN]; /* keys[i]: case i's key */
    long long *slot;              /* case index or -1 */
} gv_run_index;

/* Index the cases of an array: GV_OK; GV_EINVAL when two cases share a key (their indices in
 * *first and *again); GV_ENOMEM. Free with gv_run_index_free (also after an error). */
int gv_run_index_build(const json_t *cases, gv_run_index *ix, size_t *first, size_t *again);
/* The index of the case with key, or -1. */
long long gv_run_index_find(const gv_run_index *ix, const char *key);
void gv_run_index_free(gv_run_index *ix);

/* v as a verdict name gpuval writes (exactly PASS, FAIL, SKIP, ERROR). */
bool gv_run_verdict_ok(const char *v);

/* The integer at a dotted path below o when it is a JSON integer (or an integral number) in
 * [lo, hi]; else missing. For numbers read from files before they become ints. */
long long gv_jint_in(const json_t *o, const char *path, long long lo, long long hi,
                     long long missing);

#endif
