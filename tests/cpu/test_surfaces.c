/* test_surfaces.c: the surfaces added late (judge, inputs, judge --case, probe --expect, the
 * directory writer) under hostile input: outputs that are the command's own inputs, a case
 * directory replaced whole or not at all, non-regular inputs refused at once, and the exit
 * codes of each refusal. Runs the real gpuval (GPUVAL) where the command line is the surface. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/npy.h"
#include "io/outfile.h"
#include "testkit.h"

/* The whole of a file (binary), malloc'ed, its size in *n; NULL when it cannot be read. */
static char *slurp_bin(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0;
    *n = 0;
    for (;;) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 4096;
            char *g = realloc(buf, cap);
            cr_assert_not_null(g);
            buf = g;
        }
        size_t k = fread(buf + *n, 1, cap - *n, f);
        if (k == 0) break;
        *n += k;
    }
    fclose(f);
    /* a NUL after the bytes, so that strstr on a text file stops there */
    char *g = realloc(buf, *n + 1);
    cr_assert_not_null(g);
    g[*n] = '\0';
    return g;
}

/* Is the file at path byte for byte (want, n)? */
static bool same_bytes(const char *path, const char *want, size_t n)
{
    size_t m;
    char *have = slurp_bin(path, &m);
    bool same = have && m == n && memcmp(have, want, n) == 0;
    free(have);
    return same;
}

/* Entries of dir whose names start with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int n = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;)
        n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* `gpuval inputs` of a small gemm case into root/NAME (seed), expecting rc. */
static void inputs_into(const char *root, const char *name, int seed, const char *extra, int rc)
{
    char args[2048];
    static char out[1 << 14];
    snprintf(args, sizeof args,
             "inputs --op gemm.cublas --dtype f32 --size 8x12x4 --seed %d --out '%s/%s' %s", seed,
             root, name, extra);
    cr_assert_eq(gv_test_run_cli(args, out, sizeof out), rc, "%s: %s", args, out);
}

/* judge --json naming one of the files judge reads (--case, the case's inputs, --inputs,
   --outputs), in any spelling, is refused: exit 2, the file untouched, nothing on stdout. It
   once wrote the run document over the array it had just judged. */
Test(surfaces, judge_json_is_never_one_of_its_inputs, .timeout = 120)
{
    char dir[300], args[2000], a[400], b[400], c[400], cs[400];
    static char out[1 << 14], err[1 << 14];
    gv_test_scratch_dir(dir, sizeof dir, "surf-judge");
    inputs_into(dir, "d", 1, "", 0);
    snprintf(a, sizeof a, "%s/d/A.npy", dir);
    snprintf(b, sizeof b, "%s/d/B.npy", dir);
    snprintf(c, sizeof c, "%s/d/C.npy", dir);
    snprintf(cs, sizeof cs, "%s/d/case.json", dir);
    float zeros[8 * 4] = {0};
    int64_t shape[2] = {8, 4};
    cr_assert_eq(gv_npy_write(c, GV_NPY_F32, 2, shape, zeros), 0);
    const char *victims[] = {a, b, c, cs};
    size_t n[4];
    char *before[4];
    for (int i = 0; i < 4; i++)
        before[i] = slurp_bin(victims[i], &n[i]);
    struct {
        const char *how, *json;
    } bad[] = {
        {"case", "%s/d/case.json"},         {"case, another spelling", "%s/d/../d/case.json"},
        {"the case's input", "%s/d/A.npy"}, {"the output", "%s/d/C.npy"},
        {"given input", "%s/d/B.npy"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[400];
        snprintf(json, sizeof json, bad[i].json, dir);
        if (i < 4)
            snprintf(args, sizeof args, "judge --case '%s' --outputs '%s' --json '%s'", cs, c,
                     json);
        else
            snprintf(args, sizeof args,
                     "judge --op gemm --inputs '%s,%s' --outputs '%s' --json '%s'", a, b, c, json);
        int rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
        cr_expect_eq(rc, 2, "%s: exit %d: %s%s", bad[i].how, rc, out, err);
        cr_expect_not_null(strstr(err, "is the input"), "%s: %s", bad[i].how, err);
        cr_expect_eq(out[0], '\0', "%s: nothing on stdout before exit 2: %s", bad[i].how, out);
        for (int k = 0; k < 4; k++)
            cr_expect(same_bytes(victims[k], before[k], n[k]), "%s: %s was written", bad[i].how,
                      victims[k]);
    }
    /* a --json of its own is written, and the arrays stay as they were */
    snprintf(args, sizeof args, "judge --case '%s' --outputs '%s' --json '%s/run.json'", cs, c,
             dir);
    int rc = gv_test_run_cli(args, out, sizeof out);
    cr_expect(rc == 0 || rc == 1, "judged: exit %d: %s", rc, out);
    snprintf(a, sizeof a, "%s/run.json", dir);
    cr_expect_eq(access(a, F_OK), 0, "run.json written");
    for (int k = 0; k < 4; k++)
        free(before[k]);
    gv_test_remove_dir(dir);
}

/* inputs --force over an existing case replaces it whole or not at all: a case.json the user
   made read-only stops the whole write before anything changes (it once replaced A.npy and
   B.npy, then failed on case.json: a case of two seeds); a real replacement keeps the user's
   own files (C.npy), gives the new arrays, and leaves no temporary behind. */
Test(surfaces, inputs_force_replaces_a_case_whole_or_not_at_all, .timeout = 120)
{
    char dir[512], a[1024], cs[1024], c[1024], d[1024];
    gv_test_scratch_dir(dir, sizeof dir, "surf-inputs");
    inputs_into(dir, "d", 1, "", 0);
    snprintf(d, sizeof d, "%s/d", dir);
    snprintf(a, sizeof a, "%s/d/A.npy", dir);
    snprintf(cs, sizeof cs, "%s/d/case.json", dir);
    snprintf(c, sizeof c, "%s/d/C.npy", dir);
    size_t na, ncs, nc;
    char *a1 = slurp_bin(a, &na), *cs1 = slurp_bin(cs, &ncs);
    cr_assert_not_null(a1);
    cr_assert_not_null(cs1);
    FILE *f = fopen(c, "w");
    cr_assert_not_null(f);
    fputs("the user's own outputs\n", f);
    fclose(f);
    char *c1 = slurp_bin(c, &nc);

    cr_assert_eq(chmod(cs, 0444), 0);
    inputs_into(dir, "d", 2, "--force", 2);
    cr_expect(same_bytes(a, a1, na), "A.npy replaced though the case could not be written whole");
    cr_expect(same_bytes(cs, cs1, ncs), "case.json changed");
    cr_expect_eq(count_prefixed(dir, ".d."), 0, "a temporary left beside d");

    cr_assert_eq(chmod(cs, 0644), 0);
    inputs_into(dir, "d", 2, "", 2); /* without --force: refused, untouched */
    cr_expect(same_bytes(a, a1, na), "A.npy replaced without --force");
    inputs_into(dir, "d", 2, "--force", 0);
    cr_expect(!same_bytes(a, a1, na), "A.npy of seed 2 differs from seed 1's");
    cr_expect(same_bytes(c, c1, nc), "the user's C.npy kept");
    size_t m;
    char *cs2 = slurp_bin(cs, &m);
    cr_assert_not_null(cs2);
    cr_expect_not_null(strstr(cs2, "\"seed\": 2"), "%.*s", (int)m, cs2);
    cr_expect_eq(count_prefixed(dir, ".d."), 0, "a temporary left beside d");
    cr_expect_eq(count_prefixed(d, "."), 2, "only . and .. besides the case's files");
    free(a1);
    free(cs1);
    free(c1);
    free(cs2);
    gv_test_remove_dir(dir);
}

/* --out naming something that is not a directory, or a directory gpuval may not move: exit 2
   (it was 3, after the arrays had been generated), nothing written. */
Test(surfaces, inputs_out_that_cannot_be_a_case_directory_is_exit_2, .timeout = 60)
{
    char dir[512], path[1024], args[2048];
    static char out[8192];
    gv_test_scratch_dir(dir, sizeof dir, "surf-out");
    snprintf(path, sizeof path, "%s/file", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("mine\n", f);
    fclose(f);
    inputs_into(dir, "file", 1, "", 2);
    inputs_into(dir, "file", 1, "--force", 2);
    cr_expect(same_bytes(path, "mine\n", 5), "the file kept");
    inputs_into(dir, "nosuch/d", 1, "", 2);
    snprintf(path, sizeof path, "%s/sub", dir);
    cr_assert_eq(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/sub/inner", dir);
    cr_assert_eq(mkdir(path, 0777), 0);
    snprintf(args, sizeof args, "inputs --op gemm.cublas --out '%s/sub' --force", dir);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    cr_expect_not_null(strstr(out, "inner"), "the entry that stops it is named: %s", out);
    cr_expect_eq(access(path, F_OK), 0, "sub/inner kept");
    gv_test_remove_dir(dir);
}

static int fill_then_fail(const char *tmp, void *ctx)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/A.npy", tmp);
    FILE *f = fopen(p, "w");
    if (!f) return -1;
    fputs((const char *)ctx, f);
    fclose(f);
    errno = ENOSPC;
    return -1;
}

static int fill_ok(const char *tmp, void *ctx)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/A.npy", tmp);
    FILE *f = fopen(p, "w");
    if (!f) return -1;
    fputs((const char *)ctx, f);
    return fclose(f);
}

/* gv_write_dir: a fill that fails half-way leaves the directory as it was and no temporary;
   one that succeeds replaces the listed file and keeps the others. */
Test(surfaces, write_dir_is_all_or_nothing)
{
    char dir[512], d[600], a[700], k[700], why[512];
    gv_test_scratch_dir(dir, sizeof dir, "surf-wdir");
    snprintf(d, sizeof d, "%s/case", dir);
    snprintf(a, sizeof a, "%s/A.npy", d);
    snprintf(k, sizeof k, "%s/keep", d);
    const char *names[] = {"A.npy", "case.json"};
    cr_assert_eq(gv_write_dir(d, names, 2, fill_ok, (void *)"old\n", why, sizeof why), 0, "%s",
                 why);
    cr_expect(same_bytes(a, "old\n", 4));
    FILE *f = fopen(k, "w");
    fputs("keep\n", f);
    fclose(f);
    cr_expect_eq(gv_write_dir(d, names, 2, fill_then_fail, (void *)"new\n", why, sizeof why), -1);
    cr_expect_eq(errno, ENOSPC);
    cr_expect(same_bytes(a, "old\n", 4), "A.npy half-replaced");
    cr_expect_eq(count_prefixed(dir, ".case."), 0, "the temporary removed");
    cr_expect_eq(gv_write_dir(d, names, 2, fill_ok, (void *)"new\n", why, sizeof why), 0, "%s",
                 why);
    cr_expect(same_bytes(a, "new\n", 4));
    cr_expect(same_bytes(k, "keep\n", 5), "the other file kept");
    cr_expect_eq(count_prefixed(dir, ".case."), 0, "the old directory removed");
    cr_expect_eq(gv_write_dir("", names, 2, fill_ok, (void *)"x", why, sizeof why), -1);
    cr_expect_eq(gv_write_dir(a, names, 2, fill_ok, (void *)"x", why, sizeof why), -1);
    cr_expect_eq(errno, ENOTDIR);
    gv_test_remove_dir(dir);
}

/* judge --case on a FIFO nobody writes: refused at once, exit 2, the path named (it waited for
   ever in json_load_file). */
Test(surfaces, judge_case_on_a_fifo_is_refused_at_once, .timeout = 60)
{
    char dir[512], fifo[1024], args[2048];
    static char out[8192];
    gv_test_scratch_dir(dir, sizeof dir, "surf-fifo");
    snprintf(fifo, sizeof fifo, "%s/case.json", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    snprintf(args, sizeof args, "judge --case '%s' --outputs '%s/C.npy'", fifo, dir);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "timeout 20 '%s' %s </dev/null 2>&1", gv_test_gpuval_bin(), args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int rc = gv_test_exit_code(pclose(p));
    cr_expect_eq(rc, 2, "exit %d (124: it waited on the FIFO): %s", rc, out);
    cr_expect_not_null(strstr(out, "FIFO"), "%s", out);
    gv_test_remove_dir(dir);
}

/* probe --expect of a malformed file is exit 2 naming the file and the line, on any machine:
   the file is read before a device is looked for (without one it was exit 77, whatever the
   file held). A well-formed file goes on to the device (77 here, where there is none). */
Test(surfaces, probe_expect_malformed_is_exit_2_before_the_device, .timeout = 60)
{
    char dir[300], path[400], args[1000];
    static char out[8192];
    gv_test_scratch_dir(dir, sizeof dir, "surf-expect");
    snprintf(path, sizeof path, "%s/bad.expect", dir);
    const char *bad[] = {"version 1\narch sm_90\n* f32 tf32 block >=8junk\n",
                         "version 1\narch sm_90xxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
                         "version 1\narch sm_90\n* f32 tf32 block\n"};
    const int line[] = {3, 2, 3};
    for (int i = 0; i < 3; i++) {
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        fputs(bad[i], f);
        fclose(f);
        snprintf(args, sizeof args, "probe --op gemm.cublas --expect '%s'", path);
        int rc = gv_test_run_cli(args, out, sizeof out);
        char where[500];
        snprintf(where, sizeof where, "%s:%d:", path, line[i]);
        cr_expect_eq(rc, 2, "file %d: exit %d: %s", i, rc, out);
        cr_expect_not_null(strstr(out, where), "file %d: %s lacks %s", i, out, where);
    }
    gv_test_remove_dir(dir);
}

/* Seconds of wall time `gpuval ARGS` takes (output discarded); its exit code into *rc. */
static double timed_run(const char *args, int *rc)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1 </dev/null", gv_test_gpuval_bin(), args);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    *rc = gv_test_exit_code(system(cmd));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}

/* compare, report and merge of a run file holding 5 MB strings (the argv, a case's op with
   characters every format escapes) take time linear in the file: a few seconds at most. The
   reader once read the file a byte a system call (json_loadfd): a minute for such a file. */
Test(surfaces, run_files_with_5_mb_strings_are_read_in_linear_time, .timeout = 240)
{
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src, "GPUVAL_SRCDIR (tests/meson.build sets it)");
    char fix[1024], dir[300], a[400], b[400], args[2000];
    snprintf(fix, sizeof fix, "%s/tests/fixtures/check-h100.json", src);
    json_error_t jerr;
    json_t *doc = json_load_file(fix, 0, &jerr);
    cr_assert_not_null(doc, "%s", jerr.text);
    size_t n = 5u << 20;
    char *big = malloc(n + 1), *op = malloc(n + 1);
    cr_assert(big && op);
    const char pat[] = "<|`[#&\\*x";
    for (size_t i = 0; i < n; i++) {
        big[i] = (char)('a' + i % 26);
        op[i] = pat[i % (sizeof pat - 1)];
    }
    big[n] = op[n] = '\0';
    json_object_set_new(doc, "argv", json_string(big));
    json_t *c0 = json_array_get(json_object_get(doc, "cases"), 0);
    cr_assert_not_null(c0);
    json_object_set_new(c0, "op", json_string(op));
    gv_test_scratch_dir(dir, sizeof dir, "surf-long");
    snprintf(a, sizeof a, "%s/long.json", dir);
    cr_assert_eq(json_dump_file(doc, a, 0), 0);
    json_decref(doc);
    free(big);
    free(op);
    snprintf(b, sizeof b, "%s/out", dir);
    const char *cmds[] = {"compare '%1$s' '%1$s' --md '%2$s.md' --junit '%2$s.xml'",
                          "report '%1$s' --md '%2$s.md' --html '%2$s.html'",
                          "merge '%1$s' --md '%2$s.md'", "compare '%1$s' '%1$s'"};
    for (int i = 0; i < 4; i++) {
        int rc;
        snprintf(args, sizeof args, cmds[i], a, b);
        double s = timed_run(args, &rc);
        cr_expect(rc == 0 || rc == 5, "%s: exit %d", args, rc);
        cr_expect_lt(s, 8.0, "%s: %.1f s for a 10 MB file", args, s);
    }
    gv_test_remove_dir(dir);
}

/* merge --md and merge's table of run files whose op names, device names, hosts and uuids
   carry Markdown (a heading, a link, a code span, a table row) and terminal controls (ESC,
   BEL, a C1 CSI): the Markdown comes out inert, the terminal gets no control byte. merge
   embedded them raw. */
Test(surfaces, merge_escapes_what_it_embeds, .timeout = 120)
{
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src, "GPUVAL_SRCDIR (tests/meson.build sets it)");
    char fix[1024], dir[300], a[400], b[400], md[400], term[400], args[2000];
    snprintf(fix, sizeof fix, "%s/tests/fixtures/check-h100.json", src);
    json_error_t jerr;
    json_t *doc = json_load_file(fix, 0, &jerr);
    cr_assert_not_null(doc, "%s", jerr.text);
    const char *inj[] = {"x\n# INJ heading",
                         "[INJlink](https://example.invalid/)",
                         "`INJcode`",
                         "a|b\n| INJ | row |",
                         "<INJtag>",
                         "\x1b[2J\x1b]0;t\x07",
                         "\xc2\x9b"
                         "31m"};
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(doc, "cases"), i, c)
    {
        char op[96];
        snprintf(op, sizeof op, "%s%zu", inj[i % 7], i);
        json_object_set_new(c, "op", json_string(op));
    }
    json_t *dev = json_object_get(doc, "device");
    cr_assert(json_is_object(dev));
    json_object_set_new(dev, "name", json_string("GPU\x1b[31m\n# INJ device [INJlink](x)"));
    gv_test_scratch_dir(dir, sizeof dir, "surf-merge");
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    cr_assert_eq(json_dump_file(doc, a, 0), 0);
    json_object_set_new(dev, "uuid", json_string("GPU-2\x1b]0;title\x07`INJcode`"));
    cr_assert_eq(json_dump_file(doc, b, 0), 0);
    json_decref(doc);
    snprintf(md, sizeof md, "%s/m.md", dir);
    snprintf(term, sizeof term, "%s/term.txt", dir);
    snprintf(args, sizeof args, "'%s' merge '%s' '%s' --md '%s' >'%s' 2>&1 </dev/null",
             gv_test_gpuval_bin(), a, b, md, term);
    int rc = gv_test_exit_code(system(args));
    cr_expect(rc == 0 || rc == 6, "merge: exit %d", rc);
    size_t n_md, n_term;
    char *m = slurp_bin(md, &n_md), *t = slurp_bin(term, &n_term);
    cr_assert_not_null(m, "merge wrote its Markdown");
    cr_assert_not_null(t);
    const char *raw[] = {"\n# INJ", "INJlink](", "\n| INJ", "<INJtag"};
    for (size_t k = 0; k < 4; k++)
        cr_expect_null(memmem(m, n_md, raw[k], strlen(raw[k])), "a raw '%s' in merge --md", raw[k]);
    for (const char *p = m; p < m + n_md; p++) /* a code span opened by a raw backtick */
        if (*p == '`') cr_expect(p > m && p[-1] == '\\', "a raw backtick in merge --md");
    for (size_t k = 0; k < n_term; k++) {
        unsigned char ch = (unsigned char)t[k];
        cr_expect(!((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f ||
                    (ch == 0xc2 && k + 1 < n_term && (unsigned char)t[k + 1] == 0x9b)),
                  "control byte 0x%02x at %zu in merge's table", ch, k);
        if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f) break;
    }
    for (size_t k = 0; k < n_md; k++)
        if (((unsigned char)m[k] < 0x20 && m[k] != '\n') || m[k] == 0x7f) {
            cr_expect(false, "control byte 0x%02x in merge --md", (unsigned char)m[k]);
            break;
        }
    free(m);
    free(t);
    gv_test_remove_dir(dir);
}
