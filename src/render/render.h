/* render.h: any gpuval run file rendered for people (render.c): one self-contained HTML page
 * (inline CSS and SVG, no script, nothing fetched) or Markdown tables for a pull request,
 * dispatching on the document's "schema". */
#ifndef GV_RENDER_H
#define GV_RENDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "io/schemas.h"

/* The schemas rendered; GV_RENDER_UNKNOWN for any other (or none). */
typedef enum gv_render_kind {
    GV_RENDER_UNKNOWN = -1,
    GV_RENDER_CHECK,     /* gpuval-run/1 */
    GV_RENDER_BENCH,     /* gpuval-bench/1 */
    GV_RENDER_TRADEOFFS, /* gpuval-tradeoffs/1 */
    GV_RENDER_PROBE,     /* gpuval-probe/1 */
    GV_RENDER_DOC        /* any other schema of io/schemas.h: render_doc.h's generic report */
} gv_render_kind;

/* The kinds of document with a renderer of their own (io/schemas.h), in gv_render_kind's
 * order; every other kind of the schema table is GV_RENDER_DOC. */
#define GV_RENDER_DOCS                                                                             \
    {                                                                                              \
        GV_DOC_RUN, GV_DOC_BENCH, GV_DOC_TRADEOFFS, GV_DOC_PROBE                                           \
    }

gv_render_kind gv_render_kind_of(const json_t *doc);
/* Render doc (of a known kind) as HTML or Markdown into f. */
void gv_render_html(FILE *f, const json_t *doc);
void gv_render_md(FILE *f, const json_t *doc);
/* Render into path through gv_write_file (outfile.h: a temporary beside it and a rename), so
 * a reader never sees half a page; "-" is stdout. 0, or -1 with errno and nothing left behind.
 * `gpuval report --md`, `gpuval bench --md` and `gpuval tradeoffs --md` all write through it:
 * a command's Markdown is the report's of its run file. */
int gv_render_write(const char *path, const json_t *doc, bool html);

#endif
