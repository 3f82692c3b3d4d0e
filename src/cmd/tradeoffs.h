/* tradeoffs.h: `gpuval tradeoffs`, the accuracy/speed trade-offs of every mode an op accepts
 * (tradeoffs.c; the rows, speed-ups, Pareto front and renderings in bench/trade_report.h). */
#ifndef GV_TRADEOFFS_H
#define GV_TRADEOFFS_H

/* The subcommand; argv[0] is "tradeoffs". Returns the exit code (cli.h). */
int gv_cmd_tradeoffs(int argc, char **argv);

#endif
