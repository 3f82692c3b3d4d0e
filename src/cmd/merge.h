/* merge.h: `gpuval merge` (merge.c). */
#ifndef GV_CMD_MERGE_H
#define GV_CMD_MERGE_H

/* `gpuval merge RUN.json... [--json OUT] [--md OUT] [-q]`. */
int gv_cmd_merge(int argc, char **argv);

#endif
