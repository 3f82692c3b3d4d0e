/* report.h: `gpuval report RUN.json --html FILE [--md FILE]` (report.c): a run file of
 * any schema rendered for people through render/render.h. */
#ifndef GV_REPORT_CMD_H
#define GV_REPORT_CMD_H

#include "fleet/options.h"

/* report's options (report.c), read by its parser and its --help. */
extern const gv_opt_table gv_report_options;

int gv_cmd_report(int argc, char **argv);

#endif
