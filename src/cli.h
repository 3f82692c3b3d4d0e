/* cli.h: what cli.c gives the gpuval subcommands — exit codes, usage errors, the option
 * parsers, output probing and the recorded command line. */
#ifndef GV_CLI_H
#define GV_CLI_H

#include "gv.h"
#include "outfile.h" /* gv_write_file, gv_probe_writable, gv_probe_outputs */
#include "registry.h"

/* Exit codes (DESIGN.md): 0 all passed, 1 something failed, 2 usage or bad input, 3 runtime
 * error, 77 nothing could run for want of a device. */
enum {
    GV_EXIT_OK = 0,
    GV_EXIT_FAIL = 1,
    GV_EXIT_USAGE = 2,
    GV_EXIT_RUNTIME = 3,
    /* 4 and 5 are compare's (compare_cmd.h) */
    GV_EXIT_OUTLIER = 6, /* merge, check --device LIST: a device's output differs from the
                            others' on a deterministic op, though no case failed */
    GV_EXIT_NODEV = 77
};

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
                        void (*probe)(struct gv_run_info *info, char *why, size_t len));
/* Print "gpuval: " + message to stderr, control characters escaped (gv_printable). */
void gv_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* After getopt_long returned '?' with opterr = 0: name the offending argument (escaped). */
void gv_bad_option(const char *cmd, char **argv);

#endif
