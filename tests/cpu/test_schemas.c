/* test_schemas.c: the table of document kinds (src/io/schemas.h) and docs/schemas.md's table
 * list the same schemas, both ways: a kind added to the code without its row in the docs, or a
 * row in the docs that no code writes, fails here. Also the table's own contract: names unique,
 * each of the form gpuval-NAME/VERSION, and gv_doc_kind_of the inverse of gv_schema. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/schemas.h"

#define MAX_ROWS 64

/* The schemas of docs/schemas.md's first table: rows "| `gpuval-.../N` | ... |". */
static int doc_schemas(char names[MAX_ROWS][64])
{
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src, "GPUVAL_SRCDIR must name the source tree (tests/meson.build)");
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/schemas.md", src);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[1024];
    int n = 0;
    bool in_table = false;
    while (fgets(line, sizeof line, f)) {
        bool row = strncmp(line, "| `gpuval-", 10) == 0;
        if (in_table && line[0] != '|') break; /* the first table only */
        if (strncmp(line, "| schema |", 10) == 0) in_table = true;
        if (!in_table || !row) continue;
        const char *a = line + 3, *b = strchr(a, '`');
        cr_assert_not_null(b, "%s: a row without its closing backquote: %s", path, line);
        cr_assert_lt(n, MAX_ROWS);
        snprintf(names[n++], 64, "%.*s", (int)(b - a), a);
    }
    fclose(f);
    cr_assert(in_table, "%s: no table headed '| schema |'", path);
    return n;
}

Test(schemas, docs_table_is_the_code_table)
{
    char names[MAX_ROWS][64];
    int n = doc_schemas(names);
    for (int k = 0; k < GV_DOC_COUNT; k++) {
        bool found = false;
        for (int i = 0; i < n; i++)
            found |= strcmp(names[i], gv_schema((gv_doc_kind)k)) == 0;
        cr_expect(found, "%s (src/io/schemas.h) is not in docs/schemas.md's table",
                  gv_schema((gv_doc_kind)k));
    }
    for (int i = 0; i < n; i++)
        cr_expect(gv_doc_kind_of(names[i]) != GV_DOC_COUNT,
                  "docs/schemas.md lists %s, which src/io/schemas.h does not", names[i]);
    cr_expect_eq(n, GV_DOC_COUNT, "docs/schemas.md has %d rows, the code's table %d", n,
                 GV_DOC_COUNT);
}

Test(schemas, names_are_unique_and_versioned)
{
    for (int k = 0; k < GV_DOC_COUNT; k++) {
        const gv_doc_info *d = gv_doc((gv_doc_kind)k);
        cr_assert_not_null(d);
        const char *slash = strrchr(d->schema, '/');
        cr_expect(strncmp(d->schema, "gpuval-", 7) == 0 && slash && slash[1] >= '1' &&
                      slash[1] <= '9' && strspn(slash + 1, "0123456789") == strlen(slash + 1),
                  "%s: not gpuval-NAME/VERSION", d->schema);
        cr_expect(d->writers[0] && d->readers[0], "%s: writers and readers named", d->schema);
        cr_expect_eq(gv_doc_kind_of(d->schema), (gv_doc_kind)k, "%s: not its own kind", d->schema);
    }
    cr_expect_eq(gv_doc_kind_of("gpuval-run/2"), GV_DOC_COUNT);
    cr_expect_eq(gv_doc_kind_of(NULL), GV_DOC_COUNT);
    cr_expect_null(gv_doc(GV_DOC_COUNT));
}
