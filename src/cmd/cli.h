/* cli.h: what cli.c gives the gpuval subcommands — getopt_long and --help from a command's
 * option table, the help's exit codes, usage errors, the option parsers, output probing and
 * the recorded command line. */
#ifndef GV_CLI_H
#define GV_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "core/gv.h"
#include "fleet/options.h" /* gv_opt, gv_opt_table: a command's options, declared once */
#include "cmd/exit.h"      /* gv_cmd_exit, gv_probe_outputs, gv_exit_code: exit codes */
#include "io/outfile.h"    /* gv_write_file, gv_probe_writable */
#include "core/registry.h"
#include "core/runner.h" /* gv_device_seen */

/* getopt_long's view of a command's option table: the struct option array and the short
 * options, both built from the table. */
typedef struct gv_getopt {
    struct option longopts[GV_OPTS_MAX + 2]; /* the table's, --version, the end */
    char shortopts[2 * GV_OPTS_MAX + 2];     /* "q", or "x:" for a short option with a value */
} gv_getopt;
/* The options every command takes besides its table's: -V, --version (gv_opt_version). Their
 * id is 'V', which no command's table may use (tests/cpu/test_cli.c holds them to that). */
#define GV_OPT_VERSION 'V'
/* Build g from t plus the options every command takes (GV_OPT_VERSION) and make getopt_long
 * ready for a new argv (optind 1; opterr 0, for gv_cmd_bad_option names a bad option, escaped). */
void gv_cmd_getopt_init(gv_getopt *g, const gv_opt_table *t);
/* The next option of argv: its id in the table (GV_OPT_VERSION for -V, --version), '?' for an
 * unknown option or one without its value (then gv_cmd_bad_option), -1 after the last; optarg
 * holds its value. */
int gv_cmd_getopt_next(const gv_getopt *g, int argc, char **argv);

/* --wide, -w: the table rows' option, one entry for the commands that print gv_table_row_fit
 * rows (an entry of a static gv_opt array, so a macro). */
#define GV_CMD_OPT_WIDE                                                                            \
    {                                                                                              \
        .name = "wide", .id = 'w',                                                                 \
        .help = "each row on one line; without it a row wider than 160 columns carries\n"          \
                "its reason and notes onto the next lines on a terminal (never into a\n"           \
                "file or a pipe)"                                                                  \
    }

/* One exit code of a command's help, with what it means for this command (NULL: the words of
 * GV_EXIT_CODES, core/gv.h). */
typedef struct gv_exit_line {
    int code;
    const char *what;
} gv_exit_line;

/* Entries in a static array of gv_exit_line, for a gv_help's n_exits. */
#define GV_NEXITS(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* A command's --help. */
typedef struct gv_help {
    const char *head;          /* the usage line and what the command does */
    const gv_opt_table *opts;  /* its options, listed after head (NULL: none) */
    int col;                   /* the column each option's text starts in */
    const char *tail;          /* after the options (NULL: nothing) */
    const gv_exit_line *exits; /* the exit codes the command returns, in this order */
    int n_exits;
} gv_help;
/* Print h: head; each option with a help text ("  -q, --quiet" or "  --op GLOBS", its first
 * line from col or two spaces after a longer name, the next lines indented to col), after its
 * heading when it has one; for a command's help (opts set) the options every command takes
 * (-V, --version); tail; a blank line; then the exit codes (gv_exit_help). Everything is
 * printed as it is written: no text here is a printf format. */
void gv_cmd_help_print(FILE *f, const gv_help *h);

/* "f32,f64" -> bit mask; on a bad name prints the valid choices and returns -1. */
int gv_cmd_parse_dtype_list(const char *s, unsigned *mask);
int gv_cmd_parse_mode_list(const char *s, unsigned *mask);
/* One input distribution by name into *dist; on a bad name prints the valid ones, -1. */
int gv_cmd_parse_dist(const char *s, int *dist);
/* A non-negative integer seed (decimal, 0x hex); on anything else prints why, -1. */
int gv_cmd_parse_seed(const char *s, uint64_t *seed);
/* "gpuval ARGV..." as one allocated string (free it), recorded with every run; NULL on no
 * memory. */
char *gv_cmd_join_args(int argc, char **argv);
/* --size SPEC into shapes[max] and sel (shapes, n_shapes); on a malformed spec prints why
 * and returns -1. */
int gv_cmd_parse_sizes(const char *spec, gv_shape *shapes, int max, gv_selection *sel);
/* The start of a run every command shares: the run info (command, oracle threads, device
 * fingerprint, the command line, which the caller frees with free(info->argv_joined)), the
 * "device:" line and the warnings for numerics-changing environment variables. */
struct gv_run_info;
void gv_cmd_run_start(struct gv_run_info *info, const char *command, int argc, char **argv);
/* The same with the device queried by probe (runner.h: in a child process, so that this
 * process never creates a CUDA context); why gets the reason when there is no device. */
void gv_cmd_run_start_probe(struct gv_run_info *info, const char *command, int argc, char **argv,
                            void (*probe)(gv_device_seen *seen, char *why, size_t len));
/* After getopt_long returned '?' with opterr = 0: one line naming the offending argument
 * (escaped) and what is wrong with it, then gv_cmd_usage_try(cmd). The caller exits
 * GV_EXIT_USAGE. */
void gv_cmd_bad_option(const char *cmd, char **argv);
/* A usage error of command cmd that its help answers (an argument missing or too many): one
 * line, "gpuval: " and the message (gv_usage_error), then gv_cmd_usage_try(cmd). */
void gv_cmd_usage_cmd(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "try 'gpuval CMD --help'" on stderr (cmd NULL: "try 'gpuval --help'"): a usage error is one
 * line and this pointer, never the whole help. */
void gv_cmd_usage_try(const char *cmd);
/* The command being run (main sets it before dispatching), for the "try" line of a value error
 * found by the shared parsers below (gv_cmd_parse_dist, _seed, _sizes, the dtype and mode
 * lists); NULL points at the main help. */
void gv_cmd_set_current(const char *cmd);

#endif
