/* bench_files.c: the files of `gpuval bench` (see bench_files.h). */
#include "render/bench_files.h"

#include <stdio.h>

#include "bench/bench_json.h"
#include "core/gv.h"
#include "io/outfile.h"
#include "render/bench_csv.h"
#include "render/render.h"

static int emit_csv(FILE *f, void *doc)
{
    gv_bench_render_csv(f, doc);
    return ferror(f) ? -1 : 0;
}

int gv_bench_write(const char *path, gv_bench_format fmt, const json_t *doc)
{
    switch (fmt) {
    case GV_FMT_JSON: return gv_bench_write_json(path, doc);
    case GV_FMT_CSV: return gv_write_file(path, emit_csv, (void *)doc) == 0 ? GV_OK : GV_EIO;
    case GV_FMT_MD: break;
    }
    /* the very call `gpuval report DOC --md` makes: one Markdown printer for both */
    return gv_render_write(path, doc, false) == 0 ? GV_OK : GV_EIO;
}
