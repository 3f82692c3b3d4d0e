/* judge.h: `gpuval judge` and `gpuval inputs` (judge.c), on api/judge.h's path. */
#ifndef GV_CMD_JUDGE_H
#define GV_CMD_JUDGE_H

#include "fleet/options.h"

/* Their option tables, read by their parsers and their --help. */
extern const gv_opt_table gv_judge_options, gv_inputs_options;
int gv_cmd_judge(int argc, char **argv);
int gv_cmd_inputs(int argc, char **argv);

#endif
