/* probe.h: `gpuval probe` (probe.c), the arithmetic fingerprint of a GEMM's modes. */
#ifndef GV_PROBE_CMD_H
#define GV_PROBE_CMD_H

int gv_cmd_probe(int argc, char **argv);

#endif
