/* coll_cmd.h: `gpuval collectives` (coll_cmd.c). */
#ifndef GV_COLL_CMD_H
#define GV_COLL_CMD_H

int gv_cmd_collectives(int argc, char **argv);

#endif
