/* test_cli.c: the gpuval command line as a user meets it — the real binary (path in env
 * GPUVAL, set by tests/meson.build) run through the shell. Usage errors exit 2 with a message
 * naming the valid choices and write nothing, also after --baseline and --inputs are loaded;
 * --help exits 0, lists every option of the command's table and ends with its exit codes from
 * the core table; list hides planted bugs unless --all; check without a device exits 77 with
 * SKIP rows, and its --json file parses. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/bench.h"
#include "cmd/check.h"
#include "cmd/cli.h" /* GV_OPT_VERSION */
#include "cmd/compare.h"
#include "cmd/merge.h"
#include "cmd/judge.h"
#include "cmd/replay.h"
#include "cmd/report.h"
#include "cmd/tradeoffs.h"
#include "core/knobs.h"
#include "testkit.h"

typedef struct cli_run {
    int status; /* exit code, or -1 if it did not exit normally */
    char out[65536];
    char err[65536];
} cli_run;

/* A fresh scratch directory for one test. */
static void scratch(char *dir, size_t len)
{
    snprintf(dir, len, "%s/gpuval-cli-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp %s", dir);
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            struct stat st;
            if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(path);
            else
                unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

/* Number of entries in dir besides . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Run `$GPUVAL args` (args are shell words written by the tests) and capture both streams. */
static cli_run *run(const char *args)
{
    cli_run *r = calloc(1, sizeof *r);
    cr_assert_not_null(r);
    r->status = gv_test_run_cli_split(args, r->out, sizeof r->out, r->err, sizeof r->err);
    return r;
}

/* True when the machine running the tests has no CUDA device (gpuval info exits 77). */
static bool no_device(void)
{
    cli_run *r = run("info");
    bool none = r->status == 77;
    free(r);
    return none;
}

/* Does text have a line that starts with word followed by a space? */
static bool has_row(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, word, n) == 0 && p[n] == ' ') return true;
    return false;
}

/* ---- usage errors: exit 2, a message on stderr, nothing on stdout --------------------------- */

static void expect_usage(const char *args, const char *needle)
{
    cli_run *r = run(args);
    cr_expect_eq(r->status, 2, "gpuval %s: exit %d, want 2 (stderr: %s)", args, r->status, r->err);
    cr_expect(strstr(r->err, needle) != NULL, "gpuval %s: stderr lacks '%s':\n%s", args, needle,
              r->err);
    cr_expect_str_empty(r->out, "gpuval %s: nothing on stdout for a usage error:\n%s", args,
                        r->out);
    free(r);
}

Test(cli, unknown_op_names_the_ops)
{
    expect_usage("check --op nope", "nope");
    expect_usage("check --op nope", "vadd");
    expect_usage("check --op nope", "gemm.cublas");
    expect_usage("check --op 'zz*'", "einsum.colsum");
}

/* An empty item in a comma list is a typo, not a shorter list: "f32,,f64" once ran f32 and
   f64 as if written "f32,f64". */
Test(cli, empty_list_items_are_refused)
{
    expect_usage("check --op vadd --dtype f32,,f64", "empty item in the dtype list 'f32,,f64'");
    expect_usage("check --op vadd --dtype ,f32", "empty item in the dtype list");
    expect_usage("check --op vadd --dtype f32,", "empty item in the dtype list");
    expect_usage("check --op gemm.cublas --mode native,,tf32", "empty item in the mode list");
    expect_usage("bench --op vadd --dtype f64,,", "empty item in the dtype list");
}

Test(cli, unknown_dtype_mode_dist_name_the_choices)
{
    expect_usage("check --dtype f16", "valid: f32 f64");
    expect_usage("check --dtype f32,bf16", "'bf16'");
    expect_usage("check --mode fast", "valid: native tf32 fastmath");
    expect_usage("check --dist normal", "valid: uniform01 uniform11 smallint special offgrid");
}

Test(cli, malformed_and_wrong_rank_sizes)
{
    expect_usage("check --op vadd --size 10y", "malformed size");
    expect_usage("check --op vadd --size 0", "malformed size");
    expect_usage("check --op vadd --size ''", "empty size");
    expect_usage("check --op gemm.cublas --size 100", "takes 3 dims (m,k,n)");
    expect_usage("check --op vadd --size 10x10", "takes 1 dim (n)");
    expect_usage("check --op matmul_colsum --size 10x10x10x10", "takes 3 dims");
}

Test(cli, positional_argument_and_unknown_command)
{
    expect_usage("check vadd", "positional");
    /* the valid commands are named (more may be added: check the ones that exist) */
    const char *cmds[] = {"valid:", " list", " info", " check"};
    for (int i = 0; i < 4; i++) {
        expect_usage("frobnicate", cmds[i]);
        expect_usage("help frobnicate", cmds[i]);
    }
    expect_usage("list extra", "no arguments");
    expect_usage("check --no-such-option", "try 'gpuval check --help'");
    expect_usage("check --seed -3", "--seed");
    expect_usage("check --op vadd --mode tf32", "no case matches");
}

Test(cli, no_arguments_is_a_usage_error)
{
    cli_run *r = run("");
    cr_expect_eq(r->status, 2);
    cr_expect(strstr(r->err, "usage: gpuval") != NULL, "%s", r->err);
    cr_expect_str_eq(r->err, "usage: gpuval <command> [options]\ntry 'gpuval --help'\n");
    free(r);
}

/* A usage error is one line that names the problem and one that points at the help, whatever
   the command and the mistake (an unknown option, an option without its value, a flag given a
   value, an argument missing, an unknown command): never the whole help, which buried the
   line that mattered under a hundred others. */
Test(cli, a_usage_error_is_one_line_and_a_pointer_to_the_help)
{
    static const struct {
        const char *args, *err;
    } cases[] = {
        {"check --no-such-option",
         "gpuval: check: unknown option '--no-such-option'\ntry 'gpuval check --help'\n"},
        {"check --op", "gpuval: check: option '--op' needs a value\ntry 'gpuval check --help'\n"},
        {"check -Z", "gpuval: check: unknown option '-Z'\ntry 'gpuval check --help'\n"},
        {"check --quiet=yes",
         "gpuval: check: option '--quiet' takes no value\ntry 'gpuval check --help'\n"},
        {"compare base.json", "gpuval: compare takes two run files, BASE and NEW (1 given)\n"
                              "try 'gpuval compare --help'\n"},
        {"report", "gpuval: report takes one run file (0 given)\ntry 'gpuval report --help'\n"},
        {"check vadd",
         "gpuval: check takes no positional arguments ('vadd')\ntry 'gpuval check --help'\n"},
        {"merge", "gpuval: merge needs at least one run file\ntry 'gpuval merge --help'\n"},
        {"cache nope", "gpuval: cache takes one word, info or clear\ntry 'gpuval cache --help'\n"},
        {"info --nope", "gpuval: info: unknown option '--nope'\ntry 'gpuval info --help'\n"},
        {"probe --json",
         "gpuval: probe: option '--json' needs a value\ntry 'gpuval probe --help'\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_run *r = run(cases[i].args);
        cr_expect_eq(r->status, 2, "gpuval %s: exit %d", cases[i].args, r->status);
        cr_expect_str_eq(r->err, cases[i].err, "gpuval %s", cases[i].args);
        cr_expect_str_empty(r->out, "gpuval %s: %s", cases[i].args, r->out);
        free(r);
    }
    /* a value that does not parse is a usage error too: its line (naming the valid values where
       there is a list), then the same pointer at the command's help, whichever command's
       option it was (the parsers are shared, so each command is tried) */
    static const struct {
        const char *args, *cmd;
    } values[] = {
        {"check --dist nosuch", "check"},       {"check --seed -1", "check"},
        {"check --size 0x", "check"},           {"check --dtype f33", "check"},
        {"check --dtype f32,,f64", "check"},    {"check --mode nosuch", "check"},
        {"bench --dist nosuch", "bench"},       {"tradeoffs --seed x", "tradeoffs"},
        {"probe --dtype nosuch", "probe"},      {"judge --op vadd --seed 1x", "judge"},
        {"collectives --dtype nosuch", "collectives"},
    };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        cli_run *r = run(values[i].args);
        char want[128];
        snprintf(want, sizeof want, "try 'gpuval %s --help'\n", values[i].cmd);
        size_t n = strlen(r->err), w = strlen(want);
        cr_expect_eq(r->status, 2, "gpuval %s: exit %d", values[i].args, r->status);
        cr_expect(n > w && strcmp(r->err + n - w, want) == 0 && r->err[n - w - 1] == '\n' &&
                      strncmp(r->err, "gpuval: ", 8) == 0,
                  "gpuval %s: %s", values[i].args, r->err);
        cr_expect_eq(strchr(r->err, '\n') + 1, r->err + n - w, "gpuval %s: not two lines: %s",
                     values[i].args, r->err);
        free(r);
    }
    /* an unknown command: the line names the valid ones, then the main help's pointer */
    cli_run *r = run("frobnicate");
    cr_expect_eq(r->status, 2);
    const char *nl = strchr(r->err, '\n');
    cr_expect(nl && strcmp(nl + 1, "try 'gpuval --help'\n") == 0, "%s", r->err);
    free(r);
}

/* -V and --version are every command's options (cli.c adds them to every table), not only the
   top level's: each prints what `gpuval --version` prints and exits 0, wherever an option may
   stand; as an option's value it is the value. */
Test(cli, every_command_takes_version)
{
    static char top[4096];
    cr_assert_eq(gv_test_run_cli("--version", top, sizeof top), 0);
    static const char *const cmds[] = {"list",      "info",  "check",   "bench",      "report",
                                       "tradeoffs", "probe", "compare", "replay",     "judge",
                                       "inputs",    "cache", "merge",   "collectives"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        for (int form = 0; form < 2; form++) {
            char args[128];
            snprintf(args, sizeof args, "%s %s", cmds[i], form ? "-V" : "--version");
            cli_run *r = run(args);
            cr_expect_eq(r->status, 0, "gpuval %s: exit %d (%s)", args, r->status, r->err);
            cr_expect_str_eq(r->out, top, "gpuval %s", args);
            cr_expect_str_empty(r->err, "gpuval %s: %s", args, r->err);
            free(r);
        }
    cli_run *r = run("check --op vadd --size 10 --version");
    cr_expect_eq(r->status, 0);
    cr_expect_str_eq(r->out, top);
    free(r);
    /* the value of --op, not the option: the op -V does not exist */
    r = run("check --op -V");
    cr_expect_eq(r->status, 2, "%s", r->out);
    cr_expect_str_empty(r->out);
    free(r);
}

Test(cli, unwritable_json_is_refused_before_running)
{
    char dir[512], args[2048], target[1024];
    scratch(dir, sizeof dir);
    /* a directory that does not exist */
    snprintf(target, sizeof target, "%s/missing/run.json", dir);
    snprintf(args, sizeof args, "check --op vadd --size 1000 --json '%s'", target);
    expect_usage(args, "cannot write --json");
    cr_expect_not(exists(target));
    snprintf(target, sizeof target, "%s/missing", dir);
    cr_expect_not(exists(target), "the missing directory is not created");
    /* a path that is a directory: refused up front, not after every case has run */
    snprintf(target, sizeof target, "%s/adir", dir);
    cr_assert_eq(mkdir(target, 0700), 0);
    snprintf(args, sizeof args, "check --op vadd --size 1000 --json '%s'", target);
    expect_usage(args, "cannot write --json");
    cr_expect_eq(entries(target), 0);
    cr_expect_eq(entries(dir), 1, "only adir itself: no adir.tmp left behind");
    remove_tree(dir);
}

Test(cli, usage_error_leaves_json_untouched)
{
    char dir[512], args[2048], target[1024];
    scratch(dir, sizeof dir);
    snprintf(target, sizeof target, "%s/run.json", dir);
    snprintf(args, sizeof args, "check --op nope --json '%s'", target);
    expect_usage(args, "nope");
    cr_expect_eq(entries(dir), 0, "no file, no .tmp after a usage error");
    /* an existing result survives a later usage error unchanged */
    FILE *f = fopen(target, "w");
    cr_assert_not_null(f);
    fputs("{\"old\": true}\n", f);
    fclose(f);
    snprintf(args, sizeof args, "check --op vadd --size 1x --json '%s'", target);
    expect_usage(args, "malformed size");
    char buf[256];
    gv_test_slurp(target, buf, sizeof buf);
    cr_expect_str_eq(buf, "{\"old\": true}\n");
    cr_expect_eq(entries(dir), 1);
    remove_tree(dir);
}

/* A selection that matches nothing, and every other usage error check finds after --baseline
   and --inputs are loaded, exits 2 with its message. Those paths once returned without freeing
   the loaded baseline (1.3 MB for a whole catalogue's) or arrays: in the ASan build the CPU
   suite runs with detect_leaks=1, and a leak there turns the exit into LeakSanitizer's 1. */
Test(cli, usage_errors_after_the_baseline_and_inputs_are_loaded_exit_2, .timeout = 120)
{
    char dir[512], args[4096], base[1024], dump[1024], inputs[2048];
    scratch(dir, sizeof dir);
    snprintf(base, sizeof base, "%s/b.json", dir);
    snprintf(args, sizeof args, "check --op vadd --size 1001 --json '%s'", base);
    cli_run *r = run(args);
    cr_assert(r->status == 0 || r->status == 77, "baseline run: exit %d: %s", r->status, r->err);
    free(r);
    snprintf(dump, sizeof dump, "%s/dump", dir);
    cr_assert_eq(mkdir(dump, 0700), 0);
    char taken[1200];
    snprintf(taken, sizeof taken, "%s/vadd-f32-native-uniform11-1001-s0", dump);
    cr_assert_eq(mkdir(taken, 0700), 0);
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src, "GPUVAL_SRCDIR names the source tree");
    snprintf(inputs, sizeof inputs, "%s/fixtures/vadd_f32_a.npy,%s/fixtures/vadd_f32_b.npy", src,
             src);
    static const struct {
        const char *args, *says;
    } bad[] = {
        {"--op 'nomatch*'", "no op matches 'nomatch*'"},
        {"--op vadd --mode tf32", "no case matches the selection"},
        {"--op vadd --size 1001 --as nosuch", "--as: no op 'nosuch'"},
        {"--op vadd --size 1001 --as gemm.cublas", "does not share its inputs"},
        {"--op 'vadd*' --planted --size 1001 --as vadd", "the selection has several ops"},
        {"--op vadd --size 1001 --dump-failures '@DUMP@'", "replaced only with --force"},
        {"--op vadd --inputs '@IN@' --as gemm.cublas", "does not share its inputs"},
        {"--op vadd --inputs '@IN@' --mode tf32", "no case matches the selection"},
        {"--op vadd --inputs '@IN@' --dtype f64", "which --dtype leaves out"},
        {"--op vadd --inputs '@IN@' --size 10", "no --size"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char rest[2048] = "";
        const char *p = bad[i].args;
        while (*p) { /* @DUMP@ and @IN@ into their paths */
            size_t used = strlen(rest);
            if (strncmp(p, "@DUMP@", 6) == 0) {
                snprintf(rest + used, sizeof rest - used, "%s", dump);
                p += 6;
            } else if (strncmp(p, "@IN@", 4) == 0) {
                snprintf(rest + used, sizeof rest - used, "%s", inputs);
                p += 4;
            } else {
                rest[used] = *p++;
                rest[used + 1] = '\0';
            }
        }
        snprintf(args, sizeof args, "check --baseline '%s' %s", base, rest);
        expect_usage(args, bad[i].says);
    }
    remove_tree(dir);
}

/* ---- help ---------------------------------------------------------------------------------- */

Test(cli, help_of_each_command)
{
    const char *forms[][2] = {
        {"--help", "usage: gpuval <command>"},   {"help", "usage: gpuval <command>"},
        {"list --help", "usage: gpuval list"},   {"info --help", "usage: gpuval info"},
        {"check --help", "usage: gpuval check"}, {"help check", "usage: gpuval check"},
        {"help list", "usage: gpuval list"},     {"help info", "usage: gpuval info"}};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        cli_run *r = run(forms[i][0]);
        cr_expect_eq(r->status, 0, "gpuval %s: exit %d", forms[i][0], r->status);
        cr_expect(strstr(r->out, forms[i][1]) != NULL, "gpuval %s: stdout lacks '%s':\n%s",
                  forms[i][0], forms[i][1], r->out);
        free(r);
    }
}

static const char *const commands[] = {"list",      "info",        "check",   "bench",
                                       "tradeoffs", "replay",      "compare", "report",
                                       "cache",     "collectives", "merge"};

/* Every help (the main one and each command's) ends with its exit codes as gv_exit_help prints
   them: "exit: CODE what" and one "      CODE what" line per further code, each a code of the
   core table (core/gv.h), 0 and 2 always among them; the main help lists every code of the
   table in its words. No help shows a printf escape: the texts are printed as written. */
Test(cli, every_help_ends_with_its_exit_codes_from_the_core_table)
{
    static char out[65536];
    for (size_t c = 0; c <= sizeof commands / sizeof commands[0]; c++) {
        char args[64];
        bool main_help = c == sizeof commands / sizeof commands[0];
        snprintf(args, sizeof args, "%s --help", main_help ? "" : commands[c]);
        cr_assert_eq(gv_test_run_cli(args, out, sizeof out), 0, "gpuval %s", args);
        cr_expect_null(strstr(out, "%%"), "gpuval %s: a doubled percent sign:\n%s", args, out);
        const char *exit_block = strstr(out, "\nexit: ");
        cr_assert_not_null(exit_block, "gpuval %s: no exit codes:\n%s", args, out);
        bool seen0 = false, seen2 = false;
        int n = 0, last = -1;
        for (const char *p = exit_block + 1; *p; p = strchr(p, '\n') + 1) {
            int code, skip = 0;
            const char *lead = n == 0 ? "exit: " : "      ";
            cr_assert(strncmp(p, lead, 6) == 0 && sscanf(p + 6, "%d %n", &code, &skip) == 1 &&
                          skip > 0,
                      "gpuval %s: not an exit line: %.60s", args, p);
            cr_expect_str_neq((char *)gv_exit_meaning(code), "?", "gpuval %s: exit %d unknown",
                              args, code);
            cr_expect_gt(code, last, "gpuval %s: exit codes in order", args);
            last = code;
            seen0 |= code == 0;
            seen2 |= code == 2;
            if (main_help) {
                const char *what = p + 6 + skip;
                size_t len = strcspn(what, "\n");
                cr_expect(strlen(gv_exit_meaning(code)) == len &&
                              strncmp(what, gv_exit_meaning(code), len) == 0,
                          "main help: exit %d in other words: %.*s", code, (int)len, what);
            }
            n++;
            cr_assert_not_null(strchr(p, '\n'), "gpuval %s: the last line ends", args);
        }
        cr_expect(seen0 && seen2, "gpuval %s: exit 0 and 2 listed", args);
        if (main_help) {
            int all = 0;
#define COUNT_(name, code, status, what) all++;
            GV_EXIT_CODES(COUNT_)
#undef COUNT_
            cr_expect_eq(n, all, "the main help lists every exit code");
        }
    }
}

/* check's help says how the cases are kept apart as runner.c does it (one worker process, a
   fresh one after a fault), not as it once did (a child process per op), and names the %r of
   a per-rank path as it is typed. */
Test(cli, check_help_says_how_cases_are_isolated)
{
    static char out[65536];
    cr_assert_eq(gv_test_run_cli("check --help", out, sizeof out), 0);
    cr_expect_null(strstr(out, "each op's cases run in a child process"), "%s", out);
    cr_expect_not_null(strstr(out, "worker processes run the cases (--jobs)"), "%s", out);
    cr_expect_not_null(strstr(out, "--jobs N"), "%s", out);
    cr_expect_not_null(strstr(out, "fresh worker"), "%s", out);
    cr_expect_not_null(strstr(out, "replace %r in the path"), "%s", out);
}

/* Each command's option table (fleet/options.h), the one its parser, its --help and its workers
   read: names and parser ids unique, a short option only as a letter and only as a flag (the
   workers' command lines read short options as flags), every option but --help explained;
   and the command's --help lists every option with its value's name and -V, on stdout; after a
   bad option, one line and the pointer to that help on stderr. (list's table is main.c's and
   collectives' is collectives.c's: either pulls the MPI ranks into the link, which the tests leave
   out; their helps are checked above.) */
Test(cli, every_option_table_is_sound_and_each_option_is_in_its_help, .timeout = 120)
{
    static const struct {
        const char *cmd;
        const gv_opt_table *t;
    } cmds[] = {{"check", &gv_check_options},     {"bench", &gv_bench_options},
                {"tradeoffs", &gv_trade_options}, {"replay", &gv_replay_options},
                {"compare", &gv_compare_options}, {"report", &gv_report_options},
                {"merge", &gv_merge_options},     {"judge", &gv_judge_options},
                {"inputs", &gv_inputs_options}};
    static cli_run help, bad;
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        const gv_opt_table *t = cmds[c].t;
        cr_expect_str_eq(t->cmd, cmds[c].cmd);
        cr_expect(t->n > 0 && t->n <= GV_OPTS_MAX, "%s: %d options", t->cmd, t->n);
        char args[128];
        snprintf(args, sizeof args, "%s --help", t->cmd);
        help.status =
            gv_test_run_cli_split(args, help.out, sizeof help.out, help.err, sizeof help.err);
        cr_expect_eq(help.status, 0, "%s", args);
        snprintf(args, sizeof args, "%s --no-such-option", t->cmd);
        bad.status = gv_test_run_cli_split(args, bad.out, sizeof bad.out, bad.err, sizeof bad.err);
        cr_expect_eq(bad.status, 2, "%s", args);
        char want[256];
        snprintf(want, sizeof want,
                 "gpuval: %s: unknown option '--no-such-option'\ntry 'gpuval %s --help'\n", t->cmd,
                 t->cmd);
        cr_expect_str_eq(bad.err, want, "%s: a bad option is one line and the pointer", t->cmd);
        cr_expect_not_null(strstr(help.out, "\n  -V, --version "), "%s --help lacks -V", t->cmd);
        bool has_help = false;
        for (int k = 0; k < t->n; k++) {
            const gv_opt *o = &t->opts[k];
            for (int j = 0; j < k; j++) {
                cr_expect_neq(o->id, t->opts[j].id, "%s: two options with id %d", t->cmd, o->id);
                cr_expect(!o->name || !t->opts[j].name || strcmp(o->name, t->opts[j].name) != 0,
                          "%s: --%s twice", t->cmd, o->name);
            }
            if (gv_opt_is_short(o)) {
                cr_expect(isalnum(o->id), "%s: short option %d is not a letter", t->cmd, o->id);
                cr_expect_null(o->arg, "%s: -%c takes a value", t->cmd, o->id);
            } else {
                cr_expect_geq(o->id, 256, "%s --%s: id %d", t->cmd, o->name, o->id);
                cr_expect_not_null(o->name, "%s: an option with neither name", t->cmd);
            }
            /* -V and --version are every command's (cli.c): a table may not take them */
            cr_expect_neq(o->id, GV_OPT_VERSION, "%s: an option with -V's id", t->cmd);
            cr_expect(!o->name || strcmp(o->name, "version") != 0, "%s: --version", t->cmd);
            if (o->name && strcmp(o->name, "help") == 0) {
                has_help = true;
                cr_expect_eq(o->id, 'h', "%s: --help is also -h", t->cmd);
                continue;
            }
            cr_expect(o->help && *o->help, "%s: option %s is not explained", t->cmd,
                      o->name ? o->name : "(short)");
            char head[96];
            if (!o->name)
                snprintf(head, sizeof head, "  -%c", o->id);
            else
                snprintf(head, sizeof head, "--%s%s%s", o->name, o->arg ? " " : "",
                         o->arg ? o->arg : "");
            cr_expect_not_null(strstr(help.out, head), "%s --help lacks '%s':\n%s", t->cmd, head,
                               help.out);
        }
        cr_expect(has_help, "%s has --help", t->cmd);
    }
}

/* ---- list ---------------------------------------------------------------------------------- */

Test(cli, list_shows_the_catalogue_and_hides_planted_bugs)
{
    const char *ops[] = {"vadd", "gemm.cublas", "gemm.tiled", "matmul_colsum", "einsum.colsum"};
    const char *planted[] = {"vadd.f32round", "gemm.tiled.droptail", "einsum.colsum.lastchunk"};
    cli_run *r = run("list");
    cr_expect_eq(r->status, 0);
    for (size_t i = 0; i < 5; i++)
        cr_expect(has_row(r->out, ops[i]), "list lacks %s", ops[i]);
    for (size_t i = 0; i < 3; i++)
        cr_expect_not(has_row(r->out, planted[i]), "list shows planted %s", planted[i]);
    cr_expect_null(strstr(r->out, "planted bug"));
    free(r);

    r = run("list --all");
    cr_expect_eq(r->status, 0);
    for (size_t i = 0; i < 5; i++)
        cr_expect(has_row(r->out, ops[i]), "--all lacks %s", ops[i]);
    for (size_t i = 0; i < 3; i++)
        cr_expect(has_row(r->out, planted[i]), "--all lacks planted %s", planted[i]);
    free(r);

    r = run("list -v");
    cr_expect_eq(r->status, 0);
    cr_expect(strstr(r->out, "error model:") != NULL);
    cr_expect(strstr(r->out, "Higham") != NULL, "error models cite their source");
    free(r);
}

/* ---- check without a device --------------------------------------------------------------- */

Test(cli, check_without_device_skips_and_exits_77)
{
    if (!no_device()) cr_skip_test("a CUDA device is present: check would run");
    cli_run *r = run("check --op vadd --size 1000");
    cr_expect_eq(r->status, 77, "exit %d, want 77 (stderr %s)", r->status, r->err);
    int skips = 0;
    for (const char *p = r->out; (p = strstr(p, "SKIP")); p++)
        skips++;
    cr_expect_eq(skips, 2, "one SKIP row per dtype:\n%s", r->out);
    cr_expect(strstr(r->out, "vadd") && strstr(r->out, "f32") && strstr(r->out, "f64"));
    cr_expect(strstr(r->out, "2 cases: 0 passed, 0 failed, 2 skipped, 0 errors") != NULL,
              "summary line:\n%s", r->out);
    free(r);
}

Test(cli, check_json_parses_with_schema_and_verdicts)
{
    bool none = no_device();
    char dir[512], args[2048], target[1024], tmp[1100];
    scratch(dir, sizeof dir);
    snprintf(target, sizeof target, "%s/run.json", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", target);
    snprintf(args, sizeof args, "check --op vadd --size 1000 --json '%s'", target);
    cli_run *r = run(args);
    cr_expect_eq(r->status, none ? 77 : 0, "exit %d (stderr %s)", r->status, r->err);
    free(r);
    cr_expect_not(exists(tmp), "no .tmp left behind");
    json_error_t jerr;
    json_t *root = json_load_file(target, 0, &jerr);
    cr_assert_not_null(root, "%s does not parse: %s (line %d)", target, jerr.text, jerr.line);
    cr_expect_str_eq(json_string_value(json_object_get(root, "schema")), "gpuval-run/1");
    cr_expect_str_eq(json_string_value(json_object_get(root, "command")), "check");
    json_t *cases = json_object_get(root, "cases");
    cr_assert(json_is_array(cases));
    cr_assert_eq(json_array_size(cases), 2, "vadd in f32 and f64");
    const char *want = none ? "SKIP" : "PASS";
    for (size_t i = 0; i < json_array_size(cases); i++) {
        json_t *c = json_array_get(cases, i);
        cr_expect_str_eq(json_string_value(json_object_get(c, "op")), "vadd");
        cr_expect_str_eq(json_string_value(json_object_get(c, "verdict")), want);
        const char *why = json_string_value(json_object_get(c, "reason"));
        if (none)
            cr_expect(why && (!strcmp(why, "no CUDA device") || !strcmp(why, "built without CUDA")),
                      "reason: %s", why ? why : "(none)");
        json_t *shape = json_object_get(c, "shape");
        cr_expect(json_is_array(shape) && json_array_size(shape) == 1 &&
                  json_integer_value(json_array_get(shape, 0)) == 1000);
    }
    const char *d0 = json_string_value(json_object_get(json_array_get(cases, 0), "dtype"));
    const char *d1 = json_string_value(json_object_get(json_array_get(cases, 1), "dtype"));
    cr_expect(d0 && d1 && strcmp(d0, d1) != 0, "one case per dtype");
    json_t *sum = json_object_get(root, "summary");
    cr_expect_eq(json_integer_value(json_object_get(sum, none ? "skipped" : "passed")), 2);
    cr_expect_eq(json_integer_value(json_object_get(sum, "failed")), 0);
    json_decref(root);
    remove_tree(dir);
}

Test(cli, save_never_replaces_a_baseline_and_baseline_must_be_a_run)
{
    char path[] = "/tmp/gv_base_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const char keep[] = "{\"schema\": \"not-a-run\"}";
    cr_assert_eq(write(fd, keep, sizeof keep - 1), (ssize_t)(sizeof keep - 1));
    close(fd);
    char args[256];
    snprintf(args, sizeof args, "check --op vadd --size 100 --save %s", path);
    expect_usage(args, "replaced only with --force");
    FILE *f = fopen(path, "r");
    char back[64] = "";
    cr_assert_not_null(f);
    cr_expect_not_null(fgets(back, sizeof back, f));
    fclose(f);
    cr_expect_str_eq(back, keep, "the existing baseline is untouched");
    snprintf(args, sizeof args, "check --op vadd --size 100 --baseline %s", path);
    expect_usage(args, "is not a gpuval-run/1 run");
    expect_usage("check --op vadd --size 100 --baseline /nonexistent/base.json", "base.json");
    unlink(path);
}

/* info names the oracle's BLAS and its core; a core the user names is kept as it is
   (src/gpuval_main.c names one only when OpenBLAS fell back to Prescott on its own) */
Test(cli, info_names_the_oracle_blas_core_and_keeps_the_users_choice)
{
    setenv("OPENBLAS_CORETYPE", "Haswell", 1);
    cli_run *r = run("info");
    unsetenv("OPENBLAS_CORETYPE");
    cr_expect(strstr(r->out, "oracle BLAS      OpenBLAS") != NULL, "no oracle BLAS line:\n%s",
              r->out);
    cr_expect(strstr(r->out, "core Haswell") != NULL, "the user's core was not kept:\n%s", r->out);
    cr_expect(strstr(r->out, "named by gpuval") == NULL, "gpuval overrode the user:\n%s", r->out);
    free(r);
}

/* `gpuval help env` prints every GPUVAL_* variable of the knob table (the list the test takes
   from the same table), with what it does; `help` of a name that is neither a command nor env
   is a usage error. */
Test(cli, help_env_lists_every_knob_from_its_table)
{
    cli_run *r = run("help env");
    cr_expect_eq(r->status, 0, "%s", r->err);
    int n = 0;
#define GV_KNOB_SEEN_(field, var, kind, what)                                                      \
    n++;                                                                                           \
    cr_expect_not_null(strstr(r->out, "  " var " ("), "%s missing:\n%s", var, r->out);
    GV_KNOBS(GV_KNOB_SEEN_)
#undef GV_KNOB_SEEN_
    cr_expect_geq(n, 10);
    cr_expect_not_null(strstr(r->out, "OMP_WAIT_POLICY"), "%s", r->out);
    cr_expect_not_null(strstr(r->out, "OPENBLAS_THREAD_TIMEOUT"), "%s", r->out);
    for (char *line = r->out; *line;) {
        size_t len = strcspn(line, "\n");
        cr_expect_leq(len, 96, "a line of %zu columns: %.*s", len, (int)len, line);
        line += len + (line[len] == '\n');
    }
    free(r);
    r = run("help nosuch");
    cr_expect_eq(r->status, 2);
    free(r);
}
