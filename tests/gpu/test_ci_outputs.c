/* test_ci_outputs.c (tests/gpu): the CI outputs on a device, where cases PASS, FAIL and hit an
 * ERROR for real. check --junit of vadd (PASS), vadd.pastend (a planted store past the end: FAIL)
 * and vadd.illegal (a planted wild store: cudaErrorIllegalAddress, an ERROR in its own worker)
 * validates against tests/fixtures/junit/JUnit.xsd with one <failure> and one <error>, while
 * --json - leaves stdout to the run document alone. A run on the fixtures' vadd inputs matches
 * a rerun on the same files (SAME, exit 0) and never the generated case of its shape. The
 * binary comes from GPUVAL, the source tree from GPUVAL_SRCDIR (tests/meson.build). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cpu/testkit.h" /* gv_test_gpuval_bin, gv_test_exit_code, gv_test_slurp */

static const char *srcdir(void)
{
    const char *s = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(s, "GPUVAL_SRCDIR names the source tree (tests/meson.build sets it)");
    return s;
}

/* `gpuval ARGS` in dir, stdout into dir/out, stderr into dir/err: the exit status. */
static int gpuval_in(const char *dir, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >out 2>err </dev/null", dir, gv_test_gpuval_bin(),
             args);
    return gv_test_exit_code(system(cmd));
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

Test(gpu_ci, check_junit_has_pass_failure_and_error_and_validates, .timeout = 300)
{
    char dir[512], cmd[4096], path[1024], xml[262144], why[8192];
    gv_test_scratch_dir(dir, sizeof dir, "gpu-junit");
    int rc = gpuval_in(dir, "check --op vadd,vadd.pastend,vadd.illegal --planted --dtype f32 "
                            "--size 1001 --junit run.xml --json -");
    char err[16384];
    snprintf(path, sizeof path, "%s/err", dir);
    gv_test_slurp(path, err, sizeof err);
    cr_expect_eq(rc, GV_EXIT_FAIL, "a FAIL outranks the ERROR: %s", err);
    snprintf(path, sizeof path, "%s/run.xml", dir);
    gv_test_slurp(path, xml, sizeof xml);
    cr_expect_eq(count(xml, "<testcase "), 3, "%s", xml);
    cr_expect_eq(count(xml, "<failure message=\"FAIL"), 1, "%s", xml);
    cr_expect_eq(count(xml, "<error message=\"ERROR"), 1, "%s", xml);
    cr_expect(strstr(xml, "classname=\"vadd.pastend\"") != NULL, "%s", xml);
    cr_expect(strstr(xml, "tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\"") != NULL, "%s",
              xml);
    /* stdout: the run document and nothing else */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && python3 -c 'import json; d=json.load(open(\"out\")); "
             "assert d[\"summary\"][\"failed\"] == 1 and d[\"summary\"][\"errors\"] == 1'",
             dir);
    cr_expect_eq(gv_test_exit_code(system(cmd)), 0, "stdout is not the run alone");
    if (system("command -v xmllint >/dev/null") != 0) {
        gv_test_remove_dir(dir);
        cr_skip_test("xmllint missing (Debian libxml2-utils): the schema is not checked");
    }
    snprintf(cmd, sizeof cmd,
             "cd '%s' && xmllint --noout --schema '%s/tests/fixtures/junit/JUnit.xsd' run.xml "
             ">lint.txt 2>&1",
             dir, srcdir());
    int lint = gv_test_exit_code(system(cmd));
    snprintf(path, sizeof path, "%s/lint.txt", dir);
    gv_test_slurp(path, why, sizeof why);
    cr_expect_eq(lint, 0, "%s", why);
    gv_test_remove_dir(dir);
}

Test(gpu_ci, given_inputs_match_only_the_same_files, .timeout = 300)
{
    char dir[512], args[4096], path[1024];
    gv_test_scratch_dir(dir, sizeof dir, "gpu-given");
    const char *s = srcdir();
    snprintf(args, sizeof args,
             "check --op vadd --inputs '%s/fixtures/vadd_f32_a.npy','%s/fixtures/vadd_f32_b.npy' "
             "-q --json a.json",
             s, s);
    cr_assert_eq(gpuval_in(dir, args), 0);
    snprintf(args, sizeof args,
             "check --op vadd --inputs '%s/fixtures/vadd_f32_a.npy','%s/fixtures/vadd_f32_b.npy' "
             "-q --json b.json",
             s, s);
    cr_assert_eq(gpuval_in(dir, args), 0);
    cr_expect_eq(gpuval_in(dir, "compare a.json b.json --json c.json"), 0);
    json_error_t jerr;
    snprintf(path, sizeof path, "%s/c.json", dir);
    json_t *c = json_load_file(path, 0, &jerr);
    cr_assert_not_null(c, "%s", jerr.text);
    cr_expect_eq(json_integer_value(json_object_get(c, "matched")), 1);
    cr_expect_str_eq(json_string_value(json_object_get(c, "outcome")), "SAME");
    json_decref(c);
    /* the generated case of the same shape, dist and seed: not the same case */
    snprintf(path, sizeof path, "%s/a.json", dir);
    json_t *a = json_load_file(path, 0, &jerr);
    cr_assert_not_null(a, "%s", jerr.text);
    long long n = json_integer_value(json_array_get(
        json_object_get(json_array_get(json_object_get(a, "cases"), 0), "shape"), 0));
    json_decref(a);
    snprintf(args, sizeof args, "check --op vadd --dtype f32 --size %lld -q --json g.json", n);
    cr_assert_eq(gpuval_in(dir, args), 0);
    /* the generated case ran in the baseline and has no match in the given-input run: lost,
       so INCONCLUSIVE (exit 5), never SAME (docs/regression.md) */
    cr_expect_eq(gpuval_in(dir, "compare g.json a.json --json c.json"), 5);
    snprintf(path, sizeof path, "%s/c.json", dir);
    c = json_load_file(path, 0, &jerr);
    cr_assert_not_null(c, "%s", jerr.text);
    cr_expect_eq(json_integer_value(json_object_get(c, "matched")), 0);
    cr_expect_str_eq(json_string_value(json_object_get(c, "outcome")), "INCONCLUSIVE");
    json_decref(c);
    gv_test_remove_dir(dir);
}
