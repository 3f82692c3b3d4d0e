/* test_fixtures.c: fixtures/ as committed — verified by gpuval-fixtures (checksums, headers,
 * bits, closed forms through the oracle), identical to a fresh regeneration, and every file of
 * fixtures/bad/ refused by its reader with exit 2, the file and its fault named, nothing
 * written. The bad files are listed from the directory, so a new one is tested as soon as it
 * is there (and must have its fault in fixtures/bad/faults.tsv). */
#include <dirent.h>

#include "testkit.h"

static const char *srcdir(void)
{
    const char *s = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(s, "GPUVAL_SRCDIR names the source tree (tests/meson.build sets it)");
    return s;
}

static const char *fixtures_bin(void)
{
    const char *b = getenv("GPUVAL_FIXTURES");
    cr_assert_not_null(b, "GPUVAL_FIXTURES names gpuval-fixtures (tests/meson.build sets it)");
    return b;
}

/* Run a shell command, output (stderr folded in) into out; the exit status. */
static int run(const char *cmd, char *out, size_t len)
{
    char full[4096];
    snprintf(full, sizeof full, "%s </dev/null 2>&1", cmd);
    FILE *f = popen(full, "r");
    cr_assert_not_null(f);
    size_t used = fread(out, 1, len - 1, f);
    out[used] = '\0';
    char rest[4096];
    while (fread(rest, 1, sizeof rest, f) > 0)
        ;
    return gv_test_exit_code(pclose(f));
}

Test(fixtures, verify_passes_on_the_committed_files)
{
    char cmd[2048], out[8192];
    snprintf(cmd, sizeof cmd, "'%s' verify '%s/fixtures'", fixtures_bin(), srcdir());
    cr_expect_eq(run(cmd, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "16 files verified") != NULL, "%s", out);
}

Test(fixtures, regeneration_is_byte_identical)
{
    char dir[256], cmd[4096], out[8192];
    snprintf(dir, sizeof dir, "/tmp/gv_test_fixtures_%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && '%s' gen '%s'", dir, dir,
             fixtures_bin(), dir);
    cr_assert_eq(run(cmd, out, sizeof out), 0, "%s", out);
    /* every file but the README, both ways */
    snprintf(cmd, sizeof cmd, "diff -r -x README.md '%s/fixtures' '%s'", srcdir(), dir);
    cr_expect_eq(run(cmd, out, sizeof out), 0, "fixtures/ differs from its regeneration:\n%s", out);
}

Test(fixtures, verify_catches_a_changed_byte)
{
    char dir[256], cmd[4096], out[8192];
    snprintf(dir, sizeof dir, "/tmp/gv_test_fixtures_x_%d", (int)getpid());
    snprintf(
        cmd, sizeof cmd,
        "rm -rf '%s' && cp -r '%s/fixtures' '%s' && printf '\\001' | dd of='%s/gemm_f64_C.npy' "
        "bs=1 seek=130 conv=notrunc 2>/dev/null",
        dir, srcdir(), dir, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s' verify '%s'", fixtures_bin(), dir);
    cr_expect_eq(run(cmd, out, sizeof out), 2, "%s", out);
    cr_expect(strstr(out, "gemm_f64_C.npy: checksum mismatch") != NULL, "%s", out);
}

/* The fault fixtures/bad/faults.tsv names for file; fails the test when it has none. */
static void fault_of(const char *file, char *fault, size_t len)
{
    char path[1024], line[512];
    snprintf(path, sizeof path, "%s/fixtures/bad/faults.tsv", srcdir());
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    fault[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        if (line[0] == '#' || !tab) continue;
        *tab = '\0';
        if (strcmp(line, file) == 0) {
            snprintf(fault, len, "%s", tab + 1);
            fault[strcspn(fault, "\n")] = '\0';
        }
    }
    fclose(f);
    cr_assert(fault[0], "fixtures/bad/%s has no fault in fixtures/bad/faults.tsv", file);
}

static bool in_bad_manifest(const char *file)
{
    char path[1024], line[512];
    snprintf(path, sizeof path, "%s/fixtures/bad/manifest.tsv", srcdir());
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    bool found = false;
    while (fgets(line, sizeof line, f))
        if (line[0] != '#' && strncmp(line, file, strlen(file)) == 0 && line[strlen(file)] == '\t')
            found = true;
    fclose(f);
    return found;
}

Test(fixtures, every_bad_file_exits_2_naming_itself_and_its_fault)
{
    char baddir[1024];
    snprintf(baddir, sizeof baddir, "%s/fixtures/bad", srcdir());
    DIR *d = opendir(baddir);
    cr_assert_not_null(d, "%s", baddir);
    int tested = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *f = e->d_name;
        if (f[0] == '.' || strcmp(f, "faults.tsv") == 0 || strcmp(f, "manifest.tsv") == 0) continue;
        char fault[256], work[256], cmd[4096], out[8192];
        fault_of(f, fault, sizeof fault);
        snprintf(work, sizeof work, "/tmp/gv_test_bad_%d", (int)getpid());
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", work, work);
        cr_assert_eq(system(cmd), 0);
        int rc;
        if (in_bad_manifest(f)) {
            snprintf(cmd, sizeof cmd, "cd '%s' && '%s' verify '%s'", work, fixtures_bin(), baddir);
            rc = run(cmd, out, sizeof out);
        } else {
            /* vadd takes two inputs: the bad file as both; outputs aimed into the work dir */
            snprintf(cmd, sizeof cmd,
                     "cd '%s' && '%s' check --op vadd --inputs '%s/%s,%s/%s' --dump-failures d "
                     "--json run.json",
                     work, gv_test_gpuval_bin(), baddir, f, baddir, f);
            rc = run(cmd, out, sizeof out);
        }
        cr_expect_eq(rc, 2, "%s: exit %d: %s", f, rc, out);
        cr_expect(strstr(out, f) != NULL, "%s is not named: %s", f, out);
        cr_expect(strstr(out, fault) != NULL, "%s: '%s' should name '%s'", f, out, fault);
        snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", work);
        cr_expect_eq(system(cmd), 0, "%s: something was written into %s", f, work);
        tested++;
    }
    closedir(d);
    cr_expect_geq(tested, 12, "fixtures/bad/ holds %d files", tested);
}
