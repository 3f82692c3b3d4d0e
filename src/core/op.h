/* op.h: what an operation declares to the registry (the op descriptor), the problem one case
 * builds (host tensors, the oracle's reference and gauge), and the result it produces.
 * Adding an operation is kernels/X.cu + oracle/X.c + src/ops/X.c and its family name in
 * meson.build's `families`; everything else (list, check, bench, tests) reads this. */
#ifndef GV_OP_H
#define GV_OP_H

#include "../../kernels/gk.h"
#include "core/envelope_types.h"
#include "core/metrics.h"
#include "core/gv.h"

#define GV_MAX_TENSORS GK_MAX_TENSORS
#define GV_MAX_EXTRA   24
#define GV_MAX_CHECKS  4
#define GV_WHY_LEN     256

/* Device entry points exist only in CUDA builds: op files name them through GV_KERNEL so
 * that a CPU-only build links (the op then SKIPs with "built without CUDA"). */
#ifdef GV_HAVE_CUDA
#define GV_KERNEL(sym) (&(sym))
#else
#define GV_KERNEL(sym) ((const gk_op *)0)
#endif

typedef struct gv_tensor_spec {
    const char *name;
    int64_t count; /* elements of the case's dtype */
} gv_tensor_spec;

/* Tensor counts and sizes for one case. */
typedef struct gv_layout {
    int n_in, n_out;
    gv_tensor_spec in[GV_MAX_TENSORS];
    gv_tensor_spec out[GV_MAX_TENSORS];
    int64_t workspace_bytes; /* device scratch the op needs besides its tensors */
    /* Where each tensor's device copy lies (abi/layout.h); zero: dense and 256-byte aligned.
       The host copies, the oracle's, stay packed whatever these say. */
    gk_place in_place[GV_MAX_TENSORS];
    gk_place out_place[GV_MAX_TENSORS];
} gv_layout;

typedef struct gv_tensor {
    const char *name;
    int64_t count;
    double *ref;    /* inputs: the values, already rounded to dtype; outputs: the oracle's */
    void *data;     /* inputs: the same values in dtype; outputs: what the device wrote */
    double *gauge;  /* outputs only: the error model's gauge g >= |ref| (NULL: g = |ref|) */
    double *pgauge; /* outputs only: the probabilistic model's G (NULL: no such model) */
    /* outputs only, where the exact reference was wanted (gv_exact_wanted): the rounding's
       remainder, so that ref + ref_lo is the exact result to 2^-106 relative; meaningful
       when the problem's ref_exact is set */
    double *ref_lo;
} gv_tensor;

typedef struct gv_problem {
    gv_case c;
    gv_layout l;
    gv_tensor in[GV_MAX_TENSORS];
    gv_tensor out[GV_MAX_TENSORS];
    void *aux; /* op-owned extra host data, handed to the device as host_aux */
    void (*aux_free)(void *aux);
    /* the reference is exact (the op's exact_reference on inputs on a grid), correctly
       rounded in ref with its remainder in ref_lo; false: the f64 oracle's (reference.h) */
    bool ref_exact;
    /* a hash of the inputs' f64 values, made once by the oracle cache's key
       (gv_cached_reference) and read again by the judgement's (judge_memo.h) */
    uint64_t in_hash;
    bool in_hash_known;
} gv_problem;

struct gv_result;

typedef struct gv_op {
    const char *name;    /* "gemm.cublas" */
    const char *family;  /* "gemm": the file stem under kernels/, oracle/, src/ops/ */
    const char *summary; /* one line for `gpuval list` */
    const char *dims;    /* names of the shape's dims, "m,k,n" */
    /* The tensors' shapes in terms of dims, for arrays a user gives (check --inputs) and a
       dumped case's files: each tensor's dims by ',', tensors by ';' ("m,k;k,n" in, "m,n"
       out); an empty entry is a flat tensor, or one whose shape the tensor_shape hook gives (its
       dims are then not read off it). A complex tensor's entry leaves out the pair's last dim
       (complex_in, complex_out). A number in an entry is a side the op fixes, named by no dim
       (a convolution's window: "o,c,3,3"). Up to GV_NPY_MAX_DIMS a tensor (io/npy.h: conv.3d's
       are 5-D). in_dims NULL: the op takes no --inputs. */
    const char *in_dims, *out_dims;
    /* Optional, for ops without in_dims (or out_dims): the shape of input i (output when
       `output`) as an array, C order, into shape[8]; returns nd (1 to 8, io/npy.h's
       GV_NPY_MAX_DIMS),
       the product of the dims being the layout's count. For the arrays `gpuval inputs` writes
       and `judge` reads (complex values interleaved as a last dim of 2, a matrix n x n); it
       does not make the op take --inputs. NULL: the flat count. */
    int (*tensor_shape)(const gv_case *c, const gv_layout *l, bool output, int i, int64_t *shape);
    /* Bit i: input (complex_in) or output (complex_out) i holds complex values, (re, im) pairs
       of the case's dtype interleaved, its shape's last dim the pair's 2. Its arrays are
       NumPy's complex64 ('<c8', f32) and complex128 ('<c16', f64) without that dim: `gpuval
       inputs` writes them so and judge takes them so (the same bytes). */
    unsigned complex_in, complex_out;
    /* out[0] = in[0] . in[1], a product of two operands: the input-rounding floor of the
       probabilistic model applies (model_floor.h). */
    bool floor_from_operands;
    /* make_inputs is a user's (the C API's make_inputs hook), not gpuval's generator: every
       case of the op has given inputs (gv_result.inputs), whatever its caller says. */
    bool user_inputs;
    unsigned dtypes; /* bit (1u << gv_dtype) */
    unsigned modes;  /* bit (1u << gv_mode); modes valid only for some dtypes are
                        filtered by mode_valid */
    unsigned dists;  /* bit (1u << gv_dist): input distributions the op accepts */
    gv_dist default_dist;
    const char *shapes;      /* default catalogue, a size SPEC */
    const char *test_shapes; /* small and medium shapes for tests/gpu, a size SPEC */
    /* The large tier (check --large), a size SPEC: shapes whose flat index or cell count passes
       2^31, where an index kept in 32 bits wraps; NULL: the op has none. A planted variant
       with large_shapes is a bug of that tier (a 32-bit index is right below 2^31): it is
       selected only with --large, or with --size. */
    const char *large_shapes;
    const char *error_model;  /* the bound it follows, with its source, for `list -v` */
    const char *planted_bug;  /* non-NULL: a deliberately wrong variant the oracle must FAIL;
                                 kept out of the default catalogue */
    bool planted_fault;       /* the planted bug is not one run's FAIL: a fault (an illegal
                                 address, a hang: an ERROR) or a difference between repeats
                                 (check --repeat); tests/gpu/test_faults.c owns it */
    bool planted_in_probes;   /* the planted bug is a mode that is not in effect: only the mode
                                 probes (mode_probes) must FAIL, its other cases may pass; every
                                 mode it takes is selected without --mode, named or not */
    bool planted_for_probe;   /* the planted bug is an arithmetic feature under another mode's
                                 label that only `gpuval probe` measures (src/probe/): check
                                 may PASS or FAIL its cases, the probe must FAIL the feature */
    const char *planted_slow; /* non-NULL: a deliberately slower variant with the op's results
                                 (check must PASS it, compare of timings must call it
                                 REGRESSED); kept out of the default catalogue as well */
    /* NULL: the op is deterministic, bit-identical outputs on every launch with the same
       inputs on the same device (hand-written kernels with a fixed order; cuBLAS, cuFFT,
       cuSOLVER and cuSPARSE's CSR ALG2 promise it for one stream, without atomics), and
       check --repeat FAILs it on any difference. Else why it is not (atomics, say): its
       spread is reported, never judged. */
    const char *nondeterministic;

    /* The edge distributions (tiny, huge: gen.h's gv_dist_window) place the inputs so that the
       outputs reach the dtype's subnormals and its overflow threshold: 1 where an output is a
       sum or an element-wise function of input values, 2 where it sums products of two
       (gemm, einsum, dense). 0 reads as 1. */
    int range_degree;
    /* Optional: how many products or quotients an output is made of in any order the op's
       definition allows, each of which may round into the subnormals and err by eta there
       (docs/error-models.md, "The edges"); NULL: the depth (k for a product, 1 element-wise). */
    double (*underflow_terms)(const gv_case *c);
    /* IEEE 754 fixes the sign of every zero output whatever the order (one correctly rounded
       operation an output, as c = a + b: -0 + -0 = -0, x + (-x) = +0): a zero of the wrong
       sign FAILs. false where the sign depends on an order or an initial value the op's
       definition leaves open (a sum started from +0 or from its first term). */
    bool zero_sign;
    /* Its results pass through exp (sigmoid, softmax, exp itself): the math libraries return
       zero for some results below the normal range (1 / (1 + exp(-x)) once exp(-x) overflows,
       as torch.sigmoid does; CuPy's flush-to-zero builds), and no C or CUDA math library
       promises gradual underflow for them. Such zeros err by less than the smallest normal:
       the models allow that much (eta = 2 normal_min, as for a mode that does not promise
       IEEE subnormals) and the row notes them; they are no FAIL. false: an output that IEEE
       arithmetic rounds into the subnormals must come back so in native mode. */
    bool subnormals_unpromised;

    /* oracle, gauge and pgauge never read the mode: the oracle cache keeps one reference for
       every mode (src/core/cache.c) */
    bool reference_ignores_mode;
    /* the oracle never reads the mode but a gauge does (sin_iter's fast-math gauge): the cache
       keeps one entry for every mode, as above, and recomputes the gauges after reading it, so
       they must be cheap beside the oracle (src/core/reference.c) */
    bool oracle_ignores_mode;

    /* Optional: reject a shape (beyond the dims count) with a reason; GV_OK or GV_EINVAL. */
    int (*check_shape)(const gv_shape *s, char *why, size_t len);
    /* Optional: false for (dtype, mode) pairs that do not exist (tf32 with f64). */
    bool (*mode_valid)(gv_dtype t, gv_mode m);
    int (*layout)(const gv_case *c, gv_layout *l);
    double (*flops)(const gv_case *c);
    double (*bytes)(const gv_case *c); /* fewest bytes through device memory */
    /* Fill in[].ref/.data (gv_fill or gv_store_rounded) and aux. */
    int (*make_inputs)(gv_problem *p);
    /* NULL, or whether make_inputs can lay dist out at shape s (a probe's construction needs
       room: gemm's width probe k >= 3, n >= 2); false with why. The selection drops such a
       shape from the op's own lists for that dist and refuses one the user named, so a probe
       asked for at sizes it cannot take is never an ERROR of the run. */
    bool (*dist_shape_ok)(gv_dist d, const gv_shape *s, char *why, size_t len);
    /* NULL, or the oracle-cache key (gv_cache_memo) under which make_inputs keeps a costly
       input that other cases build identically (solve's conditioned matrix: one for every
       dtype, mode and solve op of its n, condition, kind, dist and seed): writes it into
       key[len] and returns true, or false where the case builds none. The runner hands out a
       case whose key an earlier case of the run has later, by its bytes only
       (gv_runner_order): beside the case building the entry it would wait on the entry's
       lock with its cores idle. An order only: nothing built or judged reads it. */
    bool (*shared_input_key)(const gv_case *c, char *key, size_t len);
    /* f64 reference into out[].ref (and the gauge into out[].gauge when no `gauge` hook). */
    int (*oracle)(gv_problem *p);
    /* Optional: the exact reference (oracle/exact.c) into out[].ref (correctly rounded) and
       out[].ref_lo (the remainder), where the inputs sit on a grid that allows it: GV_OK with
       *done true, or *done false and nothing written (the oracle then judges). Used where
       gv_exact_wanted says (f64 cases up to GV_EXACT_MAX_FLOPS): the f64 oracle's own error
       (about 2^-50.7 at K = 4096 for dgemm) would otherwise be what an f64 result is
       measured against. */
    int (*exact_reference)(gv_problem *p, bool *done);
    /* Optional: the gauge into out[].gauge, after the oracle. Kept apart so timed runs time
       the CPU's computation (`oracle`) alone, not the error model's bookkeeping. */
    int (*gauge)(gv_problem *p);
    double (*depth)(const gv_case *c);
    /* Optional: the depth of the operation evaluated in any order its definition allows (a
       sum of n terms: n; the column sums of m rows: m), in depth's units and modes, where
       `depth` is the order of gpuval's own kernel (a tree, chunks). A user's op judged as
       this one (judge_as) gets it unless it declares its own. NULL: depth holds for any order
       already (a product's k, an element-wise op's 1). */
    double (*order_free_depth)(const gv_case *c);
    /* Optional: u for the error model; default gv_unit_roundoff(dtype, mode). */
    double (*unit_roundoff)(const gv_case *c);
    double ratio_bound; /* 0: GV_DEFAULT_RATIO_BOUND */
    /* Optional: expected tier (0 = none), overriding the default (f64 native 1e-8, f32 native
       1e-4, reduced modes none); writes why into why[len] (formatted from the numbers it
       decided with), or leaves it "" where the default reasoning holds. */
    double (*expected_tier)(const gv_case *c, char *why, size_t len);
    /* Optional: the probabilistic model's G_i = |r_i| + sqrt(sum_k (a_k b_k)^2) (or the op's
       analogue) into out[].pgauge, for the dot-product ops (docs/error-models.md). Used in the
       modes whose inputs reach the arithmetic at the dtype's precision or at TF32's. */
    int (*pgauge)(gv_problem *p);
    /* Optional: the summation depth of the f64 oracle itself (default: the op's native
       depth). In f64 cases the oracle's own rounding is as large as the device's, and the
       probabilistic model allows for both (docs/error-models.md). */
    double (*oracle_depth)(const gv_case *c);
    /* The input distributions (bit per gv_dist) on which a correct kernel's normalised errors
       are independent across outputs and symmetric about zero whenever each operation rounds
       to nearest: there, in a mode that promises it (the mode table's promises_rn), the bias
       rule judges (docs/error-models.md, "Bias"); elsewhere, and everywhere for 0, the bias is
       reported only. One rounding per output (vadd): every distribution. Long sums: zero-mean
       inputs only, since round-to-nearest itself drifts toward zero on sums of same-signed
       terms. 0 for errors that correlate (a shared intermediate, neighbours of a stencil) or
       functions that are not correctly rounded. */
    unsigned bias_dists;
    /* Optional: true when the case's result is exactly representable in the storage dtype
       whatever the evaluation order (exact probes: tie, perm2): any difference is a FAIL. */
    bool (*exact)(const gv_case *c);
    /* Which sums the outputs are, for the envelope of the claimed arithmetic on given inputs
       (core/envelope.h): GV_ENV_PRODUCT, GV_ENV_COLSUM, or GV_ENV_NONE (0): no envelope,
       the worst-case model judges given inputs alone. */
    gv_env_kind envelope;
    /* The summation order of the op's own kernel, where it is fixed and the envelope models
       it (GV_ORDER_TREE: reduce.sum's tree): gpuval's own outputs are then judged against that
       order's results bit for bit and their round-toward-zero twin, generated inputs
       included, which one output's worst-case bound cannot do (docs/error-models.md, "One
       sum, and a declared order"). GV_ORDER_ANY (0): none. */
    gv_env_order_kind env_order;
    /* Optional: op-specific measurements after the element-wise compare (a solver's
       backward error, an iteration count): residuals as checks with their bounds
       (gv_result_check), named numbers (gv_result_extra), the metrics of the outputs that
       have a reference. Never a verdict: gv_decide decides, with one precedence. */
    void (*measure)(const gv_problem *p, struct gv_result *r);
    /* Extra native-mode cases of the catalogue, "DIST:SHAPE,DIST:SHAPE" (e.g. zero-mean and
       exact-probe inputs at a catalogue size): canaries that catch a native path silently
       running in reduced precision. test_canaries: the same at test sizes. */
    const char *canaries;
    const char *test_canaries;
    /* Mode probes, "DIST:SHAPE,...": extra cases of the catalogue in every selected mode the
       distribution probes (gv_probe_applies: tie, narrow, width), so that a mode that is not in
       effect FAILs in check (docs/error-models.md). test_mode_probes: the same at test sizes. */
    const char *mode_probes;
    const char *test_mode_probes;
    /* Repeat canaries, "DIST:SHAPE:LAUNCHES,...": extra native cases of the catalogue (at
       catalogue and test sizes alike, under the canaries' condition) that are launched LAUNCHES
       times on the same inputs and judged on bit identity, as check --repeat does, whatever
       --repeat says (the larger count wins). For ops whose blocks communicate inside a launch
       (counters, last-block sums, atomics): a configuration that makes the blocks race, so
       that a missing fence or an order that depends on arrival shows (core/repeat.h,
       gv_case_repeats; docs/error-models.md, "Repeat canaries"). */
    const char *repeat_canaries;

    /* What the bytes hook counts, when it is not the plain one of every tensor read and written
       once (bench prints it under its table, beside the %copy it feeds); NULL: that plain
       count, the least any kernel of the op must move (bench says so: render/bench_text.h). */
    const char *bytes_model;

    /* Optional: host bytes the oracle and the gauges take besides the problem's own buffers, at
       their peak (a stencil's intermediate grids), so that a case is judged against the host's
       memory before it starts (problem.h, gv_case_host_bytes); NULL: none worth counting. */
    double (*oracle_scratch_bytes)(const gv_case *c);
    /* The operand layouts the op's interface takes (GK_TAKES_*, abi/layout.h), for `list -v`;
       0: contiguous, 16-byte aligned operands only. Its layout hook places the tensors
       (gv_layout.in_place, out_place) only within these; the variants that do are catalogue ops of
       their own (gemm.cublas.strided, vadd.offset: docs/testing.md, "Operands as users pass
       them"). */
    unsigned takes_layouts;

    /* Optional, for ops whose operands a mode converts (the mode table's probe_in format: tf32,
       bf16, f16, e4m3): the reference as the conversion leaves the operands, where it differs
       in kind from the oracle's (docs/error-models.md, "Range of the converted operands"). ref
       holds a copy of out[0].ref; the hook rewrites the elements whose operands the conversion
       made infinite (an f32 above tf32's or bf16's largest, above f16's 65504), NaN, finite (an
       infinity that e4m3 saturates to 448) or zero beside an infinity (0x1p-140 under tf32:
       inf 0 is NaN), and the outputs that may overflow the output format, recomputed from the
       converted operands in IEEE arithmetic; *patched counts them. Elsewhere the oracle's
       reference stands and the models allow for the rounding. Called by the judge only in such
       a mode; a mode-free cache entry stays valid (the oracle itself never reads the mode). */
    int (*mode_reference)(const gv_problem *p, double *ref, int64_t *patched);
    /* Optional: where an input makes the op's value a limit that textbook formulas reach in
       different IEEE ways (log-softmax of a row holding +Inf: the stable form's NaN, or the
       limit -Inf that SciPy's form returns at the entries below +Inf), rewrite ref (a copy of
       out[0].ref, NaN there) to the output's value where that output is the limit;
       *patched counts them. Any mode; the judge calls it after mode_reference. */
    int (*limit_reference)(const gv_problem *p, double *ref, int64_t *patched);

    const gk_op *device;
} gv_op;

/* Why a case FAILed, from one fixed vocabulary (docs/error-models.md, "Causes"): the judge
 * (gv_decide) names one with every FAIL, the run document writes it as "cause", and the
 * Python package reads the same names (python/src/gpuval/_core.py, CAUSES; test_judge checks
 * the two lists agree). X(ENUM, name, meaning) */
#define GV_CAUSES(X)                                                                               \
    X(GV_CAUSE_NONE, "none", "no FAIL (PASS, SKIP or ERROR)")                                      \
    X(GV_CAUSE_GUARD, "guard band", "a red zone or an input was written")                          \
    X(GV_CAUSE_UNWRITTEN, "unwritten", "outputs left as the poison")                               \
    X(GV_CAUSE_INTERMEDIATE_OVERFLOW, "intermediate overflow",                                     \
      "NaN or Inf where the result is finite: an intermediate overflowed or was invalid")          \
    X(GV_CAUSE_LOST_NONFINITE, "lost NaN/Inf", "a finite value where the result is NaN or Inf")    \
    X(GV_CAUSE_NONFINITE_PLACEMENT, "NaN/Inf placement",                                           \
      "NaN for Inf, or an Inf of the wrong sign")                                                  \
    X(GV_CAUSE_ZERO_SIGN, "zero sign", "a zero of the sign IEEE does not give")                    \
    X(GV_CAUSE_LOST_RANGE, "lost range",                                                           \
      "subnormal results returned as zero beside others kept: an intermediate overflowed")         \
    X(GV_CAUSE_FLUSHED, "flushed subnormals", "subnormal results returned as zero (FTZ)")          \
    X(GV_CAUSE_RESIDUAL, "op residual", "an op's own measurement over its bound")                  \
    X(GV_CAUSE_ORDER, "order", "outside every legal order of the claimed arithmetic (envelope)")   \
    X(GV_CAUSE_PRECISION, "precision",                                                             \
      "errors past the claimed arithmetic's model: input rounding or accumulation narrower "       \
      "than claimed")                                                                              \
    X(GV_CAUSE_BIAS, "bias", "errors lean one way: not round-to-nearest")                          \
    X(GV_CAUSE_INEXACT, "inexact", "an exact probe's result is not exact")                         \
    X(GV_CAUSE_TIER, "tier", "the expected tier missed")

typedef enum gv_cause {
#define GV_CAUSE_ENUM_(e, name, what) e,
    GV_CAUSES(GV_CAUSE_ENUM_)
#undef GV_CAUSE_ENUM_
        GV_NCAUSES
} gv_cause;

/* The cause's name ("flushed subnormals"), "?" out of range (judge.c). */
const char *gv_cause_name(gv_cause c);

typedef struct gv_result {
    gv_case c;
    /* where the case's inputs came from (gv.h); set with gv_result_set_inputs (inputs.h),
       which decides what the models may claim */
    gv_inputs inputs;
    gv_verdict verdict;
    char reason[256]; /* FAIL: why; SKIP: why; ERROR: the error's name */
    gv_cause cause;   /* FAIL: which of the fixed causes (GV_CAUSES); else GV_CAUSE_NONE */
    gv_tiers tiers;
    gv_metrics m;
    double expected_tier;               /* 0: none */
    char expected_tier_why[GV_WHY_LEN]; /* the op's reason, formatted from the numbers; "" */
    double u, depth, ratio_bound;
    char math_mode[48];
    double flops, bytes;
    double oracle_ms, device_ms; /* wall times of the correctness run (not a benchmark) */
    double inputs_ms, judge_ms;  /* the host's other two steps: making inputs, judging */
    /* how many times these outputs were judged: 1, or 2 where gv_judge_run judged a FAIL
       again with flush-to-zero declared to name its cause (api/judge.h); 0: not by it */
    int judgements;
    /* the digest of the output bytes the device wrote, all outputs in order (core/hash.h's
       gv_output_hash), set by gv_judge_problem; have_hash: the outputs came back and were judged (a
       PASS, a FAIL or a guard violation) */
    uint64_t output_hash;
    bool have_hash;
    int64_t bytes_needed, bytes_free; /* device memory, for SKIPs */
    /* op-specific named numbers (a solver's scaled residual and info, an L-curve point),
       set by the op's measure hook and written under "extra" in the JSON */
    int n_extra;
    struct {
        const char *name;
        double value;
    } extra[GV_MAX_EXTRA];
    /* the probabilistic model in force (on: the op has one and the mode is native or tf32) */
    struct {
        bool on;
        double u, depth, u_in; /* the device's arithmetic as the mode claims it */
        double oracle_depth;   /* the f64 oracle's own summation depth */
        double w;              /* gv_prob_unit(u, depth, u_in) + 2^-53 sqrt(oracle_depth) */
        double floor_rms;      /* the RMS R input rounding alone gives (model_floor.h); 0 */
        /* R measured and reported, never judged: the case's inputs are not gpuval's and
           nobody declared them fit for the model (gv_result_set_inputs, inputs.h) */
        bool reported_only;
    } prob;
    /* Why no tier is expected when the model's own allowance exceeds it (set by gv_judge_problem;
       expected_tier_why, when set, is the op's own reason). */
    char tier_note[160];
    bool exact;     /* the op declared this case an exact probe */
    bool ref_exact; /* judged against the exact reference (reference.h), not the f64 oracle */
    /* the bias rule (metrics.h, GV_BIAS_Z_BOUND): judged for this case, or why it is reported
       only ("" when judged) */
    struct {
        bool judged;
        char why_not[96];
    } bias;
    /* the envelope of the claimed arithmetic on given inputs (envelope.h): judged, or why not */
    gv_envelope env;
    /* gk_run found a red zone or an input written: the first verdict rule */
    char guard[192];
    /* measurements with bounds from the op's measure hook: FAIL when !(value <= bound), for
       the check's cause (GV_CAUSE_NONE: an op residual) */
    int n_checks;
    struct {
        const char *name;
        double value, bound;
        char why[160];
        gv_cause cause;
    } checks[GV_MAX_CHECKS];
    char unjudgeable[160]; /* measure hook: nothing to judge (SKIP with this reason) */
    char internal[160];    /* measure hook: a broken contract of the harness (ERROR) */
    bool output_lost;      /* a file this case was to write (--dump-failures) was not */
    /* the outputs claim IEEE arithmetic with flush-to-zero (subnormal inputs read as 0,
       subnormal results returned as 0, as CuPy's kernels and --use_fast_math builds run):
       judged with an error of up to the smallest normal allowed at each underflow, and
       flushes noted, not failed (given outputs: mode "M+ftz", judge --allow ftz) */
    bool ftz_allowed;
    /* the outputs claim IEEE arithmetic on inputs whose subnormals were read as zero
       (denormals-are-zero, as SSE's DAZ and some libraries' input conversion run): the oracle
       computes on the inputs with those values zeroed, every other rule as before (given
       outputs: mode "M+daz", judge --allow daz); daz_inputs counts the values zeroed */
    bool daz_allowed;
    int64_t daz_inputs;
    /* the oracle cache's part in this case (counted in the process that ran it) */
    struct {
        int hits, misses, stored, rejected;
        int cheap; /* a miss not stored: its oracle was cheaper than a read (gv_cache_worth) */
    } cache;
    /* the judgement's part (judge_memo.h): GV_JUDGE_MEMO_OFF, or the memo was read (HIT),
       written (STORED) or neither (MISS) */
    int judge_memo;
    /* the judgement came from the memo before the reference was read: it was not (its entry
       is in the cache; oracle_cache "unread") */
    bool oracle_unread;
} gv_result;

#endif
