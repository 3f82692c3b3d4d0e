/* tradeoffs.h: `gpuval tradeoffs`, the accuracy/speed trade-offs of every mode an op accepts
 * (tradeoffs.c; the rows, speed-ups, Pareto front and renderings in bench/trade_report.h). */
#ifndef GV_TRADEOFFS_H
#define GV_TRADEOFFS_H

#include "fleet/options.h"

/* tradeoffs' options (tradeoffs.c): its parser, its --help and its --device LIST workers read
 * them. */
extern const gv_opt_table gv_trade_options;

/* The subcommand; argv[0] is "tradeoffs". Returns the exit code (core/gv.h). */
int gv_cmd_tradeoffs(int argc, char **argv);

#endif
