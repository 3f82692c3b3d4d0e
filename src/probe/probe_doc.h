/* probe_doc.h: the document of `gpuval probe --json` (schema gpuval-probe/1, probe_doc.c): the
 * rows `gpuval probe` measured and judged, and the document built from them. The command and
 * the tests build it through these functions, so that what compare, report and merge read back
 * (src/io/probe_read.c, src/runs/compare_probe.c, src/runs/merge_probe.c,
 * src/render/render_probe.c) is what the writer writes. docs/schemas.md lists the members. */
#ifndef GV_PROBE_DOC_H
#define GV_PROBE_DOC_H

#include <jansson.h>
#include <stdbool.h>

#include "core/op.h"
#include "probe/expect.h"
#include "probe/fprint.h"
#include "probe/replay.h"

#include "io/schemas.h" /* gv_schema(GV_DOC_PROBE) */

/* One (op, dtype, mode) of a probe run: what was measured, judged against which rule. */
typedef struct gv_probe_row {
    const gv_op *op;
    gv_dtype dtype;
    gv_mode mode;
    char math_mode[96];
    bool skipped;     /* the device could not run it: why says so, there are no features */
    bool unsupported; /* skipped because the device or library lacks the mode (a SKIP, not an
                         error); not written: the document's "skipped" holds why */
    char why[256];
    gv_fp_print fp;
    gv_fp_verdict v[GV_FP_NFEATURES];
    const gv_fp_rule *rule[GV_FP_NFEATURES]; /* NULL: no expectation (NEW) */
    int changed[GV_FP_NFEATURES];            /* repeats whose value differed from the first run */
    int fails;                               /* FAIL verdicts over all repeats */
    int n_replay;
    gv_replay_result replay[4]; /* two lengths; a scaled fp8 mode's against two models each */
    const gv_bfma_model *model; /* the replay's model (set when n_replay > 0) */
} gv_probe_row;

/* The row's features by verdict (a skipped row has none). */
void gv_probe_row_counts(const gv_probe_row *r, int *pass, int *fail, int *news);

/* The row as its object in "rows" (the caller owns it). */
json_t *gv_probe_row_json(const gv_probe_row *r);

/* What a probe document holds beside its rows. shared: the members every run document
   carries (tool, command, argv, created, host, build, env, device, fleet: docs/schemas.md),
   made by the command from io/ (this wing sits below it); its reference is taken. */
typedef struct gv_probe_doc_info {
    json_t *shared;
    const gv_fp_expect *expect; /* the file that judged; NULL: none (every feature NEW) */
    long repeat;
    double seconds;
    int replays_short, errors;
} gv_probe_doc_info;

/* The gpuval-probe/1 document of rows[0..n) (the caller owns it); its summary is counted from
   the rows. NULL when out of memory. */
json_t *gv_probe_doc_json(const gv_probe_doc_info *info, const gv_probe_row *rows, int n);

#endif
