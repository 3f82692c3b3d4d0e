/* probe_read.h: the strict reader's rules for the probe document (schema gpuval-probe/1,
 * written by `gpuval probe --json` through src/probe/probe_doc.c), in probe_read.c. run_read.c
 * calls it for that schema, so compare, report and merge refuse a malformed probe document as
 * they refuse a malformed run: exit 2, the file, the row and the member named.
 *
 * What it holds a document to (docs/schemas.md, "What a reader refuses"): "rows" an array of
 * objects (at most GV_PROBE_MAX_ROWS), each with op, dtype, mode non-empty strings, no two with one
 * (op, dtype, mode); a row either "skipped" (a string: why) or "features", an object of at least
 * one feature, each an object whose "value" is a non-empty string, "verdict" exactly PASS, FAIL or
 * NEW, "expected" a string or null, "detail" and "source" strings where present,
 * "changed_in_repeats" an integer >= 0 where present; "replay" (where present) an array of
 * objects whose k, dots, agree are integers with 0 <= agree <= dots; "device", "expectations"
 * and "summary" objects where present (device may be null). */
#ifndef GV_PROBE_READ_H
#define GV_PROBE_READ_H

#include <jansson.h>
#include <stddef.h>

/* The probe document's array (its schema is io/schemas.h's GV_DOC_PROBE row). */
#define GV_PROBE_READ_ARRAY "rows"

/* The most rows a probe document may hold: every op of the registry times its dtypes and
   modes is far below it; a file with more is no document gpuval wrote. */
#define GV_PROBE_MAX_ROWS 4096

/* Hold doc (of schema gpuval-probe/1) to the rules above; name stands for the file in err:
   "NAME: row N (OP DTYPE/MODE): MEMBER: what is wrong". GV_OK or GV_EINVAL. */
int gv_probe_validate(const json_t *doc, const char *name, char *err, size_t len);

/* The key that matches a row across documents: "OP DTYPE/MODE". */
void gv_probe_row_key(const json_t *row, char *buf, size_t len);

#endif
