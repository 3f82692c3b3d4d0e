/* exit.h: where the command wing turns what the libraries return into the process's exit
 * status (exit.c) — a gv_status through the exit table's status column (core/gv.h,
 * GV_EXIT_CODES), a gv_err printed and mapped, and the command line's views of the library
 * checks that report into a gv_err (output probing, a failed write). The wings below cmd never
 * see an exit code (tests/cpu/test_layers.c). */
#ifndef GV_CMD_EXIT_H
#define GV_CMD_EXIT_H

#include <jansson.h>
#include <stdbool.h>

#include "core/gv.h"
#include "io/outfile.h"

/* The exit code of status s: the code whose row in GV_EXIT_CODES names s. */
int gv_cmd_exit(gv_status s);

/* Print e's message (when it has one; a usage error a line) and return gv_cmd_exit(st): the
 * end of a command whose library step returned st and may have left a message in e. */
int gv_cmd_end(gv_status st, const gv_error *e);

/* gv_cmd_end(e->status, e): a step that failed with e. */
int gv_cmd_fail(const gv_error *e);

/* The end of a --device LIST run (fleet/workers.h): the exit code of the merge's status recorded
 * in its document's summary, the document written (gv_fleet_finish), e's messages printed, and
 * the exit code of the final status returned; a run whose workers never started (end->runs
 * NULL) ends with e. */
struct gv_fleet_end;
int gv_cmd_fleet_end(struct gv_fleet_end *end, const char *json_path, gv_error *e);

/* Record the exit code of s as the member "exit_code" of obj (a document's summary; NULL: none),
 * in its place when obj holds one already, else last. */
void gv_cmd_record_exit(json_t *obj, gv_status s);

/* The exit code of a run (gv_run_status): 1 when a case failed; else 3 when a case was an ERROR
 * or an output file was lost; else 77 when nothing was judged and there is no device; else 0. */
static inline int gv_exit_code(int failed, int errors, int judged, bool have_device,
                               bool output_lost)
{
    return gv_cmd_exit(gv_run_status(failed, errors, judged, have_device, output_lost));
}

/* gv_outputs_check with its message printed ("gpuval: ..."): -1 on the first problem, else 0. */
static inline int gv_probe_outputs(int n, const char *const *paths, const char *const *opts)
{
    gv_error e;
    if (gv_outputs_check(n, paths, opts, &e) == 0) return 0;
    gv_cmd_fail(&e);
    return -1;
}

/* gv_not_inputs_check with its message printed: -1 when an output is an input, else 0. */
static inline int gv_probe_not_inputs(int n, const char *const *paths, const char *const *opts,
                                      int n_in, const char *const *inputs)
{
    gv_error e;
    if (gv_not_inputs_check(n, paths, opts, n_in, inputs, &e) == 0) return 0;
    gv_cmd_fail(&e);
    return -1;
}

/* "gpuval: could not write PATH: ..." for a write of gv_write_file that failed. */
static inline void gv_write_error(const char *path)
{
    gv_error e;
    gv_write_failure(path, &e);
    gv_cmd_fail(&e);
}

/* The exit code of a write that failed with err: 2 when the place cannot take a file, 3 when
 * the write itself failed (gv_write_status). */
static inline int gv_write_exit_code(int err)
{
    return gv_cmd_exit(gv_write_status(err));
}

#endif
