/* probe_run.h: the work of one `gpuval probe` run (probe_run.c): which (op, dtype, mode) rows
 * it measures, each row measured through the op's own call and judged against the
 * expectations, and its replay against the architecture's published block-FMA model. The
 * command (src/cmd/probe.c) parses its options, calls these and prints through
 * src/render/render_probe.h; the rows become the document through probe_doc.h. */
#ifndef GV_PROBE_RUN_H
#define GV_PROBE_RUN_H

#include "probe/probe_doc.h"

/* The rows of every probeable op matching the comma-separated globs ops (a planted impostor
   only where named exactly), for each dtype and mode (bits of gv_dtype, gv_mode) the op takes
   that has a format to probe (gv_fp_arith_of), in registry, dtype and mode order. GV_OK with
   *rows (the caller frees) and *n > 0; GV_EINVAL where nothing matches; GV_ENOMEM. */
int gv_probe_select(const char *ops, unsigned dtypes, unsigned modes, gv_probe_row **rows, int *n);

/* Judge r's measured features against e (NULL: every feature NEW), counting FAILs into
   r->fails. first: the first repeat's fingerprint, which a later repeat must reproduce (a
   value that changed is a FAIL, counted in r->changed); a later repeat changes a verdict only
   to FAIL. NULL for the first run. */
void gv_probe_judge(gv_probe_row *r, const gv_fp_expect *e, const gv_fp_print *first);

/* Measure r through the device `repeat` times (at least 1), judging each run; r->fp keeps the
   first run's fingerprint. GV_OK, or the failed call's error with r->skipped, r->why and
   r->unsupported (the device or library lacks the mode: a SKIP, not an error). */
int gv_probe_measure(gv_probe_row *r, const gv_fp_expect *e, long repeat);

/* Replay `dots` random dot products of one block and of 256 products through r's op against
   the published model of compute capability sm for r's format (f32 tensor-core modes only),
   the model given the promotion interval the probe measured. A scaled fp8 mode (fp8e5m2,
   fp8row, fp8blk) replays 128 and 512 products, each against the block-FMA port and a
   second model (gv_replay_scaled_run): four results. GV_OK (r->n_replay 0 where no model
   applies or dots is 0), or the failed call's error with r->why. Reported, not judged. */
int gv_probe_replay(gv_probe_row *r, int sm, long dots);

/* r's replays short of bit for bit against a model that is confirmed (docs/probe.md). */
int gv_probe_replays_short(const gv_probe_row *r);

#endif
