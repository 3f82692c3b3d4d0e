/* cli.h: what cli.c gives the gpuval subcommands — exit codes, usage errors, the option
 * parsers, output probing and the recorded command line. */
#ifndef GV_CLI_H
#define GV_CLI_H

#include "core/gv.h"
#include "io/outfile.h" /* gv_write_file, gv_probe_writable, gv_probe_outputs */
#include "core/registry.h"
#include "core/runner.h" /* gv_device_seen */

/* "f32,f64" -> bit mask; on a bad name prints the valid choices and returns -1. */
int gv_parse_dtype_list(const char *s, unsigned *mask);
int gv_parse_mode_list(const char *s, unsigned *mask);
/* One input distribution by name into *dist; on a bad name prints the valid ones, -1. */
int gv_parse_dist(const char *s, int *dist);
/* A non-negative integer seed (decimal, 0x hex); on anything else prints why, -1. */
int gv_parse_seed(const char *s, uint64_t *seed);
/* "gpuval ARGV..." as one allocated string (free it), recorded with every run; NULL on no
 * memory. */
char *gv_join_args(int argc, char **argv);
/* --size SPEC into shapes[max] and sel (shapes, n_shapes); on a malformed spec prints why
 * and returns -1. */
int gv_parse_sizes(const char *spec, gv_shape *shapes, int max, gv_selection *sel);
/* The start of a run every command shares: the run info (command, oracle threads, device
 * fingerprint, the command line, which the caller frees with free(info->argv_joined)), the
 * "device:" line and the warnings for numerics-changing environment variables. */
struct gv_run_info;
void gv_run_start(struct gv_run_info *info, const char *command, int argc, char **argv);
/* The same with the device queried by probe (isolate.h: in a child process, so that this
 * process never creates a CUDA context); why gets the reason when there is no device. */
void gv_run_start_probe(struct gv_run_info *info, const char *command, int argc, char **argv,
                        void (*probe)(gv_device_seen *seen, char *why, size_t len));
/* After getopt_long returned '?' with opterr = 0: name the offending argument (escaped). */
void gv_bad_option(const char *cmd, char **argv);

#endif
