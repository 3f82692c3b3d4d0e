/* replay.c: `gpuval replay DIR/CASE` — rerun a case dumped by `check --dump-failures` on its
 * dumped inputs (the same bits in), and say whether the verdict and the GPU's output bits are
 * the ones dumped. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/case_io.h"
#include "io/infile.h"
#include "cmd/cli.h"
#include "core/registry.h"
#include "cmd/replay.h"
#include "io/run_doc.h"
#include "render/run_text.h"
#include "io/run_read.h"

/* replay's options: its one table (a case directory is its argument). */
static const gv_opt replay_opts[] = {
    GV_CMD_OPT_WIDE,
    {.name = "help", .id = 'h'},
};
const gv_opt_table gv_replay_options = {"replay", replay_opts, GV_NOPTS(replay_opts)};

static const char replay_head[] =
    "usage: gpuval replay DIR/CASE\n"
    "\n"
    "Rerun a case that `gpuval check --dump-failures DIR` wrote: the op, dtype, mode, shape and\n"
    "seed from DIR/CASE/case.json, the inputs from its in_*.npy (bit for bit). Prints the case's\n"
    "row, whether the verdict is the dumped one, and for each output whether the GPU wrote the\n"
    "same bits as out_*.gpu.npy (or how many elements differ).\n";

static const gv_exit_line replay_exits[] = {
    {GV_EXIT_OK, "same verdict and bit-identical outputs"},
    {GV_EXIT_FAIL, "a different verdict or different bits"},
    {GV_EXIT_USAGE, "bad usage or a bad dump"},
    {GV_EXIT_NODEV, NULL},
};

static const gv_help replay_help = {.head = replay_head,
                                    .opts = &gv_replay_options,
                                    .col = 0,
                                    .exits = replay_exits,
                                    .n_exits = GV_NEXITS(replay_exits)};

static const char *jstr(json_t *doc, const char *key)
{
    return json_string_value(json_object_get(doc, key));
}

/* The case of case.json into c, its dumped verdict into *verdict and where its inputs came
   from into *inputs; -1 with a message. */
static int read_case(const char *path, json_t *doc, gv_case *c, gv_verdict *verdict,
                     gv_inputs *inputs)
{
    const char *schema = jstr(doc, "schema"), *op = jstr(doc, "op"), *dt = jstr(doc, "dtype"),
               *mode = jstr(doc, "mode"), *dist = jstr(doc, "dist"), *v = jstr(doc, "verdict");
    if (!schema || strcmp(schema, gv_schema(GV_DOC_CASE)) != 0) {
        gv_usage_error("%s: not a %s file (schema %s)", path, gv_schema(GV_DOC_CASE),
                       schema ? schema : "missing");
        return -1;
    }
    if (!op || !dt || !mode || !dist || !v) {
        gv_usage_error("%s: op, dtype, mode, dist and verdict must be strings", path);
        return -1;
    }
    memset(c, 0, sizeof *c);
    c->op = gv_op_find(op);
    if (!c->op) {
        gv_usage_error("%s: op '%s' is not in this build (gpuval list --all)", path, op);
        return -1;
    }
    if (gv_dtype_parse(dt, &c->dtype) != GV_OK || gv_mode_parse(mode, &c->mode) != GV_OK ||
        gv_dist_parse(dist, &c->dist) != GV_OK) {
        gv_usage_error("%s: unknown dtype '%s', mode '%s' or dist '%s'", path, dt, mode, dist);
        return -1;
    }
    /* a case the op cannot be is a damaged dump: refused here, before any device is looked
       for (it ran as a SKIP, exit 77, where there was none) */
    if (!(c->op->dtypes & (1u << c->dtype)) || !gv_mode_ok(c->op, c->dtype, c->mode) ||
        !(c->op->dists & (1u << c->dist))) {
        gv_usage_error("%s: %s has no case of dtype %s, mode %s and dist %s (gpuval list --all)",
                       path, c->op->name, dt, mode, dist);
        return -1;
    }
    int nv = -1;
    for (int k = GV_PASS; k <= GV_ERROR; k++)
        if (strcmp(v, gv_verdict_name((gv_verdict)k)) == 0) nv = k;
    if (nv < 0) {
        gv_usage_error("%s: unknown verdict '%s'", path, v);
        return -1;
    }
    *verdict = (gv_verdict)nv;
    json_t *shape = json_object_get(doc, "shape");
    int want = 1;
    for (const char *p = c->op->dims; *p; p++)
        want += *p == ',';
    if (!json_is_array(shape) || (int)json_array_size(shape) != want) {
        gv_usage_error("%s: shape must be an array of %d dims (%s)", path, want, c->op->dims);
        return -1;
    }
    c->shape.nd = want;
    for (int i = 0; i < want; i++) {
        json_t *d = json_array_get(shape, (size_t)i);
        if (!json_is_integer(d) || json_integer_value(d) < 1) {
            gv_usage_error("%s: shape's dims must be positive integers", path);
            return -1;
        }
        c->shape.d[i] = json_integer_value(d);
    }
    char why[GV_WHY_LEN];
    if (!gv_shape_ok(c->op, &c->shape, why, sizeof why)) {
        gv_usage_error("%s: %s", path, why);
        return -1;
    }
    json_t *seed = json_object_get(doc, "seed");
    char digits[32];
    if (json_is_integer(seed) && json_integer_value(seed) >= 0)
        snprintf(digits, sizeof digits, "%lld", (long long)json_integer_value(seed));
    else if (json_is_string(seed))
        snprintf(digits, sizeof digits, "%s", json_string_value(seed));
    else
        digits[0] = '\0';
    if (gv_cmd_parse_seed(digits, &c->seed) != 0) {
        gv_usage_error("%s: seed must be a non-negative integer or its decimal digits", path);
        return -1;
    }
    /* Where the dumped inputs came from, as check recorded it: "generated" (the run checks
       the claim against the generator's bits), else the --inputs files: given. A dump of
       declared inputs (check --inputs --prob-model) says so in its result's "inputs". */
    const char *from = jstr(doc, "inputs_from"),
               *as = jstr(json_object_get(doc, "result"), "inputs");
    *inputs = from && strcmp(from, "generated") == 0 ? GV_INPUTS_GENERATED : GV_INPUTS_GIVEN;
    if (*inputs == GV_INPUTS_GIVEN && as && strcmp(as, gv_inputs_name(GV_INPUTS_DECLARED)) == 0)
        *inputs = GV_INPUTS_DECLARED;
    return 0;
}

/* The dumped file dir/NAME as an array of the case's dtype and count; -1 with a message. */
static int load_tensor(const char *dir, const char *file, const gv_case *c, int64_t count,
                       gv_npy *a)
{
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (gv_npy_read(path, a, err, sizeof err) != GV_OK) {
        gv_usage_error("%s", err);
        return -1;
    }
    gv_npy_type want = c->dtype == GV_F32 ? GV_NPY_F32 : GV_NPY_F64;
    if (a->type != want || a->count != count) {
        gv_usage_error("%s: %lld elements of %s, the case needs %lld of %s", path,
                       (long long)a->count, gv_npy_type_name(a->type), (long long)count,
                       gv_npy_type_name(want));
        gv_npy_free(a);
        return -1;
    }
    return 0;
}

/* Elements of two dtype buffers whose bits differ; the first such index into *first. */
static int64_t differing(const void *a, const void *b, int64_t n, size_t es, int64_t *first)
{
    int64_t diff = 0;
    *first = -1;
    for (int64_t i = 0; i < n; i++)
        if (memcmp((const char *)a + (size_t)i * es, (const char *)b + (size_t)i * es, es) != 0) {
            if (diff++ == 0) *first = i;
        }
    return diff;
}

/* What a case directory holds: the case, its dumped verdict and inputs' origin, its layout,
   the inputs and the GPU's outputs that were dumped (a case that stopped before the device ran
   has none). */
typedef struct dumped_case {
    gv_case c;
    gv_verdict verdict;
    gv_inputs inputs;
    gv_layout l;
    gv_npy in[GV_MAX_TENSORS], gpu[GV_MAX_TENSORS];
    bool have_gpu[GV_MAX_TENSORS];
    int n_in; /* inputs loaded */
} dumped_case;

static void dump_free(dumped_case *d)
{
    for (int i = 0; i < d->n_in; i++)
        gv_npy_free(&d->in[i]);
    for (int i = 0; i < d->l.n_out; i++)
        if (d->have_gpu[i]) gv_npy_free(&d->gpu[i]);
}

/* DIR/case.json and its tensors into d; -1 with a message (what was loaded is freed). */
static int load_dump(const char *dir, dumped_case *d)
{
    memset(d, 0, sizeof *d);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        gv_usage_error("replay %s: not a case directory", dir);
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/case.json", dir);
    const char *const schemas[] = {gv_schema(GV_DOC_CASE), NULL};
    char err[1024];
    json_t *doc;
    if (gv_run_read(path, schemas, &doc, err, sizeof err) != GV_OK) { /* the strict reader */
        gv_usage_error("%s", err);
        return -1;
    }
    int rc = read_case(path, doc, &d->c, &d->verdict, &d->inputs);
    json_decref(doc);
    if (rc != 0) return -1;
    if (d->c.op->layout(&d->c, &d->l) != GV_OK || d->l.n_in > GV_MAX_TENSORS ||
        d->l.n_out > GV_MAX_TENSORS) {
        memset(&d->l, 0, sizeof d->l);
        gv_usage_error("%s: the case has no layout", path);
        return -1;
    }
    for (; d->n_in < d->l.n_in; d->n_in++) {
        char file[128];
        snprintf(file, sizeof file, "in_%s.npy", d->l.in[d->n_in].name);
        if (load_tensor(dir, file, &d->c, d->l.in[d->n_in].count, &d->in[d->n_in]) != 0) {
            dump_free(d);
            return -1;
        }
    }
    for (int i = 0; i < d->l.n_out; i++) {
        char file[128], p2[4096];
        snprintf(file, sizeof file, "out_%s.gpu.npy", d->l.out[i].name);
        snprintf(p2, sizeof p2, "%s/%s", dir, file);
        if (stat(p2, &st) != 0) continue; /* a case that stopped before the device ran */
        if (load_tensor(dir, file, &d->c, d->l.out[i].count, &d->gpu[i]) != 0) {
            dump_free(d);
            return -1;
        }
        d->have_gpu[i] = true;
    }
    return 0;
}

/* One line per output: bit-identical to the dump, how many elements differ, or why it was not
   compared. False when one differs. */
static bool same_outputs(const dumped_case *d, const gv_problem *p, bool ran)
{
    bool same = true;
    for (int i = 0; i < d->l.n_out; i++) {
        const char *name = d->l.out[i].name;
        if (!d->have_gpu[i] || !ran) {
            printf("output %s: not compared (%s)\n", name,
                   !d->have_gpu[i] ? "no dumped GPU output" : "the device did not run");
            continue;
        }
        int64_t first, count = d->l.out[i].count;
        int64_t diff =
            differing(p->out[i].data, d->gpu[i].data, count, gv_dtype_size(d->c.dtype), &first);
        if (diff == 0)
            printf("output %s: bit-identical to the dump (%lld elements)\n", name,
                   (long long)count);
        else {
            printf("output %s: %lld of %lld elements differ from the dump (first at %lld)\n", name,
                   (long long)diff, (long long)count, (long long)first);
            same = false;
        }
    }
    return same;
}

int gv_cmd_replay(int argc, char **argv)
{
    gv_getopt g;
    gv_cmd_getopt_init(&g, &gv_replay_options);
    int ch;
    bool wide = false;
    while ((ch = gv_cmd_getopt_next(&g, argc, argv)) != -1) {
        if (ch == 'h') {
            gv_cmd_help_print(stdout, &replay_help);
            return GV_EXIT_OK;
        }
        if (ch == 'w') {
            wide = true;
            continue;
        }
        gv_cmd_bad_option("replay", argv);
        return GV_EXIT_USAGE;
    }
    if (argc - optind != 1) {
        gv_cmd_usage_cmd("replay", "replay takes one case directory (DIR/CASE written by check "
                                   "--dump-failures)");
        return GV_EXIT_USAGE;
    }
    dumped_case d;
    if (load_dump(argv[optind], &d) != 0) return GV_EXIT_USAGE;
    const gv_case *c = &d.c;

    gv_run_info info;
    gv_cmd_run_start(&info, "replay", argc, argv);
    free((char *)info.argv_joined);
    gv_given_inputs given;
    gv_inputs_given(d.in, d.n_in, d.inputs, &given);
    gv_result r;
    gv_problem p;
    gv_run_case_io(c, &r, &given, &p);
    gv_table_header(stdout);
    gv_table_row_fit(stdout, &r, wide || !isatty(STDOUT_FILENO) ? 0 : GV_ROW_COLS);
    if (r.inputs != d.inputs && !c->op->user_inputs) /* a user's make_inputs: given anyway */
        printf("inputs: case.json says %s, but the dumped inputs are not the generator's bits for "
               "this case: judged as %s inputs\n",
               gv_inputs_name(d.inputs), gv_inputs_name(r.inputs));
    bool same = r.verdict == d.verdict;
    printf("verdict: %s, dumped %s: %s\n", gv_verdict_name(r.verdict), gv_verdict_name(d.verdict),
           same ? "the same" : "DIFFERENT");
    bool ran = p.l.n_out > 0 && (r.verdict == GV_PASS || r.verdict == GV_FAIL);
    same = same_outputs(&d, &p, ran) && same;
    gv_problem_free(&p);
    int rc;
    if (r.verdict == GV_SKIP && !info.have_device)
        rc = GV_EXIT_NODEV;
    else
        rc = same ? GV_EXIT_OK : GV_EXIT_FAIL;
    dump_free(&d);
    return rc;
}
