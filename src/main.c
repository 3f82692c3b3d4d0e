/* main.c: the gpuval command line — dispatch to subcommands, `list`, `info`, and the shared
 * option parsers. `check` lives in check.c, `bench` in bench/bench_cmd.c. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_cmd.h"
#include "cli.h"
#include "registry.h"
#include "report.h"

#ifndef GV_VERSION
#define GV_VERSION "unknown"
#endif

void gv_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpuval: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int gv_probe_writable(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    fclose(f);
    unlink(tmp);
    return 0;
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

static void mask_names(char *buf, size_t len, unsigned mask, const char *(*name)(int), int n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        if (mask & (1u << i))
            used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
                                     used ? "," : "", name(i));
}

static const char *dtype_name_i(int i)
{
    return gv_dtype_name((gv_dtype)i);
}
static const char *mode_name_i(int i)
{
    return gv_mode_name((gv_mode)i);
}

static const char list_help[] =
    "usage: gpuval list [--all] [-v]\n"
    "\n"
    "List the registered operations: name, dtypes, modes, shape dims, default sizes.\n"
    "  --all      include planted-bug variants (wrong on purpose; the oracle must FAIL them)\n"
    "  -v         also print each op's error model and its source\n";

int gv_cmd_list(int argc, char **argv)
{
    int all = 0, verbose = 0;
    static const struct option opts[] = {
        {"all", no_argument, 0, 'a'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "avh", opts, NULL)) != -1) {
        switch (c) {
        case 'a': all = 1; break;
        case 'v': verbose = 1; break;
        case 'h': fputs(list_help, stdout); return GV_EXIT_OK;
        default: fputs(list_help, stderr); return GV_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        gv_usage_error("list takes no arguments ('%s')", argv[optind]);
        return GV_EXIT_USAGE;
    }
    printf("%-24s %-8s %-20s %-14s %-40s %s\n", "op", "dtypes", "modes", "dims", "default sizes",
           "summary");
    for (const gv_op *const *opp = gv_registry(); *opp; opp++) {
        const gv_op *op = *opp;
        if (op->planted_bug && !all) continue;
        char dt[32], md[64];
        mask_names(dt, sizeof dt, op->dtypes, dtype_name_i, GV_NDTYPES);
        mask_names(md, sizeof md, op->modes, mode_name_i, GV_NMODES);
        printf("%-24s %-8s %-20s %-14s %-40s %s%s\n", op->name, dt, md, op->dims, op->shapes,
               op->planted_bug ? "[planted bug] " : "", op->summary);
        if (verbose) printf("%24s error model: %s\n", "", op->error_model);
    }
    return GV_EXIT_OK;
}

static const char info_help[] =
    "usage: gpuval info\n"
    "\n"
    "Print the device fingerprint (name, compute capability, SMs, clocks, memory, L2, ECC,\n"
    "driver, runtime and cuBLAS versions). Exits 77 when there is no CUDA device.\n";

int gv_cmd_info(int argc, char **argv)
{
    if (argc > 1) {
        if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
            fputs(info_help, stdout);
            return GV_EXIT_OK;
        }
        gv_usage_error("info takes no arguments ('%s')", argv[1]);
        return GV_EXIT_USAGE;
    }
#ifdef GV_HAVE_CUDA
    printf("build            CUDA, arch %s\n", GV_CUDA_ARCH);
#else
    printf("build            without CUDA\n");
#endif
    if (gk_device_count() == 0) {
        printf("no CUDA device\n");
        return GV_EXIT_NODEV;
    }
    gk_device_info d;
    if (gk_device_info_get(&d) != GV_OK) {
        gv_usage_error("device query failed: %s", gk_last_error());
        return GV_EXIT_RUNTIME;
    }
    gv_device_print(stdout, &d);
    return GV_EXIT_OK;
}

static const char main_help[] =
    "usage: gpuval <command> [options]\n"
    "\n"
    "gpuval runs GPU operations against a float64 CPU oracle and judges each result at the\n"
    "tolerance tiers 1e-8 and 1e-4 and by the operation's own error model.\n"
    "\n"
    "commands:\n"
    "  list     the registered operations\n"
    "  info     the CUDA device's fingerprint\n"
    "  check    correctness run: every case of the catalogue (or a selection), one row each\n"
    "  bench    timed run: CPU oracle and GPU side by side, speed-ups, crossover, presets\n"
    "  help CMD the options of CMD (same as CMD --help)\n"
    "\n"
    "exit codes: 0 all passed, 1 something failed, 2 usage or bad input, 3 runtime error,\n"
    "            77 nothing could run because there is no CUDA device\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(main_help, stderr);
        return GV_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        fputs(main_help, stdout);
        return GV_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("gpuval %s\n", GV_VERSION);
        return GV_EXIT_OK;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {{"list", gv_cmd_list},
                {"info", gv_cmd_info},
                {"check", gv_cmd_check},
                {"bench", gv_cmd_bench}};
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            fputs(main_help, stdout);
            return GV_EXIT_OK;
        }
        for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
            if (strcmp(argv[2], cmds[i].name) == 0) {
                char *help_argv[] = {argv[2], "--help", NULL};
                return cmds[i].fn(2, help_argv);
            }
        gv_usage_error("no command '%s'; valid: list info check bench", argv[2]);
        return GV_EXIT_USAGE;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(cmd, cmds[i].name) == 0) return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "gpuval: unknown command '%s'; valid: list info check bench help\n", cmd);
    return GV_EXIT_USAGE;
}
