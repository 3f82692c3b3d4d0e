/* render_doc.h: the report of every gpuval document without a renderer of its own (render_doc.c):
 * merges, compare, screen, golden, collectives, list --json, case.json. It opens with what
 * failed (rows whose verdict, outcome or agreement says so, and every outlier or failure entry),
 * then the document's scalars and objects, then each array of objects as a table. */
#ifndef GV_RENDER_DOC_H
#define GV_RENDER_DOC_H

#include <jansson.h>
#include <stdio.h>

void gv_render_doc_html(FILE *f, const json_t *doc);
void gv_render_doc_md(FILE *f, const json_t *doc);
/* The member of row that makes it a failure (verdict FAIL or ERROR, outcome REGRESSED or
   INCONCLUSIVE, agreement DIFFER..., fail true, agree false), or NULL. */
const char *gv_render_doc_failed(const json_t *row);

#endif
