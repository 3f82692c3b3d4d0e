/* probe.h: `gpuval probe` (probe.c), the arithmetic fingerprint of a GEMM's modes. */
#ifndef GV_PROBE_CMD_H
#define GV_PROBE_CMD_H

#include "fleet/options.h"

/* probe's options (its parser, its --help and the command line's check in main.c read it) */
extern const gv_opt_table gv_probe_options;

int gv_cmd_probe(int argc, char **argv);

#endif
