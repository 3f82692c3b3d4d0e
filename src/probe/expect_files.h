/* expect_files.h: the expectation files probe/sm_XY.expect carried in the program, so that
 * `gpuval probe` and `gpuval tradeoffs` find them without the source tree. The build writes
 * the definition (expect_files.c, meson.build) from the files with tools/embed_text.py; read
 * them through gv_fp_expect_builtin (expect.h). */
#ifndef GV_EXPECT_FILES_H
#define GV_EXPECT_FILES_H

#include <stddef.h>

/* One file: its base name ("sm_90.expect") and its bytes. */
typedef struct gv_embedded_file {
    const char *name, *text;
} gv_embedded_file;

/* Every probe/sm_XY.expect meson.build lists (expect_files), ended by {NULL, NULL}. */
extern const gv_embedded_file gv_expect_files[];

#endif
