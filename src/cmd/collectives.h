/* collectives.h: `gpuval collectives` (collectives.c): its options, then every local GPU from
 * one process, or the ranks of an MPI job (coll/coll_rank.h). The rows, their judgement, table
 * and JSON are coll/coll_rows.h. */
#ifndef GV_CMD_COLLECTIVES_H
#define GV_CMD_COLLECTIVES_H

#include "fleet/options.h"

/* collectives' options (collectives.c), read by its parser and its --help. */
extern const gv_opt_table gv_coll_options;

int gv_cmd_collectives(int argc, char **argv);

#endif
