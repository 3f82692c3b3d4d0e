/* gv_main.c: gv_main and gv_main_all (include/gpuval.h): a user's own program running the
 * gpuval command line over its own families. */
#include <stdio.h>

#include "cmd/gv_main.h"
#include "cmd/main.h"
#include "cmd/cli.h"

static int run_main(int argc, char **argv, const gv_family *const *families, bool builtins)
{
    for (int i = 0; families && families[i]; i++) {
        char err[512];
        if (gv_register_family(families[i], err, sizeof err) != GV_OK) {
            gv_usage_error("%s", err);
            return GV_EXIT_USAGE;
        }
    }
    gv_registry_hide_builtins(!builtins);
    return gv_cmd_main(argc, argv);
}

int gv_main(int argc, char **argv, const gv_family *const *families)
{
    return run_main(argc, argv, families, false);
}

int gv_main_all(int argc, char **argv, const gv_family *const *families)
{
    return run_main(argc, argv, families, true);
}
