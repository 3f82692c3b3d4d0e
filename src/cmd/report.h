/* report_cmd.h: `gpuval report RUN.json --html FILE [--md FILE]` (report_cmd.c): a run file of
 * any schema rendered for people through render/render.h. */
#ifndef GV_REPORT_CMD_H
#define GV_REPORT_CMD_H

int gv_cmd_report(int argc, char **argv);

#endif
