/* merge_probe.h: the probe documents of several GPUs (one `gpuval probe --json` per device of a
 * node, or per host) as one fingerprint table (merge_probe.c): per (op, dtype, mode, feature)
 * each device's value, and the device whose value differs from the majority named as the
 * outlier with its value. `gpuval merge` calls it for gpuval-probe/1 files (docs/fleet.md).
 *
 * Devices are grouped as merge_check.h groups them (model, compute capability, SM count,
 * driver, runtime and cuBLAS versions) and compared within a group: another library version
 * may legitimately do other arithmetic. Within a group, a feature whose values are not all one
 * is a disagreement: the value a strict majority of the group holds is the reference and every
 * other device an outlier; without a strict majority (two devices, an even split) the
 * disagreement is named undecided. A row a device skipped or lacks counts as its value
 * ("skipped", "absent"): a mode that runs on some GPUs of a node and not on others is news. */
#ifndef GV_MERGE_PROBE_H
#define GV_MERGE_PROBE_H

#include <jansson.h>
#include <stdio.h>

#include "core/gv.h" /* gv_status, gv_error */

#include "io/schemas.h" /* gv_schema(GV_DOC_FLEET_PROBE) */

/* Merge n gpuval-probe/1 documents (passed the strict reader; names: their files). Prints the
 * device table, the feature table (quiet: only features that disagree or FAIL somewhere) and
 * the outliers to out; *fleet (if not NULL) receives the gpuval-fleet-probe/1 document, *md
 * (if not NULL) a Markdown rendering (malloc'ed); the summary's exit_code is the command's to
 * add. Returns the status: OUTLIER when the devices of a group disagree on a feature, else
 * RUNTIME when a document recorded errors (or memory ran out), else FAIL when a feature FAILed
 * its expectation on some device, else OK. The disagreement outranks the FAIL: an outlier GPU
 * usually FAILs too, and the merge is run to find it. */
gv_status gv_probe_merge(json_t *const *docs, const char *const *names, int n, int quiet,
                         FILE *out, json_t **fleet, char **md);

#endif
