/* cli.c: the pieces the gpuval subcommands share — usage errors, the option parsers, output
 * probing and the recorded command line (declared in cli.h). */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gv_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpuval: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

char *gv_join_args(int argc, char **argv)
{
    size_t len = 16;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *s = malloc(len);
    if (!s) return NULL;
    strcpy(s, "gpuval");
    for (int i = 0; i < argc; i++) {
        strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

static int parse_list(const char *s, unsigned *mask, int (*parse)(const char *, int *),
                      const char *what, const char *const *names, int n)
{
    *mask = 0;
    char *copy = strdup(s), *save = NULL;
    if (!copy) return -1;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int v;
        if (parse(tok, &v) != GV_OK) {
            fprintf(stderr, "gpuval: unknown %s '%s'; valid:", what, tok);
            for (int i = 0; i < n; i++)
                fprintf(stderr, " %s", names[i]);
            fputc('\n', stderr);
            free(copy);
            return -1;
        }
        *mask |= 1u << v;
    }
    free(copy);
    if (!*mask) {
        gv_usage_error("empty %s list", what);
        return -1;
    }
    return 0;
}

static int dtype_parse_int(const char *s, int *v)
{
    gv_dtype t;
    int rc = gv_dtype_parse(s, &t);
    *v = (int)t;
    return rc;
}

static int mode_parse_int(const char *s, int *v)
{
    gv_mode m;
    int rc = gv_mode_parse(s, &m);
    *v = (int)m;
    return rc;
}

int gv_parse_dtype_list(const char *s, unsigned *mask)
{
    const char *names[GV_NDTYPES];
    for (int i = 0; i < GV_NDTYPES; i++)
        names[i] = gv_dtype_name((gv_dtype)i);
    return parse_list(s, mask, dtype_parse_int, "dtype", names, GV_NDTYPES);
}

int gv_parse_mode_list(const char *s, unsigned *mask)
{
    const char *names[GV_NMODES];
    for (int i = 0; i < GV_NMODES; i++)
        names[i] = gv_mode_name((gv_mode)i);
    return parse_list(s, mask, mode_parse_int, "mode", names, GV_NMODES);
}

int gv_parse_dist(const char *s, int *dist)
{
    gv_dist d;
    if (gv_dist_parse(s, &d) == GV_OK) {
        *dist = (int)d;
        return 0;
    }
    fprintf(stderr, "gpuval: unknown dist '%s'; valid:", s);
    for (int i = 0; i < GV_NDISTS; i++)
        fprintf(stderr, " %s", gv_dist_name((gv_dist)i));
    fputc('\n', stderr);
    return -1;
}

int gv_parse_seed(const char *s, uint64_t *seed)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (!s[0] || s[0] == '-' || *end || errno) {
        gv_usage_error("--seed takes a non-negative integer, not '%s'", s);
        return -1;
    }
    *seed = v;
    return 0;
}

int gv_parse_sizes(const char *spec, gv_shape *shapes, int max, gv_selection *sel)
{
    char err[512];
    int ns = gv_size_spec_parse(spec, shapes, max, err, sizeof err);
    if (ns < 0) {
        gv_usage_error("%s", err);
        return -1;
    }
    sel->shapes = shapes;
    sel->n_shapes = ns;
    return 0;
}
