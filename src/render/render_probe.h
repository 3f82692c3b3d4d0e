/* render_probe.h: a probe document (schema "gpuval-probe/1", from gpuval probe --json) as HTML
 * and as Markdown (render_probe.c): the device and summary, then one table per (op, dtype,
 * mode) row of feature, measured value, expectation, verdict and what was seen. Rows with a
 * FAIL come first and, in each table, the FAILed features; skipped rows last. */
#ifndef GV_RENDER_PROBE_H
#define GV_RENDER_PROBE_H

#include <jansson.h>
#include <stdio.h>

void gv_render_probe_html(FILE *f, const json_t *doc);
void gv_render_probe_md(FILE *f, const json_t *doc);

#endif
