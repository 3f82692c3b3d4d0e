/* gpuval.h: the public C API of libgpuval (implemented in src/core/api.c, src/cmd/gv_main.c and,
 * for gv_judge, gv_make_inputs and gv_op_info, src/api/).
 *
 * Judge your own GPU kernel with gpuval's f64 oracles, tiers and error models from your own
 * build. You describe an operation (gv_op_desc): its name, the names of its shape's dims,
 * dtypes, modes, default sizes, how many elements each tensor has for a shape, flop and byte
 * counts and, optionally, how to make its inputs. Then either
 *   - judge it as one of gpuval's built-in operations (judge_as = "gemm": the built-in's
 *     layout, inputs, f64 oracle, gauge and probabilistic model are used; your kernel must
 *     then take and produce the built-in's tensors, e.g. row-major A (m x k), B (k x n) ->
 *     C (m x n) for gemm; its depth is the one you declare, else the operation's in any
 *     order, e.g. n for a sum of n, not the depth of the built-in's own kernel), or
 *   - give your own f64 reference, with a gauge g >= |r| and a depth d for the error model
 *     |c - r| <= ratio_bound * u * d * g (docs/error-models.md).
 * Your device launch hook receives device pointers and dims (gv_launch_args) and enqueues
 * your kernel on the given stream. gpuval allocates every tensor with red zones, poisons the
 * outputs (all-ones bytes: NaN), uploads the inputs, runs your hook, and then checks that no
 * red zone and no input changed, exactly as for its own kernels.
 *
 * Group descriptors in a gv_family and run them from your own program with gv_main() (it
 * takes gpuval's command line: every command of docs/cli.md), or build them as a
 * shared library exporting GPUVAL_PLUGIN_ENTRY and load it with
 * `gpuval check --plugin path/libmyops.so`.
 *
 * Host C only: no CUDA type appears here. All strings and descriptors you pass must stay
 * valid for as long as the process runs gpuval (static storage is the simple way).
 *
 * Versioning: GPUVAL_API_VERSION_MAJOR changes when a struct below changes its layout or a
 * function its meaning; MINOR when something is added. A family records the version it was
 * built with (GV_FAMILY_INIT); the library refuses one of another major version, or of a
 * newer minor version than its own. */
#ifndef GPUVAL_H
#define GPUVAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUVAL_API_VERSION_MAJOR 1
/* 1.1: judge_as takes a depth; without one, the operation's order-free depth (not the depth
   of the built-in's own kernel) */
/* 1.2: gv_judge (judge outputs computed anywhere), gv_make_inputs, gv_op_info */
/* 1.3: gv_judge's arrays take the low-precision dtypes GV_DTYPE_BF16, GV_DTYPE_F16,
   GV_DTYPE_E4M3 and GV_DTYPE_E5M2 (added after 1.2's release: a 1.2 library may refuse
   them); no new function */
/* 1.4: gv_make_inputs_nd and gv_case_inputs_nd: the tensors' shapes with up to
   GV_API_MAX_TENSOR_DIMS (8) dims (conv.3d's are 5-D), where gv_case_inputs holds 4 */
#define GPUVAL_API_VERSION_MINOR 4
/* major * 1000 + minor */
#define GPUVAL_API_VERSION (GPUVAL_API_VERSION_MAJOR * 1000 + GPUVAL_API_VERSION_MINOR)

/* The version of the library in use (GPUVAL_API_VERSION of the gpuval.h it was built with). */
int gv_api_version(void);

/* Storage dtypes, as gv_launch_args.dtype and gv_case_info.dtype give them. */
#define GV_DTYPE_F32 0
#define GV_DTYPE_F64 1
/* Low-precision storage, for gv_array alone (gv_judge): bfloat16 and IEEE binary16 (2
   bytes, little-endian bit patterns), OCP FP8 E4M3 (no infinity, largest 448) and E5M2 (1 byte
   each). The arithmetic is f32, or f64 where the spec's other arrays are f64: bf16 arrays
   alone are bf16 storage with f32 compute, as PyTorch computes bf16 tensors. An output of
   these is judged by the compute dtype's model plus its own rounding to nearest
   (docs/error-models.md, "Low-precision outputs"). */
#define GV_DTYPE_BF16 2
#define GV_DTYPE_F16  3
#define GV_DTYPE_E4M3 4
#define GV_DTYPE_E5M2 5

/* Most tensors an op may have on each side, most dims of a case's shape (the op's dims: "m,k,n"),
   and (1.4) most dims of one tensor's shape (gv_case_inputs_nd). */
#define GV_API_MAX_TENSORS     6
#define GV_API_MAX_DIMS        4
#define GV_API_MAX_TENSOR_DIMS 8

/* Return codes of this API: 0 success, negative failures; -1 and -2 are gpuval's own
 * EINVAL and ENOMEM, codes below -100 this API's own. gv_api_strerror names them. A hook
 * returns GV_API_OK, or anything else to say it failed (the case is then an ERROR). */
#define GV_API_OK     0
#define GV_API_EINVAL (-1)
#define GV_API_ENOMEM (-2)
#define GV_API_EABI   (-101) /* a family built against another major (or a newer) version */
#define GV_API_EEXIST (-102) /* an op of that name is already registered */
const char *gv_api_strerror(int rc);

/* One case as the descriptor's hooks see it. */
typedef struct gv_case_info {
    int dtype;        /* GV_DTYPE_F32 or GV_DTYPE_F64 */
    const char *mode; /* "native", "tf32", ... (gpuval list --modes) */
    const char *dist; /* input distribution: "uniform01", "uniform11", ... */
    int nd;           /* dims of the shape, as many as the descriptor's `dims` names */
    int64_t dims[GV_API_MAX_DIMS];
    uint64_t seed;
} gv_case_info;

/* What the device launch hook receives: device pointers of the case's dtype, dense, in the
 * order and with the element counts the layout hook gave (or the built-in's, with
 * judge_as). The hook only enqueues work on `stream` (a cudaStream_t) and returns 0, or a
 * cudaError_t value (its CUDA name is reported); gpuval synchronises, checks for a pending
 * launch error and for faults, downloads and checks the red zones. Timed runs call it
 * repeatedly on the same inputs: it must give the same result every time. */
typedef struct gv_launch_args {
    int dtype;
    const char *mode;
    int nd;
    int64_t dims[GV_API_MAX_DIMS];
    int n_in, n_out;
    const void *in[GV_API_MAX_TENSORS];
    void *out[GV_API_MAX_TENSORS];
    int64_t in_count[GV_API_MAX_TENSORS];
    int64_t out_count[GV_API_MAX_TENSORS];
    void *stream;    /* cudaStream_t */
    void *workspace; /* device scratch of workspace_bytes (red-zoned too), or NULL */
    int64_t workspace_bytes;
    void *user; /* the descriptor's user pointer */
} gv_launch_args;

/* Tensor element counts of one case (the layout hook fills it). */
typedef struct gv_layout_info {
    int64_t in_count[GV_API_MAX_TENSORS];
    int64_t out_count[GV_API_MAX_TENSORS];
    int64_t workspace_bytes; /* device scratch besides the tensors; 0: none */
} gv_layout_info;

/* One operation. Zero-initialise it (designated initialisers) and set what applies. */
typedef struct gv_op_desc {
    const char *name;    /* required: "mylib.softmax"; unique among all registered ops */
    const char *summary; /* one line for `list` */
    /* required without judge_as: names of the shape's dims, "rows,cols" (1 to 4 names);
       with judge_as the built-in's dims are used and this must be NULL or equal to them */
    const char *dims;
    const char *dtypes;      /* "f32", "f64" or "f32,f64"; NULL: "f32" */
    const char *modes;       /* NULL: "native"; names as `gpuval list --modes` prints them */
    const char *shapes;      /* required: default sizes, a size SPEC ("128x1000,1000x4096") */
    const char *test_shapes; /* small sizes for test runs (--test-sizes); NULL: shapes */
    /* Input distributions the op accepts, the first its default; NULL: "uniform01,uniform11,
       smallint,offgrid,wide" (judge_as: the built-in's). */
    const char *dists;
    const char *error_model; /* the bound the op follows, for `list -v` */
    /* Non-NULL: this variant is wrong on purpose (what it gets wrong) and kept out of the
       default catalogue; the checker must FAIL it. */
    const char *planted_bug;

    /* Either judge as a built-in: an op name ("gemm.cublas") or a family name ("gemm": its
       first op). Everything below up to `launch` must then be left zero, except `depth`:
       your kernel's own (say ceil(log2 n) + 1 for a pairwise sum), or NULL for the
       operation's order-free depth (n for a sum of n, m for column sums of m rows, k for a
       product; docs/error-models.md, "Data gpuval did not make"). */
    const char *judge_as;

    /* Or your own model. Required: n_in >= 0, n_out >= 1, layout, reference, depth. */
    int n_in, n_out;
    const char *in_names[GV_API_MAX_TENSORS];  /* optional, for messages */
    const char *out_names[GV_API_MAX_TENSORS]; /* optional, for messages */
    int (*layout)(const gv_case_info *c, gv_layout_info *l, void *user);
    double (*flops)(const gv_case_info *c, void *user); /* NULL: 0 (unknown) */
    double (*bytes)(const gv_case_info *c, void *user); /* NULL: 0 (unknown) */
    /* Optional: the inputs in f64 (in[i] holds in_count[i] values); gpuval rounds them to
       the dtype and hands the same rounded values to the reference. They are your data
       ("inputs": "given" in the results): gpuval knows nothing of their statistics. NULL:
       each input drawn from the case's distribution by gpuval's generator (same on every
       machine). */
    int (*make_inputs)(const gv_case_info *c, double *const *in, const int64_t *in_count,
                       void *user);
    /* The f64 reference: out[j] (out_count[j] values) from the rounded inputs. */
    int (*reference)(const gv_case_info *c, const double *const *in, double *const *out,
                     void *user);
    /* Optional: the error model's gauge g_j >= |r_j| into gauge[j]. NULL: g = |r|. */
    int (*gauge)(const gv_case_info *c, const double *const *in, const double *const *ref,
                 double *const *gauge, void *user);
    /* The error model's depth d (e.g. the length of the longest sum), > 0. Also allowed
       with judge_as (see there). */
    double (*depth)(const gv_case_info *c, void *user);
    double ratio_bound; /* 0: gpuval's default */

    /* The device launch hook; NULL (a build without CUDA): every case SKIPs. */
    int (*launch)(const gv_launch_args *a);
    void *user; /* handed to every hook */
} gv_op_desc;

/* A set of ops, as gv_main and a plugin hand them to gpuval. */
typedef struct gv_family {
    int api_version;              /* GPUVAL_API_VERSION at build time: use GV_FAMILY_INIT */
    const char *name;             /* "mylib" */
    const gv_op_desc *const *ops; /* NULL-terminated */
} gv_family;

#define GV_FAMILY_INIT(family_name, op_list)                                                       \
    {                                                                                              \
        GPUVAL_API_VERSION, (family_name), (op_list)                                               \
    }

/* Check a family and register its ops with gpuval: every descriptor is checked first
 * (required fields, names of dtypes, modes, dists and built-ins, size SPECs, duplicates) and
 * nothing is registered unless all are valid. GV_API_OK, or a negative code with the reason
 * ("mylib.softmax: reference is required without judge_as") in err[errlen]. */
int gv_register_family(const gv_family *family, char *err, size_t errlen);

/* The gpuval command line (every command of `gpuval --help`: list, check, bench, judge, ...;
 * docs/cli.md) over the ops of `families` (NULL-terminated; checked and registered as
 * gv_register_family does). gv_main offers these ops only; gv_main_all gpuval's own as well.
 * Returns the exit status gpuval would: 0 all passed, 1 a case failed, 2 usage error or an invalid
 * family, 3 runtime error, 77 nothing could run (no CUDA device). */
int gv_main(int argc, char **argv, const gv_family *const *families);
int gv_main_all(int argc, char **argv, const gv_family *const *families);

/* Plugins: a shared library exporting this symbol, of type gv_plugin_entry, can be loaded
 * with `gpuval <command> --plugin FILE`. The version is in the name: a plugin built against
 * another major version exports another symbol, which gpuval names in its refusal. */
#define GPUVAL_PLUGIN_ENTRY      gpuval_plugin_v1
#define GPUVAL_PLUGIN_ENTRY_NAME "gpuval_plugin_v1"
typedef const gv_family *const *(*gv_plugin_entry)(void);

/* ---- 1.2: judge outputs computed anywhere, and make the inputs to compute them from ---- */

/* A caller-owned host array: dense, C order, `count` elements of `dtype`. */
typedef struct gv_array {
    int dtype; /* GV_DTYPE_F32, F64, or BF16, F16, E4M3, E5M2 */
    const void *data;
    int64_t count;
    const char *name; /* optional: where it came from ("c.npy"), recorded in the run */
} gv_array;

/* One case to judge: a built-in op, its arithmetic, one shape, the inputs and the outputs. */
typedef struct gv_judge_spec {
    const char *op;   /* a built-in op ("gemm.cublas") or family ("gemm": its first op) */
    const char *mode; /* NULL: "native"; the arithmetic the outputs claim to have used */
    const char *size; /* one shape as a size SPEC in the op's dims ("512x256x128") */
    /* NULL: the inputs are the caller's own ("given": only the rules that hold for any data).
       A dist name: the inputs are gv_make_inputs(op, dtype, mode, size, dist, seed)'s, and
       the case is judged as that generated case (canaries and exact probes included); the
       library regenerates them and refuses (GV_API_EINVAL) inputs that differ. */
    const char *dist;
    uint64_t seed;
    int n_in, n_out;
    /* the op's inputs and outputs in its order: the f32 and f64 ones of one dtype, the
       compute dtype; bf16, f16, e4m3 and e5m2 ones beside them, on ops judged element
       by element (vadd, gemm, colsum, dense, act, mathfn, softmax, scan, loss, pool, reduce;
       others refuse them with GV_API_EINVAL); such inputs are the caller's own (no dist) */
    const gv_array *in;
    const gv_array *out;
} gv_judge_spec;

#define GV_VERDICT_PASS  0
#define GV_VERDICT_FAIL  1
#define GV_VERDICT_SKIP  2
#define GV_VERDICT_ERROR 3

typedef struct gv_judgement {
    int verdict;                    /* GV_VERDICT_* */
    char reason[1024];              /* why, as check's row says it; "" for a plain PASS */
    double max_rel, normwise, bits; /* NaN where not measured */
    double ratio, r_max, r_rms;     /* the error model's ratios; NaN where none */
    int meets_1e8, meets_1e4;       /* the tiers met: 1 or 0 */
    char *json;                     /* the case as `check --json` writes one case (malloc'd) */
} gv_judgement;

/* GV_API_OK when a verdict was reached (whatever it is: read j->verdict); a negative code,
   with the reason in j->reason, for a spec that cannot be judged (unknown op or mode, counts
   that do not match the size, f32 beside f64 arrays, low-precision arrays on an op that
   refuses them). Needs no GPU. */
int gv_judge(const gv_judge_spec *spec, gv_judgement *j);
void gv_judgement_free(gv_judgement *j); /* frees j->json; safe on a zeroed struct */

/* The inputs gpuval generates for one case (canaries and exact probes included), in the
   case's dtype, and the shapes of the inputs and outputs. Library-owned until freed. A
   complex tensor (gv_op_info's complex_inputs, complex_outputs: the FFTs') holds interleaved
   (re, im) pairs: its shape's last dim is that pair's 2 and its count twice the complex one.
   A tensor of more than GV_API_MAX_DIMS dims (conv.3d's 5-D ones) has a flat shape here, its
   count alone (ndim 1): gv_make_inputs_nd (1.4) gives it whole. */
typedef struct gv_case_inputs {
    int dtype;
    int n_in, n_out;
    void *in[GV_API_MAX_TENSORS];
    int64_t in_count[GV_API_MAX_TENSORS], out_count[GV_API_MAX_TENSORS];
    int in_ndim[GV_API_MAX_TENSORS], out_ndim[GV_API_MAX_TENSORS];
    int64_t in_shape[GV_API_MAX_TENSORS][GV_API_MAX_DIMS]; /* C order */
    int64_t out_shape[GV_API_MAX_TENSORS][GV_API_MAX_DIMS];
    const char *in_names[GV_API_MAX_TENSORS], *out_names[GV_API_MAX_TENSORS]; /* "A", "B", "C" */
} gv_case_inputs;

/* dtype GV_DTYPE_*; mode NULL: "native"; dist NULL: the op's default. GV_API_OK, or a
   negative code with the reason in err. */
int gv_make_inputs(const char *op, int dtype, const char *mode, const char *size, const char *dist,
                   uint64_t seed, gv_case_inputs *ci, char *err, size_t errlen);
void gv_case_inputs_free(gv_case_inputs *ci);

/* ---- 1.4: tensors' shapes of up to GV_API_MAX_TENSOR_DIMS dims ---- */

/* gv_case_inputs with each tensor's shape whole (up to GV_API_MAX_TENSOR_DIMS dims): a new
   struct, so that a program built against 1.2 or 1.3 keeps its own layout and is served as
   before. */
typedef struct gv_case_inputs_nd {
    int dtype;
    int n_in, n_out;
    void *in[GV_API_MAX_TENSORS];
    int64_t in_count[GV_API_MAX_TENSORS], out_count[GV_API_MAX_TENSORS];
    int in_ndim[GV_API_MAX_TENSORS], out_ndim[GV_API_MAX_TENSORS];
    int64_t in_shape[GV_API_MAX_TENSORS][GV_API_MAX_TENSOR_DIMS]; /* C order */
    int64_t out_shape[GV_API_MAX_TENSORS][GV_API_MAX_TENSOR_DIMS];
    const char *in_names[GV_API_MAX_TENSORS], *out_names[GV_API_MAX_TENSORS];
} gv_case_inputs_nd;

/* gv_make_inputs into a gv_case_inputs_nd: the same inputs, every shape whole. */
int gv_make_inputs_nd(const char *op, int dtype, const char *mode, const char *size,
                      const char *dist, uint64_t seed, gv_case_inputs_nd *ci, char *err,
                      size_t errlen);
void gv_case_inputs_nd_free(gv_case_inputs_nd *ci);

/* An op's description as `gpuval list --json` gives one op (name, family, summary, dims,
   dtypes, modes, shapes, test_shapes, dists, planted_bug...), malloc'd into *json; free with
   gv_free. GV_API_EINVAL for an unknown op. */
int gv_op_info(const char *op, char **json);
void gv_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
