/* cli.c: the pieces the gpuval subcommands share — getopt_long and --help from a command's
 * option table, usage errors, the option parsers, output probing and the recorded command line
 * (declared in cli.h). */
#include "cmd/cli.h"

#include <cblas.h>

#include "io/json_util.h"
#include "io/run_doc.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gv_cmd_getopt_init(gv_getopt *g, const gv_opt_table *t)
{
    memset(g, 0, sizeof *g);
    int nl = 0, ns = 0;
    /* each table's file asserts n <= GV_OPTS_MAX; the bound here keeps the arrays whole */
    for (int i = 0; i < t->n && i < GV_OPTS_MAX; i++) {
        const gv_opt *o = &t->opts[i];
        if (o->name)
            g->longopts[nl++] =
                (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->id};
        if (gv_opt_is_short(o)) {
            g->shortopts[ns++] = (char)o->id;
            if (o->arg) g->shortopts[ns++] = ':';
        }
    }
    /* -V, --version in every command: its id is no table's (test_cli), so a table's own
       options keep theirs */
    g->longopts[nl++] = (struct option){"version", no_argument, NULL, GV_OPT_VERSION};
    g->shortopts[ns++] = (char)GV_OPT_VERSION;
    optind = 1;
    opterr = 0; /* gv_cmd_bad_option names a bad option, escaped */
}

int gv_cmd_getopt_next(const gv_getopt *g, int argc, char **argv)
{
    return getopt_long(argc, argv, g->shortopts, g->longopts, NULL);
}

/* "  -q, --quiet", "  --op GLOBS" or "  -v", then the option's text from col. */
static void print_option(FILE *f, const gv_opt *o, int col)
{
    char head[128];
    int len;
    if (!o->name)
        len = snprintf(head, sizeof head, "  -%c", o->id);
    else if (gv_opt_is_short(o))
        len = snprintf(head, sizeof head, "  -%c, --%s", o->id, o->name);
    else
        len = snprintf(head, sizeof head, "  --%s", o->name);
    if (o->arg && len >= 0 && (size_t)len < sizeof head)
        len += snprintf(head + len, sizeof head - (size_t)len, " %s", o->arg);
    if (o->heading) fprintf(f, "%s\n", o->heading);
    fputs(head, f);
    int pad = len + 2 <= col ? col - len : 2;
    if (!*o->help) fputc('\n', f);
    for (const char *p = o->help; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "%*s%.*s\n", pad, "", (int)n, p);
        p += n + (p[n] == '\n');
        pad = col;
    }
}

/* The line every command's help gets for the option gv_cmd_getopt_init adds to every table. */
static const gv_opt version_opt = {.name = "version",
                                   .id = GV_OPT_VERSION,
                                   .help = "the version and the build, as gpuval --version"};

void gv_cmd_help_print(FILE *f, const gv_help *h)
{
    fputs(h->head, f);
    for (int i = 0; h->opts && i < h->opts->n; i++)
        if (h->opts->opts[i].help) print_option(f, &h->opts->opts[i], h->col);
    if (h->opts) print_option(f, &version_opt, h->col);
    if (h->tail) fputs(h->tail, f);
    fputc('\n', f);
    int codes[16]; /* GV_EXIT_CODES has 8 */
    const char *whats[16];
    int n = 0;
    for (; n < h->n_exits && n < 16; n++) {
        codes[n] = h->exits[n].code;
        whats[n] = h->exits[n].what;
    }
    gv_exit_help(f, codes, whats, n);
}

/* The command main dispatched to: a value that does not parse (--dist nosuch, --seed -1) is
   a usage error like an unknown option, and points at that command's help too, though the
   parsers below are shared by every command and are not told which one called them. */
static const char *current_cmd;

void gv_cmd_set_current(const char *cmd)
{
    current_cmd = cmd;
}

void gv_cmd_usage_try(const char *cmd)
{
    if (cmd)
        fprintf(stderr, "try 'gpuval %s --help'\n", cmd);
    else
        fputs("try 'gpuval --help'\n", stderr);
}

void gv_cmd_usage_cmd(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[512], *msg = small;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (msg = malloc((size_t)n + 1)) != NULL)
        vsnprintf(msg, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    va_end(ap);
    gv_usage_error("%s", msg ? msg : small);
    if (msg != small) free(msg);
    gv_cmd_usage_try(cmd);
}

void gv_cmd_bad_option(const char *cmd, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    /* getopt_long leaves optopt 0 for an option it does not know, the option's id for one
       that lacks its value or (--flag=x) has a value it does not take */
    if (strncmp(arg, "--", 2) != 0 && optopt > 0 && optopt < 256)
        gv_usage_error("%s: unknown option '-%c'", cmd, optopt); /* short options take no value */
    else if (optopt == 0 || strncmp(arg, "--", 2) != 0)
        gv_usage_error("%s: unknown option '%s'", cmd, arg);
    else if (strchr(arg, '='))
        gv_usage_error("%s: option '%.*s' takes no value", cmd, (int)strcspn(arg, "="), arg);
    else
        gv_usage_error("%s: option '%s' needs a value", cmd, arg);
    gv_cmd_usage_try(cmd);
}

char *gv_cmd_join_args(int argc, char **argv)
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
    char *copy = strdup(s), *rest = copy;
    if (!copy) return -1;
    /* strsep keeps empty items: "f32,,f64", ",f32" and "f32," are refused, not read as
       "f32,f64" (a typo in a list must not silently change the selection) */
    for (char *tok = strsep(&rest, ","); tok; tok = strsep(&rest, ",")) {
        int v;
        if (!*tok) {
            char shown[256];
            gv_usage_error("empty item in the %s list '%s'", what,
                           gv_printable(s, shown, sizeof shown));
            gv_cmd_usage_try(current_cmd);
            free(copy);
            return -1;
        }
        if (parse(tok, &v) != GV_OK) {
            char shown[256];
            fprintf(stderr, "gpuval: unknown %s '%s'; valid:", what,
                    gv_printable(tok, shown, sizeof shown));
            for (int i = 0; i < n; i++)
                fprintf(stderr, " %s", names[i]);
            fputc('\n', stderr);
            gv_cmd_usage_try(current_cmd);
            free(copy);
            return -1;
        }
        *mask |= 1u << v;
    }
    free(copy);
    if (!*mask) {
        gv_usage_error("empty %s list", what);
        gv_cmd_usage_try(current_cmd);
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

int gv_cmd_parse_dtype_list(const char *s, unsigned *mask)
{
    const char *names[GV_NDTYPES];
    for (int i = 0; i < GV_NDTYPES; i++)
        names[i] = gv_dtype_name((gv_dtype)i);
    return parse_list(s, mask, dtype_parse_int, "dtype", names, GV_NDTYPES);
}

int gv_cmd_parse_mode_list(const char *s, unsigned *mask)
{
    const char *names[GV_NMODES];
    for (int i = 0; i < GV_NMODES; i++)
        names[i] = gv_mode_name((gv_mode)i);
    return parse_list(s, mask, mode_parse_int, "mode", names, GV_NMODES);
}

int gv_cmd_parse_dist(const char *s, int *dist)
{
    gv_dist d;
    if (gv_dist_parse(s, &d) == GV_OK) {
        *dist = (int)d;
        return 0;
    }
    char shown[256];
    fprintf(stderr, "gpuval: unknown dist '%s'; valid:", gv_printable(s, shown, sizeof shown));
    for (int i = 0; i < GV_NDISTS; i++)
        fprintf(stderr, " %s", gv_dist_name((gv_dist)i));
    fputc('\n', stderr);
    gv_cmd_usage_try(current_cmd);
    return -1;
}

/* A seed is decimal digits, or 0x/0X followed by hex digits: no sign, no spaces, no octal
 * (a leading 0 is decimal), at most 2^64-1. */
int gv_cmd_parse_seed(const char *s, uint64_t *seed)
{
    char shown[256];
    int base = 10;
    const char *p = s;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    bool ok = *p != '\0';
    uint64_t v = 0;
    bool over = false;
    for (; ok && *p; p++) {
        int d;
        if (*p >= '0' && *p <= '9')
            d = *p - '0';
        else if (base == 16 && *p >= 'a' && *p <= 'f')
            d = *p - 'a' + 10;
        else if (base == 16 && *p >= 'A' && *p <= 'F')
            d = *p - 'A' + 10;
        else {
            ok = false;
            break;
        }
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) over = true;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    if (!ok) {
        gv_usage_error("--seed takes decimal digits or 0x and hex digits (no sign or spaces), "
                       "not '%s'",
                       gv_printable(s, shown, sizeof shown));
        gv_cmd_usage_try(current_cmd);
        return -1;
    }
    if (over) {
        gv_usage_error("--seed '%s' exceeds the largest seed 18446744073709551615 (2^64-1)",
                       gv_printable(s, shown, sizeof shown));
        gv_cmd_usage_try(current_cmd);
        return -1;
    }
    *seed = v;
    return 0;
}

int gv_cmd_parse_sizes(const char *spec, gv_shape *shapes, int max, gv_selection *sel)
{
    char err[512];
    int ns = gv_size_spec_parse(spec, shapes, max, err, sizeof err);
    if (ns < 0) {
        gv_usage_error("%s", err);
        gv_cmd_usage_try(current_cmd);
        return -1;
    }
    sel->shapes = shapes;
    sel->n_shapes = ns;
    return 0;
}

void gv_cmd_run_start(gv_run_info *info, const char *command, int argc, char **argv)
{
    gv_cmd_run_start_probe(info, command, argc, argv, gv_device_probe_here);
}

void gv_cmd_run_start_probe(gv_run_info *info, const char *command, int argc, char **argv,
                            void (*probe)(gv_device_seen *seen, char *why, size_t len))
{
    memset(info, 0, sizeof *info);
    info->command = command;
    info->oracle_threads = openblas_get_num_threads();
    char why[256] = "";
    gv_device_seen seen;
    probe(&seen, why, sizeof why);
    info->have_device = seen.have_device;
    info->device = seen.device;
    info->device_count = seen.count;
    info->device_index = seen.index;
    info->argv_joined = gv_cmd_join_args(argc, argv);
    gv_fleet_info_fill(&info->fleet, info->have_device ? &info->device : NULL, info->device_count,
                       info->device_index);
    if (info->have_device)
        printf("device: %s (cc %d.%d, %d SMs; device %d of %d)\n", info->device.name,
               info->device.cc_major, info->device.cc_minor, info->device.sm_count,
               info->fleet.device_index, info->fleet.device_count);
    else
        printf("device: none (%s)\n", why);
    if (info->fleet.rank.launcher) {
        char size[16] = "?", local[16] = "?";
        if (info->fleet.rank.world_size >= 0)
            snprintf(size, sizeof size, "%d", info->fleet.rank.world_size);
        if (info->fleet.rank.local_rank >= 0)
            snprintf(local, sizeof local, "%d", info->fleet.rank.local_rank);
        printf("rank: %d of %s (local rank %s, %s) on %s\n", info->fleet.rank.rank, size, local,
               info->fleet.rank.launcher, info->fleet.host);
    }
    gv_env_warn(stdout);
}
