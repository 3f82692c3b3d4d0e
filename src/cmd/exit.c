/* exit.c: the one map from a library's gv_status to the process's exit code (exit.h). */
#include "cmd/exit.h"

#include <assert.h>
#include <string.h>

#include "fleet/workers.h"
#include "render/merge_text.h"

int gv_cmd_exit(gv_status s)
{
    switch (s) {
#define GV_EXIT_OF_(name, code, status, what)                                                      \
    case status: return code;
        GV_EXIT_CODES(GV_EXIT_OF_)
#undef GV_EXIT_OF_
    case GV_NSTATUSES: break;
    }
    assert(!"a status without a row in GV_EXIT_CODES");
    return GV_EXIT_RUNTIME;
}

int gv_cmd_end(gv_status st, const gv_error *e)
{
    /* a line each: gv_err_add keeps several messages apart, and gv_usage_error would escape
       the newline between them */
    for (const char *p = e->msg; *p;) {
        size_t len = strcspn(p, "\n");
        gv_usage_error("%.*s", (int)len, p);
        p += len + (p[len] == '\n');
    }
    return gv_cmd_exit(st);
}

int gv_cmd_fail(const gv_error *e)
{
    return gv_cmd_end(e->status, e);
}

int gv_cmd_fleet_end(gv_fleet_end *end, const char *json_path, gv_error *e)
{
    if (!end->runs) return gv_cmd_fail(e);
    if (end->merged) gv_fleet_merge_print(stdout, NULL, end->merged, end->quiet);
    if (end->perf_merged) gv_perf_merge_print(stdout, NULL, end->perf_merged);
    gv_cmd_record_exit(json_object_get(end->fleet, "summary"), end->status);
    gv_status st = gv_fleet_finish(end, json_path, e);
    return gv_cmd_end(st, e);
}

void gv_cmd_record_exit(json_t *obj, gv_status s)
{
    if (obj) json_object_set_new(obj, "exit_code", json_integer(gv_cmd_exit(s)));
}
