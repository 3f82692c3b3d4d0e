/* test_version.c: one version. meson's project version (GV_VERSION) is the source; the API
 * macros of include/gpuval.h are its major and minor (meson.build checks that too, at
 * configure time), and this file fails when anything that states the version disagrees:
 * gpuval -V, the library's file name and gv_api_version, the build's gpuval.pc (whose Cflags
 * name gpuval's include directory alone, none of its dependencies' system directories), the
 * Python package, docs/cli.md. It also holds the install to every page of docs/. */
#include <dirent.h>
#include <jansson.h>

#include "../../include/gpuval.h"
#include "testkit.h"

static const char *env_or_fail(const char *name)
{
    const char *s = getenv(name);
    cr_assert_not_null(s, "%s is set by tests/meson.build", name);
    return s;
}

/* GV_VERSION's major and minor. */
static void project_major_minor(int *major, int *minor)
{
    int patch, used = 0;
    cr_assert_eq(sscanf(GV_VERSION, "%d.%d.%d%n", major, minor, &patch, &used), 3,
                 "GV_VERSION '%s' is MAJOR.MINOR.PATCH", GV_VERSION);
    cr_assert_eq((size_t)used, strlen(GV_VERSION), "GV_VERSION '%s'", GV_VERSION);
}

/* The standard output of sh -c cmd into out; its exit status. */
static int sh_out(const char *cmd, char *out, size_t len)
{
    char full[8192];
    snprintf(full, sizeof full, "%s </dev/null 2>&1", cmd);
    FILE *f = popen(full, "r");
    cr_assert_not_null(f, "popen %s", full);
    size_t used = fread(out, 1, len - 1, f);
    out[used] = '\0';
    char rest[4096];
    while (fread(rest, 1, sizeof rest, f) > 0)
        ;
    return gv_test_exit_code(pclose(f));
}

Test(version, the_api_is_the_project_versions_major_and_minor)
{
    int major, minor;
    project_major_minor(&major, &minor);
    cr_expect_eq(GPUVAL_API_VERSION_MAJOR, major, "gpuval.h's major against %s", GV_VERSION);
    cr_expect_eq(GPUVAL_API_VERSION_MINOR, minor, "gpuval.h's minor against %s", GV_VERSION);
    cr_expect_eq(gv_api_version(), GPUVAL_API_VERSION);
}

Test(version, gpuval_V_and_the_library_file_say_it)
{
    char out[4096], want[128];
    cr_assert_eq(gv_test_run_cli("-V", out, sizeof out), 0);
    snprintf(want, sizeof want, "gpuval %s\napi %d.%d ", GV_VERSION, GPUVAL_API_VERSION_MAJOR,
             GPUVAL_API_VERSION_MINOR);
    cr_expect(strncmp(out, want, strlen(want)) == 0, "want '%s', got:\n%s", want, out);
    /* libgpuval.so.MAJOR.MINOR.PATCH: the file meson names from the project version */
    const char *lib = env_or_fail("GPUVAL_LIB");
    snprintf(want, sizeof want, "libgpuval.so.%s", GV_VERSION);
    const char *base = strrchr(lib, '/') ? strrchr(lib, '/') + 1 : lib;
    cr_expect_str_eq(base, want, "%s", lib);
}

/* The .pc file the build writes for `meson install` (meson-private/gpuval.pc), read as a
   consumer reads it: pkg-config. */
Test(version, gpuval_pc_says_it_and_names_no_system_include_directory)
{
    char pc_dir[4096], cmd[8192], out[4096], want[256];
    snprintf(pc_dir, sizeof pc_dir, "%s/meson-private", env_or_fail("GPUVAL_BUILDDIR"));
    snprintf(cmd, sizeof cmd, "%s/gpuval.pc", pc_dir);
    static char pc[16384];
    gv_test_slurp(cmd, pc, sizeof pc);
    snprintf(want, sizeof want, "\nVersion: %s\n", GV_VERSION);
    cr_expect_not_null(strstr(pc, want), "%s lacks '%s':\n%s", cmd, want + 1, pc);
    cr_expect_not_null(strstr(pc, "\nCflags: -I${includedir}\n"), "Cflags:\n%s", pc);
    if (sh_out("command -v pkg-config", out, sizeof out) != 0)
        cr_skip_test("no pkg-config to read gpuval.pc with (the file itself was checked)");
    int major, minor;
    project_major_minor(&major, &minor);
    snprintf(cmd, sizeof cmd, "PKG_CONFIG_PATH='%s' pkg-config --atleast-version=%d.%d gpuval",
             pc_dir, major, minor);
    cr_expect_eq(sh_out(cmd, out, sizeof out), 0, "%s: %s", cmd, out);
    snprintf(cmd, sizeof cmd, "PKG_CONFIG_PATH='%s' pkg-config --modversion gpuval", pc_dir);
    cr_expect_eq(sh_out(cmd, out, sizeof out), 0, "%s: %s", cmd, out);
    snprintf(want, sizeof want, "%s\n", GV_VERSION);
    cr_expect_str_eq(out, want, "%s", cmd);
    /* every -I of --cflags is gpuval's include directory or one that fftw3 and jansson (still
       in Requires.private) ask for themselves; OpenBLAS's and LAPACKE's are not handed on */
    char includedir[1024], deps[4096], cflags[4096];
    snprintf(cmd, sizeof cmd, "PKG_CONFIG_PATH='%s' pkg-config --variable=includedir gpuval",
             pc_dir);
    cr_assert_eq(sh_out(cmd, includedir, sizeof includedir), 0, "%s", includedir);
    includedir[strcspn(includedir, "\n")] = '\0';
    sh_out("pkg-config --cflags fftw3 jansson", deps, sizeof deps);
    snprintf(cmd, sizeof cmd, "PKG_CONFIG_PATH='%s' pkg-config --cflags gpuval", pc_dir);
    cr_assert_eq(sh_out(cmd, cflags, sizeof cflags), 0, "%s", cflags);
    int n_own = 0;
    for (char *save, *w = strtok_r(cflags, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
        if (strncmp(w, "-I", 2) == 0 && strcmp(w + 2, includedir) == 0) {
            n_own++;
            continue;
        }
        cr_expect_not_null(strstr(deps, w), "pkg-config --cflags gpuval hands on '%s'", w);
    }
    cr_expect_eq(n_own, 1, "-I%s once", includedir);
}

/* python/: __version__ is the project's, and pyproject.toml takes it from there. */
Test(version, the_python_package_says_it)
{
    const char *src = env_or_fail("GPUVAL_SRCDIR");
    char path[4096], want[128];
    static char text[65536];
    snprintf(path, sizeof path, "%s/python/src/gpuval/__init__.py", src);
    gv_test_slurp(path, text, sizeof text);
    snprintf(want, sizeof want, "\n__version__ = \"%s\"\n", GV_VERSION);
    cr_expect_not_null(strstr(text, want), "%s lacks '%s'", path, want + 1);
    snprintf(path, sizeof path, "%s/python/pyproject.toml", src);
    gv_test_slurp(path, text, sizeof text);
    cr_expect_not_null(strstr(text, "\ndynamic = [\"version\"]\n"), "%s:\n%s", path, text);
    cr_expect_not_null(strstr(text, "\nversion = {attr = \"gpuval.__version__\"}\n"), "%s:\n%s",
                       path, text);
}

/* docs/cli.md shows -V's first two lines as this build prints them. */
Test(version, cli_md_says_it)
{
    char path[4096], want[128];
    static char text[1 << 17];
    snprintf(path, sizeof path, "%s/docs/cli.md", env_or_fail("GPUVAL_SRCDIR"));
    gv_test_slurp(path, text, sizeof text);
    snprintf(want, sizeof want, "(`gpuval %s`)", GV_VERSION);
    cr_expect_not_null(strstr(text, want), "docs/cli.md lacks %s", want);
    snprintf(want, sizeof want, "(`api %d.%d`)", GPUVAL_API_VERSION_MAJOR,
             GPUVAL_API_VERSION_MINOR);
    cr_expect_not_null(strstr(text, want), "docs/cli.md lacks %s", want);
}

/* meson install puts every page of docs/ (and the images they show) in the doc directory:
   meson's own list of what it installs names each. */
Test(version, every_page_of_docs_is_installed)
{
    const char *src = env_or_fail("GPUVAL_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/meson-info/intro-installed.json",
             env_or_fail("GPUVAL_BUILDDIR"));
    json_error_t jerr;
    json_t *installed = json_load_file(path, 0, &jerr);
    cr_assert_not_null(installed, "%s: %s", path, jerr.text);
    snprintf(path, sizeof path, "%s/docs", src);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s", path);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        bool page = len > 3 && strcmp(e->d_name + len - 3, ".md") == 0;
        bool image = len > 4 && strcmp(e->d_name + len - 4, ".png") == 0;
        if (!page && !image) continue;
        char key[4096];
        snprintf(key, sizeof key, "%s/docs/%s", src, e->d_name);
        const char *to = json_string_value(json_object_get(installed, key));
        cr_expect_not_null(to, "docs/%s is not installed (meson.build's install_data)", e->d_name);
        if (to) cr_expect_not_null(strstr(to, "/doc/gpuval/"), "docs/%s goes to %s", e->d_name, to);
        n += page;
    }
    closedir(d);
    cr_expect_geq(n, 10, "the pages of docs/");
    json_decref(installed);
}
