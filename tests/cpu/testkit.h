/* testkit.h: helpers shared by the CPU tests (header-only, everything static inline). It owns
 * running the real gpuval binary — path in env GPUVAL, set by tests/meson.build — through the
 * shell: gv_test_run_cli folds stderr into stdout, gv_test_run_cli_split keeps the two apart.
 * Both return gpuval's exit status, or -1 if it did not exit normally. */
#ifndef GV_TESTKIT_H
#define GV_TESTKIT_H

#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/metrics.h"
#include "core/gen.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"

/* The gpuval binary named by GPUVAL; fails the test when it is unset or not executable. */
static inline const char *gv_test_gpuval_bin(void)
{
    const char *bin = getenv("GPUVAL");
    cr_assert_not_null(bin, "GPUVAL must name the gpuval binary (tests/meson.build sets it)");
    cr_assert(access(bin, X_OK) == 0, "GPUVAL=%s is not executable", bin);
    return bin;
}

/* Exit status from a system()/pclose() status: the exit code, or -1. */
static inline int gv_test_exit_code(int st)
{
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Run `gpuval ARGS` (ARGS are shell words written by the tests) with stdin from /dev/null and
 * stderr folded into stdout; the first len - 1 bytes of output land in out, NUL-terminated
 * (len >= 1). Returns the exit status, or -1. */
static inline int gv_test_run_cli(const char *args, char *out, size_t len)
{
    const char *bin = gv_test_gpuval_bin();
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s </dev/null 2>&1", bin, args);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f, "popen %s", cmd);
    size_t used = fread(out, 1, len - 1, f);
    out[used] = '\0';
    char rest[4096]; /* drain what did not fit, so gpuval is not killed by SIGPIPE */
    while (fread(rest, 1, sizeof rest, f) > 0)
        ;
    return gv_test_exit_code(pclose(f));
}

/* Read the file at path into buf (at most len - 1 bytes, NUL-terminated); empty if absent. */
static inline void gv_test_slurp(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* A fresh scratch directory $TMPDIR/gv-TAG-XXXXXX (else under /tmp) into dir. */
static inline void gv_test_scratch_dir(char *dir, size_t len, const char *tag)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, len, "%s/gv-%s-XXXXXX", tmp, tag);
    cr_assert_not_null(mkdtemp(dir), "mkdtemp %s", dir);
}

/* Remove a scratch directory and all it holds. */
static inline void gv_test_remove_dir(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0, "%s", cmd);
}

/* Run `gpuval ARGS` with stdin from /dev/null, stdout into out and stderr into err (each
 * truncated to its length - 1 bytes, NUL-terminated), through files in a scratch directory
 * under $TMPDIR (or /tmp) that is removed afterwards. Returns the exit status, or -1. */
static inline int gv_test_run_cli_split(const char *args, char *out, size_t out_len, char *err,
                                        size_t err_len)
{
    const char *bin = gv_test_gpuval_bin();
    char dir[512], o[600], e[600], cmd[4096];
    gv_test_scratch_dir(dir, sizeof dir, "cli");
    snprintf(o, sizeof o, "%s/out", dir);
    snprintf(e, sizeof e, "%s/err", dir);
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s' </dev/null", bin, args, o, e);
    int rc = gv_test_exit_code(system(cmd));
    gv_test_slurp(o, out, out_len);
    gv_test_slurp(e, err, err_len);
    unlink(o);
    unlink(e);
    rmdir(dir);
    return rc;
}

/* How many cases of op's catalogue (its .shapes, or .test_shapes when test_shapes; one case per
 * shape, dtype and mode) satisfy pred; fails the test when the op is unknown or gv_select refuses a
 * shape (check_shape). */
static inline int gv_test_catalogue_count(const char *op, bool test_shapes,
                                          bool (*pred)(const gv_shape *s))
{
    const gv_op *o = gv_op_find(op);
    cr_assert_not_null(o, "%s registered", op);
    gv_selection sel = {.op_glob = op, .dist = -1, .test_shapes = test_shapes, .planted = true};
    gv_case *cases = NULL;
    char err[256] = "";
    int n = gv_select(&sel, &cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s %s: gv_select gives %d (%s)", op, test_shapes ? "test_shapes" : "shapes",
                 n, err);
    int hits = 0;
    for (int i = 0; i < n; i++)
        hits += pred(&cases[i].shape);
    free(cases);
    return hits;
}

/* ---- comparisons ------------------------------------------------------------------------ */

/* Power-of-two tiers: t(1 + |r|) is exact for the r the compare tests use, unlike 1e-8 and 1e-4. */
static const gv_tiers gv_test_pow2_tiers = {2, {0x1p-26, 0x1p-13}};

/* gv_compare of f64 results c against r (53 bits), into m. */
static inline void gv_test_cmp64(const double *c, const double *r, int64_t n, const gv_tiers *t,
                                 const gv_error_model *em, gv_metrics *m)
{
    gv_compare(c, GV_F64, r, n, t, em, 53, m);
}

/* gv_compare of f32 results c against r with the given significand bits, into m. */
static inline void gv_test_cmp32(const float *c, const double *r, int64_t n, const gv_tiers *t,
                                 const gv_error_model *em, int bits, gv_metrics *m)
{
    gv_compare(c, GV_F32, r, n, t, em, bits, m);
}

/* ---- buffers, cases and problems -------------------------------------------------------- */

/* n doubles from malloc (one more byte, so n = 0 is a valid block); fails the test if none. */
static inline double *gv_test_alloc(int64_t n)
{
    double *p = malloc((size_t)n * sizeof *p + 1);
    cr_assert_not_null(p);
    return p;
}

/* n + 1 doubles from calloc, all zero; fails the test if none. */
static inline double *gv_test_zeros(int64_t n)
{
    double *v = calloc((size_t)n + 1, sizeof *v);
    cr_assert_not_null(v);
    return v;
}

/* Row-major rows x cols matrix with leading dimension ld, uniform [-1, 1) from the generator
 * (seed, tensor); the padding between rows is NaN so that an oracle reading it shows. */
static inline double *gv_test_matrix(int64_t rows, int64_t cols, int64_t ld, uint64_t seed,
                                     uint64_t tensor)
{
    double *packed = malloc((size_t)(rows * cols) * sizeof *packed + 1);
    double *x = malloc((size_t)(rows * ld) * sizeof *x + 1);
    cr_assert(packed && x);
    gv_gen_fill(packed, rows * cols, GV_DIST_UNIFORM11, GV_F64, seed, tensor);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < ld; j++)
            x[i * ld + j] = j < cols ? packed[i * cols + j] : NAN;
    free(packed);
    return x;
}

/* Singular values of the n x n row-major a (LAPACKE dgesvd), descending; free() them. */
static inline double *gv_test_singular_values(int64_t n, const double *a)
{
    double *f = gv_test_alloc(n * n), *s = gv_test_alloc(n), *superb = gv_test_alloc(n);
    memcpy(f, a, (size_t)(n * n) * sizeof *f);
    lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', (lapack_int)n, (lapack_int)n, f,
                                     (lapack_int)n, s, NULL, 1, NULL, 1, superb);
    cr_assert_eq(info, 0, "dgesvd info %d", (int)info);
    free(f);
    free(superb);
    return s;
}

/* The case {op, t, mode, dist, shape, seed}; fails the test when op is not registered. */
static inline gv_case gv_test_case(const char *op, gv_dtype t, gv_mode mode, gv_dist dist,
                                   gv_shape shape, uint64_t seed)
{
    gv_case c = {gv_op_find(op), t, mode, dist, shape, seed};
    cr_assert_not_null(c.op, "%s is registered", op);
    return c;
}

/* A case's inputs and oracle (gv_problem_init, gv_reference), as a device run builds them. */
static inline void gv_test_problem(gv_problem *p, const gv_case *c)
{
    cr_assert_eq(gv_problem_init(p, c), GV_OK);
    cr_assert_eq(gv_reference(p), GV_OK);
}

/* Write output o's count values y[] into its device buffer in the case's dtype, as a device. */
static inline void gv_test_store(gv_problem *p, int o, const double *y)
{
    for (int64_t i = 0; i < p->out[o].count; i++)
        gv_dtype_store(p->c.dtype, p->out[o].data, i, y[i]);
}

/* The verdict a device run gets: gv_result_init with the default tiers, then gv_judge_problem. */
static inline gv_result gv_test_judge(const gv_problem *p)
{
    gv_result r;
    gv_result_init(&r, &p->c);
    gv_judge_problem(p, &r);
    return r;
}

/* The value of the result's extra named name; fails the test when it is missing. */
static inline double gv_test_extra(const gv_result *r, const char *name)
{
    for (int i = 0; i < r->n_extra; i++)
        if (strcmp(r->extra[i].name, name) == 0) return r->extra[i].value;
    cr_assert_fail("extra '%s' missing", name);
    return NAN;
}

#endif
