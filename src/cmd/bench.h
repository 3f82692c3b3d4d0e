/* bench_cmd.h: `gpuval bench`, the timed run's command line (bench_cmd.c). */
#ifndef GV_BENCH_CMD_H
#define GV_BENCH_CMD_H

/* Run `gpuval bench ARGS` (argv[0] is "bench"); returns the exit code (cli.h's GV_EXIT_*). */
int gv_cmd_bench(int argc, char **argv);

#endif
