/* test_ci_outputs.c: the outputs a CI job reads. check --junit and compare --junit validated
 * with xmllint against Ant's JUnit.xsd (tests/fixtures/junit/: what Jenkins and GitLab read),
 * for a run with PASS, FAIL, SKIP and ERROR rows; standard output that holds the document
 * alone when one goes to "-" (parsed with python3's json); list --json and compare --json;
 * compare never calling a case SAME that the base ran and the new run did not; the inputs'
 * digests and the build in a run; the top-level help, -V and -q.
 * tests/meson.build runs this file through a wrapper that exits 77 without xmllint. */
#include <jansson.h>
#include <sys/stat.h>

#include "../../include/gpuval.h"
#include "io/json_util.h"
#include "io/run_doc.h"
#include "io/sha256.h"
#include "render/junit.h"
#include "testkit.h"

static const char *srcdir(void)
{
    const char *s = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(s, "GPUVAL_SRCDIR names the source tree (tests/meson.build sets it)");
    return s;
}

/* sh -c CMD's exit status (stdin from /dev/null). */
static int sh(const char *cmd)
{
    char full[8192];
    snprintf(full, sizeof full, "%s </dev/null", cmd);
    return gv_test_exit_code(system(full));
}

/* `gpuval ARGS` run in dir with stdout into dir/out and stderr into dir/err: the exit status. */
static int gpuval_in(const char *dir, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >out 2>err", dir, gv_test_gpuval_bin(), args);
    return sh(cmd);
}

static void slurp_in(const char *dir, const char *name, char *buf, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gv_test_slurp(path, buf, len);
}

/* xmllint --schema JUnit.xsd on dir/name: 0 when it validates (its words into why). */
static int validate(const char *dir, const char *name, char *why, size_t len)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && xmllint --noout --schema '%s/tests/fixtures/junit/JUnit.xsd' '%s' "
             ">xmllint.txt 2>&1",
             dir, srcdir(), name);
    int rc = sh(cmd);
    slurp_in(dir, "xmllint.txt", why, len);
    return rc;
}

/* python3's json.load of dir/name: 0 when it parses (and, when key is given, the document has
   that member). */
static int parses_as_json(const char *dir, const char *name, const char *key)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
             "sys.exit(0 if not sys.argv[2] or sys.argv[2] in d else 9)' '%s' '%s' 2>/dev/null",
             dir, name, key ? key : "");
    return sh(cmd);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* A vadd case judged on a planted device output (the oracle's values in f32, element `wrong`
   off by one when >= 0), as tests/cpu/test_dump.c plants one. */
static void planted(int64_t wrong, gv_result *r)
{
    gv_case c = {.op = gv_op_find("vadd"),
                 .dtype = GV_F32,
                 .mode = GV_MODE_NATIVE,
                 .dist = GV_DIST_UNIFORM11,
                 .seed = 7};
    cr_assert_not_null(c.op);
    char err[256];
    cr_assert_eq(gv_size_spec_parse("1001", &c.shape, 1, err, sizeof err), 1, "%s", err);
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    gv_tensor *t = &p.out[0];
    gv_dtype_store_n(c.dtype, t->data, t->ref, t->count);
    if (wrong >= 0) gv_dtype_store(c.dtype, t->data, wrong, t->ref[wrong] + 1.0);
    gv_result_init(r, &c);
    gv_judge_problem(&p, r);
    gv_problem_free(&p);
}

Test(junit, a_run_with_every_verdict_validates_against_the_schema)
{
    gv_result res[4];
    planted(-1, &res[0]);
    cr_assert_eq(res[0].verdict, GV_PASS, "%s", res[0].reason);
    planted(5, &res[1]);
    cr_assert_eq(res[1].verdict, GV_FAIL, "%s", res[1].reason);
    /* SKIP and ERROR as the runner records them: the verdict and its reason, nothing judged */
    gv_result_init(&res[2], &res[0].c);
    res[2].c.seed = 8;
    res[2].verdict = GV_SKIP;
    snprintf(res[2].reason, sizeof res[2].reason, "no CUDA device");
    gv_result_init(&res[3], &res[0].c);
    res[3].c.seed = 9;
    res[3].verdict = GV_ERROR;
    snprintf(res[3].reason, sizeof res[3].reason, "cudaErrorIllegalAddress <&\"'>");
    gv_summary sum = {0};
    for (int i = 0; i < 4; i++)
        gv_summary_add(&sum, &res[i]);
    gv_run_info info;
    memset(&info, 0, sizeof info);
    info.command = "check";
    info.argv_joined = "gpuval check --junit run.xml";

    char dir[512], path[1024], xml[65536], why[4096];
    gv_test_scratch_dir(dir, sizeof dir, "junit");
    snprintf(path, sizeof path, "%s/run.xml", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    cr_assert_eq(gv_junit_write_check(f, &info, res, 4, &sum), 0);
    cr_assert_eq(fclose(f), 0);
    gv_test_slurp(path, xml, sizeof xml);
    cr_expect_eq(validate(dir, "run.xml", why, sizeof why), 0, "%s\n%s", why, xml);
    cr_expect(strstr(xml, "tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\"") != NULL, "%s",
              xml);
    cr_expect_eq(count(xml, "<testcase "), 4, "%s", xml);
    cr_expect_eq(count(xml, "<failure "), 1, "%s", xml);
    cr_expect_eq(count(xml, "<error "), 1, "%s", xml);
    cr_expect_eq(count(xml, "<skipped "), 1, "%s", xml);
    /* the reason in the message, escaped; the row (with the table's header) in the text */
    cr_expect(strstr(xml, "message=\"FAIL: ") != NULL, "%s", xml);
    cr_expect(strstr(xml, "message=\"ERROR: cudaErrorIllegalAddress &lt;&amp;&quot;&#39;&gt;\"") !=
                  NULL,
              "%s", xml);
    cr_expect(strstr(xml, "message=\"SKIP: no CUDA device\"") != NULL, "%s", xml);
    cr_expect(strstr(xml, "max_rel") != NULL && strstr(xml, "verdict") != NULL, "%s", xml);
    cr_expect(strstr(xml, "name=\"f32/native/uniform11/1001 seed 7\"") != NULL, "%s", xml);
    gv_test_remove_dir(dir);
}

Test(junit, a_document_that_breaks_the_schema_is_refused)
{
    /* the validation itself can fail: a testcase without its required time */
    char dir[512], path[1024], why[4096];
    gv_test_scratch_dir(dir, sizeof dir, "junit");
    snprintf(path, sizeof path, "%s/bad.xml", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    gv_junit_suite s = {.name = "x", .timestamp = "2026-01-01T00:00:00Z", .tests = 1};
    gv_junit_begin(f, &s);
    fputs("  <testcase classname=\"a\" name=\"b\"/>\n", f);
    gv_junit_end(f);
    cr_assert_eq(fclose(f), 0);
    cr_expect_neq(validate(dir, "bad.xml", why, sizeof why), 0, "%s", why);
    gv_test_remove_dir(dir);
}

Test(junit, check_junit_on_stdout_is_the_document_alone, .timeout = 120)
{
    char dir[512], err[65536], why[4096];
    gv_test_scratch_dir(dir, sizeof dir, "junit");
    int rc = gpuval_in(dir, "check --op vadd --test-sizes --junit - --json run.json");
    cr_expect(rc == GV_EXIT_NODEV || rc == GV_EXIT_OK, "exit %d", rc);
    cr_expect_eq(validate(dir, "out", why, sizeof why), 0, "%s", why);
    slurp_in(dir, "err", err, sizeof err);
    cr_expect(strstr(err, "device:") != NULL && strstr(err, "vadd") != NULL,
              "the device line and the table go to stderr: %s", err);
    cr_expect_eq(parses_as_json(dir, "run.json", "cases"), 0);
    /* compare's JUnit, through the same writer: the SKIP run against an H100 baseline */
    char args[2048];
    snprintf(args, sizeof args, "compare '%s/tests/fixtures/check-h100.json' run.json --junit -",
             srcdir());
    cr_expect_eq(gpuval_in(dir, args), GV_EXIT_INCONCLUSIVE);
    cr_expect_eq(validate(dir, "out", why, sizeof why), 0, "%s", why);
    gv_test_remove_dir(dir);
}

/* ---- documents on stdout -------------------------------------------------------------------- */

/* `gpuval ARGS` with its document on stdout: stdout parses as JSON with member key. */
static void expect_json_stdout(const char *dir, const char *args, const char *key)
{
    int rc = gpuval_in(dir, args);
    cr_expect(rc != 2 && rc != -1, "gpuval %s: exit %d", args, rc);
    char err[8192];
    slurp_in(dir, "err", err, sizeof err);
    cr_expect_eq(parses_as_json(dir, "out", key), 0, "gpuval %s: stdout is not the document (%s)",
                 args, err);
}

Test(stdout_docs, every_json_dash_is_the_document_alone, .timeout = 300)
{
    char dir[512], args[2048];
    gv_test_scratch_dir(dir, sizeof dir, "docs");
    int rc = gpuval_in(dir, "check --op vadd --test-sizes --json run.json");
    cr_assert(rc == GV_EXIT_NODEV || rc == GV_EXIT_OK, "exit %d", rc);
    expect_json_stdout(dir, "check --op vadd --test-sizes --json -", "cases");
    expect_json_stdout(dir, "check --op vadd --test-sizes --save - --json run2.json", "cases");
    expect_json_stdout(dir, "bench --op vadd --size 1000 --json -", "cases");
    expect_json_stdout(dir, "list --json -", "ops");
    expect_json_stdout(dir, "list --all --json -", "ops");
    expect_json_stdout(dir, "merge run.json run2.json --json -", "schema");
    expect_json_stdout(dir, "compare run.json run2.json --json -", "outcome");
    snprintf(args, sizeof args, "compare '%s/tests/fixtures/check-h100.json' run.json --json -",
             srcdir());
    expect_json_stdout(dir, args, "outcome");
    /* Markdown: the document from its first line, no table of the terminal's */
    char out[65536];
    cr_expect_eq(gpuval_in(dir, "report run.json --md -"), 0);
    slurp_in(dir, "out", out, sizeof out);
    cr_expect(strncmp(out, "## gpuval check", 15) == 0, "%s", out);
    gpuval_in(dir, "compare run.json run2.json --md -");
    slurp_in(dir, "out", out, sizeof out);
    cr_expect(strncmp(out, "### gpuval compare", 18) == 0, "%s", out);
    cr_expect(strstr(out, "outcome:") == NULL, "the terminal's summary on stdout: %s", out);
    gpuval_in(dir, "merge run.json run2.json --md -");
    slurp_in(dir, "out", out, sizeof out);
    cr_expect(strstr(out, "device:") == NULL && out[0] != '\0', "%s", out);
    /* collectives without two devices writes no document: nothing at all on stdout */
    cr_expect_eq(gpuval_in(dir, "collectives --json -"), GV_EXIT_NODEV);
    slurp_in(dir, "out", out, sizeof out);
    cr_expect_str_eq(out, "");
    gv_test_remove_dir(dir);
}

Test(stdout_docs, list_json_names_every_op_with_its_fields)
{
    char dir[512];
    gv_test_scratch_dir(dir, sizeof dir, "docs");
    cr_assert_eq(gpuval_in(dir, "list --all --json ops.json"), 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/ops.json", dir);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    cr_assert_not_null(doc, "%s", jerr.text);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "schema")), "gpuval-ops/1");
    json_t *ops = json_object_get(doc, "ops");
    size_t n = 0;
    for (const gv_op *const *op = gv_registry(); *op; op++)
        n++;
    cr_expect_eq(json_array_size(ops), n, "every registered op");
    size_t i;
    json_t *o;
    json_array_foreach(ops, i, o)
    {
        const gv_op *op = gv_op_find(json_string_value(json_object_get(o, "name")));
        cr_assert_not_null(op, "%s", json_string_value(json_object_get(o, "name")));
        static const char *const keys[] = {"family",      "summary",    "dims",        "dtypes",
                                           "modes",       "shapes",     "test_shapes", "dists",
                                           "planted_bug", "error_model"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            cr_expect_not_null(json_object_get(o, keys[k]), "%s has %s", op->name, keys[k]);
        cr_expect_eq(json_array_size(json_object_get(o, "dtypes")),
                     (size_t)__builtin_popcount(op->dtypes), "%s", op->name);
        cr_expect_eq(json_array_size(json_object_get(o, "modes")),
                     (size_t)__builtin_popcount(op->modes), "%s", op->name);
        cr_expect_eq(json_is_null(json_object_get(o, "planted_bug")), op->planted_bug == NULL, "%s",
                     op->name);
    }
    json_decref(doc);
    gv_test_remove_dir(dir);
}

/* ---- compare: a case the base ran ---------------------------------------------------------- */

Test(compare_lost, a_baseline_against_an_all_skip_run_is_not_same, .timeout = 120)
{
    char dir[512], args[2048], out[65536];
    gv_test_scratch_dir(dir, sizeof dir, "lost");
    int rc = gpuval_in(dir, "check --op vadd --json skip.json -q");
    cr_assert(rc == GV_EXIT_NODEV, "a build or machine without a GPU SKIPs (exit %d)", rc);
    /* the H100 run of the whole catalogue: vadd's cases matched (PASS -> SKIP), the others
       missing from the new run */
    snprintf(args, sizeof args,
             "compare '%s/tests/fixtures/check-h100.json' skip.json --json c.json -q", srcdir());
    cr_expect_eq(gpuval_in(dir, args), GV_EXIT_INCONCLUSIVE);
    slurp_in(dir, "out", out, sizeof out);
    cr_expect(strstr(out, "outcome: INCONCLUSIVE") != NULL, "%s", out);
    cr_expect(strstr(out, "what changed") == NULL, "-q prints no table: %s", out);
    char path[1024];
    snprintf(path, sizeof path, "%s/c.json", dir);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    cr_assert_not_null(doc, "%s", jerr.text);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "outcome")), "INCONCLUSIVE");
    cr_expect_eq(json_integer_value(json_object_get(doc, "exit_code")), GV_EXIT_INCONCLUSIVE);
    json_t *counts = json_object_get(doc, "counts");
    cr_expect_eq(json_integer_value(json_object_get(counts, "SAME")), 0);
    json_t *base = json_load_file(
        (snprintf(path, sizeof path, "%s/tests/fixtures/check-h100.json", srcdir()), path), 0,
        &jerr);
    cr_assert_not_null(base);
    /* every case of the baseline ran (PASS): each is matched or one-sided, none SAME */
    size_t n_base = json_array_size(json_object_get(base, "cases"));
    cr_expect_eq((size_t)json_integer_value(json_object_get(doc, "not_run")), n_base);
    cr_expect_eq(json_integer_value(json_object_get(doc, "matched")) +
                     (json_int_t)json_array_size(json_object_get(doc, "only_base")),
                 (json_int_t)n_base);
    json_decref(base);
    json_decref(doc);
    /* the same baseline against itself: SAME, exit 0 (the rule is not "always inconclusive") */
    snprintf(args, sizeof args,
             "compare '%s/tests/fixtures/check-h100.json' '%s/tests/fixtures/check-h100.json'",
             srcdir(), srcdir());
    cr_expect_eq(gpuval_in(dir, args), GV_EXIT_OK);
    gv_test_remove_dir(dir);
}

/* ---- provenance ----------------------------------------------------------------------------- */

Test(provenance, given_inputs_record_their_digests_and_match_only_their_like, .timeout = 120)
{
    char dir[512], args[4096], path[1024];
    gv_test_scratch_dir(dir, sizeof dir, "prov");
    const char *src = srcdir();
    snprintf(args, sizeof args,
             "check --op vadd --inputs '%s/fixtures/vadd_f32_a.npy','%s/fixtures/vadd_f32_b.npy' "
             "--json given.json -q",
             src, src);
    int rc = gpuval_in(dir, args);
    cr_assert(rc == GV_EXIT_NODEV || rc == GV_EXIT_OK, "exit %d", rc);
    snprintf(path, sizeof path, "%s/given.json", dir);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    cr_assert_not_null(doc, "%s", jerr.text);
    json_t *c = json_array_get(json_object_get(doc, "cases"), 0);
    json_t *files = json_object_get(c, "input_files");
    cr_assert_eq(json_array_size(files), 2);
    const char *names[2] = {"vadd_f32_a.npy", "vadd_f32_b.npy"};
    for (int k = 0; k < 2; k++) {
        char hex[65], file[1024];
        snprintf(file, sizeof file, "%s/fixtures/%s", src, names[k]);
        cr_assert_eq(gv_sha256_file(file, hex), 0);
        json_t *f = json_array_get(files, (size_t)k);
        cr_expect_str_eq(json_string_value(json_object_get(f, "sha256")), hex);
        cr_expect_str_eq(json_string_value(json_object_get(f, "file")), file);
    }
    long long n = json_integer_value(json_array_get(json_object_get(c, "shape"), 0));
    /* the build: commit, compiler, nvcc (null without CUDA) */
    json_t *b = json_object_get(doc, "build");
    cr_expect(json_is_string(json_object_get(b, "commit")) &&
                  json_string_length(json_object_get(b, "commit")) > 0,
              "build.commit");
    cr_expect(json_is_string(gv_jget(b, "cc.id")) && json_is_string(gv_jget(b, "cc.version")));
    cr_expect(
        json_is_string(json_object_get(b, "nvcc")) ||
        (json_is_null(json_object_get(b, "nvcc")) && json_is_false(json_object_get(b, "cuda"))));
    json_decref(doc);
    /* the generated case of the same op, dtype, shape, dist and seed: never matched with it */
    snprintf(args, sizeof args, "check --op vadd --dtype f32 --size %lld --json gen.json -q", n);
    gpuval_in(dir, args);
    cr_expect_eq(gpuval_in(dir, "compare gen.json given.json --json c.json"), GV_EXIT_OK);
    snprintf(path, sizeof path, "%s/c.json", dir);
    json_t *cmp = json_load_file(path, 0, &jerr);
    cr_assert_not_null(cmp, "%s", jerr.text);
    cr_expect_eq(json_integer_value(json_object_get(cmp, "matched")), 0);
    cr_expect_eq(json_array_size(json_object_get(cmp, "only_new")), 1);
    json_decref(cmp);
    /* the same files: matched */
    gpuval_in(dir, "compare given.json given.json --json c.json");
    cmp = json_load_file(path, 0, &jerr);
    cr_assert_not_null(cmp, "%s", jerr.text);
    cr_expect_eq(json_integer_value(json_object_get(cmp, "matched")), 1);
    json_decref(cmp);
    /* the files swapped: other bytes in each input, not the same case */
    snprintf(args, sizeof args,
             "check --op vadd --inputs '%s/fixtures/vadd_f32_b.npy','%s/fixtures/vadd_f32_a.npy' "
             "--json swapped.json -q",
             src, src);
    gpuval_in(dir, args);
    gpuval_in(dir, "compare given.json swapped.json --json c.json");
    cmp = json_load_file(path, 0, &jerr);
    cr_assert_not_null(cmp, "%s", jerr.text);
    cr_expect_eq(json_integer_value(json_object_get(cmp, "matched")), 0);
    json_decref(cmp);
    /* a malformed digest is refused by the strict reader (exit 2, the member named) */
    snprintf(args, sizeof args,
             "python3 -c 'import json; d=json.load(open(\"%s/given.json\")); "
             "d[\"cases\"][0][\"input_files\"][0][\"sha256\"]=\"xyz\"; "
             "json.dump(d, open(\"%s/bad.json\", \"w\"))'",
             dir, dir);
    cr_assert_eq(sh(args), 0);
    cr_expect_eq(gpuval_in(dir, "compare given.json bad.json"), GV_EXIT_USAGE);
    char err[8192];
    slurp_in(dir, "err", err, sizeof err);
    cr_expect(strstr(err, "input_files") != NULL, "%s", err);
    gv_test_remove_dir(dir);
}

/* ---- help, version, -q ---------------------------------------------------------------------- */

Test(help, top_level_help_lists_every_command_of_the_table)
{
    char out[16384], help[16384];
    /* the unknown-command message lists the dispatch table itself */
    cr_expect_eq(gv_test_run_cli("no-such-command", out, sizeof out), GV_EXIT_USAGE);
    const char *valid = strstr(out, "valid:");
    cr_assert_not_null(valid, "%s", out);
    cr_expect_eq(gv_test_run_cli("--help", help, sizeof help), 0);
    char names[1024]; /* the line of valid names; the pointer to the help follows it */
    snprintf(names, sizeof names, "%.*s", (int)strcspn(valid + 6, "\n"), valid + 6);
    int n = 0;
    for (char *save, *w = strtok_r(names, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
        char line[128];
        snprintf(line, sizeof line, "\n  %s ", w);
        cr_expect(strstr(help, line) != NULL, "gpuval --help does not list '%s':\n%s", w, help);
        n++;
    }
    cr_expect_geq(n, 13, "%s", valid);
    cr_expect(strstr(help, "\n  compare ") != NULL, "%s", help);
}

Test(help, check_help_prints_percent_r_as_written)
{
    char out[65536];
    cr_expect_eq(gv_test_run_cli("check --help", out, sizeof out), 0);
    cr_expect(strstr(out, "replace %r in the path") != NULL, "%s", out);
    cr_expect(strstr(out, "%%") == NULL, "a printf format's %%%% in the help: %s", out);
}

Test(help, version_names_the_api_and_the_build)
{
    char v[4096], V[4096], want[64];
    cr_expect_eq(gv_test_run_cli("--version", v, sizeof v), 0);
    cr_expect_eq(gv_test_run_cli("-V", V, sizeof V), 0);
    cr_expect_str_eq(v, V);
    snprintf(want, sizeof want, "gpuval %s\n", GV_VERSION);
    cr_expect(strncmp(v, want, strlen(want)) == 0, "%s", v);
    snprintf(want, sizeof want, "api %d.%d ", GPUVAL_API_VERSION_MAJOR, GPUVAL_API_VERSION_MINOR);
    cr_expect(strstr(v, want) != NULL, "%s", v);
#ifdef GV_HAVE_CUDA
    cr_expect(strstr(v, "cuda arch " GV_CUDA_ARCH) != NULL, "%s", v);
#else
    cr_expect(strstr(v, "cuda arch none") != NULL, "%s", v);
#endif
    cr_expect(strstr(v, "\ncommit ") != NULL && strstr(v, "\ncc ") != NULL, "%s", v);
    cr_expect_eq(gv_test_run_cli("--version extra", v, sizeof v), GV_EXIT_USAGE);
}

Test(help, every_command_that_prints_tables_takes_q)
{
    static const char *const cmds[] = {"check", "bench",   "tradeoffs",  "probe",
                                       "merge", "compare", "collectives"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char args[64], out[65536];
        snprintf(args, sizeof args, "%s --help", cmds[i]);
        cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", args);
        cr_expect(strstr(out, "  -q, --quiet") != NULL, "%s has no -q:\n%s", cmds[i], out);
    }
    /* bench -q: no table of cases, the summary still */
    char out[65536];
    gv_test_run_cli("bench --op vadd --size 1000 -q", out, sizeof out);
    cr_expect(strstr(out, "timed cases:") != NULL, "%s", out);
    cr_expect(strstr(out, "\nvadd ") == NULL, "a row under -q: %s", out);
}
