/* trade_text.c: the tables of a trade-off group (see trade_text.h). The terminal text is what
 * `gpuval tradeoffs` has always printed: a change here is a change of the command's output. */
#include "render/trade_text.h"

#include <string.h>

#include "core/gv.h"
#include "io/outfile.h"
#include "render/trade_cells.h"

void gv_trade_table_json(FILE *f, const json_t *group, bool md)
{
    enum { NCOL = GV_TRADE_NCOL };
    const json_t *rows = json_object_get(group, "rows"), *r;
    size_t i;
    int w[NCOL];
    char c[NCOL][GV_TRADE_CELL];
    for (int k = 0; k < NCOL; k++)
        w[k] = (int)strlen(gv_trade_col_names[k]);
    json_array_foreach(rows, i, r)
    {
        gv_trade_cells(group, r, c);
        for (int k = 0; k < NCOL; k++)
            if ((int)strlen(c[k]) > w[k]) w[k] = (int)strlen(c[k]);
    }
    const char *sep = md ? " | " : "  ";
    fputs(md ? "| " : "", f);
    for (int k = 0; k < NCOL; k++)
        fprintf(f, "%-*s%s", w[k], gv_trade_col_names[k], k + 1 < NCOL ? sep : md ? " |" : "");
    fputc('\n', f);
    if (md) {
        fputs("|", f);
        for (int k = 0; k < NCOL; k++) {
            for (int j = 0; j < w[k] + 2; j++)
                fputc(k >= GV_TRADE_FIRST_NUM && j == w[k] + 1 ? ':' : '-', f);
            fputc('|', f);
        }
        fputc('\n', f);
    }
    json_array_foreach(rows, i, r)
    {
        gv_trade_cells(group, r, c);
        fputs(md ? "| " : "", f);
        for (int k = 0; k < NCOL; k++)
            fprintf(f, k >= GV_TRADE_FIRST_NUM ? "%*s%s" : "%-*s%s", w[k], c[k],
                    k + 1 < NCOL ? sep
                    : md         ? " |"
                                 : "");
        fputc('\n', f);
    }
    gv_trade_notes(f, group, md);
}

void gv_trade_table(FILE *f, const gv_trade_group *g)
{
    json_t *group = gv_trade_group_json(g);
    if (!group) { /* jansson could not allocate a few kB: say so rather than print nothing */
        fputs("  (out of memory: this group's table is not printed)\n", f);
        return;
    }
    gv_trade_table_json(f, group, false);
    json_decref(group);
}

struct md_ctx {
    const gv_run_info *info;
    const gv_trade_group *g;
    int n;
    const gv_trade_summary *s;
};

static int emit_md(FILE *f, void *ctx)
{
    const struct md_ctx *c = ctx;
    const gv_run_info *info = c->info;
    const gv_trade_group *g = c->g;
    const gv_trade_summary *s = c->s;
    int n = c->n;
    fprintf(f, "# gpuval tradeoffs\n\n`%s`\n\n", info->argv_joined ? info->argv_joined : "");
    if (info->have_device)
        fprintf(f, "Device: %s (cc %d.%d, %d SMs)\n", info->device.name, info->device.cc_major,
                info->device.cc_minor, info->device.sm_count);
    else
        fprintf(f, "Device: none\n");
    for (int k = 0; k < n; k++) {
        char shape[64];
        fprintf(f, "\n## %s %s (%s, seed %llu)\n\n", g[k].op->name,
                gv_shape_format(&g[k].shape, shape, sizeof shape), gv_dist_name(g[k].dist),
                (unsigned long long)g[k].seed);
        json_t *group = gv_trade_group_json(&g[k]);
        if (!group) return -1;
        gv_trade_table_json(f, group, true);
        json_decref(group);
    }
    fprintf(f, "\n%d rows: %d passed, %d failed, %d skipped, %d errors\n", s->rows, s->passed,
            s->failed, s->skipped, s->errors);
    return ferror(f) ? -1 : 0;
}

int gv_trade_write_md(const char *path, const gv_run_info *info, const gv_trade_group *g, int n,
                      const gv_trade_summary *s)
{
    struct md_ctx c = {info, g, n, s};
    return gv_write_file(path, emit_md, &c) == 0 ? GV_OK : GV_EIO;
}
