/* schemas.h: every kind of JSON document gpuval writes, one row each — its schema string (name
 * and version), what writes it and what reads it. The one table: each writer puts
 * gv_schema(GV_DOC_...) in its "schema" member and each reader compares against the same,
 * so a name or a version changes here and nowhere else. docs/schemas.md's table lists the same
 * rows; tests/cpu/test_schemas.c holds the two to each other, both ways. Header only; in io/
 * because every wing that writes or reads a document (io and above) may include it. */
#ifndef GV_SCHEMAS_H
#define GV_SCHEMAS_H

#include <stddef.h>
#include <string.h>

/* X(id, schema, written by, read by): the commands, as docs/schemas.md names them. */
#define GV_DOC_TABLE(X)                                                                            \
    X(RUN, "gpuval-run/1", "check --json, --save; judge --json",                                   \
      "compare, report, merge, check --baseline")                                                  \
    X(BENCH, "gpuval-bench/1", "bench --json, --save", "compare, report, merge")                   \
    X(TRADEOFFS, "gpuval-tradeoffs/1", "tradeoffs --json", "report, merge")                        \
    X(CASE, "gpuval-case/1", "check --dump-failures (case.json)", "replay")                        \
    X(FLEET, "gpuval-fleet/1", "check --device LIST --json; merge of check runs", "-")             \
    X(FLEET_PERF, "gpuval-fleet-perf/1", "bench, tradeoffs --device LIST --json; merge", "-")      \
    X(COLLECTIVES, "gpuval-collectives/1", "collectives --json", "merge")                          \
    X(COMPARE, "gpuval-compare/1", "compare --json", "-")                                          \
    X(OPS, "gpuval-ops/1", "list --json", "-")                                                     \
    X(PROBE, "gpuval-probe/1", "probe --json", "compare, report, merge")                           \
    X(FLEET_PROBE, "gpuval-fleet-probe/1", "merge of probe documents", "-")                        \
    X(INPUTS, "gpuval-inputs/1", "inputs --out DIR (case.json)", "judge --case")                  \
    X(SCREEN, "gpuval-screen/1", "screen --device LIST --json", "-")                               \
    X(GOLDEN, "gpuval-golden/1", "screen --record", "screen --golden, --record")

typedef enum gv_doc_kind {
#define GV_DOC_ENUM(id, schema, writers, readers) GV_DOC_##id,
    GV_DOC_TABLE(GV_DOC_ENUM)
#undef GV_DOC_ENUM
        GV_DOC_COUNT
} gv_doc_kind;

typedef struct gv_doc_info {
    const char *schema, *writers, *readers;
} gv_doc_info;

/* Row k of the table (k < GV_DOC_COUNT). */
static inline const gv_doc_info *gv_doc(gv_doc_kind k)
{
    static const gv_doc_info rows[] = {
#define GV_DOC_ROW(id, schema, writers, readers) {schema, writers, readers},
        GV_DOC_TABLE(GV_DOC_ROW)
#undef GV_DOC_ROW
    };
    return (size_t)k < sizeof rows / sizeof rows[0] ? &rows[k] : NULL;
}

/* The schema string of kind k ("gpuval-run/1"). */
static inline const char *gv_schema(gv_doc_kind k)
{
    const gv_doc_info *d = gv_doc(k);
    return d ? d->schema : "";
}

/* The kind whose schema is s, or GV_DOC_COUNT for none (s NULL too). */
static inline gv_doc_kind gv_doc_kind_of(const char *s)
{
    int k = 0;
    while (s && k < GV_DOC_COUNT && strcmp(gv_schema((gv_doc_kind)k), s) != 0)
        k++;
    return s ? (gv_doc_kind)k : GV_DOC_COUNT;
}

/* Whether s is the schema of kind k. */
static inline int gv_schema_is(const char *s, gv_doc_kind k)
{
    return s && strcmp(s, gv_schema(k)) == 0;
}

#endif
