/* probe_check.h: the mode fingerprint inside `gpuval check` (probe_check.c). Every (op, dtype,
 * mode) a check ran on gpuval's own inputs that `gpuval probe` can measure is probed once (the
 * hand-built probes, no replay) and judged against the device's expectations; a feature that
 * FAILs FAILs that row's cases, so that an arithmetic under another mode's label FAILs the
 * catalogue and not only `gpuval probe` (docs/probe.md, "Inside check"). The command
 * (src/cmd/check.c) loads the expectations, calls these and prints. */
#ifndef GV_PROBE_CHECK_H
#define GV_PROBE_CHECK_H

#include "core/op.h"
#include "probe/probe_doc.h"

/* The distinct (kernel, dtype, mode) rows of cases[0..n) that ran (PASS or FAIL) on generated
   inputs and that the probe can measure, in the cases' order, each row the first op met with
   that kernel (a layout variant of gemm.cublas is probed as gemm.cublas): GV_OK with *rows (the
   caller frees; NULL where *nrows is 0), or GV_ENOMEM. results NULL: the rows the cases call
   for if every one runs on generated inputs (a superset, measured before the verdicts are
   known; a row of the final set is one of them when its first op met is the same). */
int gv_probe_check_rows(const gv_case *cases, const gv_result *results, int n, gv_probe_row **rows,
                        int *nrows);

/* The reason a judged row FAILs its cases ("mode fingerprint: in_round_A RZ where ... RNE"),
   its FAILed features named (at most len bytes); "" for a row with no FAIL. */
void gv_probe_check_reason(const gv_probe_row *r, char *buf, size_t len);

/* Each PASS of a row's (kernel, dtype, mode) among results[0..n) that the row's fingerprint FAILed
   becomes a FAIL with the row's reason (cause: an op's own measurement). Returns the count of
   cases changed. A skipped row changes nothing. */
int gv_probe_check_apply(const gv_probe_row *rows, int nrows, const gv_case *cases,
                         gv_result *results, int n);

#endif
