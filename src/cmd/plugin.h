/* plugin.h: `--plugin FILE` (plugin.c): shared libraries built against include/gpuval.h. */
#ifndef GV_PLUGIN_H
#define GV_PLUGIN_H

#include <stddef.h>

#define GV_PLUGINS_MAX 64
/* Seconds a plugin's constructor and entry point may take in the trial load. */
#define GV_PLUGIN_LOAD_SECONDS 30

/* Take every `--plugin FILE` and `--plugin=FILE` after the command out of argv (argc is
 * updated, argv[argc] stays NULL) into paths[0..*n_paths) (GV_PLUGINS_MAX at most), loading
 * none: no plugin code runs before the command line is checked. Stops at "--". GV_EXIT_OK, or
 * GV_EXIT_USAGE after a message. */
int gv_cmd_plugin_args(int *argc, char **argv, const char **paths, int *n_paths);

/* Load the n plugins, each first in a forked child: one whose constructor or entry point
 * faults (or runs past GV_PLUGIN_LOAD_SECONDS) is reported with its path and the signal, and
 * gpuval goes on to exit 2 instead of dying inside dlopen. The constructor thus runs twice
 * (child, then gpuval). GV_EXIT_OK, or GV_EXIT_USAGE after a message. */
int gv_cmd_plugins_load(const char *const *paths, int n);

/* Load one plugin: dlopen, the versioned entry symbol, its families registered. GV_OK or
 * a negative code with the file and the fault named in err. */
int gv_cmd_plugin_load(const char *path, char *err, size_t errlen);

#endif
