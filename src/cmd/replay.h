/* replay.h: `gpuval replay DIR/CASE` (replay.c). */
#ifndef GV_REPLAY_H
#define GV_REPLAY_H

#include "fleet/options.h"

/* replay's options (replay.c), read by its parser and its --help. */
extern const gv_opt_table gv_replay_options;

/* Rerun a case dumped by check --dump-failures on its dumped inputs; the exit status (cli.h's
 * GV_EXIT_*): 0 the same verdict and bit-identical outputs, 1 not, 2 bad usage or a bad dump,
 * 77 no device. */
int gv_cmd_replay(int argc, char **argv);

#endif
