/* probe_text.h: `gpuval probe`'s terminal output (probe_text.c), printed from the document it
 * writes (schema gpuval-probe/1, src/probe/probe_doc.h): the head line, each row as it is
 * measured (its object in "rows"), and the summary. The terminal and --json say the same. */
#ifndef GV_PROBE_TEXT_H
#define GV_PROBE_TEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* "gpuval probe: DEVICE (ARCH), expectations PATH (version 1)"; arch and path NULL: none. */
void gv_probe_text_head(FILE *f, const char *device, const char *arch, const char *path);

/* One row: a skipped row as "op dtype mode: SKIP why" (ERROR where error), a measured one as
   its counts, each feature (measured, expected, verdict, what was seen) and its replays (the
   model named "(model unconfirmed)" where unconfirmed). quiet: a row without a FAIL is not
   printed, and of the others only the FAILed features. */
void gv_probe_text_row(FILE *f, const json_t *row, bool error, bool unconfirmed, bool quiet);

/* The document's summary line: rows, features by verdict, repeats, replays short, errors, time. */
void gv_probe_text_summary(FILE *f, const json_t *doc);

#endif
