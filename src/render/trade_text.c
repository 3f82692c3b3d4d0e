/* trade_text.c: the terminal table of a trade-off group (see trade_text.h). Its text is what
 * `gpuval tradeoffs` has always printed: a change here is a change of the command's output. */
#include "render/trade_text.h"

#include <string.h>

#include "render/trade_cells.h"

void gv_trade_table_json(FILE *f, const json_t *group)
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
    for (int k = 0; k < NCOL; k++)
        fprintf(f, "%-*s%s", w[k], gv_trade_col_names[k], k + 1 < NCOL ? "  " : "");
    fputc('\n', f);
    json_array_foreach(rows, i, r)
    {
        gv_trade_cells(group, r, c);
        for (int k = 0; k < NCOL; k++)
            fprintf(f, k >= GV_TRADE_FIRST_NUM ? "%*s%s" : "%-*s%s", w[k], c[k],
                    k + 1 < NCOL ? "  " : "");
        fputc('\n', f);
    }
    gv_trade_notes(f, group, false);
}

void gv_trade_table(FILE *f, const gv_trade_group *g)
{
    json_t *group = gv_trade_group_json(g);
    if (!group) { /* jansson could not allocate a few kB: say so rather than print nothing */
        fputs("  (out of memory: this group's table is not printed)\n", f);
        return;
    }
    gv_trade_table_json(f, group);
    json_decref(group);
}
