/* test_abi.c: libgpuval.so as a program links it. It exports exactly the functions gpuval.h
 * declares (nm -D --defined-only), all under the version node of the API's major version
 * (include/gpuval.map), and its SONAME is libgpuval.so.MAJOR (readelf -d). The list of public
 * functions is read from gpuval.h itself, so a function added to the header but not to the
 * map, or a harness function leaking out of the library, fails here. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/gpuval.h"

#define MAX_NAMES 256

typedef struct names {
    int n;
    char name[MAX_NAMES][64];
} names;

static bool has(const names *s, const char *n)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->name[i], n) == 0) return true;
    return false;
}

static void add(names *s, const char *n, size_t len)
{
    cr_assert_lt(s->n, MAX_NAMES);
    cr_assert_lt(len, sizeof s->name[0]);
    memcpy(s->name[s->n], n, len);
    s->name[s->n][len] = '\0';
    if (!has(s, s->name[s->n])) s->n++;
}

static const char *lib_path(void)
{
    const char *p = getenv("GPUVAL_LIB");
    cr_assert_not_null(p, "GPUVAL_LIB must name libgpuval.so (tests/meson.build sets it)");
    return p;
}

/* The functions gpuval.h declares: at file scope (a line that starts with a type, outside
   comments and macros), a gv_ name followed by '('. Function-pointer typedefs name theirs
   as (*name) and are not counted. */
static void header_functions(names *out)
{
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src);
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/include/gpuval.h", src);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    bool in_comment = false;
    memset(out, 0, sizeof *out);
    while (fgets(line, sizeof line, f)) {
        bool starts_in_comment = in_comment;
        for (const char *p = line; *p; p++) {
            if (!in_comment && p[0] == '/' && p[1] == '*')
                in_comment = true, p++;
            else if (in_comment && p[0] == '*' && p[1] == '/')
                in_comment = false, p++;
        }
        if (starts_in_comment || !isalpha((unsigned char)line[0]) ||
            strncmp(line, "typedef", 7) == 0)
            continue;
        char *paren = strchr(line, '(');
        if (!paren) continue;
        char *end = paren, *start = paren;
        while (start > line && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
            start--;
        if (end - start > 3 && strncmp(start, "gv_", 3) == 0)
            add(out, start, (size_t)(end - start));
    }
    fclose(f);
    cr_assert_geq(out->n, 11, "gpuval.h declares %d functions", out->n);
}

Test(abi, libgpuval_exports_exactly_the_public_functions)
{
    names pub, exported;
    header_functions(&pub);
    memset(&exported, 0, sizeof exported);
    char cmd[2048], line[512];
    snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s'", lib_path());
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char node[32];
    snprintf(node, sizeof node, "GPUVAL_%d", GPUVAL_API_VERSION_MAJOR);
    int lines = 0;
    while (fgets(line, sizeof line, p)) {
        char addr[64], type[8], sym[256];
        if (sscanf(line, "%63s %7s %255s", addr, type, sym) != 3) continue;
        lines++;
        if (strcmp(type, "A") == 0) { /* the version node itself */
            cr_expect_str_eq(sym, node, "%s", line);
            continue;
        }
        char *at = strchr(sym, '@');
        cr_expect_not_null(at, "%s: not versioned", sym);
        if (at) {
            cr_expect_str_eq(at, "@@GPUVAL_1", "%s", sym);
            *at = '\0';
        }
        cr_expect(has(&pub, sym), "libgpuval exports %s, which gpuval.h does not declare", sym);
        add(&exported, sym, strlen(sym));
    }
    cr_assert_eq(pclose(p), 0, "%s", cmd);
    cr_assert_gt(lines, 0, "%s listed nothing", cmd);
    for (int i = 0; i < pub.n; i++)
        cr_expect(has(&exported, pub.name[i]), "gpuval.h declares %s, libgpuval does not export it",
                  pub.name[i]);
    cr_expect_eq(exported.n, pub.n);
}

Test(abi, soname_follows_the_major_version)
{
    char cmd[2048], line[512], want[64];
    snprintf(cmd, sizeof cmd, "readelf -d '%s'", lib_path());
    snprintf(want, sizeof want, "[libgpuval.so.%d]", GPUVAL_API_VERSION_MAJOR);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    int sonames = 0;
    while (fgets(line, sizeof line, p))
        if (strstr(line, "(SONAME)")) {
            sonames++;
            cr_expect_not_null(strstr(line, want), "%s", line);
        }
    cr_assert_eq(pclose(p), 0, "%s", cmd);
    cr_expect_eq(sonames, 1);
}
