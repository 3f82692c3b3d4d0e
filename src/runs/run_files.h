/* run_files.h: run files read back (run_files.c): one loader per use, each naming the file and
 * what is wrong with it, and the device texts the merged tables print. */
#ifndef GV_RUN_FILES_H
#define GV_RUN_FILES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The most runs (devices of a node, ranks) one merge or one --device list takes. */
#define GV_FLEET_MAX_DEVICES 64

/* Read a gpuval-run/1 file (check --json): GV_OK, or a message in err (unreadable, invalid JSON
 * with line and column, not a gpuval-run/1 document). */
int gv_fleet_load(const char *path, json_t **doc, char *err, size_t len);

/* Read a run of any schema `gpuval merge` takes (gpuval-run/1, gpuval-bench/1,
 * gpuval-tradeoffs/1, gpuval-probe/1): GV_OK, or a message in err (unreadable, invalid JSON with
 * line and column, another schema, or the schema's array missing). */
int gv_fleet_load_any(const char *path, json_t **doc, char *err, size_t len);

/* A run's device, as the merged tables show it: "Gen5 x16" (with " (below max)" when the link
 * trained below what it can reach) or "-"; the SM clock "cur/max" MHz or "-"; the model and
 * software "NAME, cc 9.0, 132 SMs, driver D, runtime R, cuBLAS C" or "no device". */
void gv_fleet_link_text(const json_t *doc, char *buf, size_t len);
void gv_fleet_clock_text(const json_t *doc, char *buf, size_t len);
void gv_fleet_model_text(const json_t *doc, char *buf, size_t len);

/* A run's host ("fleet.host", else "host.hostname", else "?") and its label in a merge of
 * several: "rankR" under a launcher, else "devI", else "runK" (its place k on the command
 * line); "HOST:..." when the runs come from several hosts. */
void gv_fleet_host_text(const json_t *doc, char *buf, size_t len);
void gv_fleet_device_label(const json_t *doc, int k, bool several_hosts, char *buf, size_t len);

#endif
