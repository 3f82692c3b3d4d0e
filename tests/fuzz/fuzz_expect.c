/* fuzz_expect.c: the reader of `gpuval probe`'s expectation files (src/probe/expect.h). The
 * input is one file, read through a memfd opened by its /proc/self/fd path (a regular file, no
 * disk touched). A refused file leaves nothing behind (no rules, "PATH:..." in the message); an
 * accepted one holds what expect.h promises: version 1, one architecture of the form sm_XY or *,
 * rules with their line numbers in order. Every rule then judges a few measured values: '?' is
 * NEW and nothing else is, and gv_fp_expect_find returns the last matching rule. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "probe/expect.h"

static int memfd = -1;
static char memfd_path[64];

static void setup(void)
{
    if (memfd >= 0) return;
    memfd = memfd_create("fuzz_expect", 0);
    if (memfd < 0) abort();
    snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
}

/* A NUL inside the field's storage: the reader never leaves one unterminated. */
#define TERMINATED(field) (memchr((field), '\0', sizeof(field)) != NULL)

static void check_rule(const gv_fp_rule *r, int prev_line)
{
    GV_FUZZ_CHECK(TERMINATED(r->ops) && TERMINATED(r->dtype) && TERMINATED(r->mode));
    GV_FUZZ_CHECK(TERMINATED(r->feature) && TERMINATED(r->value) && TERMINATED(r->source));
    GV_FUZZ_CHECK(r->line > prev_line);
    GV_FUZZ_CHECK(r->ops[0] && r->dtype[0] && r->mode[0] && r->feature[0] && r->value[0]);
    GV_FUZZ_CHECK(strcmp(r->feature, "*") == 0 || gv_fp_feature_parse(r->feature) >= 0);
    /* measured values of every kind a probe reports: a number, a bound, a word, n/a */
    static const struct {
        const char *text;
        double num;
    } seen[] = {{"8", 8},     {"0", 0},     {"-1", -1},       {">=24", NAN},
                {"RNE", NAN}, {"n/a", NAN}, {"1e300", 1e300}, {"kept", NAN}};
    bool unknown = strcmp(r->value, "?") == 0;
    for (size_t i = 0; i < sizeof seen / sizeof seen[0]; i++) {
        gv_fp_value v = {.num = seen[i].num};
        snprintf(v.text, sizeof v.text, "%s", seen[i].text);
        gv_fp_verdict verdict = gv_fp_judge(r, &v);
        GV_FUZZ_CHECK(verdict == GV_FP_PASS || verdict == GV_FP_FAIL || verdict == GV_FP_NEW);
        GV_FUZZ_CHECK((verdict == GV_FP_NEW) == unknown);
        /* a literal alone judges by its text: the value itself passes */
        if (!unknown && !strchr(r->value, '|') && !strstr(r->value, "..") &&
            strncmp(r->value, ">=", 2) != 0 && strcmp(r->value, seen[i].text) == 0)
            GV_FUZZ_CHECK(verdict == GV_FP_PASS);
    }
}

/* gv_fp_expect_find gives the last rule that matches, or NULL when none does. */
static void check_find(const gv_fp_expect *e)
{
    static const char *const ops[] = {"gemm.cublas", "gemm.cublas.tf32native", "vadd", "x"};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int t = 0; t < GV_NDTYPES; t++)
            for (int m = 0; m < GV_NMODES; m++)
                for (int f = 0; f < GV_FP_NFEATURES; f += 5) {
                    const gv_fp_rule *hit =
                        gv_fp_expect_find(e, ops[o], (gv_dtype)t, (gv_mode)m, f);
                    const gv_fp_rule *last = NULL;
                    for (int i = 0; i < e->n; i++) {
                        const gv_fp_rule *r = &e->rules[i];
                        if (fnmatch(r->ops, ops[o], 0) == 0 &&
                            fnmatch(r->dtype, gv_dtype_name((gv_dtype)t), 0) == 0 &&
                            fnmatch(r->mode, gv_mode_name((gv_mode)m), 0) == 0 &&
                            (strcmp(r->feature, "*") == 0 ||
                             strcmp(r->feature, gv_fp_feature_name(f)) == 0))
                            last = r;
                    }
                    GV_FUZZ_CHECK(hit == last);
                }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    if (size > 1 << 16) return 0;
    if (ftruncate(memfd, 0) != 0 || pwrite(memfd, data, size, 0) != (ssize_t)size) abort();
    gv_fp_expect e;
    char err[512] = "";
    int rc = gv_fp_expect_read(memfd_path, &e, err, sizeof err);
    GV_FUZZ_CHECK(rc == GV_OK || rc == GV_EINVAL || rc == GV_ENOMEM);
    if (rc != GV_OK) {
        /* not read in part, and the message names the file */
        GV_FUZZ_CHECK(e.rules == NULL && e.n == 0);
        GV_FUZZ_CHECK(strncmp(err, memfd_path, strlen(memfd_path)) == 0);
        return 0;
    }
    GV_FUZZ_CHECK(e.version == 1);
    GV_FUZZ_CHECK(TERMINATED(e.arch));
    GV_FUZZ_CHECK(strcmp(e.arch, "*") == 0 ||
                  (strncmp(e.arch, "sm_", 3) == 0 && isdigit((unsigned char)e.arch[3])));
    GV_FUZZ_CHECK(e.n >= 0 && (e.n == 0 || e.rules != NULL));
    for (int i = 0; i < e.n; i++)
        check_rule(&e.rules[i], i ? e.rules[i - 1].line : 0);
    check_find(&e);
    gv_fp_expect_free(&e);
    GV_FUZZ_CHECK(e.rules == NULL && e.n == 0);
    return 0;
}
