/* test_fleet.c: running on every GPU of a node and merging runs, without a GPU — the output
 * digest, the launchers' rank variables, per-rank paths, the workers' command lines (read with
 * the command's own option table, as its parser reads it), `gpuval merge` on synthetic run files
 * (identical, one outlier, two devices that differ, a slow device, mismatched models, a
 * non-deterministic op, a bad file) and two ranks launched by hand and merged. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/fleet_text.h"
#include "cmd/bench.h"     /* gv_bench_options */
#include "cmd/check.h"     /* gv_check_options */
#include "cmd/cli.h"       /* gv_getopt: the commands' parser */
#include "cmd/tradeoffs.h" /* gv_trade_options */
#include "core/hash.h"
#include "fleet/workers.h"
#include "io/run_info.h"
#include "testkit.h"

/* ---- digest ------------------------------------------------------------------------------ */

/* The digest runs record (gv_output_hash): XXH64 of each output's bytes in order, each seeded
   with the digest so far (XXH64 itself is checked against its published values in
   test_cache.c). */
Test(fleet_digest, the_output_digest_chains_xxh64_over_the_outputs)
{
    float a[3] = {1.0f, 2.0f, 3.0f}, b[2] = {4.0f, 5.0f};
    gv_problem p;
    memset(&p, 0, sizeof p);
    p.c.dtype = GV_F32;
    p.l.n_out = 2;
    p.out[0].data = a, p.out[0].count = 3;
    p.out[1].data = b, p.out[1].count = 2;
    uint64_t want = gv_xxh64(b, sizeof b, gv_xxh64(a, sizeof a, GV_OUTPUT_HASH_SEED));
    cr_expect_eq(gv_output_hash(&p), want);
    p.l.n_out = 1; /* one output fewer is another digest */
    cr_expect_neq(gv_output_hash(&p), want);
}

Test(fleet_digest, one_ulp_changes_the_digest_and_the_text_round_trips)
{
    float a[3] = {1.0f, 2.0f, 3.0f}, b[3] = {1.0f, 2.0f, 3.0f};
    b[2] = nextafterf(b[2], 4.0f);
    uint64_t ha = gv_xxh64(a, sizeof a, 0);
    uint64_t hb = gv_xxh64(b, sizeof b, 0);
    cr_expect_neq(ha, hb);
    char text[24];
    gv_digest_format(ha, text, sizeof text);
    cr_expect_eq(strlen(text), 18u, "%s", text);
    uint64_t back = 0;
    cr_expect_eq(gv_digest_parse(text, &back), 0);
    cr_expect_eq(back, ha);
    cr_expect_eq(gv_digest_parse("0x123", &back), -1);
    cr_expect_eq(gv_digest_parse("0xZZZZZZZZZZZZZZZZ", &back), -1);
}

/* ---- ranks ------------------------------------------------------------------------------- */

static const char *const *fake_env;

static const char *fake_get(const char *name)
{
    for (int i = 0; fake_env[i]; i += 2)
        if (strcmp(fake_env[i], name) == 0) return fake_env[i + 1];
    return NULL;
}

static int parse_with(const char *const *env, gv_rank *r)
{
    fake_env = env;
    char err[128];
    return gv_rank_parse(fake_get, r, err, sizeof err);
}

Test(fleet_rank, each_launcher_is_read)
{
    gv_rank r;
    const char *none[] = {NULL};
    cr_expect_eq(parse_with(none, &r), 0);
    cr_expect_null(r.launcher);
    cr_expect_eq(r.rank, -1);

    const char *ompi[] = {"OMPI_COMM_WORLD_RANK",
                          "3",
                          "OMPI_COMM_WORLD_LOCAL_RANK",
                          "1",
                          "OMPI_COMM_WORLD_SIZE",
                          "8",
                          NULL};
    cr_expect_eq(parse_with(ompi, &r), 1);
    cr_expect_str_eq(r.launcher, "openmpi");
    cr_expect_eq(r.rank, 3);
    cr_expect_eq(r.local_rank, 1);
    cr_expect_eq(r.world_size, 8);

    const char *slurm[] = {"SLURM_PROCID", "5", "SLURM_LOCALID", "0", "SLURM_NTASKS", "6", NULL};
    cr_expect_eq(parse_with(slurm, &r), 1);
    cr_expect_str_eq(r.launcher, "slurm");
    cr_expect_eq(r.rank, 5);
    cr_expect_eq(r.local_rank, 0);
    cr_expect_eq(r.world_size, 6);

    const char *pmi[] = {"PMI_RANK", "2", NULL};
    cr_expect_eq(parse_with(pmi, &r), 1);
    cr_expect_str_eq(r.launcher, "pmi");
    cr_expect_eq(r.rank, 2);
    cr_expect_eq(r.local_rank, -1, "no local rank given: unknown");
}

Test(fleet_rank, open_mpi_wins_over_slurm_and_bad_values_are_refused)
{
    gv_rank r;
    /* mpirun inside an allocation: Slurm's variables describe the allocation's step */
    const char *both[] = {"SLURM_PROCID", "0", "OMPI_COMM_WORLD_RANK", "1", NULL};
    cr_expect_eq(parse_with(both, &r), 1);
    cr_expect_str_eq(r.launcher, "openmpi");
    cr_expect_eq(r.rank, 1);
    const char *bad[][3] = {{"SLURM_PROCID", "x", NULL},
                            {"SLURM_PROCID", "-1", NULL},
                            {"SLURM_PROCID", "", NULL},
                            {"SLURM_PROCID", "99999999999", NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_expect_eq(parse_with(bad[i], &r), -1, "%s=%s", bad[i][0], bad[i][1]);
        cr_expect_eq(r.rank, -1);
    }
    const char *bad_local[] = {"OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_LOCAL_RANK", "1a",
                               NULL};
    cr_expect_eq(parse_with(bad_local, &r), -1);
}

Test(fleet_rank, local_rank_selects_the_device)
{
    char err[128] = "";
    gv_rank r = {.rank = 5, .local_rank = 1, .world_size = 8, .launcher = "slurm"};
    cr_expect_eq(gv_rank_device(&r, 4, err, sizeof err), 1);
    cr_expect_eq(gv_rank_device(&r, 1, err, sizeof err), 0, "one visible GPU: the bound one");
    r.local_rank = 4;
    cr_expect_eq(gv_rank_device(&r, 4, err, sizeof err), -1);
    cr_expect_not_null(strstr(err, "local rank 4 selects device 4, 4 present"), "%s", err);
    r.local_rank = -1;
    cr_expect_eq(gv_rank_device(&r, 4, err, sizeof err), 0);
}

Test(fleet_rank, per_rank_paths)
{
    char buf[64];
    cr_expect_str_eq(gv_rank_path("run.json", 3, buf, sizeof buf), "run.rank3.json");
    cr_expect_str_eq(gv_rank_path("out/run", 0, buf, sizeof buf), "out/run.rank0");
    cr_expect_str_eq(gv_rank_path("r%r/x.%r.json", 12, buf, sizeof buf), "r12/x.12.json");
    cr_expect_str_eq(gv_rank_path("-", 7, buf, sizeof buf), "-");
    cr_expect_str_eq(gv_rank_path("100%.json", 1, buf, sizeof buf), "100%.rank1.json");
    char small[8];
    cr_expect_null(gv_rank_path("run.json", 1, small, sizeof small));
}

/* ---- the workers' command line ----------------------------------------------------------- */

static void expect_argv(char **w, const char *const *want)
{
    int i = 0;
    for (; want[i]; i++) {
        cr_assert_not_null(w[i], "argument %d missing, want '%s'", i, want[i]);
        cr_expect_str_eq(w[i], want[i], "argument %d", i);
    }
    cr_expect_null(w[i], "argument %d extra: '%s'", i, w[i] ? w[i] : "");
}

Test(fleet_workers, parent_only_options_are_dropped_in_every_spelling)
{
    char *argv[] = {
        "check",     "--op",          "vadd",    "--device",    "all",        "--json=f.json",
        "--dev=0,1", "--js",          "g.json",  "--seed",      "7",          "-q",
        "--save",    "s.json",        "--force", "--size=1000", "--baseline", "b.json",
        "--planted", "--op=--device", NULL};
    int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
    char **w =
        gv_fleet_worker_argv(&gv_check_options, "/bin/gpuval", argc, argv, 1, "/tmp/r.dev1.json");
    cr_assert_not_null(w);
    const char *want[] = {"/bin/gpuval", "check",
                          "--op",        "vadd",
                          "--seed",      "7",
                          "-q",          "--size=1000",
                          "--planted",   "--op=--device",
                          "--device",    "1",
                          "--json",      "/tmp/r.dev1.json",
                          NULL};
    expect_argv(w, want);
    gv_fleet_worker_argv_free(w);

    /* a value that looks like an option stays the value of the option before it */
    char *argv2[] = {"check", "--op", "--json", "--device", "0,1", NULL};
    w = gv_fleet_worker_argv(&gv_check_options, "g", 5, argv2, 0, "j");
    const char *want2[] = {"g", "check", "--op", "--json", "--device", "0", "--json", "j", NULL};
    expect_argv(w, want2);
    gv_fleet_worker_argv_free(w);
}

/* The option of table t named name, or NULL. */
static const gv_opt *find_opt(const gv_opt_table *t, const char *name)
{
    for (int k = 0; k < t->n; k++)
        if (t->opts[k].name && strcmp(t->opts[k].name, name) == 0) return &t->opts[k];
    return NULL;
}

/* The shortest prefix of opts[k]'s name that starts no other option of t (getopt_long reads it
   as that option), or the whole name when every shorter one is shared. */
static void unique_prefix(const gv_opt_table *t, int k, char *buf, size_t len)
{
    const char *name = t->opts[k].name;
    for (size_t p = 1; p < strlen(name); p++) {
        bool alone = true;
        for (int j = 0; j < t->n && alone; j++)
            if (j != k && t->opts[j].name && strncmp(t->opts[j].name, name, p) == 0) alone = false;
        if (alone) {
            snprintf(buf, len, "%.*s", (int)p, name);
            return;
        }
    }
    snprintf(buf, len, "%s", name);
}

/* args[0..argc) as the command's own parser reads them (gv_getopt over t, on a copy: getopt_long
   permutes): the ids into ids and the values into vals; the number of options, or -1 when it
   refuses one or leaves an argument over. */
static int parse_like_the_command(const gv_opt_table *t, char **args, int argc, int *ids,
                                  const char **vals)
{
    char *copy[16];
    cr_assert_lt(argc, 16);
    memcpy(copy, args, sizeof *copy * (size_t)argc);
    copy[argc] = NULL;
    gv_getopt g;
    gv_cmd_getopt_init(&g, t);
    int c, n = 0;
    while ((c = gv_cmd_getopt_next(&g, argc, copy)) != -1) {
        if (c == '?') return -1;
        ids[n] = c;
        vals[n++] = optarg;
    }
    return optind == argc ? n : -1;
}

/* Every long option of check, bench and tradeoffs, in each spelling getopt_long takes (--name
   VALUE, --name=VALUE, the shortest unique prefix), between two options the workers keep: the
   command's parser reads it as that option with that value, and the workers' command line has
   exactly what the parser read when the option is not the parent's own, nothing of it when it
   is. The value is "--json", a parent-only option's name, so a worker that took it for an
   option would show. The parser, --help and the workers read one table: this shows that the
   workers read it as the parser does, whatever is added to it. */
Test(fleet_workers, every_option_the_parser_reads_reaches_the_workers_unless_parent_only)
{
    const gv_opt_table *tables[] = {&gv_check_options, &gv_bench_options, &gv_trade_options};
    for (size_t ti = 0; ti < sizeof tables / sizeof tables[0]; ti++) {
        const gv_opt_table *t = tables[ti];
        const gv_opt *seed = find_opt(t, "seed");
        cr_assert_not_null(seed, "%s has --seed", t->cmd);
        cr_assert_not(seed->parent_only);
        int checked = 0;
        for (int k = 0; k < t->n; k++) {
            const gv_opt *o = &t->opts[k];
            if (!o->name) continue;
            char full[72], pre[72], joined[96], prefix[64];
            snprintf(full, sizeof full, "--%s", o->name);
            unique_prefix(t, k, prefix, sizeof prefix);
            snprintf(pre, sizeof pre, "--%s", prefix);
            snprintf(joined, sizeof joined, "--%s=--json", o->name);
            /* the spellings: its tokens, how many */
            const char *spell[3][2] = {{full, "--json"}, {pre, "--json"}, {joined, NULL}};
            int n_spell = o->arg ? 3 : 2;
            for (int sp = 0; sp < n_spell; sp++) {
                int ntok = o->arg && sp < 2 ? 2 : 1;
                char *args[16] = {(char *)t->cmd, "--seed", "7"};
                int argc = 3;
                for (int i = 0; i < ntok; i++)
                    args[argc++] = (char *)spell[sp][i];
                args[argc++] = "--seed";
                args[argc++] = "8";
                int ids[8];
                const char *vals[8];
                int n = parse_like_the_command(t, args, argc, ids, vals);
                cr_assert_eq(n, 3, "%s %s %s: the parser read %d options", t->cmd, spell[sp][0],
                             ntok > 1 ? spell[sp][1] : "", n);
                cr_expect_eq(ids[1], o->id, "%s %s: read as another option", t->cmd, spell[sp][0]);
                if (o->arg)
                    cr_expect(vals[1] && strcmp(vals[1], "--json") == 0, "%s %s: value '%s'",
                              t->cmd, spell[sp][0], vals[1] ? vals[1] : "(none)");
                cr_expect(ids[0] == seed->id && ids[2] == seed->id && strcmp(vals[2], "8") == 0,
                          "%s %s: the options around it were misread", t->cmd, spell[sp][0]);

                char **w = gv_fleet_worker_argv(t, "exe", argc, args, 3, "J.json");
                cr_assert_not_null(w);
                const char *want[16] = {"exe", t->cmd, "--seed", "7"};
                int nw = 4;
                char per_dev[96];
                for (int i = 0; i < ntok && !o->parent_only; i++)
                    want[nw++] = spell[sp][i];
                if (o->per_device && !o->parent_only) { /* its value, VALUE/dev3 */
                    snprintf(per_dev, sizeof per_dev, "%s/dev3", spell[sp][ntok - 1]);
                    want[nw - 1] = per_dev;
                }
                const char *tail[] = {"--seed", "8", "--device", "3", "--json", "J.json", NULL};
                for (int i = 0; tail[i]; i++)
                    want[nw++] = tail[i];
                want[nw] = NULL;
                expect_argv(w, want);
                gv_fleet_worker_argv_free(w);
                checked++;
            }
        }
        cr_expect_geq(checked, 2 * (t->n - 1), "%s: every option tried", t->cmd);
    }
}

/* What each command's parent keeps to itself: the files it writes (the workers write their own
   NAME.devI.json), its baseline, and the device list; nothing of the selection or the method. */
Test(fleet_workers, the_parent_keeps_its_outputs_and_the_device_list_and_nothing_else)
{
    static const struct {
        const gv_opt_table *t;
        const char *own[8];
    } cmds[] = {
        {&gv_check_options, {"json", "junit", "save", "baseline", "force", "device", NULL}},
        {&gv_bench_options,
         {"json", "csv", "md", "save", "force", "device", "device-serial", NULL}},
        {&gv_trade_options, {"json", "md", "device", "device-serial", NULL}},
    };
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        const gv_opt_table *t = cmds[c].t;
        int own = 0;
        for (int i = 0; cmds[c].own[i]; i++, own++) {
            const gv_opt *o = find_opt(t, cmds[c].own[i]);
            cr_assert_not_null(o, "%s --%s", t->cmd, cmds[c].own[i]);
            cr_expect(o->parent_only, "%s --%s is the parent's", t->cmd, o->name);
        }
        int marked = 0;
        for (int k = 0; k < t->n; k++)
            marked += t->opts[k].parent_only;
        cr_expect_eq(marked, own, "%s: %d options are the parent's, want %d", t->cmd, marked, own);
    }
}

/* The seven options of check that the workers' own copy of its table once lacked (--inputs,
   --dump-failures, --as, --no-cache, --repeat, --case-timeout, --no-isolate) are in the one
   table and reach every worker, values and all. */
Test(fleet_workers, check_options_the_old_copy_lacked_reach_the_workers)
{
    const char *seven[] = {"inputs", "dump-failures", "as",        "no-cache",
                           "repeat", "case-timeout",  "no-isolate"};
    for (size_t i = 0; i < sizeof seven / sizeof seven[0]; i++) {
        const gv_opt *o = find_opt(&gv_check_options, seven[i]);
        cr_assert_not_null(o, "check --%s is in check's table", seven[i]);
        cr_expect_not(o->parent_only, "check --%s reaches the workers", seven[i]);
    }
    char *argv[] = {"check",
                    "--op",
                    "vadd",
                    "--inputs",
                    "a.npy,b.npy",
                    "--dump-failures",
                    "dumps",
                    "--as",
                    "vadd",
                    "--no-cache",
                    "--repeat",
                    "3",
                    "--case-timeout=5",
                    "--no-isolate",
                    "--device",
                    "0,1",
                    NULL};
    int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
    char **w = gv_fleet_worker_argv(&gv_check_options, "g", argc, argv, 1, "r.dev1.json");
    cr_assert_not_null(w);
    const char *want[] = {"g",
                          "check",
                          "--op",
                          "vadd",
                          "--inputs",
                          "a.npy,b.npy",
                          "--dump-failures",
                          "dumps/dev1", /* each device its own directory */
                          "--as",
                          "vadd",
                          "--no-cache",
                          "--repeat",
                          "3",
                          "--case-timeout=5",
                          "--no-isolate",
                          "--device",
                          "1",
                          "--json",
                          "r.dev1.json",
                          NULL};
    expect_argv(w, want);
    gv_fleet_worker_argv_free(w);
}

Test(fleet_workers, workers_run_their_output_is_shown_and_a_missing_run_is_an_error, .timeout = 120)
{
    /* devices 7 and 8 exist nowhere here: each worker says so (exit 2) and leaves no run, so
       the parent prints both workers' output and exits 3; the spawn, the command line, the
       capture and the wait are the ones a real fleet goes through */
    gv_device_plan plan = {.n = 2, .index = {7, 8}};
    char *argv[] = {"check", "--op", "vadd", "--size", "1000", "-q", "--device", "7,8", NULL};
    char path[] = "/tmp/gv-workers-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    fflush(stdout);
    fflush(stderr);
    int saved = dup(1), saved_err = dup(2);
    cr_assert(saved >= 0 && saved_err >= 0);
    cr_assert(dup2(fd, 1) >= 0 && dup2(fd, 2) >= 0);
    gv_fleet_end end;
    gv_error e;
    unsetenv("OMP_NUM_THREADS");
    unsetenv("OPENBLAS_NUM_THREADS");
    gv_status st = gv_fleet_run_workers(gv_test_gpuval_bin(), &gv_check_options, &plan, 8, argv,
                                        NULL, 1, &gv_fleet_text_printer, &end, &e);
    cr_expect_eq(st, GV_ST_RUNTIME, "the library says runtime (%s)", gv_status_name(st));
    int rc = gv_cmd_fleet_end(&end, NULL, &e);
    fflush(stdout);
    fflush(stderr);
    dup2(saved, 1);
    dup2(saved_err, 2);
    close(saved);
    close(saved_err);
    close(fd);
    char out[16384];
    gv_test_slurp(path, out, sizeof out);
    unlink(path);
    cr_expect_eq(rc, 3, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "check on 2 devices, one worker process each: 7 8"), "%s", out);
    cr_expect_not_null(strstr(out, "== device 7 (worker exit 2) =="), "%s", out);
    cr_expect_not_null(strstr(out, "== device 8 (worker exit 2) =="), "%s", out);
    /* each worker's own message, passed through, and the parent's */
    cr_expect_not_null(strstr(out, "gpuval: device 7 requested, "), "%s", out);
    cr_expect_not_null(strstr(out, "gpuval: device 8 requested, "), "%s", out);
    cr_expect_not_null(strstr(out, "device 7 left no run"), "%s", out);
    /* two workers at once: each one's oracle got half of this process's cores */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) cores = CPU_COUNT(&set);
    char want[24];
    snprintf(want, sizeof want, "%ld", cores / 2 > 1 ? cores / 2 : 1);
    cr_expect_str_eq(getenv("OMP_NUM_THREADS"), want);
    cr_expect_str_eq(getenv("OPENBLAS_NUM_THREADS"), want);
}

Test(fleet_workers, a_thread_count_the_user_chose_reaches_the_workers_unchanged, .timeout = 120)
{
    gv_device_plan plan = {.n = 2, .index = {7, 8}};
    char *argv[] = {"check", "--op", "vadd", "--size", "1000", "-q", "--device", "7,8", NULL};
    setenv("OMP_NUM_THREADS", "3", 1);
    unsetenv("OPENBLAS_NUM_THREADS");
    fflush(stdout);
    int saved = dup(1), saved_err = dup(2), null = open("/dev/null", O_WRONLY);
    cr_assert(saved >= 0 && saved_err >= 0 && null >= 0);
    dup2(null, 1);
    dup2(null, 2);
    gv_fleet_end end;
    gv_error e;
    gv_fleet_run_workers(gv_test_gpuval_bin(), &gv_check_options, &plan, 8, argv, NULL, 1,
                         &gv_fleet_text_printer, &end, &e);
    gv_cmd_fleet_end(&end, NULL, &e);
    fflush(stdout);
    dup2(saved, 1);
    dup2(saved_err, 2);
    close(null);
    cr_expect_str_eq(getenv("OMP_NUM_THREADS"), "3");
    cr_expect_null(getenv("OPENBLAS_NUM_THREADS"));
}

/* ---- gpuval merge on synthetic run files ------------------------------------------------- */

typedef struct fake_case {
    const char *op;
    const char *hash;
    double normwise, device_ms;
    const char *verdict;
    bool deterministic;
} fake_case;

static double fake_max_ulp; /* a case's max_ulp when set; 0: its normwise error / 1e-8 */

/* A gpuval-run/1 file for device `index` of `model` with the given cases (shape 1000). */
static void write_run(const char *path, int index, const char *model, const fake_case *cases, int n)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("gpuval-run/1"));
    json_object_set_new(root, "fleet",
                        json_pack("{s:s, s:i, s:n, s:{s:i, s:i}, s:i, s:i}", "host", "node1",
                                  "device_index", index, "rank", "pcie", "gen", 5, "width", 16,
                                  "sm_clock_mhz", 1980, "sm_clock_max_mhz", 1980));
    char uuid[64];
    snprintf(uuid, sizeof uuid, "0000000%d-0000-0000-0000-000000000000", index);
    json_object_set_new(root, "device",
                        json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i}", "name", model, "uuid",
                                  uuid, "cc_major", 9, "cc_minor", 0, "sm_count", 132,
                                  "driver_version", 13000, "runtime_version", 13000,
                                  "cublas_version", 130100));
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        const fake_case *c = &cases[i];
        json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:[i], s:i, s:s, s:b, s:f}", "op", c->op,
                              "dtype", "f32", "mode", "native", "dist", "uniform11", "shape", 1000,
                              "seed", 0, "verdict", c->verdict ? c->verdict : "PASS",
                              "deterministic", c->deterministic, "device_ms", c->device_ms);
        json_object_set_new(o, "output_hash", c->hash ? json_string(c->hash) : json_null());
        json_object_set_new(o, "metrics",
                            json_pack("{s:f, s:f, s:f, s:i, s:f, s:f}", "max_rel", 2 * c->normwise,
                                      "max_ulp", fake_max_ulp > 0 ? fake_max_ulp : c->normwise / 1e-8,
                                      "normwise_rel", c->normwise, "worst_index", 41, "worst_value",
                                      0.5, "worst_ref", 0.25));
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "cases", arr);
    cr_assert_eq(json_dump_file(root, path, 0), 0, "write %s", path);
    json_decref(root);
}

static char dir[64]; /* scratch paths go into buffers of 128 and 256 */

static void make_dir(void)
{
    gv_test_scratch_dir(dir, sizeof dir, "fleet");
}

static void remove_dir(void)
{
    gv_test_remove_dir(dir);
}

static int merge(const char *files, char *out, size_t len)
{
    char args[1024];
    snprintf(args, sizeof args, "merge %s --json %s/fleet.json --md %s/fleet.md", files, dir, dir);
    return gv_test_run_cli(args, out, len);
}

#define H_A "0x00000000000000aa"
#define H_B "0x00000000000000bb"

TestSuite(fleet_merge, .init = make_dir, .fini = remove_dir);

Test(fleet_merge, identical_devices_agree_and_exit_0, .timeout = 60)
{
    fake_case c[] = {{"vadd", H_A, 1e-8, 1.0, NULL, true},
                     {"gemm.cublas", H_B, 1e-7, 5.0, NULL, true}};
    char p0[128], p1[128], files[512], out[16384];
    snprintf(p0, sizeof p0, "%s/r0.json", dir);
    snprintf(p1, sizeof p1, "%s/r1.json", dir);
    write_run(p0, 0, "NVIDIA H200", c, 2);
    write_run(p1, 1, "NVIDIA H200", c, 2);
    snprintf(files, sizeof files, "%s %s", p0, p1);
    int rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "2 identical, 0 differ"), "%s", out);
    cr_expect_not_null(strstr(out, "0 outlier devices"), "%s", out);
    cr_expect_null(strstr(out, "SLOW"), "%s", out);
    char path[160], doc[65536];
    snprintf(path, sizeof path, "%s/fleet.json", dir);
    gv_test_slurp(path, doc, sizeof doc);
    cr_expect_not_null(strstr(doc, "\"schema\": \"gpuval-fleet/1\""), "%.400s", doc);
    snprintf(path, sizeof path, "%s/fleet.md", dir);
    gv_test_slurp(path, doc, sizeof doc);
    cr_expect_not_null(strstr(doc, "| dev0 | node1 |"), "%.400s", doc);
}

Test(fleet_merge, the_minority_digest_is_named_with_its_worst_element, .timeout = 60)
{
    fake_case same[] = {{"vadd", H_A, 1e-8, 1.0, NULL, true}};
    fake_case odd[] = {{"vadd", H_B, 1e-8, 1.0, NULL, true}};
    char p[3][128], files[512], out[16384];
    for (int i = 0; i < 3; i++)
        snprintf(p[i], sizeof p[i], "%s/r%d.json", dir, i);
    write_run(p[0], 0, "NVIDIA H200", same, 1);
    write_run(p[1], 1, "NVIDIA H200", same, 1);
    write_run(p[2], 2, "NVIDIA H200", odd, 1); /* same error, different bits: majority decides */
    snprintf(files, sizeof files, "%s %s %s", p[0], p[1], p[2]);
    int rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 6, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "DIFFER: outlier dev2"), "%s", out);
    cr_expect_not_null(strstr(out, "dev2 digest " H_B), "%s", out);
    cr_expect_not_null(strstr(out, "worst element 41 = 0.5 (oracle 0.25)"), "%s", out);
    cr_expect_not_null(strstr(out, "1 outlier device\n"), "%s", out);
}

Test(fleet_merge, two_devices_the_one_farther_from_the_oracle_is_the_outlier, .timeout = 60)
{
    fake_case good[] = {{"vadd", H_A, 1e-8, 1.0, NULL, true}};
    fake_case worse[] = {{"vadd", H_B, 3e-8, 1.0, NULL, true}}; /* 3 ulps where 1 */
    char p0[128], p1[128], files[512], out[16384];
    snprintf(p0, sizeof p0, "%s/r0.json", dir);
    snprintf(p1, sizeof p1, "%s/r1.json", dir);
    write_run(p0, 0, "NVIDIA H200", worse, 1);
    write_run(p1, 1, "NVIDIA H200", good, 1);
    snprintf(files, sizeof files, "%s %s", p0, p1);
    int rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 6, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "DIFFER: outlier dev0"), "%s", out);
    cr_expect_not_null(strstr(out, "reference dev1"), "%s", out);

    /* the same error on both: no majority and no closer one, undecided but still exit 6 */
    fake_case tie[] = {{"vadd", H_B, 1e-8, 1.0, NULL, true}};
    write_run(p0, 0, "NVIDIA H200", tie, 1);
    rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 6, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "DIFFER (no majority, none clearly nearer the oracle)"), "%s", out);
}

/* Without a majority, nearness to the oracle decides only when both errors say so: a fault of a
   few ulps in one element of an op that errs by several ulps an element may lower the faulty
   device's normwise error while its largest error stays (measured on two H200s: a mantissa flip
   in the middle of an f32 FFT named the healthy GPU). */
Test(fleet_merge, two_devices_nearer_by_one_error_only_is_undecided, .timeout = 60)
{
    fake_case healthy[] = {{"fft.c2c.fwd", H_A, 3.0e-7, 1.0, NULL, true}};
    fake_case faulty[] = {{"fft.c2c.fwd", H_B, 2.9e-7, 1.0, NULL, true}};
    fake_max_ulp = 6.0;
    char p0[128], p1[128], files[512], out[16384];
    snprintf(p0, sizeof p0, "%s/r0.json", dir);
    snprintf(p1, sizeof p1, "%s/r1.json", dir);
    write_run(p0, 0, "NVIDIA H200", healthy, 1);
    write_run(p1, 1, "NVIDIA H200", faulty, 1);
    snprintf(files, sizeof files, "%s %s", p0, p1);
    int rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 6, "exit %d\n%s", rc, out);
    cr_expect_null(strstr(out, "DIFFER: outlier dev0"), "the healthy device is not named alone:\n%s",
                   out);
    cr_expect_not_null(strstr(out, "DIFFER (no majority, none clearly nearer the oracle)"), "%s", out);
    /* nearer, but its largest error only a little smaller: still undecided */
    write_run(p0, 0, "NVIDIA H200", healthy, 1);
    fake_max_ulp = 4.0;
    write_run(p1, 1, "NVIDIA H200", faulty, 1);
    rc = merge(files, out, sizeof out);
    cr_expect_not_null(strstr(out, "DIFFER (no majority, none clearly nearer the oracle)"), "%s", out);
    /* nearer, and the other's largest error twice its own: decided */
    fake_max_ulp = 3.0;
    write_run(p1, 1, "NVIDIA H200", faulty, 1);
    fake_max_ulp = 0;
    rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 6, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "DIFFER: outlier dev0"), "%s", out);
}

Test(fleet_merge, a_device_over_ten_percent_slower_is_flagged, .timeout = 60)
{
    char p[3][128], files[512], out[16384];
    double ms[3] = {10.0, 10.0, 11.5}; /* median 10: +15 % */
    for (int i = 0; i < 3; i++) {
        fake_case c[] = {{"vadd", H_A, 1e-8, ms[i], NULL, true}};
        snprintf(p[i], sizeof p[i], "%s/r%d.json", dir, i);
        write_run(p[i], i, "NVIDIA H200", c, 1);
    }
    snprintf(files, sizeof files, "%s %s %s", p[0], p[1], p[2]);
    int rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 0, "a slow device is a flag, not a failure: exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "+15.0% SLOW"), "%s", out);
    cr_expect_not_null(strstr(out, "dev2 is 15.0% slower than its node's median"), "%s", out);
    cr_expect_not_null(strstr(out, "PCIe Gen5 x16"), "%s", out);

    /* +9 %: under the 10 % line */
    fake_case c[] = {{"vadd", H_A, 1e-8, 10.9, NULL, true}};
    write_run(p[2], 2, "NVIDIA H200", c, 1);
    rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_null(strstr(out, "SLOW"), "%s", out);
    cr_expect_not_null(strstr(out, "+9.0%"), "%s", out);
}

Test(fleet_merge, different_models_are_not_compared_bit_for_bit, .timeout = 60)
{
    fake_case a[] = {{"vadd", H_A, 1e-8, 1.0, NULL, true}};
    fake_case b[] = {{"vadd", H_B, 2e-8, 1.0, NULL, true}};
    char p0[128], p1[128], files[512], out[16384];
    snprintf(p0, sizeof p0, "%s/r0.json", dir);
    snprintf(p1, sizeof p1, "%s/r1.json", dir);
    write_run(p0, 0, "NVIDIA H200", a, 1);
    write_run(p1, 1, "NVIDIA H100 80GB HBM3", b, 1);
    snprintf(files, sizeof files, "%s %s", p0, p1);
    int rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "2 device models"), "%s", out);
    cr_expect_not_null(strstr(out, "compared bit for bit only within each"), "%s", out);
    cr_expect_not_null(strstr(out, "0 identical, 0 differ, 1 not compared"), "%s", out);
}

Test(fleet_merge, non_deterministic_ops_and_failures, .timeout = 60)
{
    fake_case a[] = {{"vadd", H_A, 1e-8, 1.0, NULL, false},
                     {"gemm.cublas", H_A, 1e-8, 1.0, NULL, true}};
    fake_case b[] = {{"vadd", H_B, 2e-8, 1.0, NULL, false},
                     {"gemm.cublas", H_A, 1e-8, 1.0, "FAIL", true}};
    char p0[128], p1[128], files[512], out[16384];
    snprintf(p0, sizeof p0, "%s/r0.json", dir);
    snprintf(p1, sizeof p1, "%s/r1.json", dir);
    write_run(p0, 0, "NVIDIA H200", a, 2);
    write_run(p1, 1, "NVIDIA H200", b, 2);
    snprintf(files, sizeof files, "%s %s", p0, p1);
    int rc = merge(files, out, sizeof out);
    cr_expect_eq(rc, 1, "a FAIL on one device comes first: exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "not compared (op not deterministic)"), "%s", out);
    cr_expect_not_null(strstr(out, "1 identical, 0 differ, 1 not compared"), "%s", out);
}

Test(fleet_merge, bad_input_exits_2_and_writes_nothing, .timeout = 60)
{
    char p0[128], args[512], out[8192], path[160];
    snprintf(p0, sizeof p0, "%s/bad.json", dir);
    FILE *f = fopen(p0, "w");
    cr_assert_not_null(f);
    fputs("{\"schema\": \"gpuval-run/0\", \"cases\": []}", f);
    fclose(f);
    int rc = merge(p0, out, sizeof out);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "is not a gpuval-run/1, "), "%s", out);
    snprintf(path, sizeof path, "%s/fleet.json", dir);
    cr_expect_neq(access(path, F_OK), 0, "nothing written");
    snprintf(args, sizeof args, "merge");
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    snprintf(args, sizeof args, "merge %s/missing.json", dir);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
}

/* ---- two ranks launched by hand, then merged --------------------------------------------- */

Test(fleet_merge, two_ranks_write_their_own_files_and_merge, .timeout = 120)
{
    char args[1024], out[16384], path[256], doc[65536];
    for (int rank = 0; rank < 2; rank++) {
        /* as mpirun -np 2 would set them; the binary reads them, nothing else differs */
        snprintf(args, sizeof args, "check --op vadd --size 1000 --json %s/run.%%r.json -q", dir);
        char cmd[1400];
        snprintf(cmd, sizeof cmd,
                 "env OMPI_COMM_WORLD_RANK=%d OMPI_COMM_WORLD_LOCAL_RANK=%d "
                 "OMPI_COMM_WORLD_SIZE=2 '%s' %s </dev/null >/dev/null 2>&1",
                 rank, rank, gv_test_gpuval_bin(), args);
        int rc = gv_test_exit_code(system(cmd));
        cr_expect(rc == 0 || rc == 77, "rank %d: exit %d", rank, rc);
        snprintf(path, sizeof path, "%s/run.%d.json", dir, rank);
        gv_test_slurp(path, doc, sizeof doc);
        char want[64];
        snprintf(want, sizeof want, "\"rank\": %d,", rank);
        cr_expect_not_null(strstr(doc, want), "rank %d's file %s: %.300s", rank, path, doc);
        cr_expect_not_null(strstr(doc, "\"launcher\": \"openmpi\""), "%.300s", doc);
        cr_expect_not_null(strstr(doc, "\"output_hash\""), "%.300s", doc);
    }
    char files[512];
    snprintf(files, sizeof files, "%s/run.0.json %s/run.1.json", dir, dir);
    int rc = merge(files, out, sizeof out);
    cr_expect(rc == 0 || rc == 77, "exit %d\n%s", rc, out);
    cr_expect_not_null(strstr(out, "rank0"), "%s", out);
    cr_expect_not_null(strstr(out, "rank1"), "%s", out);
    cr_expect_not_null(strstr(out, "2 cases on 2 runs"), "%s", out);
}

/* ---- --device on any machine ------------------------------------------------------------- */

Test(fleet_device, a_device_that_is_not_there_or_a_bad_spec_exits_2, .timeout = 60)
{
    char out[8192];
    int rc = gv_test_run_cli("check --op vadd --size 1000 --device 999 -q", out, sizeof out);
    cr_expect_eq(rc, 2, "exit %d: %s", rc, out);
    cr_expect_not_null(strstr(out, "device 999 requested, "), "%s", out);
    cr_expect_not_null(strstr(out, " present"), "%s", out);
    const char *bad[] = {"x", "1,,2", "-1", "0,0", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[128];
        snprintf(args, sizeof args, "check --op vadd --device '%s' -q", bad[i]);
        rc = gv_test_run_cli(args, out, sizeof out);
        cr_expect_eq(rc, 2, "--device '%s': exit %d: %s", bad[i], rc, out);
    }
    rc = gv_test_run_cli("bench --op vadd --size 1000 --device 999", out, sizeof out);
    cr_expect_eq(rc, 2, "bench: exit %d: %s", rc, out);
    cr_expect_not_null(strstr(out, "device 999 requested, "), "%s", out);
    rc = gv_test_run_cli("tradeoffs --op vadd --device 999", out, sizeof out);
    cr_expect_eq(rc, 2, "tradeoffs: exit %d: %s", rc, out);
    cr_expect_not_null(strstr(out, "device 999 requested, "), "%s", out);
    if (gk_device_count() >= 2) {
        rc = gv_test_run_cli("bench --op vadd --size 1000 --device 0,1 --csv x.csv", out,
                             sizeof out);
        cr_expect_eq(rc, 2, "bench on a list: exit %d: %s", rc, out);
        cr_expect_not_null(strstr(out, "take one device's run"), "%s", out);
    }
    if (gk_device_count() == 0) {
        rc = gv_test_run_cli("check --op vadd --device all -q", out, sizeof out);
        cr_expect_eq(rc, 77, "no device: exit %d: %s", rc, out);
        cr_expect_not_null(strstr(out, "--device all: no CUDA device"), "%s", out);
    }
}

/* merge's help shows its percentages as written (printf formats were once fputs'd there,
   showing "10%%"); a usage error prints one line and the pointer to that help, not the help */
Test(fleet, merge_help_has_no_doubled_percent_signs)
{
    static char out[16384];
    int rc = gv_test_run_cli("merge --bogus", out, sizeof out);
    cr_expect_eq(rc, 2, "exit %d", rc);
    cr_expect_str_eq(out, "gpuval: merge: unknown option '--bogus'\ntry 'gpuval merge --help'\n");
    rc = gv_test_run_cli("merge --help", out, sizeof out);
    cr_expect_eq(rc, 0);
    cr_expect(strstr(out, "10% over") != NULL && strstr(out, "%%") == NULL, "%s", out);
}

/* Launcher variables that contradict each other (rank 5 of a job of 2, a job of 0) are refused,
   never run as a rank the job cannot have. */
Test(fleet_rank, a_rank_past_the_job_size_is_refused)
{
    gv_rank r;
    const char *past[] = {"OMPI_COMM_WORLD_RANK", "5", "OMPI_COMM_WORLD_SIZE", "2", NULL};
    cr_expect_eq(parse_with(past, &r), -1);
    cr_expect_eq(r.rank, -1);
    const char *edge[] = {"SLURM_PROCID", "2", "SLURM_NTASKS", "2", NULL};
    cr_expect_eq(parse_with(edge, &r), -1);
    const char *zero[] = {"PMI_RANK", "0", "PMI_SIZE", "0", NULL};
    cr_expect_eq(parse_with(zero, &r), -1);
    const char *last[] = {"SLURM_PROCID", "1", "SLURM_NTASKS", "2", NULL};
    cr_expect_eq(parse_with(last, &r), 1);
    cr_expect_eq(r.rank, 1);
}
