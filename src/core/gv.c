/* gv.c: names, parsers and formatting for the shared vocabulary of gv.h. */
#include "core/gv.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[GV_NDTYPES] = {
#define GV_DT_NAME_(e, name, ctype, bytes, p, emin, tier, compute) name,
    GV_DTYPES(GV_DT_NAME_)
#undef GV_DT_NAME_
};
static const char *const mode_names[GV_NMODES] = {
#define GV_MODE_NAME_(e, name, bits, acc, dtypes, tier, rn, catalogue, in, out, bfma, cublas,      \
                      cc_min, cc_end, need, need_after, emulated, what)                            \
    name,
    GV_MODES(GV_MODE_NAME_)
#undef GV_MODE_NAME_
};
static const char *const dist_names[GV_NDISTS] = {
    "uniform01", "uniform11", "smallint", "special", "offgrid", "tie",           "perm2",
    "wide",      "narrow",    "width",    "tiny",    "huge",    "sparse-special"};

static int parse_name(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (s && strcmp(s, names[i]) == 0) return i;
    return -1;
}

const char *gv_dtype_name(gv_dtype t)
{
    return t < GV_NDTYPES ? dtype_names[t] : "?";
}
const char *gv_mode_name(gv_mode m)
{
    return m < GV_NMODES ? mode_names[m] : "?";
}
const char *gv_dist_name(gv_dist d)
{
    return d < GV_NDISTS ? dist_names[d] : "?";
}

static const char *const inputs_names[GV_NINPUTS] = {"generated", "given", "declared"};

const char *gv_inputs_name(gv_inputs in)
{
    return in < GV_NINPUTS ? inputs_names[in] : "?";
}

int gv_dtype_parse(const char *s, gv_dtype *out)
{
    int i = parse_name(s, dtype_names, GV_NDTYPES);
    if (i < 0) return GV_EINVAL;
    *out = (gv_dtype)i;
    return GV_OK;
}

int gv_mode_parse(const char *s, gv_mode *out)
{
    int i = parse_name(s, mode_names, GV_NMODES);
    if (i < 0) return GV_EINVAL;
    *out = (gv_mode)i;
    return GV_OK;
}

int gv_dist_parse(const char *s, gv_dist *out)
{
    int i = parse_name(s, dist_names, GV_NDISTS);
    if (i < 0) return GV_EINVAL;
    *out = (gv_dist)i;
    return GV_OK;
}

/* A mode that rounds its inputs to fewer bits than the dtype has computes at that width;
   otherwise at the dtype's own (tf32 names 11 bits, narrower than f32's 24). */
int gv_mode_precision_bits(gv_dtype t, gv_mode m)
{
    int own = gv_dtype_mantissa_bits(t);
    int in = gv_mode_get(m)->input_bits;
    return in > 0 && in < own ? in : own;
}

double gv_unit_roundoff(gv_dtype t, gv_mode m)
{
    return ldexp(1.0, -gv_mode_precision_bits(t, m));
}

char *gv_shape_format(const gv_shape *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->nd && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%lld", i ? "x" : "", (long long)s->d[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
    return buf;
}

/* Bytes at p that form one well-formed UTF-8 character of code point U+00A0 or above (no
   overlong form, no surrogate, at most U+10FFFF): its length, else 0. C1 controls (U+0080 to
   U+009F, which some terminals obey as escapes) and stray or cut bytes give 0. */
static int utf8_printable_len(const unsigned char *p)
{
    int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (p[0] >= 0xf5) n = 0;
    uint32_t cp = n == 4 ? p[0] & 0x07u : n == 3 ? p[0] & 0x0fu : p[0] & 0x1fu;
    for (int k = 1; k < n; k++) {
        if ((p[k] & 0xc0) != 0x80) return 0; /* also stops at the terminating NUL */
        cp = cp << 6 | (p[k] & 0x3fu);
    }
    if (n == 0) return 0;
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0) return 0;
    return n;
}

char *gv_printable(const char *s, char *buf, size_t len)
{
    size_t used = 0;
    if (!len) return buf;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        char piece[8];
        int u = *p >= 0x80 ? utf8_printable_len(p) : 0;
        if (u > 0) {
            memcpy(piece, p, (size_t)u);
            piece[u] = '\0';
            p += u - 1;
        } else if (*p < 0x20 || *p >= 0x7f)
            snprintf(piece, sizeof piece, "\\x%02x", *p);
        else if (*p == '\\')
            snprintf(piece, sizeof piece, "\\\\");
        else
            snprintf(piece, sizeof piece, "%c", *p);
        size_t n = strlen(piece);
        if (used + n + 1 > len) {
            /* cut: leave room for "..." */
            while (used > 0 && used + 4 > len)
                used--;
            if (used + 4 <= len) {
                memcpy(buf + used, "...", 3);
                used += 3;
            }
            break;
        }
        memcpy(buf + used, piece, n);
        used += n;
    }
    buf[used] = '\0';
    return buf;
}

/* One dim: 1000, 1e5, 1.15e7 or 2^28; must be a positive integer no larger than GV_MAX_DIM.
 * Returns GV_OK, GV_EINVAL when malformed, or 1 when well formed but above GV_MAX_DIM. */
static int parse_dim(const char *tok, int64_t *out)
{
    char *end = NULL;
    double v;
    if (!*tok) return GV_EINVAL;
    const char *caret = strchr(tok, '^');
    if (caret) {
        char *e1 = NULL, *e2 = NULL;
        errno = 0;
        long base = strtol(tok, &e1, 10);
        long ex = strtol(caret + 1, &e2, 10);
        if (!isdigit((unsigned char)tok[0]) || !isdigit((unsigned char)caret[1]) || e1 != caret ||
            *e2 || base < 2 || ex < 0)
            return GV_EINVAL;
        if (errno || ex > 4096) return 1;
        v = pow((double)base, (double)ex);
    } else {
        if (!isdigit((unsigned char)tok[0])) return GV_EINVAL;
        errno = 0;
        v = strtod(tok, &end);
        if (*end) return GV_EINVAL;
        if (errno == ERANGE && v != 0) return 1; /* overflow: HUGE_VAL */
        if (errno) return GV_EINVAL;
    }
    if (v > GV_MAX_DIM) return 1;
    if (!(v >= 1) || v != floor(v)) return GV_EINVAL;
    *out = (int64_t)v;
    return GV_OK;
}

/* Split [p, end) at sep into fields, empty fields included; returns the field count. */
static int split_fields(const char *p, const char *end, char sep, const char **starts,
                        const char **ends, int max)
{
    int n = 0;
    for (;;) {
        const char *q = p;
        while (q < end && *q != sep)
            q++;
        if (n == max) return max + 1;
        starts[n] = p;
        ends[n] = q;
        n++;
        if (q == end) return n;
        p = q + 1;
    }
}

int gv_size_spec_parse(const char *spec, gv_shape *shapes, int max, char *err, size_t errlen)
{
    if (!spec || !*spec) {
        snprintf(err, errlen, "empty size");
        return GV_EINVAL;
    }
    const char *s_start[256], *s_end[256];
    int ns = split_fields(spec, spec + strlen(spec), ',', s_start, s_end, 255);
    if (ns > max || ns > 255) {
        char all[256];
        snprintf(err, errlen, "more than %d sizes in '%s'", max,
                 gv_printable(spec, all, sizeof all));
        return GV_EINVAL;
    }
    for (int i = 0; i < ns; i++) {
        const char *d_start[GV_MAX_DIMS + 1], *d_end[GV_MAX_DIMS + 1];
        int nd = split_fields(s_start[i], s_end[i], 'x', d_start, d_end, GV_MAX_DIMS);
        if (nd > GV_MAX_DIMS) {
            char all[256];
            snprintf(err, errlen, "more than %d dims in a size of '%s'", GV_MAX_DIMS,
                     gv_printable(spec, all, sizeof all));
            return GV_EINVAL;
        }
        gv_shape s = {.nd = nd};
        for (int k = 0; k < nd; k++) {
            char tok[64];
            size_t len = (size_t)(d_end[k] - d_start[k]);
            int ok = len > 0 && len < sizeof tok, over = 0;
            if (ok) {
                memcpy(tok, d_start[k], len);
                tok[len] = '\0';
                int rc = parse_dim(tok, &s.d[k]);
                ok = rc == GV_OK;
                over = rc == 1;
            }
            if (!ok) {
                char raw[128], sz[256], all[256];
                snprintf(raw, sizeof raw, "%.*s", (int)(s_end[i] - s_start[i]), s_start[i]);
                gv_printable(raw, sz, sizeof sz);
                gv_printable(spec, all, sizeof all);
                if (over) {
                    char dim[128];
                    snprintf(raw, sizeof raw, "%.*s", (int)(d_end[k] - d_start[k]), d_start[k]);
                    gv_printable(raw, dim, sizeof dim);
                    snprintf(err, errlen, "dim %s in '%s' exceeds the largest size %s", dim, all,
                             GV_MAX_DIM_TEXT);
                } else {
                    snprintf(err, errlen,
                             "malformed size '%s' in '%s': dims are positive integers "
                             "(1000, 1e5, 2^28) joined by 'x', sizes separated by ','",
                             sz, all);
                }
                return GV_EINVAL;
            }
        }
        shapes[i] = s;
    }
    return ns;
}

const char *gv_verdict_name(gv_verdict v)
{
    static const char *const names[] = {"PASS", "FAIL", "SKIP", "ERROR"};
    return v <= GV_ERROR ? names[v] : "?";
}

const char *gv_exit_meaning(int code)
{
    switch (code) {
#define GV_EXIT_CASE_(name, value, status, what)                                                   \
    case value: return what;
        GV_EXIT_CODES(GV_EXIT_CASE_)
#undef GV_EXIT_CASE_
    }
    return "?";
}

void gv_exit_help(FILE *f, const int *codes, const char *const *whats, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%d %s\n", i == 0 ? "exit: " : "      ", codes[i],
                whats && whats[i] ? whats[i] : gv_exit_meaning(codes[i]));
}

const char *gv_status_name(gv_status s)
{
    static const char *const names[GV_NSTATUSES] = {
#define GV_ST_NAME_(e, name) name,
        GV_STATUSES(GV_ST_NAME_)
#undef GV_ST_NAME_
    };
    return s >= 0 && s < GV_NSTATUSES ? names[s] : "?";
}

gv_status gv_err_set(gv_error *e, gv_status s, const char *fmt, ...)
{
    if (!e) return s;
    e->status = s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return s;
}

gv_status gv_err_add(gv_error *e, gv_status s, const char *fmt, ...)
{
    if (!e) return s;
    e->status = s;
    size_t used = strlen(e->msg);
    if (used > 0 && used + 1 < sizeof e->msg) e->msg[used++] = '\n', e->msg[used] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg + used, sizeof e->msg - used, fmt, ap);
    va_end(ap);
    return s;
}

gv_status gv_run_status(int failed, int errors, int judged, bool have_device, bool output_lost)
{
    if (failed > 0) return GV_ST_FAIL;
    if (errors > 0 || output_lost) return GV_ST_RUNTIME;
    if (judged == 0 && !have_device) return GV_ST_NODEV;
    return GV_ST_OK;
}

/* The message is formatted first and written through gv_printable, so an argument quoted
   back (an op name, a size, a path) cannot put control characters on the terminal. */
void gv_usage_error(const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    char small[512], *msg = small;
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (msg = malloc((size_t)n + 1)) != NULL)
        vsnprintf(msg, (size_t)n + 1, fmt, ap2);
    if (!msg) msg = small;
    va_end(ap2);
    va_end(ap);
    size_t len = n > 0 ? (size_t)n * 4 + 4 : 4;
    char *shown = malloc(len);
    fputs("gpuval: ", stderr);
    fputs(shown ? gv_printable(msg, shown, len) : "(out of memory)", stderr);
    fputc('\n', stderr);
    free(shown);
    if (msg != small) free(msg);
}

bool gv_probe_applies(gv_dist probe, gv_dtype t, gv_mode m)
{
    switch (probe) {
    case GV_DIST_TIE:
        return t == GV_F32 &&
               (m == GV_MODE_TF32 || m == GV_MODE_F16 || m == GV_MODE_BF16 || m == GV_MODE_F16ACC);
    case GV_DIST_NARROW:
        /* not f16acc: it claims its narrow accumulator, and these sums overflow f16 */
        return t == GV_F32 && (m == GV_MODE_FP8 || m == GV_MODE_F16 || m == GV_MODE_BF16);
    case GV_DIST_WIDTH:
        /* not the library's automatic emulation: it chooses its width from the inputs, and
           on these (a 2^70 span in a row) falls back to native DGEMM, as documented */
        /* the mode table's emulated rows that fix their significand (fp64emu32 ... 56) */
        return t == GV_F64 && gv_mode_get(m)->emulated && gv_mode_get(m)->input_bits > 0 &&
               (gv_mode_get(m)->dtypes & (1u << GV_F64));
    case GV_DIST_WIDE:
        /* the scaled fp8 modes' layout of it: magnitudes by row, column and K-block (gemm.c) */
        return t == GV_F32 && gv_mode_scaled(m);
    default: return false;
    }
}
