/* npy.c: the .npy reader and writer (npy.h). The format (numpy.lib.format): the magic
 * "\x93NUMPY", a major and a minor version byte, the header length (2 bytes little-endian in
 * 1.0, 4 bytes in 2.0 and 3.0), then the header, a Python dict literal
 * {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with spaces and ended by
 * '\n', then the data. The header is parsed by a small recursive-descent reader that accepts
 * exactly the dicts NumPy writes (and other spacing): three keys, each once. */
#include "io/npy.h"
#include "io/infile.h"

#include <assert.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/gv.h"
#include "io/outfile.h"

static const struct {
    const char *name, *descr;
    size_t bytes;
} type_table[GV_NPY_NTYPES] = {
    [GV_NPY_F32] = {"f32", "<f4", 4},
    [GV_NPY_F64] = {"f64", "<f8", 8},
    [GV_NPY_F16] = {"f16", "<f2", 2},
    [GV_NPY_BF16] = {"bf16", "<V2", 2},
    [GV_NPY_C64] = {"c64", "<c8", 8},
    [GV_NPY_C128] = {"c128", "<c16", 16},
    [GV_NPY_U8] = {"u8", "|u1", 1},
    [GV_NPY_U16] = {"u16", "<u2", 2},
};

static int fault(char *err, size_t len, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

const char *gv_npy_type_name(gv_npy_type t)
{
    return type_table[t].name;
}
const char *gv_npy_descr(gv_npy_type t)
{
    return type_table[t].descr;
}
size_t gv_npy_type_size(gv_npy_type t)
{
    return type_table[t].bytes;
}
bool gv_npy_type_complex(gv_npy_type t)
{
    return t == GV_NPY_C64 || t == GV_NPY_C128;
}
gv_npy_type gv_npy_component(gv_npy_type t)
{
    return t == GV_NPY_C64 ? GV_NPY_F32 : t == GV_NPY_C128 ? GV_NPY_F64 : t;
}

int gv_npy_complex_view(const char *name, gv_npy *a, char *err, size_t errlen)
{
    if (!gv_npy_type_complex(a->type)) return GV_OK;
    if (a->nd >= GV_NPY_MAX_DIMS)
        return fault(err, errlen, name,
                     "a complex array of %d dims has no room for its (re, im) dim (at most %d)",
                     a->nd, GV_NPY_MAX_DIMS - 1);
    a->type = gv_npy_component(a->type);
    a->complex_view = true;
    a->shape[a->nd++] = 2;
    a->count *= 2;
    return GV_OK;
}

/* IEEE binary16 to f64, exactly (subnormals, infinities and NaN payloads kept). */
static double half_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp((double)frac, -24);
    else if (exp == 31)
        v = frac ? NAN : INFINITY;
    else
        v = ldexp((double)(frac | 0x400), exp - 25);
    return sign ? -v : v;
}

double gv_npy_load(gv_npy_type t, const void *data, int64_t i)
{
    const char *p = (const char *)data;
    switch (gv_npy_component(t)) {
    case GV_NPY_F32: {
        float v;
        memcpy(&v, p + (size_t)i * 4, 4);
        return v;
    }
    case GV_NPY_F64: {
        double v;
        memcpy(&v, p + (size_t)i * 8, 8);
        return v;
    }
    case GV_NPY_F16: {
        uint16_t h;
        memcpy(&h, p + (size_t)i * 2, 2);
        return half_to_double(h);
    }
    case GV_NPY_BF16: {
        uint16_t h;
        memcpy(&h, p + (size_t)i * 2, 2);
        uint32_t bits = (uint32_t)h << 16;
        float v;
        memcpy(&v, &bits, 4);
        return v;
    }
    case GV_NPY_U8: return ((const unsigned char *)p)[i];
    case GV_NPY_U16: {
        uint16_t h;
        memcpy(&h, p + (size_t)i * 2, 2);
        return h;
    }
    default: return NAN;
    }
}

static int fault(char *err, size_t len, const char *name, const char *fmt, ...)
{
    int used = snprintf(err, len, "%s: ", name);
    if (used < 0 || (size_t)used >= len) return GV_EINVAL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + used, len - (size_t)used, fmt, ap);
    va_end(ap);
    return GV_EINVAL;
}

/* ---- the preamble: magic, version, header length ----------------------------------------- */

/* From the first bytes of a file (len of them available): the version and the header's length
   and offset. GV_OK or GV_EINVAL with the fault. */
static int parse_preamble(const char *name, const unsigned char *b, size_t len, int *version,
                          uint32_t *hlen, size_t *hstart, char *err, size_t errlen)
{
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (len < 6 || memcmp(b, magic, 6) != 0)
        return fault(err, errlen, name,
                     "bad magic: not a .npy file (it must start with the byte 0x93 and NUMPY)");
    if (len < 8) return fault(err, errlen, name, "truncated: the file ends inside the version");
    if (b[6] < 1 || b[6] > 3 || b[7] != 0)
        return fault(err, errlen, name,
                     "unsupported .npy version %d.%d (gpuval reads 1.0, 2.0, 3.0)", b[6], b[7]);
    *version = b[6];
    size_t field = *version == 1 ? 2 : 4;
    if (len < 8 + field)
        return fault(err, errlen, name, "truncated: the file ends inside the header length");
    *hlen = *version == 1 ? (uint32_t)(b[8] | b[9] << 8)
                          : (uint32_t)b[8] | (uint32_t)b[9] << 8 | (uint32_t)b[10] << 16 |
                                (uint32_t)b[11] << 24;
    *hstart = 8 + field;
    if (*hlen > GV_NPY_MAX_HEADER)
        return fault(err, errlen, name,
                     "header length %" PRIu32 " bytes exceeds the %d gpuval reads (a corrupt or "
                     "hostile length field)",
                     *hlen, GV_NPY_MAX_HEADER);
    return GV_OK;
}

/* ---- the header dict ---------------------------------------------------------------------- */

typedef struct cursor {
    const char *p, *end;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool eat(cursor *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

/* A quoted string without escapes into out[len]; false if malformed or too long. */
static bool parse_string(cursor *c, char *out, size_t len)
{
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return false;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || n + 1 >= len) return false;
        out[n++] = *c->p++;
    }
    if (c->p >= c->end) return false;
    c->p++;
    out[n] = '\0';
    return true;
}

static bool parse_word(cursor *c, const char *w)
{
    skip_ws(c);
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0) return false;
    c->p += n;
    return true;
}

/* (d0, d1, ...) of non-negative int64 dims; 1 ok, 0 malformed, -1 a dim too large, -2 too many
   dims, -3 a one-element tuple without its comma. */
static int parse_shape(cursor *c, gv_npy *a)
{
    if (!eat(c, '(')) return 0;
    a->nd = 0;
    bool comma_after_last = false;
    for (;;) {
        skip_ws(c);
        if (c->p < c->end && *c->p == ')') {
            c->p++;
            break;
        }
        if (c->p >= c->end || *c->p < '0' || *c->p > '9') return 0;
        int64_t v = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            int d = *c->p++ - '0';
            if (v > (INT64_MAX - d) / 10) return -1;
            v = v * 10 + d;
        }
        if (a->nd == GV_NPY_MAX_DIMS) return -2;
        a->shape[a->nd++] = v;
        comma_after_last = eat(c, ',');
        if (!comma_after_last) {
            if (!eat(c, ')')) return 0;
            break;
        }
    }
    if (a->nd == 1 && !comma_after_last) return -3;
    return 1;
}

static int parse_descr(const char *name, const char *d, gv_npy *a, char *err, size_t errlen)
{
    for (int t = 0; t < GV_NPY_NTYPES; t++)
        if (strcmp(d, type_table[t].descr) == 0) {
            a->type = (gv_npy_type)t;
            return GV_OK;
        }
    if (strcmp(d, "|V2") == 0) {
        a->type = GV_NPY_BF16;
        return GV_OK;
    }
    if (strcmp(d, "|V1") == 0 || strcmp(d, "<u1") == 0) { /* fp8 codes (ml_dtypes), bytes */
        a->type = GV_NPY_U8;
        return GV_OK;
    }
    if (d[0] == '>' &&
        (strcmp(d + 1, "f2") == 0 || strcmp(d + 1, "f4") == 0 || strcmp(d + 1, "f8") == 0 ||
         strcmp(d + 1, "V2") == 0 || strcmp(d + 1, "c8") == 0 || strcmp(d + 1, "c16") == 0 ||
         strcmp(d + 1, "u2") == 0))
        return fault(err, errlen, name,
                     "big-endian dtype '%s' is not supported (save it little-endian: "
                     "a.astype('<%s'))",
                     d, d + 1);
    return fault(err, errlen, name,
                 "unsupported dtype '%s' (gpuval reads <f4, <f8, <f2, <V2 or |V2 as bfloat16, "
                 "complex <c8 and <c16, and raw bits |u1, |V1, <u2 of a declared --dtype)",
                 d);
}

/* The header text h[0..hlen) into a's type, order and shape. */
static int parse_header(const char *name, const char *h, size_t hlen, gv_npy *a, char *err,
                        size_t errlen)
{
    if (hlen == 0 || h[hlen - 1] != '\n')
        return fault(err, errlen, name, "malformed header: it does not end with a newline");
    for (size_t i = 0; i < hlen; i++)
        if (h[i] == '\0') return fault(err, errlen, name, "malformed header: a NUL byte in it");
    cursor c = {h, h + hlen};
    if (!eat(&c, '{')) return fault(err, errlen, name, "malformed header: not a dict");
    bool seen_descr = false, seen_order = false, seen_shape = false;
    for (;;) {
        if (eat(&c, '}')) break;
        char key[32], val[64];
        if (!parse_string(&c, key, sizeof key) || !eat(&c, ':'))
            return fault(err, errlen, name, "malformed header: expected 'key': value");
        if (strcmp(key, "descr") == 0 && !seen_descr) {
            seen_descr = true;
            if (!parse_string(&c, val, sizeof val))
                return fault(err, errlen, name,
                             "unsupported dtype: descr is not a simple type string (a structured "
                             "or record dtype)");
            int rc = parse_descr(name, val, a, err, errlen);
            if (rc != GV_OK) return rc;
        } else if (strcmp(key, "fortran_order") == 0 && !seen_order) {
            seen_order = true;
            if (parse_word(&c, "True"))
                a->fortran_order = true;
            else if (parse_word(&c, "False"))
                a->fortran_order = false;
            else
                return fault(err, errlen, name,
                             "malformed header: fortran_order is not True or False");
        } else if (strcmp(key, "shape") == 0 && !seen_shape) {
            seen_shape = true;
            int rc = parse_shape(&c, a);
            if (rc == -1) return fault(err, errlen, name, "shape has a dim larger than 2^63-1");
            if (rc == -2)
                return fault(err, errlen, name, "shape has more than %d dims", GV_NPY_MAX_DIMS);
            if (rc == -3)
                return fault(err, errlen, name,
                             "malformed header: shape (%" PRId64 ") is not a tuple (write (%" PRId64
                             ",))",
                             a->shape[0], a->shape[0]);
            if (rc != 1)
                return fault(err, errlen, name,
                             "malformed header: shape is not a tuple of integers");
        } else {
            return fault(err, errlen, name, "malformed header: unexpected or repeated key '%s'",
                         key);
        }
        if (!eat(&c, ',')) {
            if (!eat(&c, '}'))
                return fault(err, errlen, name, "malformed header: expected ',' or '}'");
            break;
        }
    }
    skip_ws(&c);
    if (c.p != c.end) return fault(err, errlen, name, "malformed header: text after the dict");
    if (!seen_descr || !seen_order || !seen_shape)
        return fault(err, errlen, name, "malformed header: missing key '%s'",
                     !seen_descr   ? "descr"
                     : !seen_order ? "fortran_order"
                                   : "shape");
    /* a complex file in Fortran order is refused: its pairs would have to be transposed as
       units, and a caller that forgot np.ascontiguousarray should hear of it, not get a
       silently reordered spectrum */
    if (gv_npy_type_complex(a->type) && a->fortran_order && a->nd > 1)
        return fault(err, errlen, name,
                     "a complex array in Fortran order (fortran_order True) is not read: save "
                     "np.ascontiguousarray(a)");
    int64_t count = 1;
    for (int i = 0; i < a->nd; i++)
        if (__builtin_mul_overflow(count, a->shape[i], &count))
            return fault(err, errlen, name,
                         "shape's element count overflows int64 (a header that lies about the "
                         "shape)");
    int64_t bytes;
    if (__builtin_mul_overflow(count, (int64_t)type_table[a->type].bytes, &bytes))
        return fault(err, errlen, name,
                     "shape's byte count overflows int64 (%" PRId64 " elements of %s)", count,
                     type_table[a->type].descr);
    a->count = count;
    return GV_OK;
}

static void format_shape(const gv_npy *a, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < a->nd && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%" PRId64, i ? ", " : "", a->shape[i]);
    if (used < len) snprintf(buf + used, len - used, a->nd == 1 ? ",)" : ")");
}

/* The data's byte count must be exactly what the header says. */
static int check_size(const char *name, const gv_npy *a, uint64_t have, char *err, size_t errlen)
{
    uint64_t need = (uint64_t)a->count * type_table[a->type].bytes;
    if (have == need) return GV_OK;
    char shape[200];
    format_shape(a, shape, sizeof shape);
    if (have < need)
        return fault(err, errlen, name,
                     "truncated data: %" PRIu64
                     " bytes, the header's shape %s of %s needs %" PRIu64,
                     have, shape, type_table[a->type].descr, need);
    return fault(err, errlen, name,
                 "%" PRIu64
                 " trailing bytes after the data: the header's shape %s of %s needs %" PRIu64
                 " bytes, the file has %" PRIu64,
                 have - need, shape, type_table[a->type].descr, need, have);
}

/* Row-major copy of a Fortran-order array: element (i0, ..., i_{n-1}) sits at
   i0 + d0 (i1 + d1 (...)) in src. */
static void fortran_to_c(const gv_npy *a, const void *src, void *dst)
{
    size_t es = type_table[a->type].bytes;
    int64_t idx[GV_NPY_MAX_DIMS] = {0}, stride[GV_NPY_MAX_DIMS];
    int64_t s = 1;
    for (int i = 0; i < a->nd; i++) {
        stride[i] = s;
        s *= a->shape[i];
    }
    for (int64_t k = 0; k < a->count; k++) {
        int64_t off = 0;
        for (int i = 0; i < a->nd; i++)
            off += idx[i] * stride[i];
        memcpy((char *)dst + (size_t)k * es, (const char *)src + (size_t)off * es, es);
        for (int i = a->nd - 1; i >= 0; i--) { /* C order: the last index runs fastest */
            if (++idx[i] < a->shape[i]) break;
            idx[i] = 0;
        }
    }
}

/* Take the data (bytes of a's count) into a->data, row-major. */
static int take_data(gv_npy *a, const void *src)
{
    size_t bytes = (size_t)a->count * type_table[a->type].bytes;
    a->data = malloc(bytes ? bytes : 1);
    if (!a->data) return GV_ENOMEM;
    if (a->fortran_order && a->nd > 1)
        fortran_to_c(a, src, a->data);
    else
        memcpy(a->data, src, bytes);
    return GV_OK;
}

int gv_npy_parse(const char *name, const unsigned char *buf, size_t len, gv_npy *a, char *err,
                 size_t errlen)
{
    memset(a, 0, sizeof *a);
    uint32_t hlen;
    size_t hstart;
    int rc = parse_preamble(name, buf, len, &a->version, &hlen, &hstart, err, errlen);
    if (rc != GV_OK) return rc;
    if (len - hstart < hlen)
        return fault(err, errlen, name,
                     "truncated: the file ends inside the %" PRIu32 "-byte header", hlen);
    rc = parse_header(name, (const char *)buf + hstart, hlen, a, err, errlen);
    if (rc == GV_OK) rc = check_size(name, a, len - hstart - hlen, err, errlen);
    if (rc == GV_OK) rc = take_data(a, buf + hstart + hlen);
    if (rc != GV_OK) memset(a, 0, sizeof *a);
    return rc;
}

int gv_npy_read(const char *path, gv_npy *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    char why[160];
    FILE *f = gv_fopen_regular(path, why, sizeof why); /* a FIFO is refused, never waited on */
    if (!f) {
        fault(err, errlen, path, "cannot open: %s", why);
        return GV_EIO;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        fault(err, errlen, path, "not a regular file");
        return GV_EIO;
    }
    unsigned char pre[12];
    size_t got = fread(pre, 1, sizeof pre, f);
    uint32_t hlen;
    size_t hstart;
    int rc = parse_preamble(path, pre, got, &a->version, &hlen, &hstart, err, errlen);
    char *header = NULL;
    void *raw = NULL;
    if (rc != GV_OK) goto out;
    if ((uint64_t)st.st_size < hstart + (uint64_t)hlen) {
        rc = fault(err, errlen, path, "truncated: the file ends inside the %" PRIu32 "-byte header",
                   hlen);
        goto out;
    }
    header = malloc(hlen + 1u);
    if (!header) {
        rc = GV_ENOMEM;
        goto out;
    }
    if (fseek(f, (long)hstart, SEEK_SET) != 0 || fread(header, 1, hlen, f) != hlen) {
        rc = GV_EIO;
        fault(err, errlen, path, "read error in the header");
        goto out;
    }
    rc = parse_header(path, header, hlen, a, err, errlen);
    if (rc == GV_OK) rc = check_size(path, a, (uint64_t)st.st_size - hstart - hlen, err, errlen);
    if (rc != GV_OK) goto out;
    size_t bytes = (size_t)a->count * type_table[a->type].bytes;
    raw = malloc(bytes ? bytes : 1);
    if (!raw) {
        rc = GV_ENOMEM;
        fault(err, errlen, path, "no memory for %zu bytes of data", bytes);
        goto out;
    }
    if (fread(raw, 1, bytes, f) != bytes || fgetc(f) != EOF) {
        rc = GV_EIO;
        fault(err, errlen, path, "the file changed while it was read");
        goto out;
    }
    rc = take_data(a, raw);
out:
    free(header);
    free(raw);
    fclose(f);
    if (rc != GV_OK) memset(a, 0, sizeof *a);
    return rc;
}

void gv_npy_free(gv_npy *a)
{
    free(a->data);
    a->data = NULL;
}

typedef struct npy_out {
    gv_npy_type type;
    int nd;
    const int64_t *shape;
    const void *data;
    bool fortran;
} npy_out;

static int emit_npy(FILE *f, void *ctx)
{
    const npy_out *o = ctx;
    char dict[400];
    size_t n =
        (size_t)snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': (",
                         type_table[o->type].descr, o->fortran ? "True" : "False");
    int64_t count = 1;
    for (int i = 0; i < o->nd; i++) {
        n += (size_t)snprintf(dict + n, sizeof dict - n, "%s%" PRId64, i ? ", " : "", o->shape[i]);
        count *= o->shape[i];
    }
    n += (size_t)snprintf(dict + n, sizeof dict - n, "%s), }", o->nd == 1 ? "," : "");
    /* GV_NPY_MAX_DIMS dims of 19 digits fit dict: never cut, so n bytes of it are written */
    assert(n < sizeof dict);
    /* pad with spaces so that the data starts on a 64-byte boundary, as NumPy does */
    size_t pre = 10, total = pre + n + 1;
    size_t padded = (total + 63) / 64 * 64;
    size_t hlen = padded - pre;
    assert(hlen > n && hlen <= 0xffff); /* the dict, its newline, a 2-byte length (version 1) */
    unsigned char head[10] = {0x93,
                              'N',
                              'U',
                              'M',
                              'P',
                              'Y',
                              1,
                              0,
                              (unsigned char)(hlen & 0xff),
                              (unsigned char)(hlen >> 8)};
    if (fwrite(head, 1, sizeof head, f) != sizeof head || fwrite(dict, 1, n, f) != n) return -1;
    for (size_t i = n; i + 1 < hlen; i++) /* the header's padding: bytes of the file */
        if (fwrite(" ", 1, 1, f) != 1) return -1;
    if (fwrite("\n", 1, 1, f) != 1) return -1;
    size_t bytes = (size_t)count * type_table[o->type].bytes;
    if (bytes && fwrite(o->data, 1, bytes, f) != bytes) return -1;
    return 0;
}

int gv_npy_write(const char *path, gv_npy_type t, int nd, const int64_t *shape, const void *data)
{
    return gv_npy_write_order(path, t, nd, shape, data, false);
}

int gv_npy_write_order(const char *path, gv_npy_type t, int nd, const int64_t *shape,
                       const void *data, bool fortran)
{
    if (t < 0 || t >= GV_NPY_NTYPES || nd < 0 || nd > GV_NPY_MAX_DIMS) {
        errno = EINVAL;
        return -1;
    }
    npy_out o = {t, nd, shape, data, fortran};
    return gv_write_file(path, emit_npy, &o);
}
