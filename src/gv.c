/* gv.c: names, parsers and formatting for the shared vocabulary of gv.h. */
#include "gv.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"

static const char *const dtype_names[GV_NDTYPES] = {
#define GV_DT_NAME_(e, name, ctype, bytes, p, emin, tier, compute) name,
    GV_DTYPES(GV_DT_NAME_)
#undef GV_DT_NAME_
};
static const char *const mode_names[GV_NMODES] = {
#define GV_MODE_NAME_(e, name, bits, dtypes, tier, catalogue, what) name,
    GV_MODES(GV_MODE_NAME_)
#undef GV_MODE_NAME_
};
static const char *const dist_names[GV_NDISTS] = {"uniform01", "uniform11", "smallint", "special",
                                                  "offgrid",   "tie",       "perm2",    "wide"};

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

/* One dim: 1000, 1e5, 1.15e7 or 2^28; must be a positive integer below 2^62. */
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
        if (!isdigit((unsigned char)caret[1]) || e1 != caret || *e2 || errno || base < 2 ||
            ex < 0 || ex > 61)
            return GV_EINVAL;
        v = pow((double)base, (double)ex);
    } else {
        if (!isdigit((unsigned char)tok[0])) return GV_EINVAL;
        errno = 0;
        v = strtod(tok, &end);
        if (*end || errno) return GV_EINVAL;
    }
    if (!(v >= 1) || v > 4.6e18 || v != floor(v)) return GV_EINVAL;
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
        snprintf(err, errlen, "more than %d sizes in '%s'", max, spec);
        return GV_EINVAL;
    }
    for (int i = 0; i < ns; i++) {
        const char *d_start[GV_MAX_DIMS + 1], *d_end[GV_MAX_DIMS + 1];
        int nd = split_fields(s_start[i], s_end[i], 'x', d_start, d_end, GV_MAX_DIMS);
        if (nd > GV_MAX_DIMS) {
            snprintf(err, errlen, "more than %d dims in a size of '%s'", GV_MAX_DIMS, spec);
            return GV_EINVAL;
        }
        gv_shape s = {.nd = nd};
        for (int k = 0; k < nd; k++) {
            char tok[64];
            size_t len = (size_t)(d_end[k] - d_start[k]);
            int ok = len > 0 && len < sizeof tok;
            if (ok) {
                memcpy(tok, d_start[k], len);
                tok[len] = '\0';
                ok = parse_dim(tok, &s.d[k]) == GV_OK;
            }
            if (!ok) {
                snprintf(err, errlen,
                         "malformed size '%.*s' in '%s': dims are positive integers "
                         "(1000, 1e5, 2^28) joined by 'x', sizes separated by ','",
                         (int)(s_end[i] - s_start[i]), s_start[i], spec);
                return GV_EINVAL;
            }
        }
        shapes[i] = s;
    }
    return ns;
}

char *gv_case_label(const gv_case *c, char *buf, size_t len)
{
    char shape[96];
    snprintf(buf, len, "%s %s %s %s", c->op ? c->op->name : "?", gv_dtype_name(c->dtype),
             gv_mode_name(c->mode), gv_shape_format(&c->shape, shape, sizeof shape));
    return buf;
}

const char *gv_verdict_name(gv_verdict v)
{
    static const char *const names[] = {"PASS", "FAIL", "SKIP", "ERROR"};
    return v <= GV_ERROR ? names[v] : "?";
}
