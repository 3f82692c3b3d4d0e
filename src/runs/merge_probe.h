/* merge_probe.h: the probe documents of several GPUs (one `gpuval probe --json` per device of a
 * node, or per host) as one fingerprint table (merge_probe.c; render/merge_text.h prints it):
 * per (op, dtype, mode, feature) each device's value, and the device whose value differs from
 * the majority named as the outlier with its value. `gpuval merge` calls it for gpuval-probe/1
 * files (docs/fleet.md).
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
#include "runs/run_files.h" /* GV_FLEET_MAX_DEVICES */

#include "io/schemas.h" /* gv_schema(GV_DOC_FLEET_PROBE) */

/* One document as a device of the merge. */
typedef struct gv_pm_dev {
    const char *file;
    json_t *rows; /* object: row key -> row (during the merge; NULL after it) */
    char label[96];
    char model[400];
    int group; /* index of the first device of its group */
} gv_pm_dev;

/* One (row, feature) across the devices; feature "" is the row itself (measured, skipped or
   absent on each device). Its strings point into the merged documents. */
typedef struct gv_pm_key {
    char row[256], feature[64];
    const char *value[GV_FLEET_MAX_DEVICES]; /* NULL: not in the vote (not measured there) */
    bool fail[GV_FLEET_MAX_DEVICES];
    bool outlier[GV_FLEET_MAX_DEVICES];
    const char *majority[GV_FLEET_MAX_DEVICES]; /* its group's reference value, NULL: undecided */
    bool disagree, undecided, any_fail;
} gv_pm_key;

/* The merge, for render/merge_text.h to print: the devices, every (row, feature) in the order
   first met, and the counts. It points into the documents, which outlive it. */
typedef struct gv_probe_merged {
    int n;
    gv_pm_dev devs[GV_FLEET_MAX_DEVICES];
    gv_pm_key *keys; /* n_keys of them; NULL: none merged (no memory) */
    int n_keys, disagree, fails;
} gv_probe_merged;

/* Merge n gpuval-probe/1 documents (passed the strict reader; names: their files) into *pm
 * (gv_probe_merged_free after); *fleet (if not NULL) receives the gpuval-fleet-probe/1
 * document, whose summary's exit_code is the command's to add. Returns the status: OUTLIER when
 * the devices of a group disagree on a feature, else RUNTIME when a document recorded errors (or
 * memory ran out: pm->keys NULL, nothing merged), else FAIL when a feature FAILed its
 * expectation on some device, else OK. The disagreement outranks the FAIL: an outlier GPU
 * usually FAILs too, and the merge is run to find it. */
gv_status gv_probe_merge(json_t *const *docs, const char *const *names, int n, gv_probe_merged *pm,
                         json_t **fleet);
void gv_probe_merged_free(gv_probe_merged *pm);

#endif
