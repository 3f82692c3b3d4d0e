/* merge_text.h: `gpuval merge`'s tables (merge_text.c), on the terminal and in Markdown, of the
 * merges runs/ computes: check runs (runs/merge_check.h), bench and tradeoffs runs
 * (runs/merge_perf.h) and probe documents (runs/merge_probe.h). */
#ifndef GV_MERGE_TEXT_H
#define GV_MERGE_TEXT_H

#include <stdio.h>

#include "runs/merge_check.h"
#include "runs/merge_perf.h"
#include "runs/merge_probe.h"

/* The device table, the feature table (quiet: only features that disagree or FAIL somewhere),
 * the outliers and the count, to out. */
void gv_probe_merge_print(FILE *out, const gv_probe_merged *pm, int quiet);
/* The same as a Markdown section (malloc'ed; NULL when out of memory). */
char *gv_probe_merge_md(const gv_probe_merged *pm);

/* A merge of check runs: the model groups, the device table, the case table (quiet: only the
 * cases that did not agree or did not pass everywhere), the outliers with their numbers against
 * the reference, the notes and the count, to out; *md (if md is not NULL) the same tables as
 * Markdown (malloc'ed). */
void gv_fleet_merge_print(FILE *out, char **md, const gv_fleet_merged *m, int quiet);

/* A merge of bench or tradeoffs runs: the device table, the case table, the notes and the
 * count, to out; *md (if md is not NULL) the tables and notes as a fenced Markdown block
 * (malloc'ed; NULL when out of memory). */
void gv_perf_merge_print(FILE *out, char **md, const gv_perf_merged *m);

#endif
