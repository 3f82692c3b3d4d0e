/* expect.h: expectation files of `gpuval probe` (expect.c): what each feature of each mode
 * should measure on one architecture, with the source of each number.
 *
 * A file (probe/sm_90.expect, built into the program: gv_fp_expect_builtin) is lines of
 *     version N                       the file's version (required, first)
 *     arch sm_XY                      the architecture it describes (required)
 *     OPS DTYPE MODE FEATURE VALUE    an expectation; '# source' after it is its citation
 * OPS, DTYPE and MODE are globs (fnmatch) of op, dtype and mode names, FEATURE a
 * feature name (fprint.h) or *. VALUE is a literal ("11", "RNE", "kept", "n/a"), ">=N",
 * "N..M", alternatives joined by '|', or '?' (no expectation: the feature is NEW). The last
 * line that matches a (op, dtype, mode, feature) wins, so general lines go first; a feature no
 * line matches is NEW. Lines starting with '#' are comments. The reader refuses, naming the
 * line, anything else: a literal other than letters, digits and "/_-+.", N not a finite number
 * (">=8x"), N > M, an empty alternative, an arch other than sm_XY (a letter may follow) or '*',
 * a second arch or version line, a field longer than its place in gv_fp_rule. */
#ifndef GV_EXPECT_H
#define GV_EXPECT_H

#include "probe/fprint.h"

typedef struct gv_fp_rule {
    char ops[64], dtype[8], mode[16], feature[24], value[48], source[200];
    int line;
} gv_fp_rule;

typedef struct gv_fp_expect {
    char path[512];
    int version;
    char arch[16];
    gv_fp_rule *rules;
    int n;
} gv_fp_expect;

/* Read path (`gpuval probe --expect FILE`): GV_OK, or GV_EINVAL with "PATH:LINE: what is
   wrong" in err (the file is not read in part), GV_EIO where it cannot be opened. */
int gv_fp_expect_read(const char *path, gv_fp_expect *e, char *err, size_t len);

/* The shipped expectations of compute capability sm (90 for 9.0): probe/sm_XY.expect as the
   build embedded it (expect_files.h), so no source tree is needed. Read as gv_fp_expect_read
   reads a file, its path "probe/sm_XY.expect (built in)"; GV_EIO where none is built in. */
int gv_fp_expect_builtin(int sm, gv_fp_expect *e, char *err, size_t len);

/* The text of the built-in probe/sm_XY.expect, or NULL. */
const char *gv_fp_expect_builtin_text(int sm);
void gv_fp_expect_free(gv_fp_expect *e);

/* The rule for (op, dtype, mode, feature), or NULL (NEW). */
const gv_fp_rule *gv_fp_expect_find(const gv_fp_expect *e, const char *op, gv_dtype t, gv_mode m,
                                    int feature);

/* The rules whose OPS glob matches no op registered now (gv_registry: the built-in ops and
   the plugins loaded), in file order, the first max into out; returns how many there are.
   Such a glob is read, not refused (a plugin's op or a synthetic name may be meant), but it
   judges nothing: a misspelt "gemm.cubals*" leaves every feature it meant NEW. The probe
   warns of each on stderr when it judges. */
int gv_fp_expect_unmatched(const gv_fp_expect *e, const gv_fp_rule **out, int max);

typedef enum { GV_FP_PASS, GV_FP_FAIL, GV_FP_NEW } gv_fp_verdict;
const char *gv_fp_verdict_name(gv_fp_verdict v);

/* The verdict of measured value v against rule r (NULL or '?': NEW). */
gv_fp_verdict gv_fp_judge(const gv_fp_rule *r, const gv_fp_value *v);

#endif
