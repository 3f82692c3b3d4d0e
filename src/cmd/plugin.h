/* plugin.h: `--plugin FILE` (plugin.c): shared libraries built against include/gpuval.h. */
#ifndef GV_PLUGIN_H
#define GV_PLUGIN_H

#include <stddef.h>

/* Take every `--plugin FILE` and `--plugin=FILE` after the command out of argv (argc is
 * updated, argv[argc] stays NULL) and load each plugin; stops at "--". GV_EXIT_OK, or
 * GV_EXIT_USAGE after printing why a plugin could not be loaded. */
int gv_plugin_args(int *argc, char **argv);

/* Load one plugin: dlopen, the versioned entry symbol, its families registered. GV_OK or
 * a negative code with the file and the fault named in err. */
int gv_plugin_load(const char *path, char *err, size_t errlen);

#endif
