/* screen_golden.h: the golden digest file of `gpuval screen` (screen_golden.c): its key, its
 * strict reader and its writer. */
#ifndef GV_SCREEN_GOLDEN_H
#define GV_SCREEN_GOLDEN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A run's golden key ("NVIDIA H100 80GB HBM3, driver 13000, runtime 13000, cuBLAS 130100") into
 * buf: false when the run has no device or lacks one of the four. */
bool gv_screen_golden_key(const json_t *run, char *buf, size_t len);

/* Read a golden file (gpuval-golden/1), strictly: GV_OK, or a message in err naming the file and
 * what is wrong (unreadable, not JSON, another schema, a member that is not the format's, an entry
 * without its four key fields, two entries of one key, a digest that is not 0x and 16 hex digits).
 */
int gv_screen_golden_read(const char *path, json_t **golden, char *err, size_t len);
/* The same checks on a document already parsed (name: for messages). */
int gv_screen_golden_validate(const json_t *golden, const char *name, char *err, size_t len);

/* The entry of key in golden, or NULL. */
const json_t *gv_screen_golden_entry(const json_t *golden, const char *key);

/* A golden document with the digests of the n runs' deterministic cases that ran (PASS or FAIL
 * with a digest), one entry per key: prev's entries (may be NULL) kept, except that a key of
 * these runs gets its digests replaced or added. The GPUs of one key must agree on each digest:
 * when they do not, NULL and a message in err (the caller records only a healthy node). */
json_t *gv_screen_golden_record(const json_t *prev, json_t *const *docs, int n, char *err,
                                size_t len);

#endif
