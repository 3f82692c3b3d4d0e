/* gv.h: the vocabulary every part of the harness shares — error codes, storage dtypes,
 * precision modes, input distributions, shapes and the case (op x dtype x mode x shape x
 * seed). Host C only: nothing here may name a CUDA type. */
#ifndef GV_H
#define GV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../abi/gv_abi.h"

/* Error codes (gv_err, gv_strerror), dtypes (gv_dtype, the dtype table) and modes (gv_mode)
 * are the bottom vocabulary in abi/gv_abi.h; what follows is the harness's own. */

const char *gv_dtype_name(gv_dtype t);
int gv_dtype_parse(const char *s, gv_dtype *out); /* GV_OK or GV_EINVAL */

const char *gv_mode_name(gv_mode m);
int gv_mode_parse(const char *s, gv_mode *out);
/* Unit roundoff u of the arithmetic a (dtype, mode) pair does: 2^-53, 2^-24, TF32 2^-11. */
double gv_unit_roundoff(gv_dtype t, gv_mode m);
/* Significand bits (incl. implicit) of that arithmetic, for ULP counts: 53, 24, TF32 11. */
int gv_mode_precision_bits(gv_dtype t, gv_mode m);

/* Input distributions (gen.c). */
typedef enum gv_dist {
    GV_DIST_UNIFORM01 = 0, /* uniform [0,1): the seeds' default */
    GV_DIST_UNIFORM11 = 1, /* uniform [-1,1): cancellation */
    GV_DIST_SMALLINT = 2,  /* integers in [-8,8]: exact sums and products */
    GV_DIST_SPECIAL = 3,   /* uniform [-1,1) with NaN, +-Inf, -0 and subnormals mixed in */
    GV_DIST_OFFGRID = 4,   /* k + 0.5, k in [1024,2048): 12 significant bits, exact in f32,
                              not representable in TF32 (11 bits) */
    GV_DIST_TIE = 5,       /* exact probe: tensor 0 (2048 + 4j + 1)/2048, j in [0,512): 12
                              bits, a tie halfway between TF32 neighbours; other tensors +-1.
                              Products are exact, and so is any sum of up to 4096 of them
                              in f32 (|partial sums| < 2^13 on a 2^-11 grid) */
    GV_DIST_PERM2 = 6,     /* exact probe: tensor 0 in [1,2) with p-1 significant bits (52
                              in f64, 23 in f32); the op makes tensor 1 a signed matrix with
                              two +-1 per column (gv_fill_perm2): every output is a +- b,
                              exact in the dtype, out of reach of any narrower arithmetic */
    GV_DIST_WIDE = 7,      /* wide dynamic range: +-exp(2 N(0,1)), ~6 decades either way; in
                              gemm's scaled fp8 modes, and in every mode of dense, the op lays
                              it out by row, column and K-block instead, the ranges a scale
                              covers (the scaled modes' mode probe) */
    GV_DIST_NARROW = 8,    /* mode probe: integers in [0, 14], element 0 of every tensor 14,
                              so that fp8's scaling to 448/amax is 32, a power of two: every
                              value is exact in e4m3, f16 and bf16, every product exact, and
                              every sum of up to 85000 products exact in f32 (gv_mode_probes) */
    GV_DIST_WIDTH = 9,     /* mode probe, built by the op: the emulated width (gemm: row i of A
                              is [1, 2^-j_i, 2^-70, 0, ...], so that C_iq = 1 + 2^-j_i and
                              C_i,n-1 = 2^-70: width_inputs); the generator's values are 0 */
    GV_DIST_TINY = 10,     /* the edge of underflow: +-m 2^e, m in [1, 2), e uniform over a
                              window of binades (gv_dist_window) that puts the outputs into
                              and through the dtype's subnormals */
    GV_DIST_HUGE = 11,     /* the edge of overflow: the same over a window just below the
                              dtype's largest number (element-wise ops: past it, so that some
                              results overflow to +-Inf; sums and products: every partial sum in
                              any order below half of it) */
    GV_DIST_SPARSE_SPECIAL = 12, /* uniform [-1,1) with a few NaN, +-Inf and -0 at positions
                              shared by every tensor (so element-wise ops meet two specials), at
                              a rate that leaves most outputs finite (gv_dist_window) */
    GV_NDISTS
} gv_dist;

const char *gv_dist_name(gv_dist d);

/* Mode probes (docs/error-models.md, "A mode must be in effect"): inputs on which the
 * arithmetic a mode claims and its neighbours' give different outputs, so that a mode that is
 * not in effect shows. Whether probe distribution `probe` says something of (dtype, mode):
 *   tie    f32 modes that round their inputs to fewer bits (tf32, f16, bf16, f16acc): their
 *          outputs lie on a coarser grid than the f32 product's (K odd);
 *   narrow f32 modes with narrow inputs that claim f32 accumulation (fp8, f16, bf16):
 *          inputs and products exact, so the outputs show the accumulator (not f16acc,
 *          which claims its f16 one: these sums pass f16's 65504);
 *   width  f64's fixed-width fixed-point emulations: the bits kept below each row's largest
 *          element, and whether a term 2^70 below it survives (native does). */
bool gv_probe_applies(gv_dist probe, gv_dtype t, gv_mode m);
int gv_dist_parse(const char *s, gv_dist *out);

#define GV_MAX_DIMS 4
typedef struct gv_shape {
    int nd;
    int64_t d[GV_MAX_DIMS];
} gv_shape;

/* A printable copy of s for quoting an argument back to the user: control characters and DEL
 * become \xNN, a backslash becomes \\; cut with "..." when buf (len >= 4) is too small.
 * Returns buf. */
char *gv_printable(const char *s, char *buf, size_t len);

/* The largest dim a size may have (about 4.6e18, below 2^62). */
#define GV_MAX_DIM      4.6e18
#define GV_MAX_DIM_TEXT "4.6e18"

/* Format "1000" or "64x48x32" into buf; returns buf. */
char *gv_shape_format(const gv_shape *s, char *buf, size_t len);

/* Parse a size SPEC: shapes separated by ',', dims by 'x'; each dim a positive integer
 * written as 1000, 1e5, 1.15e7 or 2^28. Returns the number of shapes (<= max) or GV_EINVAL
 * with a message in err. */
int gv_size_spec_parse(const char *spec, gv_shape *shapes, int max, char *err, size_t errlen);

struct gv_op;

/* Where a case's inputs come from, said by whoever hands them in (gv_given_inputs, problem.h;
 * never guessed from the data) and kept in its result. It decides which models may judge
 * (docs/error-models.md, "Data gpuval did not make"): the probabilistic model and the exact
 * probes hold only for inputs whose statistics are known. */
typedef enum gv_inputs {
    GV_INPUTS_GENERATED = 0, /* gpuval's counter-based generator: (dist, seed) made them */
    GV_INPUTS_GIVEN = 1,     /* from outside (check --inputs, replay of such a dump, a user's
                                make_inputs hook): the worst-case model and the tiers judge */
    GV_INPUTS_DECLARED = 2,  /* given, and the user declares them independent draws
                                (check --inputs --prob-model): the probabilistic model judges */
    GV_NINPUTS
} gv_inputs;

const char *gv_inputs_name(gv_inputs in); /* "generated", "given", "declared" */

/* One case: everything that determines inputs and expected results. */
typedef struct gv_case {
    const struct gv_op *op;
    gv_dtype dtype;
    gv_mode mode;
    gv_dist dist;
    gv_shape shape;
    uint64_t seed;
} gv_case;

/* The verdict of one case. */
typedef enum gv_verdict { GV_PASS = 0, GV_FAIL, GV_SKIP, GV_ERROR } gv_verdict;
const char *gv_verdict_name(gv_verdict v);

/* What a library wing's run, merge or setup step ended in, in the library's words: the wings
 * below cmd return these (and say why in a gv_err), never exit codes; src/cmd/ alone turns them
 * into the process's exit status (gv_cmd_exit, cmd/exit.h), through the exit table's status
 * column below. X(ENUM, name). */
#define GV_STATUSES(X)                                                                             \
    X(GV_ST_OK, "ok")                                                                              \
    X(GV_ST_FAIL, "fail")                                                                          \
    X(GV_ST_BAD_INPUT, "bad input")                                                                \
    X(GV_ST_RUNTIME, "runtime error")                                                              \
    X(GV_ST_REGRESSED, "regressed")                                                                \
    X(GV_ST_INCONCLUSIVE, "inconclusive")                                                          \
    X(GV_ST_OUTLIER, "outlier")                                                                    \
    X(GV_ST_NODEV, "no device")
typedef enum gv_status {
#define GV_ST_ENUM_(e, name) e,
    GV_STATUSES(GV_ST_ENUM_)
#undef GV_ST_ENUM_
        GV_NSTATUSES
} gv_status;
const char *gv_status_name(gv_status s);

/* An error a library step reports to its caller: the status it ends in and the message the
 * command line prints ("" when the step printed its own, or has nothing to say). */
typedef struct gv_error {
    gv_status status;
    char msg[8192]; /* room for two paths of PATH_MAX and their words */
} gv_error;

/* Fill e (may be NULL) with status s and the formatted message; returns s. */
gv_status gv_err_set(gv_error *e, gv_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same, the message added to e's as a line of its own (each line is printed as one
 * message); returns s. */
gv_status gv_err_add(gv_error *e, gv_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The status of a run, one rule for check, bench and the merges: FAIL when a case failed; else
 * RUNTIME when a case was an ERROR or an output file was lost; else NODEV when nothing was
 * judged and there is no device; else OK (SKIPs allowed). */
gv_status gv_run_status(int failed, int errors, int judged, bool have_device, bool output_lost);

/* Exit codes of every command (DESIGN.md, "Exit codes"): this table is their one home; the
 * commands return them, their help texts print them (gv_exit_help) and the docs list them.
 * X(name, code, the library status it stands for, what). Only src/cmd/ reads the codes
 * (tests/cpu/test_layers.c): the wings below return a gv_status. */
#define GV_EXIT_CODES(X)                                                                           \
    X(OK, 0, GV_ST_OK, "all passed (skips allowed)")                                               \
    X(FAIL, 1, GV_ST_FAIL, "a case failed")                                                        \
    X(USAGE, 2, GV_ST_BAD_INPUT, "bad usage or bad input (a message says which; nothing written)") \
    X(RUNTIME, 3, GV_ST_RUNTIME, "a runtime error (CUDA, a library, out of memory, an output lost)") \
    X(REGRESSED, 4, GV_ST_REGRESSED, "compare: a case regressed against the baseline")             \
    X(INCONCLUSIVE, 5, GV_ST_INCONCLUSIVE, "compare: inconclusive (too noisy, or the runs do not match)") \
    X(OUTLIER, 6, GV_ST_OUTLIER, "several devices: a device's output differs from the others'")    \
    X(NODEV, 77, GV_ST_NODEV, "nothing could run for want of a CUDA device (meson's skip code)")
enum {
#define GV_EXIT_ENUM_(name, code, status, what) GV_EXIT_##name = code,
    GV_EXIT_CODES(GV_EXIT_ENUM_)
#undef GV_EXIT_ENUM_
};
/* The table's text for code ("?" for one outside it). */
const char *gv_exit_meaning(int code);
/* "exit: 0 ..., 1 ..." for a command's help: the codes it can return (n of them), each with the
 * table's text unless whats[i] (may be NULL, or hold NULLs) says it in the command's words. */
void gv_exit_help(FILE *f, const int *codes, const char *const *whats, int n);

/* Print "gpuval: " + message to stderr, control characters escaped (gv_printable). The command
 * wing's printer of usage errors (tests/cpu/test_layers.c: called in src/cmd/ only). */
void gv_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
