/* options.h: a command's options, declared once. Each subcommand of src/cmd/ has one table of
 * gv_opt; from it come getopt_long's option array and short-option string and the option lines of
 * the command's --help (cmd/cli.h), and, for check, bench and tradeoffs, the workers' command
 * lines of --device LIST (fleet/workers.h), which must know which options take a value and which
 * the parent keeps to itself. One table, so the parser, the help and the workers cannot disagree
 * about an option. The type sits in fleet, the lowest wing that reads a table (cmd -> fleet); the
 * tables themselves are the commands'. Header only. */
#ifndef GV_FLEET_OPTIONS_H
#define GV_FLEET_OPTIONS_H

#include <stdbool.h>

/* One option of a command. */
typedef struct gv_opt {
    /* the long option without "--" ("op"); NULL: a short option only (list's -v) */
    const char *name;
    /* what getopt_long returns for it, the label the command's parser switches on: the option's
       short letter where it has one ('q': -q is the same option, as getopt_long's own
       convention has it), else a value of the command's own enum, >= 256 */
    int id;
    /* the name of its value in --help ("FILE"); NULL: a flag. An option takes a value exactly
       when its help names one, so the two cannot drift apart. */
    const char *arg;
    /* --device LIST: kept by the parent to itself (the outputs it writes, the device list) and
       dropped from every worker's command line; the others are passed through as given */
    bool parent_only;
    /* --device LIST: a directory each worker gets its own subdirectory of, VALUE/devN for
       device N (check --dump-failures), so that two devices never write one file */
    bool per_device;
    /* its text in --help, lines split by '\n' (printed from the command's column); NULL: not
       listed (--help itself) */
    const char *help;
    /* printed on a line of its own before the option: the title of a group of options */
    const char *heading;
} gv_opt;

/* A command's table: its name ("check") and options. */
typedef struct gv_opt_table {
    const char *cmd;
    const gv_opt *opts;
    int n;
} gv_opt_table;

/* The most options a table may hold (cmd/cli.h builds getopt_long's arrays of this size); each
 * table's file asserts that it fits. */
#define GV_OPTS_MAX 40

/* Entries in a static array of gv_opt, for a gv_opt_table's n. */
#define GV_NOPTS(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* Whether the option is also a short one (-q): its id is a letter. */
static inline bool gv_opt_is_short(const gv_opt *o)
{
    return o->id > 0 && o->id < 256;
}

#endif
