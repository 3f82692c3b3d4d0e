/* judge.c: `gpuval judge` (outputs computed anywhere, as .npy, judged by the op's oracle and
 * every rule their inputs allow) and `gpuval inputs` (the inputs gpuval would generate for a
 * case, as .npy, with case.json), both through the api wing's one path (api/case.c,
 * api/judge.c). No device is used. */
#include <cblas.h>
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cli.h"
#include "cmd/judge.h"
#include "api/case.h"
#include "api/judge.h"
#include "api/lowp.h"
#include "core/envelope.h"
#include "core/envelope_tc.h"
#include "io/case_io.h"
#include "io/infile.h"
#include "io/json_util.h"
#include "io/npy.h"
#include "io/outfile.h"
#include "io/run_doc.h"
#include "render/run_text.h"
#include "io/run_read.h"
#include "io/sha256.h"
#include "io/schemas.h"

enum {
    O_OP = 256,
    O_INPUTS,
    O_OUTPUTS,
    O_SIZE,
    O_DTYPE,
    O_MODE,
    O_DIST,
    O_SEED,
    O_JSON,
    O_CASE,
    O_OUT,
    O_FORCE,
    O_ALLOW,
    O_ORDER,
    O_ARCH,
};

static const gv_opt judge_opts[] = {
    {.name = "op",
     .id = O_OP,
     .arg = "OP",
     .help = "the op the outputs claim to compute (gpuval list --all)"},
    {.name = "inputs",
     .id = O_INPUTS,
     .arg = "A.npy,B.npy",
     .help = "the inputs the outputs were computed from, one .npy per input in the op's\n"
             "order (with --case: the case's own files by default)"},
    {.name = "outputs",
     .id = O_OUTPUTS,
     .arg = "C.npy",
     .help = "the outputs to judge, one .npy per output in the op's order"},
    {.name = "size",
     .id = O_SIZE,
     .arg = "SHAPE",
     .help = "the case's shape in the op's dims (default: read off the inputs' shapes,\n"
             "for ops whose inputs carry every dim)"},
    {.name = "dtype",
     .id = O_DTYPE,
     .arg = "D",
     .help = "f32 or f64: must be the arrays' own; bf16, f16, e4m3 or e5m2: the\n"
             "low-precision arrays' format, computed in f32 (raw bits |u1 and <u2\n"
             "need it; docs/error-models.md, \"Low-precision outputs\")"},
    {.name = "mode",
     .id = O_MODE,
     .arg = "M",
     .help = "the arithmetic the outputs claim (default native; gpuval list --modes)"},
    {.name = "allow",
     .id = O_ALLOW,
     .arg = "B[,B]",
     .help = "ftz: the outputs come from flush-to-zero arithmetic (subnormal inputs read\n"
             "as 0, subnormal results returned as 0: CuPy's kernels, --use_fast_math);\n"
             "an underflow may err by the smallest normal, and flushes are noted.\n"
             "daz: subnormal inputs were read as 0 (denormals-are-zero), the arithmetic\n"
             "IEEE otherwise: the oracle reads them as 0 too. ftz,daz: both"},
    {.name = "order",
     .id = O_ORDER,
     .arg = "O",
     .help = "the summation order the outputs were computed in: k (in order), pairwise,\n"
             "blocked:B (chains of B terms, the blocks added in order) or tree (reduce.sum's\n"
             "block tree); the envelope then judges against that order's results bit for\n"
             "bit (and the exact result). Default: every legal order"},
    {.name = "arch",
     .id = O_ARCH,
     .arg = "sm_XY",
     .help = "the architecture whose tensor-core block-FMA model judges a tensor-core mode\n"
             "(tf32, bf16, f16, f16acc, fp8): the outputs are judged against what that model\n"
             "computes on the inputs. Default: sm_90 (H100, H200)"},
    {.name = "dist",
     .id = O_DIST,
     .arg = "D",
     .help = "the inputs are gpuval's generated ones for this distribution and --seed\n"
             "(gpuval inputs writes them): the whole generated case's rules judge,\n"
             "canaries and exact probes included; checked bit for bit. Without it the\n"
             "inputs are given data: the rules that hold for any data judge"},
    {.name = "seed",
     .id = O_SEED,
     .arg = "N",
     .help = "with --dist: the generator's seed (default 0)"},
    {.name = "case",
     .id = O_CASE,
     .arg = "DIR/case.json",
     .help = "the case `gpuval inputs` wrote, in place of --op, --dtype, --mode, --size,\n"
             "--dist and --seed"},
    {.name = "json",
     .id = O_JSON,
     .arg = "FILE",
     .help = "write the run as check --json does (one case; the arrays' files and\n"
             "SHA-256 recorded); - for stdout"},
    {.name = "quiet", .id = 'q', .help = "print the row only when it does not pass"},
    GV_CMD_OPT_WIDE,
    {.name = "help", .id = 'h'},
};
const gv_opt_table gv_judge_options = {"judge", judge_opts, GV_NOPTS(judge_opts)};

static const gv_exit_line judge_exits[] = {
    {GV_EXIT_OK, "the outputs pass"},
    {GV_EXIT_FAIL, "the outputs fail"},
    {GV_EXIT_USAGE, NULL},
    {GV_EXIT_RUNTIME, NULL},
};

static const char judge_head[] =
    "usage: gpuval judge --op OP --inputs A.npy,B.npy --outputs C.npy [--size S] [--dtype D]\n"
    "                    [--mode M] [--allow B[,B]] [--order O] [--arch sm_XY]\n"
    "                    [--dist D --seed N] [--json FILE|-] [-q]\n"
    "       gpuval judge --case DIR/case.json --outputs C.npy [--json FILE|-] [-q]\n"
    "\n"
    "Judge outputs computed anywhere (another framework, another machine) from the given\n"
    "inputs: the op's f64 oracle runs on the inputs and the outputs are judged as check judges\n"
    "the GPU's, one row in check's table. Needs no GPU.\n";

static const gv_help judge_help = {.head = judge_head,
                                   .opts = &gv_judge_options,
                                   .col = 24,
                                   .exits = judge_exits,
                                   .n_exits = GV_NEXITS(judge_exits)};

static const gv_opt inputs_opts[] = {
    {.name = "op", .id = O_OP, .arg = "OP", .help = "the op (gpuval list --all)"},
    {.name = "dtype", .id = O_DTYPE, .arg = "D", .help = "f32 or f64 (default: the op's first)"},
    {.name = "mode", .id = O_MODE, .arg = "M", .help = "the arithmetic (default native)"},
    {.name = "size",
     .id = O_SIZE,
     .arg = "SHAPE",
     .help = "one shape in the op's dims (default: its first test shape)"},
    {.name = "dist", .id = O_DIST, .arg = "D", .help = "input distribution (default: the op's)"},
    {.name = "seed", .id = O_SEED, .arg = "N", .help = "the generator's seed (default 0)"},
    {.name = "out", .id = O_OUT, .arg = "DIR", .help = "where the .npy files and case.json go"},
    {.name = "force", .id = O_FORCE, .help = "replace files of an earlier case in DIR"},
    {.name = "help", .id = 'h'},
};
const gv_opt_table gv_inputs_options = {"inputs", inputs_opts, GV_NOPTS(inputs_opts)};

static const gv_exit_line inputs_exits[] = {
    {GV_EXIT_OK, "written"},
    {GV_EXIT_USAGE, NULL},
    {GV_EXIT_RUNTIME, "a file could not be written"},
};

static const char inputs_head[] =
    "usage: gpuval inputs --op OP [--dtype D] [--mode M] [--size S] [--dist D] [--seed N]\n"
    "                     --out DIR [--force]\n"
    "\n"
    "Write the inputs gpuval generates for one case (canaries and exact probes alike) as .npy\n"
    "files with their shapes (DIR/A.npy, DIR/B.npy, ...) and DIR/case.json (op, dtype, mode,\n"
    "size, dist, seed, the inputs' and outputs' names and shapes). Compute the outputs with any\n"
    "framework, save them as .npy, and judge them with\n"
    "  gpuval judge --case DIR/case.json --outputs C.npy\n";

static const gv_help inputs_help = {.head = inputs_head,
                                    .opts = &gv_inputs_options,
                                    .col = 16,
                                    .exits = inputs_exits,
                                    .n_exits = GV_NEXITS(inputs_exits)};

_Static_assert(GV_NOPTS(judge_opts) <= GV_OPTS_MAX, "judge's options fit the parser");
_Static_assert(GV_NOPTS(inputs_opts) <= GV_OPTS_MAX, "inputs' options fit the parser");

/* ---- gpuval inputs ------------------------------------------------------------------------ */

/* A complex tensor's shape as its complex .npy has it: without the (re, im) dim. */
static json_t *shape_json(int nd, const int64_t *shape, bool cplx)
{
    json_t *a = json_array();
    for (int k = 0; k < nd - (cplx && nd > 1); k++)
        json_array_append_new(a, json_integer(shape[k]));
    return a;
}

static int emit_doc(FILE *f, void *doc)
{
    if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0) return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

/* The file of tensor name (A.npy); names that are no plain file name get their index. */
static void tensor_file(const char *name, int i, char *buf, size_t len)
{
    bool plain = name && name[0] && name[0] != '.';
    for (const char *p = name; plain && *p; p++)
        plain = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
                *p == '_' || *p == '-' || *p == '.';
    if (plain)
        snprintf(buf, len, "%s.npy", name);
    else
        snprintf(buf, len, "in%d.npy", i);
}

/* What fill_case_dir writes: the arrays under their file names, and case.json. */
typedef struct inputs_fill {
    const gv_op *op;
    const gv_case_inputs_nd *ci;
    char (*files)[128];
    json_t *doc;
} inputs_fill;

/* Write the case into the temporary directory tmp (gv_write_dir's fill): 0, or -1 with errno
   (gv_write_dir's message names DIR and the fault). */
static int fill_case_dir(const char *tmp, void *ctx)
{
    const inputs_fill *f = ctx;
    gv_npy_type t = f->ci->dtype == GV_DTYPE_F64 ? GV_NPY_F64 : GV_NPY_F32;
    char path[4352];
    for (int i = 0; i < f->ci->n_in; i++) {
        snprintf(path, sizeof path, "%s/%s", tmp, f->files[i]);
        /* a complex tensor as NumPy's complex64 / complex128: the same bytes, the pair's dim
           dropped from the shape */
        bool cplx = gv_tensor_complex(f->op, false, i) && f->ci->in_ndim[i] > 1;
        gv_npy_type ti = cplx ? (t == GV_NPY_F64 ? GV_NPY_C128 : GV_NPY_C64) : t;
        if (gv_npy_write(path, ti, f->ci->in_ndim[i] - cplx, f->ci->in_shape[i], f->ci->in[i]) != 0)
            return -1;
    }
    snprintf(path, sizeof path, "%s/case.json", tmp);
    return gv_write_file(path, emit_doc, f->doc);
}

/* What `gpuval inputs` was asked for. */
typedef struct inputs_args {
    const char *op, *mode, *size, *dist, *out;
    unsigned dtypes;
    uint64_t seed;
    bool force;
} inputs_args;

/* Read the options into a: -1 to go on, or the exit code (help printed, or a usage error). */
static int parse_inputs_args(int argc, char **argv, inputs_args *a)
{
    *a = (inputs_args){0};
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_inputs_options);
    int c;
    while ((c = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        switch (c) {
        case O_OP: a->op = optarg; break;
        case O_DTYPE:
            if (gv_cmd_parse_dtype_list(optarg, &a->dtypes)) return GV_EXIT_USAGE;
            break;
        case O_MODE: a->mode = optarg; break;
        case O_SIZE: a->size = optarg; break;
        case O_DIST: a->dist = optarg; break;
        case O_SEED:
            if (gv_cmd_parse_seed(optarg, &a->seed)) return GV_EXIT_USAGE;
            break;
        case O_OUT: a->out = optarg; break;
        case O_FORCE: a->force = true; break;
        case 'h': gv_cmd_help_print(stdout, &inputs_help); return GV_EXIT_OK;
        default: gv_cmd_bad_option("inputs", argv); return GV_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        gv_cmd_usage_cmd("inputs", "inputs takes no positional arguments ('%s')", argv[optind]);
        return GV_EXIT_USAGE;
    }
    if (!a->op || !a->out) {
        gv_cmd_usage_cmd("inputs", "inputs needs --op and --out DIR");
        return GV_EXIT_USAGE;
    }
    return -1;
}

/* The op, its one dtype and its size (the op's first test shape unless given, kept in first):
   -1 to go on, or the exit code of a usage error. */
static int resolve_case(inputs_args *a, const gv_op **o, int *dtype, char first[96])
{
    *o = gv_judge_find_op(a->op);
    if (!*o) {
        gv_usage_error("no op '%s' (gpuval list --all)", a->op);
        return GV_EXIT_USAGE;
    }
    if (a->dtypes && (a->dtypes & (a->dtypes - 1))) {
        gv_usage_error("inputs writes one case: one --dtype");
        return GV_EXIT_USAGE;
    }
    *dtype = a->dtypes ? __builtin_ctz(a->dtypes) : __builtin_ctz((*o)->dtypes);
    if (!a->size) {
        const char *s = (*o)->test_shapes ? (*o)->test_shapes : (*o)->shapes;
        size_t n = strcspn(s, ",");
        snprintf(first, 96, "%.*s", (int)(n < 96 ? n : 95), s);
        a->size = first;
    }
    return -1;
}

/* Each input's file name in DIR (its tensor's name, or in%d.npy where that is no plain name or
   one taken before); GV_EXIT_USAGE when one of them or case.json exists and force is off. */
static int name_files(const inputs_args *a, const gv_case_inputs_nd *ci, char files[][128])
{
    for (int i = 0; i < ci->n_in; i++) {
        tensor_file(ci->in_names[i], i, files[i], sizeof files[i]);
        for (int k = 0; k < i; k++)
            if (strcmp(files[k], files[i]) == 0) snprintf(files[i], sizeof files[i], "in%d.npy", i);
    }
    char path[4096];
    struct stat st;
    for (int i = 0; i <= ci->n_in && !a->force; i++) {
        snprintf(path, sizeof path, "%s/%s", a->out, i < ci->n_in ? files[i] : "case.json");
        if (lstat(path, &st) == 0) {
            gv_usage_error("%s exists (replaced only with --force)", path);
            return GV_EXIT_USAGE;
        }
    }
    return GV_EXIT_OK;
}

/* case.json (GV_DOC_INPUTS): the case and each tensor's name, file and shape. */
static json_t *case_doc(const inputs_args *a, const gv_op *o, const gv_case_inputs_nd *ci,
                        gv_dist d, char files[][128])
{
    json_t *ins = json_array(), *outs = json_array();
    for (int i = 0; i < ci->n_in; i++) {
        bool cplx = gv_tensor_complex(o, false, i);
        json_array_append_new(ins, json_pack("{s:s, s:s, s:o, s:b}", "name", ci->in_names[i],
                                             "file", files[i], "shape",
                                             shape_json(ci->in_ndim[i], ci->in_shape[i], cplx),
                                             "complex", cplx));
    }
    for (int i = 0; i < ci->n_out; i++) {
        bool cplx = gv_tensor_complex(o, true, i);
        json_array_append_new(outs, json_pack("{s:s, s:o, s:b}", "name", ci->out_names[i], "shape",
                                              shape_json(ci->out_ndim[i], ci->out_shape[i], cplx),
                                              "complex", cplx));
    }
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o}", "schema",
                     gv_schema(GV_DOC_INPUTS), "op", o->name, "dtype",
                     ci->dtype == GV_DTYPE_F64 ? "f64" : "f32", "mode",
                     a->mode ? a->mode : "native", "size", a->size, "dist", gv_dist_name(d), "seed",
                     gv_json_seed(a->seed), "inputs", ins, "outputs", outs);
}

/* Every file into a temporary directory beside DIR, which then takes DIR's place: DIR holds
   the earlier case or this one, whole, never half of each. The exit code. */
static int write_case_dir(const inputs_args *a, const gv_op *o, const gv_case_inputs_nd *ci,
                          char files[][128], json_t *doc)
{
    const char *names[GV_API_MAX_TENSORS + 1];
    for (int i = 0; i < ci->n_in; i++)
        names[i] = files[i];
    names[ci->n_in] = "case.json";
    inputs_fill fill = {o, ci, files, doc};
    char why[4352];
    if (doc &&
        gv_write_dir(a->out, names, ci->n_in + 1, fill_case_dir, &fill, why, sizeof why) == 0)
        return GV_EXIT_OK;
    int e = doc ? errno : ENOMEM;
    gv_usage_error("--out %s: %s", a->out, doc ? why : strerror(e));
    return gv_write_exit_code(e);
}

int gv_cmd_inputs(int argc, char **argv)
{
    inputs_args a;
    int rc = parse_inputs_args(argc, argv, &a);
    if (rc >= 0) return rc;
    const gv_op *o;
    int dtype;
    char first[96] = "";
    rc = resolve_case(&a, &o, &dtype, first);
    if (rc >= 0) return rc;
    char probe_why[4352];
    if (gv_probe_dir(a.out, probe_why, sizeof probe_why) != 0) {
        gv_usage_error("--out %s: %s", a.out, probe_why);
        return gv_write_exit_code(errno);
    }
    gv_case_inputs_nd ci;
    char err[512];
    rc = gv_make_inputs_nd(o->name, dtype, a.mode, a.size, a.dist, a.seed, &ci, err, sizeof err);
    if (rc != GV_API_OK) {
        gv_usage_error("%s", err);
        return rc == GV_API_ENOMEM ? GV_EXIT_RUNTIME : GV_EXIT_USAGE;
    }
    char files[GV_API_MAX_TENSORS][128];
    gv_dist d = o->default_dist;
    rc = name_files(&a, &ci, files);
    if (rc == GV_EXIT_OK && a.dist && gv_dist_parse(a.dist, &d) != GV_OK)
        rc = GV_EXIT_USAGE; /* gv_make_inputs checked it */
    if (rc != GV_EXIT_OK) {
        gv_case_inputs_nd_free(&ci);
        return rc;
    }
    json_t *doc = case_doc(&a, o, &ci, d, files);
    rc = write_case_dir(&a, o, &ci, files, doc);
    json_decref(doc);
    if (rc == GV_EXIT_OK) {
        printf("%s %s %s %s %s seed %llu: ", o->name, ci.dtype == GV_DTYPE_F64 ? "f64" : "f32",
               a.mode ? a.mode : "native", gv_dist_name(d), a.size, (unsigned long long)a.seed);
        for (int i = 0; i < ci.n_in; i++)
            printf("%s%s/%s", i ? ", " : "", a.out, files[i]);
        printf("%s%s/case.json\n", ci.n_in ? ", " : "", a.out);
    }
    gv_case_inputs_nd_free(&ci);
    return rc;
}

/* ---- gpuval judge ------------------------------------------------------------------------- */

typedef struct judge_job {
    const char *op, *inputs, *outputs, *size, *mode, *dist, *case_path, *json_path, *order;
    const char *arch; /* --arch sm_XY (checked when parsed) */
    unsigned dtypes;
    int lowp; /* --dtype bf16, f16, e4m3, e5m2: its GV_DTYPE_* (never 0, f32's); 0 none */
    uint64_t seed;
    bool seed_given, quiet, allow_ftz, allow_daz;
    bool wide;          /* -w: the row on one line, on a terminal too */
    char mode_ftz[112]; /* the mode with "+order=O" (--order), "+arch=A" (--arch), "+daz"
                           and "+ftz" (--allow) */
    /* from --case */
    json_t *case_doc;
    char case_inputs[4096];
    char seed_text[32];
    /* the arrays */
    gv_npy in[GV_MAX_TENSORS], out[GV_MAX_TENSORS];
    const char *in_path[GV_MAX_TENSORS], *out_path[GV_MAX_TENSORS];
    char *in_list, *out_list;
    int n_in, n_out;
    char size_buf[128];
} judge_job;

static void judge_job_free(judge_job *j)
{
    for (int i = 0; i < j->n_in; i++)
        gv_npy_free(&j->in[i]);
    for (int i = 0; i < j->n_out; i++)
        gv_npy_free(&j->out[i]);
    free(j->in_list);
    free(j->out_list);
    json_decref(j->case_doc);
}

/* FILE,FILE into paths (pointers into *copy); -1 after a message. */
static int split_files(const char *opt, const char *list, char **copy, const char **paths, int *n)
{
    size_t len = strlen(list);
    if (len == 0 || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,")) {
        gv_usage_error("%s: an empty file name in '%s' (FILE,FILE,...)", opt, list);
        return -1;
    }
    *copy = strdup(list);
    if (!*copy) return -1;
    *n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(*copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == GV_MAX_TENSORS) {
            gv_usage_error("%s: more than %d files", opt, GV_MAX_TENSORS);
            return -1;
        }
        paths[(*n)++] = tok;
    }
    return 0;
}

static const char *jstr(const json_t *doc, const char *key)
{
    return json_string_value(json_object_get(doc, key));
}

/* --case DIR/case.json into the job: op, dtype, mode, size, dist, seed, and the inputs' files
   (beside case.json) unless --inputs names others. -1 after a message. */
static int load_case(judge_job *j)
{
    if (j->op || j->size || j->mode || j->dist || j->seed_given || j->dtypes) {
        gv_usage_error("--case gives the op, dtype, mode, size, dist and seed: leave out --op, "
                       "--dtype, --mode, --size, --dist and --seed");
        return -1;
    }
    json_error_t jerr;
    j->case_doc = gv_json_load_regular(j->case_path, 0, &jerr); /* a FIFO: refused, not waited on */
    if (!j->case_doc) {
        gv_usage_error("--case %s: %s", j->case_path, jerr.text);
        return -1;
    }
    const json_t *doc = j->case_doc;
    const char *schema = jstr(doc, "schema");
    if (!schema || strcmp(schema, gv_schema(GV_DOC_INPUTS)) != 0) {
        gv_usage_error("--case %s: not a %s file (gpuval inputs writes one)", j->case_path,
                       gv_schema(GV_DOC_INPUTS));
        return -1;
    }
    j->op = jstr(doc, "op");
    j->mode = jstr(doc, "mode");
    j->size = jstr(doc, "size");
    j->dist = jstr(doc, "dist");
    const char *dt = jstr(doc, "dtype");
    const json_t *seed = json_object_get(doc, "seed");
    if (json_is_integer(seed) && json_integer_value(seed) >= 0) {
        j->seed = (uint64_t)json_integer_value(seed);
    } else if (json_is_string(seed)) {
        snprintf(j->seed_text, sizeof j->seed_text, "%s", json_string_value(seed));
        if (gv_cmd_parse_seed(j->seed_text, &j->seed)) return -1;
    } else {
        seed = NULL;
    }
    if (!j->op || !j->mode || !j->size || !j->dist || !dt || !seed ||
        gv_cmd_parse_dtype_list(dt, &j->dtypes)) {
        gv_usage_error("--case %s: op, dtype, mode, size, dist and seed are all required",
                       j->case_path);
        return -1;
    }
    if (!j->inputs) {
        const json_t *ins = json_object_get(doc, "inputs");
        char dir_buf[4096];
        snprintf(dir_buf, sizeof dir_buf, "%s", j->case_path);
        const char *dir = dirname(dir_buf);
        size_t used = 0;
        j->case_inputs[0] = '\0';
        size_t n = json_array_size(ins);
        for (size_t i = 0; i < n; i++) {
            const char *f = jstr(json_array_get(ins, i), "file");
            if (!f || strchr(f, '/') || strchr(f, ',')) {
                gv_usage_error("--case %s: input %zu has no plain file name", j->case_path, i);
                return -1;
            }
            used += (size_t)snprintf(j->case_inputs + used, sizeof j->case_inputs - used, "%s%s/%s",
                                     i ? "," : "", dir, f);
        }
        if (n == 0 || used >= sizeof j->case_inputs) {
            gv_usage_error("--case %s: no inputs listed", j->case_path);
            return -1;
        }
        j->inputs = j->case_inputs;
    }
    return 0;
}

/* Read one array and check it is f32, f64, or of a low-precision format (api/lowp.h). */
static int read_array(const char *path, gv_npy *a)
{
    char err[512];
    if (gv_npy_read(path, a, err, sizeof err) != GV_OK ||
        gv_npy_complex_view(path, a, err, sizeof err) != GV_OK) {
        gv_npy_free(a);
        gv_usage_error("%s", err);
        return -1;
    }
    if (a->type != GV_NPY_F32 && a->type != GV_NPY_F64 && a->type != GV_NPY_F16 &&
        a->type != GV_NPY_BF16 && a->type != GV_NPY_U8 && a->type != GV_NPY_U16) {
        gv_usage_error("%s: dtype %s (%s) has no gpuval storage dtype: judge takes f32 (<f4), "
                       "f64 (<f8), f16 (<f2), bf16 (<V2), and raw bits (|u1, |V1, <u2) of the "
                       "format --dtype names",
                       path, gv_npy_type_name(a->type), gv_npy_descr(a->type));
        gv_npy_free(a); /* the caller counts only the arrays it keeps */
        return -1;
    }
    return 0;
}

static void shape_text(int nd, const int64_t *s, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "(");
    for (int k = 0; k < nd && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%lld", k ? ", " : "", (long long)s[k]);
    if (used < len) snprintf(buf + used, len - used, nd == 1 ? ",)" : ")");
}

/* An array whose shape is neither the tensor's nor flat is refused: a transposed result of
   the right count would be judged element by element against the wrong outputs. */
static int check_shape(const char *path, const gv_npy *a, const gv_case *c, const gv_layout *l,
                       bool output, int i)
{
    int64_t want[GV_NPY_MAX_DIMS]; /* conv.3d's tensors are 5-D: past the API's GV_MAX_DIMS */
    int nd = gv_tensor_shape(c, l, output, i, want);
    int64_t count = output ? l->out[i].count : l->in[i].count;
    if (a->complex_view && !gv_tensor_complex(c->op, output, i)) {
        gv_usage_error("%s: a complex array, but %s's %s %d is real", path, c->op->name,
                       output ? "output" : "input", i);
        return -1;
    }
    if (a->count != count) return 0; /* the judge's own message names the counts */
    if (a->nd <= 1) return 0;
    /* a flat complex array (n, 2) for a complex tensor: flat too */
    if (a->nd == 2 && a->shape[1] == 2 && gv_tensor_complex(c->op, output, i)) return 0;
    bool same = a->nd == nd;
    for (int k = 0; same && k < nd; k++)
        same = a->shape[k] == want[k];
    if (same) return 0;
    char have[128], expect[128];
    shape_text(a->nd, a->shape, have, sizeof have);
    shape_text(nd, want, expect, sizeof expect);
    gv_usage_error("%s: shape %s, but %s's %s %d is %s (or flat)", path, have, c->op->name,
                   output ? "output" : "input", i, expect);
    return -1;
}

static int emit_json(FILE *f, void *doc)
{
    return json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
}

static void file_records(json_t *arrays, const char *key, const char *const *paths, int n)
{
    json_t *arr = json_object_get(arrays, key);
    for (int i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, (size_t)i);
        char hex[65];
        if (!o) continue;
        json_object_set_new(o, "file", json_string(paths[i]));
        if (gv_sha256_file(paths[i], hex) == 0)
            json_object_set_new(o, "file_sha256", json_string(hex));
    }
}

static int parse_args(int argc, char **argv, judge_job *j)
{
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_judge_options);
    int c;
    while ((c = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        switch (c) {
        case O_OP: j->op = optarg; break;
        case O_INPUTS: j->inputs = optarg; break;
        case O_OUTPUTS: j->outputs = optarg; break;
        case O_SIZE: j->size = optarg; break;
        case O_DTYPE:
            if (gv_lowp_get(gv_lowp_dtype_parse(optarg))) { /* bf16 storage, f32 compute */
                if (j->lowp || j->dtypes) {
                    gv_usage_error("judge judges one case: one --dtype");
                    return GV_EXIT_USAGE;
                }
                j->lowp = gv_lowp_dtype_parse(optarg);
                break;
            }
            if (j->lowp) {
                gv_usage_error("judge judges one case: one --dtype");
                return GV_EXIT_USAGE;
            }
            if (gv_cmd_parse_dtype_list(optarg, &j->dtypes)) return GV_EXIT_USAGE;
            if (j->dtypes & (j->dtypes - 1)) {
                gv_usage_error("judge judges one case: one --dtype");
                return GV_EXIT_USAGE;
            }
            break;
        case O_MODE: j->mode = optarg; break;
        case O_ALLOW:
            if (strcmp(optarg, "ftz") == 0) {
                j->allow_ftz = true;
            } else if (strcmp(optarg, "daz") == 0) {
                j->allow_daz = true;
            } else if (strcmp(optarg, "ftz,daz") == 0 || strcmp(optarg, "daz,ftz") == 0) {
                j->allow_ftz = j->allow_daz = true;
            } else {
                gv_cmd_usage_cmd("judge", "--allow takes ftz, daz or ftz,daz ('%s')", optarg);
                return GV_EXIT_USAGE;
            }
            break;
        case O_ORDER: {
            gv_env_order o;
            char why[160];
            if (gv_env_order_parse(optarg, &o, why, sizeof why) != GV_OK) {
                gv_cmd_usage_cmd("judge", "--order: %s", why);
                return GV_EXIT_USAGE;
            }
            j->order = optarg;
            break;
        }
        case O_ARCH: {
            int sm;
            char why[200];
            if (gv_env_tc_arch_parse(optarg, &sm, why, sizeof why) != GV_OK) {
                gv_cmd_usage_cmd("judge", "--arch: %s", why);
                return GV_EXIT_USAGE;
            }
            j->arch = optarg;
            break;
        }
        case O_DIST: j->dist = optarg; break;
        case O_SEED:
            if (gv_cmd_parse_seed(optarg, &j->seed)) return GV_EXIT_USAGE;
            j->seed_given = true;
            break;
        case O_CASE: j->case_path = optarg; break;
        case O_JSON: j->json_path = optarg; break;
        case 'q': j->quiet = true; break;
        case 'w': j->wide = true; break;
        case 'h': gv_cmd_help_print(stdout, &judge_help); return GV_EXIT_OK;
        default: gv_cmd_bad_option("judge", argv); return GV_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        gv_cmd_usage_cmd("judge", "judge takes no positional arguments ('%s')", argv[optind]);
        return GV_EXIT_USAGE;
    }
    return -1;
}

/* --json is none of the files judge reads (--case, --inputs, the case's own inputs,
   --outputs), in any spelling: the run document written over the arrays it judges would
   destroy them. -1 after a message. */
static int json_not_read(const judge_job *j)
{
    const char *reads[2 * GV_MAX_TENSORS + 1], *in[GV_MAX_TENSORS], *out[GV_MAX_TENSORS];
    char *in_copy = NULL, *out_copy = NULL;
    int n = 0, n_in = 0, n_out = 0, rc = 0;
    if (j->case_path) reads[n++] = j->case_path;
    if (j->inputs && split_files("--inputs", j->inputs, &in_copy, in, &n_in) != 0) rc = -1;
    if (rc == 0 && split_files("--outputs", j->outputs, &out_copy, out, &n_out) != 0) rc = -1;
    for (int i = 0; rc == 0 && i < n_in; i++)
        reads[n++] = in[i];
    for (int i = 0; rc == 0 && i < n_out; i++)
        reads[n++] = out[i];
    const char *outs[1] = {j->json_path}, *opts[1] = {"--json"};
    if (rc == 0) rc = gv_probe_not_inputs(1, outs, opts, n, reads);
    free(in_copy);
    free(out_copy);
    return rc;
}

/* The request's own checks, before any array is read: the op (from --op or --case), the
   outputs, a seed's dist, where --json may go, and the inputs an op with inputs needs. NULL
   after a message. */
static const gv_op *check_request(judge_job *j)
{
    if (j->case_path && load_case(j) != 0) return NULL;
    if (!j->op) {
        gv_cmd_usage_cmd("judge", "judge needs --op (or --case)");
        return NULL;
    }
    const gv_op *op = gv_judge_find_op(j->op);
    if (!op) {
        gv_usage_error("no op '%s' (gpuval list --all)", j->op);
        return NULL;
    }
    if (!j->outputs) {
        gv_usage_error("judge needs --outputs, one .npy per output of %s", op->name);
        return NULL;
    }
    if (j->seed_given && !j->dist) {
        gv_usage_error("--seed names generated inputs: give their --dist too");
        return NULL;
    }
    if (j->json_path) {
        const char *outs_[1] = {j->json_path}, *opts[1] = {"--json"};
        if (json_not_read(j) != 0 || gv_probe_outputs(1, outs_, opts) != 0) return NULL;
    }
    if (!j->inputs && op->in_dims && strlen(op->in_dims) > 0) {
        gv_usage_error("judge needs --inputs, one .npy per input of %s (%s)", op->name,
                       op->in_dims);
        return NULL;
    }
    return op;
}

/* --inputs into j->in: with --size as they are, without it read with the case's dims off
   their shapes (where the op's inputs carry them all). -1 after a message. */
static int load_inputs(judge_job *j, const gv_op *op)
{
    if (!j->inputs) return 0;
    if (j->size) {
        if (split_files("--inputs", j->inputs, &j->in_list, j->in_path, &j->n_in) != 0) return -1;
        int n = j->n_in;
        j->n_in = 0;
        for (int i = 0; i < n; i++) {
            if (read_array(j->in_path[i], &j->in[i]) != 0) return -1;
            j->n_in = i + 1;
        }
        return 0;
    }
    if (!op->in_dims) {
        gv_usage_error("%s: give --size in its dims %s (its inputs do not carry them as "
                       "plain array shapes)",
                       op->name, op->dims);
        return -1;
    }
    char err[512];
    gv_dtype dt;
    gv_shape shape;
    if (gv_inputs_load_lowp(op, j->inputs, j->in, &j->n_in, &dt, &shape, err, sizeof err) !=
        GV_OK) {
        gv_usage_error("%s%s", err,
                       strstr(err, "no input carries") ? " (give --size in its dims)" : "");
        return -1;
    }
    gv_shape_format(&shape, j->size_buf, sizeof j->size_buf);
    j->size = j->size_buf;
    return split_files("--inputs", j->inputs, &j->in_list, j->in_path, &(int){0});
}

/* --outputs into j->out. -1 after a message. */
static int load_outputs(judge_job *j)
{
    int n_out = 0;
    if (split_files("--outputs", j->outputs, &j->out_list, j->out_path, &n_out) != 0) return -1;
    for (int i = 0; i < n_out; i++) {
        if (read_array(j->out_path[i], &j->out[i]) != 0) return -1;
        j->n_out = i + 1;
    }
    return 0;
}

/* Each array's dtype into adt[side][i] (side 0 the inputs, 1 the outputs; api/lowp.h): f32
   and f64 files are the compute dtype and agree; f16 and bf16 files are those formats; raw
   bits are the format --dtype names. The compute dtype into *dt_out. -1 after a message. */
static int array_dtypes(const judge_job *j, int adt[2][GV_MAX_TENSORS], int *dt_out)
{
    int dt = -1;
    _Static_assert(GV_NPY_F32 == (int)GV_F32 && GV_NPY_F64 == (int)GV_F64, "npy dtype numbers");
    for (int side = 0; side < 2; side++) {
        int n = side ? j->n_out : j->n_in;
        const gv_npy *a = side ? j->out : j->in;
        const char *const *p = side ? j->out_path : j->in_path;
        for (int i = 0; i < n; i++) {
            gv_npy_type t = a[i].type;
            int d = t == GV_NPY_F32    ? GV_DTYPE_F32
                    : t == GV_NPY_F64  ? GV_DTYPE_F64
                    : t == GV_NPY_F16  ? GV_DTYPE_F16
                    : t == GV_NPY_BF16 ? GV_DTYPE_BF16
                                       : j->lowp;
            bool raw = t == GV_NPY_U8 || t == GV_NPY_U16;
            if (raw && (!d || gv_lowp_dtype_bytes(d) != (int)gv_npy_type_size(t))) {
                gv_usage_error("%s: raw %d-byte bits (%s): name their format with --dtype (%s)",
                               p[i], (int)gv_npy_type_size(t), gv_npy_descr(t),
                               t == GV_NPY_U8 ? "e4m3 or e5m2" : "bf16 or f16");
                return -1;
            }
            /* --dtype names the raw bits' format; a typed file of the other 2-byte format
               beside it is a mix-up (f16 data labelled bf16), not a mixed-precision case */
            if (!raw && j->lowp && gv_lowp_get(d) && d != j->lowp &&
                gv_lowp_dtype_bytes(d) == gv_lowp_dtype_bytes(j->lowp)) {
                gv_usage_error("%s: dtype %s (%s), but --dtype says %s", p[i], gv_npy_type_name(t),
                               gv_npy_descr(t), gv_lowp_dtype_name(j->lowp));
                return -1;
            }
            adt[side][i] = d;
            if (gv_lowp_get(d)) continue;
            if (dt < 0) {
                dt = d;
            } else if (d != dt) {
                gv_usage_error("%s: dtype %s, but another array is %s: the f32 and f64 arrays "
                               "share one dtype",
                               p[i], gv_npy_type_name(t), gv_npy_type_name((gv_npy_type)dt));
                return -1;
            }
        }
    }
    if (dt < 0) dt = GV_DTYPE_F32; /* low-precision storage alone: f32 compute, as PyTorch */
    if (j->dtypes && !(j->dtypes & (1u << dt))) {
        gv_usage_error("the arrays are %s, which --dtype leaves out", gv_dtype_name((gv_dtype)dt));
        return -1;
    }
    *dt_out = dt;
    return 0;
}

/* The case made from the request, for the arrays' shapes; the judge checks it again with the
   arrays. -1 after a message. */
static int check_shapes(const judge_job *j, const gv_op *op, int dt)
{
    char err[512];
    gv_case c;
    gv_layout l;
    if (gv_judge_case_make(op->name, dt, j->mode, j->size, j->dist, j->seed, &c, &l, err,
                           sizeof err) != GV_OK) {
        gv_usage_error("%s", err);
        return -1;
    }
    for (int i = 0; i < j->n_in && i < l.n_in; i++)
        if (check_shape(j->in_path[i], &j->in[i], &c, &l, false, i) != 0) return -1;
    for (int i = 0; i < j->n_out && i < l.n_out; i++)
        if (check_shape(j->out_path[i], &j->out[i], &c, &l, true, i) != 0) return -1;
    return 0;
}

/* The mode the judge is asked for: --mode, with what --order, --arch and --allow declare
   appended (in j->mode_ftz). */
static const char *claimed_mode(judge_job *j)
{
    if (!(j->allow_ftz || j->allow_daz || j->order || j->arch)) return j->mode;
    snprintf(j->mode_ftz, sizeof j->mode_ftz, "%.24s%s%.28s%s%.12s%s%s",
             j->mode ? j->mode : "native", j->order ? "+order=" : "", j->order ? j->order : "",
             j->arch ? "+arch=" : "", j->arch ? j->arch : "", j->allow_daz ? "+daz" : "",
             j->allow_ftz ? "+ftz" : "");
    return j->mode_ftz;
}

/* Everything read and checked before the judge: -1 to go on, or the exit code. */
static int prepare(judge_job *j, gv_judge_spec *spec, gv_array *ins, gv_array *outs)
{
    const gv_op *op = check_request(j);
    int adt[2][GV_MAX_TENSORS], dt = -1;
    if (!op || load_inputs(j, op) != 0 || load_outputs(j) != 0 || array_dtypes(j, adt, &dt) != 0 ||
        check_shapes(j, op, dt) != 0)
        return GV_EXIT_USAGE;
    for (int i = 0; i < j->n_in; i++)
        ins[i] = (gv_array){adt[0][i], j->in[i].data, j->in[i].count, j->in_path[i]};
    for (int i = 0; i < j->n_out; i++)
        outs[i] = (gv_array){adt[1][i], j->out[i].data, j->out[i].count, j->out_path[i]};
    *spec = (gv_judge_spec){.op = op->name,
                            .mode = claimed_mode(j),
                            .size = j->size,
                            .dist = j->dist,
                            .seed = j->seed,
                            .n_in = j->n_in,
                            .n_out = j->n_out,
                            .in = ins,
                            .out = outs};
    return -1;
}

/* The row and the summary on stdout, unless the run document goes there (--json -); -q keeps
   the row of a failure or an error only. */
static void print_result(const judge_job *j, const gv_result *r, const gv_summary *sum)
{
    if (j->json_path && strcmp(j->json_path, "-") == 0) return;
    if (!j->quiet) gv_table_header(stdout);
    if (!j->quiet || r->verdict == GV_FAIL || r->verdict == GV_ERROR) {
        gv_table_row_fit(stdout, r, j->wide || !isatty(STDOUT_FILENO) ? 0 : GV_ROW_COLS);
        fflush(stdout);
    }
    gv_summary_print(stdout, sum);
}

/* The run document of the one case to --json, with the given arrays' records (their files
   and digests) in it. true where it was not written (lost), after a message. */
static bool write_run(const judge_job *j, int argc, char **argv, const gv_result *r,
                      const gv_summary *sum, json_t *arrays)
{
    bool lost = false;
    gv_run_info info;
    memset(&info, 0, sizeof info);
    info.command = "judge";
    info.oracle_threads = openblas_get_num_threads();
    info.argv_joined = gv_cmd_join_args(argc, argv);
    info.device_count = info.device_index = -1;
    gv_fleet_info_fill(&info.fleet, NULL, -1, -1);
    /* given data: the input files' digests are part of the case's identity (as check
       --inputs records them), so that compare never matches judgements of other data;
       the run document writes them only where the inputs are not generated */
    gv_input_file files[GV_MAX_TENSORS];
    for (int i = 0; i < j->n_in && !lost; i++) {
        snprintf(files[i].name, sizeof files[i].name, "%s", j->in_path[i]);
        if (gv_sha256_file(j->in_path[i], files[i].sha256) != 0) {
            gv_usage_error("--inputs %s: reading it for its SHA-256: %s", j->in_path[i],
                           strerror(errno));
            lost = true;
        }
    }
    info.input_files = files;
    info.n_input_files = lost ? 0 : j->n_in;
    json_t *doc = lost ? NULL : gv_run_json(&info, r, 1, sum);
    json_t *res = json_array_get(json_object_get(doc, "cases"), 0);
    if (arrays) {
        file_records(arrays, "inputs", j->in_path, j->n_in);
        file_records(arrays, "outputs", j->out_path, j->n_out);
        if (res) json_object_set(res, "arrays", arrays);
    }
    /* a run without its digests is not written (lost): it would match other data */
    if (!lost && (!doc || gv_write_file(j->json_path, emit_json, doc) != 0)) {
        gv_write_error(j->json_path);
        lost = true;
    }
    json_decref(doc);
    free((char *)info.argv_joined);
    return lost;
}

int gv_cmd_judge(int argc, char **argv)
{
    judge_job j;
    memset(&j, 0, sizeof j);
    int rc = parse_args(argc, argv, &j);
    gv_judge_spec spec;
    gv_array ins[GV_MAX_TENSORS], outs[GV_MAX_TENSORS];
    if (rc < 0) rc = prepare(&j, &spec, ins, outs);
    if (rc >= 0) {
        judge_job_free(&j);
        return rc;
    }
    gv_result *r = calloc(1, sizeof *r);
    json_t *arrays = NULL;
    char err[1024];
    int jrc = r ? gv_judge_run(&spec, r, &arrays, err, sizeof err) : GV_ENOMEM;
    if (jrc != GV_OK) {
        gv_usage_error("%s", r ? err : "out of host memory");
        free(r);
        judge_job_free(&j);
        return jrc == GV_ENOMEM ? GV_EXIT_RUNTIME : GV_EXIT_USAGE;
    }
    gv_summary sum = {0};
    gv_summary_add(&sum, r);
    print_result(&j, r, &sum);
    bool lost = j.json_path && write_run(&j, argc, argv, r, &sum, arrays);
    json_decref(arrays);
    /* the device is not needed: a case judged is a case run */
    rc = gv_exit_code(sum.fail, sum.error, sum.pass, true, lost);
    free(r);
    judge_job_free(&j);
    return rc;
}
