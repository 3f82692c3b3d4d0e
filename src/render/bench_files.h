/* bench_files.h: the files `gpuval bench` writes (bench_files.c): --json the document itself
 * (bench_json.h), --csv and --md through their printers (bench_csv.h, render_bench.h), so a
 * file says what `gpuval report` would say of the same document. */
#ifndef GV_BENCH_FILES_H
#define GV_BENCH_FILES_H

#include <jansson.h>

typedef enum gv_bench_format { GV_FMT_JSON, GV_FMT_CSV, GV_FMT_MD } gv_bench_format;
/* Write path through gv_write_file (outfile.h: a temporary beside it, then a rename); GV_OK or
 * GV_EIO (errno says why). */
int gv_bench_write(const char *path, gv_bench_format fmt, const json_t *doc);

#endif
