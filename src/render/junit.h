/* junit.h: JUnit XML, the test-report format CI servers read (Jenkins' junit step, GitLab's
 * artifacts:reports:junit), written to the strictest common schema: Apache Ant's as published
 * in tests/fixtures/junit/JUnit.xsd (every testsuite has properties, system-out, system-err, a
 * timestamp without a zone, a hostname and a time; every testcase a time; every failure and
 * error a type). One writer for every command that offers --junit (junit.c): `check` turns each
 * case into a testcase, `compare` each matched case. */
#ifndef GV_JUNIT_H
#define GV_JUNIT_H

#include <stdio.h>

#include "core/run.h"
#include "io/run_doc.h"

/* A testcase's outcome: passed (no child), <failure>, <error> or <skipped>. */
typedef enum gv_junit_kind {
    GV_JUNIT_PASSED = 0,
    GV_JUNIT_FAILURE,
    GV_JUNIT_ERROR,
    GV_JUNIT_SKIPPED
} gv_junit_kind;

/* The one <testsuite> of a document. */
typedef struct gv_junit_suite {
    const char *name;      /* "gpuval check" */
    const char *timestamp; /* ISO 8601 UTC ("2026-11-22T18:42:49Z"; the zone is dropped) */
    const char *hostname;  /* NULL or "": localhost */
    int tests, failures, errors, skipped;
    double time_s;               /* the suite's time; not finite or negative: 0 */
    const char *const *property; /* name, value, name, value, ..., NULL (NULL: none) */
} gv_junit_suite;

/* The XML declaration, <testsuites>, <testsuite ...> and its <properties>. */
void gv_junit_begin(FILE *f, const gv_junit_suite *s);
/* One <testcase classname name time>, with a <failure>, <error> or <skipped> child for those
 * kinds: message (an attribute), type (an attribute; failure and error only) and text (the
 * element's content; each line escaped on its own, the newlines kept). NULLs are "". */
void gv_junit_case(FILE *f, const char *classname, const char *name, double time_s,
                   gv_junit_kind kind, const char *type, const char *message, const char *text);
/* <system-out/>, <system-err/> and the closing tags. */
void gv_junit_end(FILE *f);

/* check's run as JUnit: one testcase per result (classname the op, name "dtype/mode/dist/
 * shape seed N"), FAIL as <failure>, ERROR as <error>, SKIP as <skipped>, each with the
 * case's reason as its message and its table row (gv_table_row, with the header) as its text.
 * info gives the timestamp source (now), the host and the command line as properties.
 * Returns -1 when f has an error, else 0. */
int gv_junit_write_check(FILE *f, const gv_run_info *info, const gv_result *results, int n,
                         const gv_summary *sum);

#endif
