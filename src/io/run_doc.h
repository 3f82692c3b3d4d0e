/* run_doc.h: a correctness run as text and as data — a case's row of the terminal table (which
 * render/run_text.h prints), and the run in the versioned JSON schema ("gpuval-run/1", written
 * with jansson). */
#ifndef GV_REPORT_H
#define GV_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "io/run_info.h"
#include "core/op.h"
#include "io/schemas.h"

/* One file of check --inputs: its name as given and the SHA-256 of its bytes. */
typedef struct gv_input_file {
    char name[256];
    char sha256[65];
} gv_input_file;

typedef struct gv_run_info {
    const char *command;     /* "check" */
    const char *argv_joined; /* the command line */
    bool have_device;
    gk_device_info device;
    int oracle_threads;
    gv_fleet_info fleet; /* device index, rank, host, PCIe link and clocks (run_info.h) */
    int device_count, device_index; /* as the device query saw them (-1: unknown) */
    /* check --inputs: the files every case of the run read (each case whose inputs are not
       generated records them as "input_files"); NULL, 0 otherwise */
    const gv_input_file *input_files;
    int n_input_files;
} gv_run_info;

/* A case's row of check's table, as check, judge, replay and screen print it (render/run_text.h)
 * and the public judge returns it: op, dtype, mode, dist, shape, the metrics, the tiers met, the
 * verdict, its reason and notes; one line without its newline, malloc'ed (NULL: no memory). */
char *gv_table_row_text(const gv_result *r);

typedef struct gv_summary {
    int pass, fail, skip, error, skip_nodev;
} gv_summary;
void gv_summary_add(gv_summary *s, const gv_result *r);

/* The members every run document shares (tool, command, argv, created, host, build, env,
   device, fleet: docs/schemas.md) set in root, in that order: for gv_run_json and the probe's
   document. */
void gv_run_shared_set(json_t *root, const gv_run_info *info);

/* One case's result as its object in gpuval-run/1's "results" (the caller owns it). */
json_t *gv_result_json(const gv_result *r);
/* The run as a gpuval-run/1 document (the caller owns it). */
json_t *gv_run_json(const gv_run_info *info, const gv_result *results, int n, const gv_summary *s);
/* Write the run to path through gv_write_file (outfile.h: a temporary beside it, then a rename;
 * "-" is stdout). GV_OK or GV_EIO (errno says why). */
int gv_json_write(const char *path, const gv_run_info *info, const gv_result *results, int n,
                  const gv_summary *s);

/* The CUDA architectures this binary carries (meson's gpu_arch, tools/cuda_arch.py):
   "sm_80,sm_90,compute_75,compute_90"; sm_XY is SASS, compute_XY PTX. */
#ifdef GV_HAVE_CUDA
#define GV_BUILD_ARCH GV_CUDA_ARCH
#else
#define GV_BUILD_ARCH "none (built without CUDA)"
#endif

/* One line: which of them runs on device d ("sm_90 SASS, native (compiled from compute_90)",
   "compute_75 PTX, JIT-compiled for sm_90 by the driver (the generic paths: no cp.async)"). */
void gv_device_code(const gk_device_info *d, char *buf, size_t len);

#endif
