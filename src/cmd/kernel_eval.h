/* kernel_eval.h: `gpuval kernel-eval` (kernel_eval.c). */
#ifndef GV_CMD_KERNEL_EVAL_H
#define GV_CMD_KERNEL_EVAL_H

#include "fleet/options.h"

/* kernel-eval's options (kernel_eval.c), read by its parser and its --help: the Python gate's
   (python/src/gpuval/kernel_eval.py), which the command passes on as given. */
extern const gv_opt_table gv_kernel_eval_options;

/* `gpuval kernel-eval --op OP --candidate MODULE:CALLABLE [options]`. */
int gv_cmd_kernel_eval(int argc, char **argv);

#endif
