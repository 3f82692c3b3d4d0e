/* compare.h: the `compare` subcommand — two run files of one schema, regression-checked
 * case by case (decisions in compare_runs.c); a table on stdout, optional Markdown and JUnit. */
#ifndef GV_COMPARE_CMD_H
#define GV_COMPARE_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "fleet/options.h"

/* compare's options (compare.c), read by its parser and its --help. */
extern const gv_opt_table gv_compare_options;

int gv_cmd_compare(int argc, char **argv);

/* The changed cases, the counts, one-sided cases and the overall outcome, as compare prints
   them (check --baseline uses it too). */
struct gv_cmp_result;
void gv_cmd_compare_print(FILE *f, const struct gv_cmp_result *r);
/* The --md (markdown) or --junit report of r into f; 0, or -1 when f has an error. */
int gv_cmd_compare_write(FILE *f, const struct gv_cmp_result *r, bool markdown);

#endif
