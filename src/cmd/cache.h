/* cache.h: `gpuval cache info|clear` (cache.c), the oracle cache's command. */
#ifndef GV_CACHE_CMD_H
#define GV_CACHE_CMD_H

int gv_cmd_cache(int argc, char **argv);

#endif
