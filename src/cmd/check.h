/* check.h: `gpuval check`, the correctness run (check.c). */
#ifndef GV_CHECK_H
#define GV_CHECK_H

/* Parse the options, run every selected case, print and write the results; returns the exit
 * status (cli.h's GV_EXIT_*). */
int gv_cmd_check(int argc, char **argv);

#endif
