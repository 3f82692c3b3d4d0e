/* compare_probe.h: two probe documents (gpuval-probe/1, `gpuval probe --json`) compared feature
 * by feature (compare_probe.c), into the same result as two runs (compare_runs.h), so that
 * `gpuval compare` prints, writes (--json, --md, --junit) and exits as it does for runs.
 *
 * Rows are matched by (op, dtype, mode) and, within a row, features by name; each matched
 * feature is one case ("OP" "DTYPE/MODE FEATURE") with one item, "value", base -> new:
 *  - a value that changed is REGRESSED, its why "CHANGED" with the expectation and whether
 *    each side PASSed it. A change that still meets the expectation is REGRESSED too: the
 *    fingerprint is what is compared, and an expectation is often a range ("RNE|RZ", ">=2")
 *    that two arithmetics meet (docs/regression.md, "Probe documents");
 *  - the same value is SAME (a verdict that moved with the expectation file is said in why);
 *  - a row skipped on one side and measured on the other is INCONCLUSIVE;
 *  - a row or a feature on one side only is listed (only_base, only_new) and makes the whole
 *    comparison INCONCLUSIVE (exit 5) unless a value changed. There is no IMPROVED. */
#ifndef GV_COMPARE_PROBE_H
#define GV_COMPARE_PROBE_H

#include <jansson.h>
#include <stddef.h>

#include "runs/compare_runs.h"

/* Compare the probe documents base and new_doc (both passed the strict reader) into *res
   (res->probe set; free with gv_cmp_result_free). GV_OK, GV_EINVAL with err when either is no
   probe document, GV_ENOMEM. */
int gv_compare_probes(const json_t *base, const json_t *new_doc, gv_cmp_result *res, char *err,
                      size_t err_len);

#endif
