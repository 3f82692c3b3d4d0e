/* screen_text.h: `gpuval screen`'s verdict printed (screen_text.c): the Prometheus textfile for
 * node_exporter's textfile collector and the terminal's summary, both from the one
 * gv_screen_verdict that fleet/screen_out.h's drain line, node condition and document are made
 * from. */
#ifndef GV_SCREEN_TEXT_H
#define GV_SCREEN_TEXT_H

#include <stdio.h>

#include "fleet/screen_judge.h"

/* The Prometheus textfile (node_exporter's textfile collector) of v to f: 0, or -1. */
int gv_screen_write_prom(FILE *f, const gv_screen_verdict *v);

/* The verdict as the terminal shows it: one line per GPU, then each failure and note. */
void gv_screen_print(FILE *f, const gv_screen_verdict *v);

#endif
