/* screen.h: `gpuval screen` (screen.c), the time-boxed correctness sweep of every GPU of a node
 * that names the GPU computing wrong. */
#ifndef GV_CMD_SCREEN_H
#define GV_CMD_SCREEN_H

#include "fleet/options.h"

/* screen's options, read by its parser, its --help and its workers' command lines. */
extern const gv_opt_table gv_screen_options;

int gv_cmd_screen(int argc, char **argv);

#endif
