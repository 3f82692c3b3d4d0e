/* main.h: the gpuval command line's entry (main.c), shared by the gpuval command
 * (gpuval_main.c) and by gv_main (gv_main.c) in a user's own program. */
#ifndef GV_MAIN_H
#define GV_MAIN_H

#include "fleet/options.h"

/* list's options (main.c), read by its parser and its --help. */
extern const gv_opt_table gv_list_options;

/* The command line over the registry as it stands: argv[1] is the command. Loads the plugins
 * named by --plugin first (plugin.h). Returns the exit status (core/gv.h's GV_EXIT_*). */
int gv_cmd_main(int argc, char **argv);

#endif
