/* test_layers.c: the layering of the tree, from the #include lines of its sources.
 *   abi/      the bottom: system headers and abi/ only
 *   kernels/  abi/ and kernels/
 *   oracle/   abi/ and oracle/
 *   src/      abi/, src/, and of the lower layers only their C ABIs: kernels/gk.h (no CUDA
 *             type in it) and oracle/go.h; and the public API it implements,
 *             include/gpuval.h (host C, no CUDA type either)
 * and every .c under src/ (but gpuval_main.c, the command's entry point) has a header of its own
 * stem, so a reader finds a function's declaration beside its definition. The checker also runs on
 * a tree it plants with a violation, so it is shown to fail. GPUVAL_SRCDIR (set by
 * tests/meson.build) names the source tree. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* paths here are built from a root realpath() returned and short names: never near PATH_MAX */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* The top folder of path p below root ("abi", "src", ...), or "" when outside. */
static const char *top_of(const char *root, const char *p, char *buf, size_t len)
{
    size_t n = strlen(root);
    if (strncmp(p, root, n) != 0 || p[n] != '/') return "";
    const char *rest = p + n + 1, *slash = strchr(rest, '/');
    size_t k = slash ? (size_t)(slash - rest) : strlen(rest);
    if (k >= len) k = len - 1;
    memcpy(buf, rest, k);
    buf[k] = '\0';
    return buf;
}

/* Path of p below root, for allow-lists ("kernels/gk.h"). */
static const char *below(const char *root, const char *p)
{
    size_t n = strlen(root);
    return strncmp(p, root, n) == 0 && p[n] == '/' ? p + n + 1 : p;
}

static bool allowed(const char *from_top, const char *to_top, const char *to_rel)
{
    if (strcmp(to_top, "abi") == 0) return true;
    if (strcmp(from_top, "abi") == 0) return false;
    if (strcmp(from_top, to_top) == 0) return true;
    if (strcmp(from_top, "src") == 0)
        return strcmp(to_rel, "kernels/gk.h") == 0 || strcmp(to_rel, "oracle/go.h") == 0 ||
               strcmp(to_rel, "include/gpuval.h") == 0;
    return false;
}

/* Check one file's quoted includes; appends violations to out; returns their count. */
static int check_file(const char *root, const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[1024], dir[PATH_MAX], from_buf[64], to_buf[64];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    const char *from = top_of(root, path, from_buf, sizeof from_buf);
    int bad = 0;
    while (fgets(line, sizeof line, f)) {
        char name[512];
        if (sscanf(line, " #include \"%511[^\"]\"", name) != 1) continue;
        char joined[PATH_MAX * 2], real[PATH_MAX];
        snprintf(joined, sizeof joined, "%s/%s", dir, name);
        if (!realpath(joined, real)) continue; /* a generated file (registry_table.c) */
        const char *to = top_of(root, real, to_buf, sizeof to_buf);
        if (!allowed(from, to, below(root, real))) {
            bad++;
            size_t used = strlen(out);
            snprintf(out + used, len - used, "  %s includes %s\n", below(root, path),
                     below(root, real));
        }
    }
    fclose(f);
    return bad;
}

static bool is_source(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (strcmp(dot, ".c") == 0 || strcmp(dot, ".h") == 0 || strcmp(dot, ".cu") == 0 ||
                   strcmp(dot, ".cuh") == 0);
}

/* Walk dir (recursively) checking every source; returns the violations. */
static int check_tree(const char *root, const char *dir, char *out, size_t len, int *files)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int bad = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            bad += check_tree(root, p, out, len, files);
        } else if (is_source(e->d_name)) {
            (*files)++;
            bad += check_file(root, p, out, len);
        }
    }
    closedir(d);
    return bad;
}

static const char *srcdir(void)
{
    const char *s = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(s, "GPUVAL_SRCDIR names the source tree (tests/meson.build sets it)");
    static char real[PATH_MAX];
    cr_assert_not_null(realpath(s, real), "%s exists", s);
    return real;
}

Test(layers, includes_follow_the_layering)
{
    const char *root = srcdir();
    static char out[16384];
    out[0] = '\0';
    int files = 0, bad = 0;
    const char *tops[] = {"abi", "kernels", "oracle", "src"};
    for (int i = 0; i < 4; i++) {
        char d[PATH_MAX];
        snprintf(d, sizeof d, "%s/%s", root, tops[i]);
        bad += check_tree(root, d, out, sizeof out, &files);
    }
    cr_expect_gt(files, 50, "the walk found the sources (%d files)", files);
    cr_expect_eq(bad, 0, "%d includes break the layering:\n%s", bad, out);
}

Test(layers, every_src_c_has_a_header_of_its_own)
{
    const char *root = srcdir();
    const char *dirs[] = {"src", "src/bench"};
    int missing = 0;
    for (int i = 0; i < 2; i++) {
        char d[PATH_MAX];
        snprintf(d, sizeof d, "%s/%s", root, dirs[i]);
        DIR *dp = opendir(d);
        if (!dp) continue;
        struct dirent *e;
        while ((e = readdir(dp))) {
            size_t n = strlen(e->d_name);
            if (n < 3 || strcmp(e->d_name + n - 2, ".c") != 0) continue;
            if (strcmp(e->d_name, "gpuval_main.c") == 0) continue;
            char h[PATH_MAX];
            snprintf(h, sizeof h, "%s/%.*s.h", d, (int)(n - 2), e->d_name);
            if (access(h, F_OK) != 0) {
                missing++;
                cr_log_error("%s/%s has no %.*s.h", dirs[i], e->d_name, (int)(n - 2), e->d_name);
            }
        }
        closedir(dp);
    }
    cr_expect_eq(missing, 0, "%d sources without their own header", missing);
}

Test(layers, the_checker_sees_a_planted_violation)
{
    char root[] = "/tmp/gv_layers_XXXXXX";
    cr_assert_not_null(mkdtemp(root));
    char real_root[PATH_MAX];
    cr_assert_not_null(realpath(root, real_root));
    const char *dirs[] = {"abi", "kernels", "src", "oracle"};
    for (int i = 0; i < 4; i++) {
        char d[PATH_MAX];
        snprintf(d, sizeof d, "%s/%s", real_root, dirs[i]);
        cr_assert_eq(mkdir(d, 0755), 0);
    }
    const char *files[][2] = {{"abi/gv_abi.h", ""},
                              {"src/gv.h", "#include \"../abi/gv_abi.h\"\n"},
                              {"kernels/gk.h", "#include \"../abi/gv_abi.h\"\n"},
                              {"kernels/bad.cu", "#include \"../src/gv.h\"\n"},
                              {"oracle/go.h", ""},
                              {"oracle/bad.c", "#include \"../kernels/gk.h\"\n"},
                              {"src/ok.c", "#include \"../kernels/gk.h\"\n#include \"gv.h\"\n"}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", real_root, files[i][0]);
        FILE *f = fopen(p, "w");
        cr_assert_not_null(f);
        fputs(files[i][1], f);
        fclose(f);
    }
    static char out[4096];
    out[0] = '\0';
    int n = 0, bad = 0;
    for (int i = 0; i < 4; i++) {
        char d[PATH_MAX];
        snprintf(d, sizeof d, "%s/%s", real_root, dirs[i]);
        bad += check_tree(real_root, d, out, sizeof out, &n);
    }
    cr_expect_eq(bad, 2, "kernels/bad.cu and oracle/bad.c break the rule:\n%s", out);
    cr_expect_not_null(strstr(out, "kernels/bad.cu includes src/gv.h"), "%s", out);
    cr_expect_not_null(strstr(out, "oracle/bad.c includes kernels/gk.h"), "%s", out);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", real_root);
    cr_expect_eq(system(cmd), 0);
}
