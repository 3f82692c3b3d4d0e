/* trade_text.h: the tables of `gpuval tradeoffs` (trade_text.c): one group's table, its columns
 * aligned, then the notes of the rows that did not pass or were not timed and the model flags;
 * on the terminal, or as Markdown for --md. From a group of the gpuval-tradeoffs/1 document, or
 * from the run's struct while the run goes on (through the same document code, so the two
 * cannot differ). */
#ifndef GV_TRADE_TEXT_H
#define GV_TRADE_TEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "bench/trade_report.h"
#include "io/run_doc.h"

void gv_trade_table(FILE *f, const gv_trade_group *g);
/* md: a Markdown table and list (gv_trade_write_md), else the terminal's aligned columns. */
void gv_trade_table_json(FILE *f, const json_t *group, bool md);

/* The groups as Markdown through gv_write_file (outfile.h: a temporary beside path, then a
 * rename). GV_OK or GV_EIO (errno says why). */
int gv_trade_write_md(const char *path, const gv_run_info *info, const gv_trade_group *g, int n,
                      const gv_trade_summary *s);

#endif
