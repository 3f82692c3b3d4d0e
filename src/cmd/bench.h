/* bench.h: `gpuval bench`, the timed run's command line (bench.c). */
#ifndef GV_BENCH_CMD_H
#define GV_BENCH_CMD_H

#include "fleet/options.h"

/* bench's options (bench.c): its parser, its --help and its --device LIST workers read them. */
extern const gv_opt_table gv_bench_options;

/* Run `gpuval bench ARGS` (argv[0] is "bench"); returns the exit code (core/gv.h's GV_EXIT_*). */
int gv_cmd_bench(int argc, char **argv);

#endif
