/* trade_text.h: the terminal printer of `gpuval tradeoffs` (trade_text.c): one group's table,
 * its columns aligned, then the notes of the rows that did not pass or were not timed and the
 * model flags. From a group of the gpuval-tradeoffs/1 document, or from the run's struct while
 * the run goes on (through the same document code, so the two cannot differ). */
#ifndef GV_TRADE_TEXT_H
#define GV_TRADE_TEXT_H

#include <jansson.h>
#include <stdio.h>

#include "bench/trade_report.h"

void gv_trade_table(FILE *f, const gv_trade_group *g);
void gv_trade_table_json(FILE *f, const json_t *group);

#endif
