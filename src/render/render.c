/* render.c: the schema dispatch and the atomic write of a rendering (see render.h). */
#include "render/render.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "io/outfile.h"
#include "render/render_bench.h"
#include "render/render_check.h"
#include "render/render_doc.h"
#include "render/render_probe.h"
#include "render/render_tradeoffs.h"
#include "io/schemas.h"

gv_render_kind gv_render_kind_of(const json_t *doc)
{
    const char *s = json_string_value(json_object_get(doc, "schema"));
    if (!s) return GV_RENDER_UNKNOWN;
    if (gv_schema_is(s, GV_DOC_RUN)) return GV_RENDER_CHECK;
    if (gv_schema_is(s, GV_DOC_BENCH)) return GV_RENDER_BENCH;
    if (gv_schema_is(s, GV_DOC_TRADEOFFS)) return GV_RENDER_TRADEOFFS;
    if (gv_schema_is(s, GV_DOC_PROBE)) return GV_RENDER_PROBE;
    if (gv_doc_kind_of(s) != GV_DOC_COUNT) return GV_RENDER_DOC;
    return GV_RENDER_UNKNOWN;
}

void gv_render_html(FILE *f, const json_t *doc)
{
    switch (gv_render_kind_of(doc)) {
    case GV_RENDER_CHECK: gv_render_check_html(f, doc); break;
    case GV_RENDER_BENCH: gv_render_bench_html(f, doc); break;
    case GV_RENDER_TRADEOFFS: gv_render_tradeoffs_html(f, doc); break;
    case GV_RENDER_PROBE: gv_render_probe_html(f, doc); break;
    case GV_RENDER_DOC: gv_render_doc_html(f, doc); break;
    case GV_RENDER_UNKNOWN: break;
    }
}

void gv_render_md(FILE *f, const json_t *doc)
{
    switch (gv_render_kind_of(doc)) {
    case GV_RENDER_CHECK: gv_render_check_md(f, doc); break;
    case GV_RENDER_BENCH: gv_render_bench_md(f, doc); break;
    case GV_RENDER_TRADEOFFS: gv_render_tradeoffs_md(f, doc); break;
    case GV_RENDER_PROBE: gv_render_probe_md(f, doc); break;
    case GV_RENDER_DOC: gv_render_doc_md(f, doc); break;
    case GV_RENDER_UNKNOWN: break;
    }
}

static int emit_html(FILE *f, void *doc)
{
    gv_render_html(f, doc);
    return ferror(f) ? -1 : 0;
}

static int emit_md(FILE *f, void *doc)
{
    gv_render_md(f, doc);
    return ferror(f) ? -1 : 0;
}

int gv_render_write(const char *path, const json_t *doc, bool html)
{
    return gv_write_file(path, html ? emit_html : emit_md, (void *)doc);
}
