/* fixtures.c: gpuval-fixtures — writes and checks fixtures/, small known-answer cases as .npy
 * files with a manifest (manifest.tsv: file, op, role, dtype, shape, order, seed, SHA-256),
 * and fixtures/bad/, deliberately broken files for the readers' error paths.
 *
 *   gpuval-fixtures gen DIR      write the .npy files, DIR/manifest.tsv and DIR/bad/
 *   gpuval-fixtures verify DIR   check every file of DIR/manifest.tsv: its SHA-256, its
 *                                header against the row, its bits against a fresh
 *                                regeneration, and each case against its closed form
 *                                through the f64 oracle
 *
 * The known answers are closed forms, exact in f32 and f64: vadd of arithmetic sequences
 * (i + (2i + 1/2) = 3i + 1/2), a gemm whose product is (i+1)(j+1) k(k+1)/2, the sum of 1..n. One
 * case holds generated inputs (seed 42): its checksum pins the generator's bits.
 * Exit: 0 all good, 2 a file is missing, malformed, or not what the manifest says. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../oracle/go.h"
#include "core/gen.h"
#include "io/npy.h"
#include "io/outfile.h"
#include "io/sha256.h"

#define MAX_ELEMS 256

/* One fixture file: its content is a pure function of (fill, dims). */
typedef enum fill_kind {
    FILL_SEQ,      /* x_i = i */
    FILL_SEQ2,     /* x_i = 2i + 1/2 */
    FILL_SEQ3,     /* x_i = 3i + 1/2: SEQ + SEQ2 */
    FILL_ROWNUM,   /* A[i][p] = i + 1 */
    FILL_OUTER,    /* B[p][j] = (p + 1)(j + 1) */
    FILL_GEMM_ANS, /* C[i][j] = (i + 1)(j + 1) k(k + 1)/2, k = the case's inner dim */
    FILL_ONE_TO_N, /* x_i = i + 1 */
    FILL_SUM_ANS,  /* n(n + 1)/2 */
    FILL_GEN       /* gv_gen_fill(uniform11, seed 42, tensor t) */
} fill_kind;

typedef struct fixture {
    const char *file, *op, *role;
    gv_npy_type type;
    int nd;
    int64_t shape[2];
    bool fortran;
    fill_kind fill;
    int64_t k;  /* FILL_GEMM_ANS: the inner dim */
    int tensor; /* FILL_GEN: the tensor index */
} fixture;

static const fixture fixtures[] = {
    {"vadd_f32_a.npy", "vadd", "input", GV_NPY_F32, 1, {33}, false, FILL_SEQ, 0, 0},
    {"vadd_f32_b.npy", "vadd", "input", GV_NPY_F32, 1, {33}, false, FILL_SEQ2, 0, 0},
    {"vadd_f32_c.npy", "vadd", "expected", GV_NPY_F32, 1, {33}, false, FILL_SEQ3, 0, 0},
    {"vadd_f64_a.npy", "vadd", "input", GV_NPY_F64, 1, {33}, false, FILL_SEQ, 0, 0},
    {"vadd_f64_b.npy", "vadd", "input", GV_NPY_F64, 1, {33}, false, FILL_SEQ2, 0, 0},
    {"vadd_f64_c.npy", "vadd", "expected", GV_NPY_F64, 1, {33}, false, FILL_SEQ3, 0, 0},
    {"gemm_f64_A.npy", "gemm", "input", GV_NPY_F64, 2, {4, 5}, true, FILL_ROWNUM, 0, 0},
    {"gemm_f64_B.npy", "gemm", "input", GV_NPY_F64, 2, {5, 3}, false, FILL_OUTER, 0, 0},
    {"gemm_f64_C.npy", "gemm", "expected", GV_NPY_F64, 2, {4, 3}, false, FILL_GEMM_ANS, 5, 0},
    {"gemm_f32_A.npy", "gemm", "input", GV_NPY_F32, 2, {8, 16}, false, FILL_ROWNUM, 0, 0},
    {"gemm_f32_B.npy", "gemm", "input", GV_NPY_F32, 2, {16, 4}, true, FILL_OUTER, 0, 0},
    {"gemm_f32_C.npy", "gemm", "expected", GV_NPY_F32, 2, {8, 4}, false, FILL_GEMM_ANS, 16, 0},
    {"reduce_sum_f64_x.npy",
     "reduce.sum",
     "input",
     GV_NPY_F64,
     1,
     {100},
     false,
     FILL_ONE_TO_N,
     0,
     0},
    {"reduce_sum_f64_s.npy",
     "reduce.sum",
     "expected",
     GV_NPY_F64,
     1,
     {1},
     false,
     FILL_SUM_ANS,
     100,
     0},
    {"gen_vadd_f64_a.npy", "vadd", "input", GV_NPY_F64, 1, {16}, false, FILL_GEN, 0, 0},
    {"gen_vadd_f64_b.npy", "vadd", "input", GV_NPY_F64, 1, {16}, false, FILL_GEN, 0, 1},
};
#define N_FIXTURES (int)(sizeof fixtures / sizeof fixtures[0])
#define GEN_SEED   42

static int64_t count_of(const fixture *f)
{
    int64_t n = 1;
    for (int i = 0; i < f->nd; i++)
        n *= f->shape[i];
    return n;
}

/* Element (i, j) (row-major index r) of a fixture, in f64. */
static double value(const fixture *f, int64_t r, const double *gen)
{
    int64_t cols = f->nd == 2 ? f->shape[1] : 1;
    int64_t i = r / cols, j = r % cols;
    switch (f->fill) {
    case FILL_SEQ: return (double)r;
    case FILL_SEQ2: return 2.0 * (double)r + 0.5;
    case FILL_SEQ3: return 3.0 * (double)r + 0.5;
    case FILL_ROWNUM: return (double)(i + 1);
    case FILL_OUTER: return (double)((i + 1) * (j + 1));
    case FILL_GEMM_ANS: return (double)((i + 1) * (j + 1) * f->k * (f->k + 1) / 2);
    case FILL_ONE_TO_N: return (double)(r + 1);
    case FILL_SUM_ANS: return (double)(f->k * (f->k + 1) / 2);
    case FILL_GEN: return gen[r];
    }
    return NAN;
}

/* The fixture's content as it goes in the file (Fortran order when the file is), f64 values
   stored in the file's type; its row-major f64 values in vals (may be NULL). */
static void build(const fixture *f, void *bytes, double *vals)
{
    int64_t n = count_of(f);
    double gen[MAX_ELEMS], rowmajor[MAX_ELEMS];
    if (f->fill == FILL_GEN)
        gv_gen_fill(gen, n, GV_DIST_UNIFORM11, f->type == GV_NPY_F32 ? GV_F32 : GV_F64, GEN_SEED,
                    (uint64_t)f->tensor);
    for (int64_t r = 0; r < n; r++)
        rowmajor[r] = value(f, r, gen);
    if (vals) memcpy(vals, rowmajor, (size_t)n * sizeof(double));
    int64_t rows = f->nd == 2 ? f->shape[0] : n, cols = f->nd == 2 ? f->shape[1] : 1;
    for (int64_t r = 0; r < n; r++) {
        int64_t i = r / cols, j = r % cols;
        int64_t at = f->fortran ? j * rows + i : r;
        if (f->type == GV_NPY_F32) {
            float v = (float)rowmajor[r];
            memcpy((char *)bytes + at * 4, &v, 4);
        } else {
            memcpy((char *)bytes + at * 8, &rowmajor[r], 8);
        }
    }
}

static void shape_text(const fixture *f, char *buf, size_t len)
{
    if (f->nd == 1)
        snprintf(buf, len, "%" PRId64, f->shape[0]);
    else
        snprintf(buf, len, "%" PRId64 "x%" PRId64, f->shape[0], f->shape[1]);
}

/* ---- fixtures/bad: each file one fault ---------------------------------------------------- */

typedef struct bad_file {
    const char *file, *fault; /* fault: what the reader's message must name */
    int version;              /* 0: raw bytes follow in header as given */
    const char *header;
    uint32_t header_len_field; /* 0: the header's own length */
    int64_t data_bytes;
    const char *magic;
} bad_file;

static const bad_file bad_files[] = {
    {"bad_magic.npy", "bad magic", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (10,), }",
     0, 40, "\x93NUMPX"},
    {"bad_version.npy", "unsupported .npy version", 9,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (10,), }", 0, 40, NULL},
    {"truncated_data.npy", "truncated data", 1,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (10,), }", 0, 20, NULL},
    {"shape_lies.npy", "trailing bytes", 1,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 0, 40, NULL},
    {"count_overflow.npy", "element count overflows", 1,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", 0, 16, NULL},
    {"bytes_overflow.npy", "byte count overflows", 1,
     "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }", 0, 16, NULL},
    {"unsupported_dtype.npy", "unsupported dtype '<i4'", 1,
     "{'descr': '<i4', 'fortran_order': False, 'shape': (10,), }", 0, 40, NULL},
    {"big_endian.npy", "big-endian dtype '>f4'", 1,
     "{'descr': '>f4', 'fortran_order': False, 'shape': (10,), }", 0, 40, NULL},
    {"f16_no_storage.npy", "dtype f16", 1,
     "{'descr': '<f2', 'fortran_order': False, 'shape': (10,), }", 0, 20, NULL},
    {"header_1gb.npy", "header length 1073741824", 2,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (10,), }", 1u << 30, 40, NULL},
    {"malformed_header.npy", "missing key 'shape'", 1, "{'descr': '<f4', 'fortran_order': False, }",
     0, 40, NULL},
};
#define N_BAD (int)(sizeof bad_files / sizeof bad_files[0])
/* A valid file whose manifest row (bad/manifest.tsv) carries a wrong checksum. */
#define CHECKSUM_FILE  "checksum_mismatch.npy"
#define CHECKSUM_FAULT "checksum mismatch"

static int emit_bad(FILE *f, void *ctx)
{
    const bad_file *b = ctx;
    size_t pre = b->version == 1 ? 10 : 12;
    size_t n = strlen(b->header);
    size_t hlen = (pre + n + 1 + 63) / 64 * 64 - pre;
    unsigned char head[12];
    memcpy(head, b->magic ? b->magic : "\x93NUMPY", 6);
    head[6] = (unsigned char)b->version;
    head[7] = 0;
    uint32_t field = b->header_len_field ? b->header_len_field : (uint32_t)hlen;
    for (size_t i = 0; i < pre - 8; i++)
        head[8 + i] = (unsigned char)(field >> (8 * i));
    if (fwrite(head, 1, pre, f) != pre || fwrite(b->header, 1, n, f) != n) return -1;
    for (size_t i = n; i + 1 < hlen; i++)
        fputc(' ', f);
    fputc('\n', f);
    for (int64_t i = 0; i < b->data_bytes; i++)
        fputc((int)(i * 37 & 0xff), f);
    return ferror(f) ? -1 : 0;
}

/* ---- manifest ----------------------------------------------------------------------------- */

typedef struct emit_ctx {
    const char *dir;
    bool bad;
} emit_ctx;

static int emit_manifest(FILE *out, void *ctx)
{
    const emit_ctx *e = ctx;
    fprintf(out, "# file\top\trole\tdtype\tshape\torder\tseed\tsha256\n");
    if (e->bad) {
        fprintf(out, "%s\tvadd\tinput\tf32\t33\tC\t0\t%064d\n", CHECKSUM_FILE, 0);
        return ferror(out) ? -1 : 0;
    }
    for (int i = 0; i < N_FIXTURES; i++) {
        const fixture *f = &fixtures[i];
        char path[4096], hex[65], shape[64];
        snprintf(path, sizeof path, "%s/%s", e->dir, f->file);
        if (gv_sha256_file(path, hex) != 0) return -1;
        shape_text(f, shape, sizeof shape);
        fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", f->file, f->op, f->role,
                gv_npy_type_name(f->type), shape, f->fortran ? "F" : "C",
                f->fill == FILL_GEN ? GEN_SEED : 0, hex);
    }
    return ferror(out) ? -1 : 0;
}

static int emit_faults(FILE *out, void *ctx)
{
    (void)ctx;
    fprintf(out, "# file\tthe fault its reader must name\n");
    for (int i = 0; i < N_BAD; i++)
        fprintf(out, "%s\t%s\n", bad_files[i].file, bad_files[i].fault);
    fprintf(out, "%s\t%s\n", CHECKSUM_FILE, CHECKSUM_FAULT);
    return ferror(out) ? -1 : 0;
}

static int fail_io(const char *path)
{
    fprintf(stderr, "gpuval-fixtures: %s: %s\n", path, strerror(errno));
    return 3;
}

static int cmd_gen(const char *dir)
{
    char path[4096];
    unsigned char bytes[MAX_ELEMS * 8];
    for (int i = 0; i < N_FIXTURES; i++) {
        const fixture *f = &fixtures[i];
        build(f, bytes, NULL);
        snprintf(path, sizeof path, "%s/%s", dir, f->file);
        if (gv_npy_write_order(path, f->type, f->nd, f->shape, bytes, f->fortran) != 0)
            return fail_io(path);
    }
    emit_ctx e = {dir, false};
    snprintf(path, sizeof path, "%s/manifest.tsv", dir);
    if (gv_write_file(path, emit_manifest, &e) != 0) return fail_io(path);
    snprintf(path, sizeof path, "%s/bad", dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return fail_io(path);
    for (int i = 0; i < N_BAD; i++) {
        snprintf(path, sizeof path, "%s/bad/%s", dir, bad_files[i].file);
        if (gv_write_file(path, emit_bad, (void *)&bad_files[i]) != 0) return fail_io(path);
    }
    const fixture *valid = &fixtures[0]; /* vadd_f32_a's content, under a wrong checksum */
    build(valid, bytes, NULL);
    snprintf(path, sizeof path, "%s/bad/%s", dir, CHECKSUM_FILE);
    if (gv_npy_write(path, valid->type, valid->nd, valid->shape, bytes) != 0) return fail_io(path);
    e.bad = true;
    snprintf(path, sizeof path, "%s/bad/manifest.tsv", dir);
    if (gv_write_file(path, emit_manifest, &e) != 0) return fail_io(path);
    snprintf(path, sizeof path, "%s/bad/faults.tsv", dir);
    if (gv_write_file(path, emit_faults, NULL) != 0) return fail_io(path);
    return 0;
}

/* ---- verify ------------------------------------------------------------------------------- */

static int bad(const char *path, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "gpuval-fixtures: %s: ", path);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return 2;
}

static const fixture *find_fixture(const char *file)
{
    for (int i = 0; i < N_FIXTURES; i++)
        if (strcmp(fixtures[i].file, file) == 0) return &fixtures[i];
    return NULL;
}

/* One manifest row: checksum first (a file that is not what the manifest says is not read
   further), then the header against the row, then the bits against a regeneration. */
static int verify_row(const char *dir, char *line, double *vals_out, const fixture **which)
{
    char *field[8], *save = NULL;
    int nf = 0;
    for (char *t = strtok_r(line, "\t\n", &save); t && nf < 8; t = strtok_r(NULL, "\t\n", &save))
        field[nf++] = t;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, nf > 0 ? field[0] : "?");
    if (nf != 8)
        return bad(path, "manifest row has %s fields, not 8%s", nf < 8 ? "too few" : "too many",
                   "");
    char hex[65];
    if (gv_sha256_file(path, hex) != 0) return bad(path, "cannot read: %s%s", strerror(errno), "");
    if (strcmp(hex, field[7]) != 0)
        return bad(path, CHECKSUM_FAULT ": the manifest says %s, the file's SHA-256 is %s",
                   field[7], hex);
    gv_npy a;
    char err[512];
    if (gv_npy_read(path, &a, err, sizeof err) != 0) {
        fprintf(stderr, "gpuval-fixtures: %s\n", err);
        return 2;
    }
    const fixture *f = find_fixture(field[0]);
    char shape[64];
    int rc = 0;
    if (!f) {
        rc = bad(path, "not a fixture this program knows (%s%s)", field[0], "");
        goto out;
    }
    shape_text(f, shape, sizeof shape);
    if (strcmp(field[3], gv_npy_type_name(a.type)) != 0 || a.type != f->type ||
        strcmp(field[4], shape) != 0 || a.nd != f->nd || a.shape[0] != f->shape[0] ||
        (f->nd == 2 && a.shape[1] != f->shape[1]) || a.fortran_order != f->fortran ||
        strcmp(field[5], f->fortran ? "F" : "C") != 0) {
        rc = bad(path, "header (dtype, shape, order) differs from the manifest row (%s %s)",
                 field[3], field[4]);
        goto out;
    }
    unsigned char bytes[MAX_ELEMS * 8];
    build(f, bytes, vals_out);
    /* a's data is row-major: compare values, exactly, with the regeneration */
    for (int64_t r = 0; r < a.count; r++)
        if (!(gv_npy_load(a.type, a.data, r) == vals_out[r])) {
            rc = bad(path, "element differs from its regeneration%s%s", "", "");
            goto out;
        }
    *which = f;
out:
    gv_npy_free(&a);
    return rc;
}

/* The closed forms through the f64 oracle: the oracle on the inputs gives the expected file. */
static int check_cases(const char *dir, double vals[][MAX_ELEMS], const fixture **which, int n)
{
    double got[MAX_ELEMS];
    for (int i = 0; i < n; i++) {
        const fixture *f = which[i];
        if (!f || strcmp(f->role, "expected") != 0) continue;
        /* the inputs are the rows before it with the same op, in order */
        const double *in[2] = {NULL, NULL};
        const fixture *fin[2] = {NULL, NULL};
        int k = 0;
        for (int j = i - 1; j >= 0 && k < 2 && which[j] && strcmp(which[j]->role, "input") == 0 &&
                            strcmp(which[j]->op, f->op) == 0;
             j--) {
            fin[1 - k] = which[j];
            in[1 - k] = vals[j];
            k++;
        }
        int rc = -1;
        int64_t cnt = count_of(f);
        if (strcmp(f->op, "vadd") == 0 && k == 2)
            rc = go_vadd(cnt, in[0], in[1], got);
        else if (strcmp(f->op, "gemm") == 0 && k == 2)
            rc = go_gemm(fin[0]->shape[0], fin[0]->shape[1], fin[1]->shape[1], in[0],
                         fin[0]->shape[1], in[1], fin[1]->shape[1], got, fin[1]->shape[1]);
        else if (strcmp(f->op, "reduce.sum") == 0 && k >= 1)
            rc = go_reduce_sum(count_of(fin[1]), in[1], got);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, f->file);
        if (rc != 0) return bad(path, "no oracle case for op %s%s", f->op, "");
        for (int64_t r = 0; r < cnt; r++)
            if (!(got[r] == vals[i][r]))
                return bad(path, "the oracle on the inputs differs from the closed form%s%s", "",
                           "");
    }
    return 0;
}

static int cmd_verify(const char *dir)
{
    char path[4096], line[1024];
    snprintf(path, sizeof path, "%s/manifest.tsv", dir);
    FILE *m = fopen(path, "r");
    if (!m) return bad(path, "cannot open the manifest: %s%s", strerror(errno), "");
    static double vals[64][MAX_ELEMS];
    const fixture *which[64] = {NULL};
    int n = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, m)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (n == 64) {
            rc = bad(path, "more than 64 rows%s%s", "", "");
            break;
        }
        rc = verify_row(dir, line, vals[n], &which[n]);
        n++;
    }
    fclose(m);
    if (rc == 0) rc = check_cases(dir, vals, which, n);
    if (rc == 0) printf("%s: %d files verified (checksums, headers, bits, closed forms)\n", dir, n);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "gen") == 0) return cmd_gen(argv[2]);
    if (argc == 3 && strcmp(argv[1], "verify") == 0) return cmd_verify(argv[2]);
    fprintf(stderr, "usage: gpuval-fixtures gen DIR | verify DIR\n");
    return 2;
}
