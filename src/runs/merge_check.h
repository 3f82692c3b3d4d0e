/* merge_check.h: many run files of one selection (one per GPU of a node, or one per rank of a
 * launch) as one fleet: each case's verdict on every device, whether the devices agree bit
 * for bit, which device is the outlier, and which GPU is slower than its node's median
 * (merge_check.c; render/merge_text.h prints it). `gpuval merge` and `gpuval check --device
 * LIST` both use it. */
#ifndef GV_FLEET_MERGE_H
#define GV_FLEET_MERGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/gv.h" /* gv_status, gv_error */
#include "io/schemas.h"

/* A GPU whose summed case time exceeds its node's median by more than this is flagged slow. */
#define GV_FLEET_SLOW_FRACTION 0.10

/* Two GPUs (or an even split) that differ: the nearer class is the reference only where the
   other's largest error in ulps is at least this many times its own (merge_check.c). */
#define GV_FLEET_DECISIVE 2.0

/* The most run files one merge takes (gv_fleet_merge refuses more). */
#define GV_FLEET_MERGE_MAX 64

/* One run file as a device of the merge. */
typedef struct gv_fm_dev {
    const json_t *doc;
    const json_t *cases; /* object: case key -> case */
    char label[96];
    char host[128];
    char group[400];
    int model; /* the index of its group (model and software) in the merge's groups */
    int index, rank;
    int pass, fail, skip, error;
    double time_ms; /* over the cases every device of its node and group judged */
    double vs_median;
    bool timed, slow;
    int outlier_cases;
} gv_fm_dev;

/* One case across the devices: what was decided about agreement. */
typedef struct gv_fm_case {
    const char *key;
    const json_t *any; /* the case from the first device that has it */
    bool deterministic, compared;
    bool all_pass;                    /* every device has it and passed */
    int n_digest_classes;             /* within the largest compared group */
    char agreement[160];              /* the table's last column */
    bool outlier[GV_FLEET_MERGE_MAX]; /* per device: named as the outlier */
    int reference;                    /* a device holding the reference digest, -1 */
    bool undecided;
} gv_fm_case;

/* One merge as it was worked out, for render/merge_text.h to print: the devices and their model
 * groups, the case keys in the order first seen and each case's decision, the counts and the
 * notes. It points into the run documents, which outlive it. */
typedef struct gv_fleet_merged {
    int n;
    gv_fm_dev *devs;
    char groups[GV_FLEET_MERGE_MAX][400];
    int n_groups;
    json_t *keyset; /* key -> first case, in order via keys[] */
    const char **keys;
    int n_keys;
    gv_fm_case *fcs;
    int identical, differ, not_compared;
    json_t *notes; /* array of strings: several models compared apart, slow devices */
} gv_fleet_merged;

/* Merge n gpuval-run/1 documents (names: their files, for the fleet document) into *m
 * (gv_fleet_merged_free after, whatever the status); *fleet (if not NULL) receives the
 * gpuval-fleet/1 document, whose summary's exit_code is the command's to add. Returns the
 * status: FAIL a case failed on some device, RUNTIME an ERROR, NODEV nothing judged on any
 * device and none present, OUTLIER a device's output differs from the others' on a
 * deterministic op, else OK; BAD_INPUT (e says why, nothing merged) for more runs than it
 * merges. */
gv_status gv_fleet_merge(json_t *const *docs, const char *const *names, int n, gv_fleet_merged *m,
                         json_t **fleet, gv_error *e);
void gv_fleet_merged_free(gv_fleet_merged *m);

/* A case key without its seed, as the tables show it (the seed stays in the JSON). */
void gv_fleet_case_label(const char *key, char *label, size_t len);
/* Whether device d has a line in case fc's outliers: named as the outlier, or fc undecided and
   d has the case. */
bool gv_fleet_case_outlier(const gv_fleet_merged *m, const gv_fm_case *fc, int d);

#endif
