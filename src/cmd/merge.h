/* merge.h: `gpuval merge` (merge.c). */
#ifndef GV_CMD_MERGE_H
#define GV_CMD_MERGE_H

#include "fleet/options.h"

/* merge's options (merge.c), read by its parser and its --help. */
extern const gv_opt_table gv_merge_options;

/* `gpuval merge RUN.json... [--json OUT] [--md OUT] [-q]`. */
int gv_cmd_merge(int argc, char **argv);

#endif
