/* check.h: `gpuval check`, the correctness run (check.c). */
#ifndef GV_CHECK_H
#define GV_CHECK_H

#include "fleet/options.h"

/* check's options (check.c): its parser, its --help and its --device LIST workers read them. */
extern const gv_opt_table gv_check_options;

/* Parse the options, run every selected case, print and write the results; returns the exit
 * status (core/gv.h's GV_EXIT_*). */
int gv_cmd_check(int argc, char **argv);

#endif
