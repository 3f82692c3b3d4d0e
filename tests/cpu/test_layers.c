/* test_layers.c: the layering of the tree, read from the sources' #include lines and a few
 * calls. The rule (docs/DESIGN.md, "Layout"):
 *   abi/       the bottom: system headers and abi/ only
 *   kernels/   abi/ and kernels/;  oracle/: abi/ and oracle/;  include/: itself
 *   src/WING/  the wings below it in RULES (cmd -> render -> fleet -> runs -> coll, bench -> io
 *               -> core; ops -> core; cmd -> probe -> io; cmd -> api -> io), abi/, the device
 *              layer's C ABI kernels/gk.h; core and ops also the oracle's oracle/go.h; core,
 *              api and cmd the public API include/gpuval.h
 *   tests/, tools/, python/, ci/ (their C sources, OUTSIDE): anything of the tree; only that
 *              every include resolves and no circle runs through them
 * An include resolves as the compiler resolves it: beside the including file, then (for src/)
 * from src/, the one include directory of the wings, and (for OUTSIDE) from the include
 * directories tests/meson.build gives them: include/, abi/, src/, oracle/, kernels/. One that
 * resolves nowhere fails (but the build's generated headers, named in GENERATED). No circle
 * between modules (a .c and its .h are one module). getenv only in src/core/knobs.c (src/ and
 * kernels/ alike), <jansson.h> never in core/ or ops/, getopt only in cmd/; exit codes
 * (GV_EXIT_*, gv_exit_code) and usage errors (gv_usage_error) only in cmd/, for the wings below
 * return a gv_status and a gv_error that cmd maps (cmd/exit.c), but in src/core/gv.h and gv.c,
 * which hold the one exit table (with its status column) and the printer cmd calls. Every .c of a
 * wing has a header of its own stem (but ops/, whose files define gv_family_F, and the command's
 * entry point). A .c of src/cmd/ defines no external function but one named gv_cmd_*, so that
 * the command line's helpers are never mistaken for library functions (the library's logic
 * lives below cmd, in api/ and the wings under it); the exceptions, in CMD_EXPORTS, are the
 * names that must stay: the gpuval command's main and the public gv_main and gv_main_all of
 * include/gpuval.h, which run the command line and so are cmd's. No stdio printing call
 * (PRINT_CALLS) in src/ outside render/ and cmd/, but in PRINT_HOMES. The checker also runs on
 * trees it plants with each kind of violation, so it is shown to fail. RULES steps down the floors
 * of docs/DESIGN.md's **Floors** table (each wing includes only wings of lower floors), the
 * table tools/structure.py holds the whole tree to, Python's imports included (the cpu test
 * `structure`). GPUVAL_SRCDIR (set by tests/meson.build) names the source tree. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdarg.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* paths here are built from a root realpath() returned and short names: never near PATH_MAX */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* ---- the rule ------------------------------------------------------------------------------ */

/* Which wings each wing may include (itself included). */
static const struct {
    const char *wing;
    const char *may[10];
} RULES[] = {
    {"core", {"core"}},
    {"ops", {"ops", "core"}},
    {"io", {"io", "core"}},
    {"bench", {"bench", "io", "core"}},
    /* the printers, of every wing's data below them; only cmd calls them */
    {"render", {"render", "fleet", "runs", "coll", "bench", "io", "core"}},
    {"coll", {"coll", "io", "core"}},
    {"runs", {"runs", "coll", "bench", "io", "core"}},
    {"fleet", {"fleet", "runs", "coll", "bench", "io", "core"}},
    {"api", {"api", "io", "core"}}, /* the public library's judge, inputs, op description */
    {"cmd", {"cmd", "api", "fleet", "runs", "coll", "render", "bench", "io", "core", "probe"}},
    {"probe",
     {"probe", "io", "core"}}, /* its document is a run document: io writes the shared members */
};
enum { N_RULES = sizeof RULES / sizeof RULES[0] };

/* Headers the build writes (meson.build, tests/meson.build), and the wing (or, outside src/,
   the top folder) whose sources may include them. */
static const struct {
    const char *name, *wing;
} GENERATED[] = {
    {"oracle_version.h", "core"}, {"judge_version.h", "core"}, {"build_commit.h", "io"},
    {"gv_families.h", "tests"}};

/* The folders outside src/ whose C sources are read: tests and tools of the tree. */
static const char *const OUTSIDE[] = {"tests", "tools", "python", "ci"};
enum { N_OUTSIDE = sizeof OUTSIDE / sizeof OUTSIDE[0] };
/* Where their includes resolve besides their own folder (tests/meson.build's test_inc). */
static const char *const OUTSIDE_INC[] = {"include", "abi", "src", "oracle", "kernels"};

/* The only files outside src/cmd/ that may name an exit code or print a usage error: the exit
   table's home and the printer's (their definitions, which cmd uses). */
static const char *const EXIT_HOMES[] = {"src/core/gv.h", "src/core/gv.c"};

/* The external functions a .c of src/cmd/ may define besides gv_cmd_*: names that must stay. */
static const struct {
    const char *file, *name;
} CMD_EXPORTS[] = {
    {"src/cmd/gpuval_main.c", "main"},    /* the gpuval command's entry point */
    {"src/cmd/gv_main.c", "gv_main"},     /* include/gpuval.h: a user's program running */
    {"src/cmd/gv_main.c", "gv_main_all"}, /* the command line over its own families */
};

/* Text for people is printed in src/render/ (and in src/cmd/: usage, errors, the command's own
   lines); the other wings return data and errors. A call of a stdio printing function
   (PRINT_CALLS) elsewhere in src/ is a violation, but in the files below, each for its reason.
   The list only shrinks: a file on it that no longer prints is a finding too, so that an entry
   never outlives its reason. */
static const char *const PRINT_CALLS[] = {"printf", "vprintf", "fprintf", "vfprintf", "puts",
                                          "fputs",  "putchar", "putc",    "fputc",    "perror"};
static const struct {
    const char *file, *why;
} PRINT_HOMES[] = {
    /* one line on stderr where the library meets it, not a table: a library that runs what
       prints as it goes takes a printer from cmd instead (fleet/workers.h, coll/coll_rows.h's
       gv_coll_table), and a file's own bytes are written with fwrite */
    {"src/core/gv.c", "the exit table and the error line cmd prints (EXIT_HOMES)"},
    {"src/core/cache.c", "a cache entry left alone or recomputed: a warning"},
    {"src/core/registry.c", "a broken op descriptor: a warning at start-up"},
    {"src/core/reference.c", "the oracle cache not used: a warning; its last-run note file"},
    {"src/io/json_util.c", "the numerics environment's warning"},
};
enum { N_PRINT_HOMES = sizeof PRINT_HOMES / sizeof PRINT_HOMES[0] };

typedef struct findings {
    int files, bad; /* sources read; violations of every kind */
    int upward, unresolved, circles, greps, headers, exports, prints;
    char text[32768];
} findings;

static void note(findings *f, int *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note(findings *f, int *kind, const char *fmt, ...)
{
    (*kind)++;
    f->bad++;
    size_t used = strlen(f->text);
    if (used + 2 >= sizeof f->text) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text + used, sizeof f->text - used, fmt, ap);
    va_end(ap);
    used = strlen(f->text);
    if (used + 1 < sizeof f->text) strcat(f->text, "\n");
}

/* "src/core/judge.c" -> top "src", wing "core"; "kernels/gk.h" -> top "kernels", wing "". */
static void place(const char *rel, char *top, char *wing, size_t len)
{
    const char *slash = strchr(rel, '/');
    size_t k = slash ? (size_t)(slash - rel) : strlen(rel);
    snprintf(top, len, "%.*s", (int)k, rel);
    wing[0] = '\0';
    if (strcmp(top, "src") == 0 && slash) {
        const char *s2 = strchr(slash + 1, '/');
        if (s2) snprintf(wing, len, "%.*s", (int)(s2 - slash - 1), slash + 1);
    }
}

static bool is_outside(const char *top)
{
    for (int i = 0; i < N_OUTSIDE; i++)
        if (strcmp(top, OUTSIDE[i]) == 0) return true;
    return false;
}

static bool wing_may(const char *from, const char *to)
{
    for (int i = 0; i < N_RULES; i++) {
        if (strcmp(RULES[i].wing, from) != 0) continue;
        for (int k = 0; k < 10 && RULES[i].may[k]; k++)
            if (strcmp(RULES[i].may[k], to) == 0) return true;
        return false;
    }
    return false; /* a wing the rule does not know may include nothing */
}

/* May a file at from_rel include to_rel (both below the root)? */
static bool allowed(const char *from_rel, const char *to_rel)
{
    char ft[64], fw[64], tt[64], tw[64];
    place(from_rel, ft, fw, sizeof ft);
    place(to_rel, tt, tw, sizeof tt);
    if (strcmp(tt, "abi") == 0) return true;
    if (strcmp(ft, "abi") == 0) return false;
    if (is_outside(ft)) return true; /* tests and tools: anything of the tree */
    if (strcmp(ft, "src") != 0) return strcmp(ft, tt) == 0; /* kernels, oracle, include */
    if (strcmp(tt, "src") == 0) return wing_may(fw, tw);
    if (strcmp(to_rel, "kernels/gk.h") == 0) return fw[0] != '\0';
    if (strcmp(to_rel, "oracle/go.h") == 0)
        return strcmp(fw, "core") == 0 || strcmp(fw, "ops") == 0;
    if (strcmp(to_rel, "include/gpuval.h") == 0)
        return strcmp(fw, "core") == 0 || strcmp(fw, "api") == 0 || strcmp(fw, "cmd") == 0;
    return false;
}

/* ---- the walk -------------------------------------------------------------------------------- */

enum { MAX_FILES = 1024, MAX_EDGES = 8192 };
typedef struct graph {
    char mod[MAX_FILES][256]; /* module: the path less its suffix */
    int n;
    int from[MAX_EDGES], to[MAX_EDGES];
    int n_edges;
} graph;

static int module_of(graph *g, const char *rel)
{
    char m[256];
    snprintf(m, sizeof m, "%s", rel);
    char *dot = strrchr(m, '.');
    if (dot && strchr(dot, '/') == NULL) *dot = '\0';
    for (int i = 0; i < g->n; i++)
        if (strcmp(g->mod[i], m) == 0) return i;
    if (g->n == MAX_FILES) return -1;
    snprintf(g->mod[g->n], sizeof g->mod[0], "%s", m);
    return g->n++;
}

static void add_edge(graph *g, const char *a, const char *b)
{
    int x = module_of(g, a), y = module_of(g, b);
    if (x < 0 || y < 0 || x == y || g->n_edges == MAX_EDGES) return;
    for (int i = 0; i < g->n_edges; i++)
        if (g->from[i] == x && g->to[i] == y) return;
    g->from[g->n_edges] = x;
    g->to[g->n_edges++] = y;
}

static const char *below(const char *root, const char *p)
{
    size_t n = strlen(root);
    return strncmp(p, root, n) == 0 && p[n] == '/' ? p + n + 1 : p;
}

/* The source with its comments and string literals blanked, so that the grep rules see code. */
static char *code_of(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        fclose(f);
        return NULL;
    }
    s[n] = '\0';
    fclose(f);
    for (long i = 0; i < n; i++) {
        if (s[i] == '/' && s[i + 1] == '*') {
            long j = i + 2;
            while (j < n && !(s[j] == '*' && s[j + 1] == '/'))
                j++;
            for (long k = i; k < j + 2 && k < n; k++)
                if (s[k] != '\n') s[k] = ' ';
            i = j + 1;
        } else if (s[i] == '/' && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                s[i++] = ' ';
        } else if (s[i] == '"' && !(i > 0 && s[i - 1] == '\'')) {
            /* a string's contents (an include's name is read from the raw line, not here) */
            long j = i + 1;
            while (j < n && s[j] != '"' && s[j] != '\n') {
                if (s[j] == '\\') s[j++] = ' ';
                s[j++] = ' ';
            }
            i = j;
        }
    }
    return s;
}

/* A call of name( in code (not part of a longer identifier). */
static bool calls(const char *code, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = strstr(code, name); p; p = strstr(p + 1, name)) {
        if (p > code && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
        const char *q = p + len;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '(') return true;
    }
    return false;
}

/* GV_EXIT_ at the start of an identifier in code. */
static bool names_exit_code(const char *code)
{
    for (const char *p = strstr(code, "GV_EXIT_"); p; p = strstr(p + 1, "GV_EXIT_"))
        if (p == code || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) return true;
    return false;
}

static bool includes_system(const char *code_path, const char *header)
{
    FILE *f = fopen(code_path, "r");
    if (!f) return false;
    char line[1024], want[128];
    snprintf(want, sizeof want, "<%s>", header);
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '#') continue;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, "include", 7) == 0 && strstr(p, want)) found = true;
    }
    fclose(f);
    return found;
}

static int print_home(const char *rel)
{
    for (int i = 0; i < N_PRINT_HOMES; i++)
        if (strcmp(rel, PRINT_HOMES[i].file) == 0) return i;
    return -1;
}

/* The first of PRINT_CALLS that code calls, or NULL. */
static const char *print_call(const char *code)
{
    for (size_t i = 0; i < sizeof PRINT_CALLS / sizeof PRINT_CALLS[0]; i++)
        if (calls(code, PRINT_CALLS[i])) return PRINT_CALLS[i];
    return NULL;
}

/* The printing rule on one source of src/ (code: comments and strings blanked). */
static void check_prints(const char *rel, const char *top, const char *wing, const char *code,
                         findings *f)
{
    if (strcmp(top, "src") != 0 || strcmp(wing, "render") == 0 || strcmp(wing, "cmd") == 0) return;
    const char *call = print_call(code);
    if (call && print_home(rel) < 0)
        note(f, &f->prints,
             "  %s calls %s (text for people is printed in src/render/; a library returns "
             "data and errors)",
             rel, call);
}

/* The grep rules on one source. */
static void check_calls(const char *root, const char *path, findings *f)
{
    const char *rel = below(root, path);
    char top[64], wing[64];
    place(rel, top, wing, sizeof top);
    if (strcmp(top, "src") != 0 && strcmp(top, "kernels") != 0) return;
    char *code = code_of(path);
    if (!code) return;
    if (calls(code, "getenv") && strcmp(rel, "src/core/knobs.c") != 0)
        note(f, &f->greps, "  %s calls getenv (only src/core/knobs.c reads the environment)", rel);
    if ((strcmp(wing, "core") == 0 || strcmp(wing, "ops") == 0) &&
        includes_system(path, "jansson.h"))
        note(f, &f->greps, "  %s includes <jansson.h> (never in core/ or ops/)", rel);
    if (strcmp(top, "src") == 0 && strcmp(wing, "cmd") != 0 &&
        (includes_system(path, "getopt.h") || calls(code, "getopt_long") || calls(code, "getopt")))
        note(f, &f->greps, "  %s uses getopt (only cmd/ parses argv)", rel);
    bool exit_home = false;
    for (size_t i = 0; i < sizeof EXIT_HOMES / sizeof EXIT_HOMES[0]; i++)
        exit_home = exit_home || strcmp(rel, EXIT_HOMES[i]) == 0;
    if (strcmp(top, "src") == 0 && strcmp(wing, "cmd") != 0 && !exit_home) {
        if (names_exit_code(code))
            note(f, &f->greps, "  %s names an exit code (GV_EXIT_*: only cmd/ maps a status)", rel);
        if (calls(code, "gv_usage_error") || calls(code, "gv_exit_code"))
            note(f, &f->greps,
                 "  %s calls gv_usage_error or gv_exit_code (a library returns a gv_error)", rel);
    }
    check_prints(rel, top, wing, code, f);
    free(code);
}

static bool cmd_may_export(const char *rel, const char *name)
{
    if (strncmp(name, "gv_cmd_", 7) == 0) return true;
    for (size_t i = 0; i < sizeof CMD_EXPORTS / sizeof CMD_EXPORTS[0]; i++)
        if (strcmp(rel, CMD_EXPORTS[i].file) == 0 && strcmp(name, CMD_EXPORTS[i].name) == 0)
            return true;
    return false;
}

static bool is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Does the text [a, b) hold the word w? */
static bool has_word(const char *a, const char *b, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = a; p + n <= b; p++)
        if (strncmp(p, w, n) == 0 && (p == a || !is_ident(p[-1])) &&
            (p + n == b || !is_ident(p[n])))
            return true;
    return false;
}

/* The external functions a .c of src/cmd/ defines, each held to cmd_may_export: every brace at
   file scope whose declarator ends in ')' opens a function's body; its name is the identifier
   before the declarator's first '(' (after any __attribute__((...)) is blanked), and it is
   external unless the declarator says static. Comments, strings, character constants and
   preprocessor lines are blanked first. */
static void check_exports(const char *root, const char *path, findings *f)
{
    const char *rel = below(root, path);
    char top[64], wing[64];
    place(rel, top, wing, sizeof top);
    size_t rl = strlen(rel);
    if (strcmp(wing, "cmd") != 0 || rl < 2 || strcmp(rel + rl - 2, ".c") != 0) return;
    char *code = code_of(path);
    if (!code) return;
    size_t n = strlen(code);
    for (size_t i = 0; i < n; i++) {
        if (code[i] == '\'' && i + 2 < n) { /* 'x', '\x' */
            size_t j = i + 1;
            if (code[j] == '\\') j++;
            for (j++; j < n && code[j] != '\'' && code[j] != '\n'; j++)
                ;
            for (size_t k = i; k <= j && k < n; k++)
                code[k] = ' ';
            i = j;
        } else if (code[i] == '#' && (i == 0 || code[i - 1] == '\n')) {
            while (i < n && code[i] != '\n') {
                if (code[i] == '\\' && code[i + 1] == '\n') code[i++] = ' ';
                code[i++] = ' ';
            }
        }
    }
    for (char *p = strstr(code, "__attribute__"); p; p = strstr(p, "__attribute__")) {
        char *q = p + strlen("__attribute__");
        memset(p, ' ', (size_t)(q - p));
        while (*q && isspace((unsigned char)*q))
            q++;
        int paren = 0;
        do {
            if (*q == '(') paren++;
            if (*q == ')') paren--;
            if (*q != '\n') *q = ' ';
            q++;
        } while (*q && paren > 0);
        p = q;
    }
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        char c = code[i];
        if (c == '{') {
            if (depth++ > 0) continue;
            size_t e = i;
            while (e > start && isspace((unsigned char)code[e - 1]))
                e--;
            if (e == start || code[e - 1] != ')') continue; /* a struct, enum or initialiser */
            const char *open = memchr(code + start, '(', e - start);
            if (!open) continue;
            const char *ne = open;
            while (ne > code + start && isspace((unsigned char)ne[-1]))
                ne--;
            const char *nb = ne;
            while (nb > code + start && is_ident(nb[-1]))
                nb--;
            if (nb == ne || has_word(code + start, open, "static")) continue;
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(ne - nb), nb);
            if (!cmd_may_export(rel, name))
                note(f, &f->exports,
                     "  %s defines %s, an external function of the command wing not named "
                     "gv_cmd_* (make it static, name it gv_cmd_*, or move it below cmd)",
                     rel, name);
        } else if (c == '}') {
            if (depth > 0 && --depth == 0) start = i + 1;
        } else if (c == ';' && depth == 0) {
            start = i + 1;
        }
    }
    free(code);
}

static bool is_generated(const char *rel, const char *name)
{
    char top[64], wing[64];
    place(rel, top, wing, sizeof top);
    const char *where = strcmp(top, "src") == 0 ? wing : top;
    for (size_t i = 0; i < sizeof GENERATED / sizeof GENERATED[0]; i++)
        if (strcmp(name, GENERATED[i].name) == 0 && strcmp(where, GENERATED[i].wing) == 0)
            return true;
    return false;
}

/* One file's quoted includes. */
static void check_file(const char *root, const char *path, graph *g, findings *fd)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    const char *rel = below(root, path);
    char line[1024], dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    bool in_src = strncmp(rel, "src/", 4) == 0;
    char top[64], wing[64];
    place(rel, top, wing, sizeof top);
    bool outside = is_outside(top);
    module_of(g, rel);
    while (fgets(line, sizeof line, f)) {
        char name[512];
        if (sscanf(line, " # include \"%511[^\"]\"", name) != 1 &&
            sscanf(line, " #include \"%511[^\"]\"", name) != 1)
            continue;
        char joined[PATH_MAX * 2], real[PATH_MAX];
        snprintf(joined, sizeof joined, "%s/%s", dir, name);
        bool found = realpath(joined, real) != NULL;
        if (!found && in_src) {
            snprintf(joined, sizeof joined, "%s/src/%s", root, name);
            found = realpath(joined, real) != NULL;
        }
        for (size_t k = 0; !found && outside && k < sizeof OUTSIDE_INC / sizeof OUTSIDE_INC[0];
             k++) {
            snprintf(joined, sizeof joined, "%s/%s/%s", root, OUTSIDE_INC[k], name);
            found = realpath(joined, real) != NULL;
        }
        if (!found) {
            if (!is_generated(rel, name))
                note(fd, &fd->unresolved, "  %s includes \"%s\", which resolves nowhere", rel,
                     name);
            continue;
        }
        const char *to = below(root, real);
        if (to == real) {
            note(fd, &fd->unresolved, "  %s includes \"%s\", outside the tree", rel, name);
            continue;
        }
        add_edge(g, rel, to);
        if (!allowed(rel, to)) note(fd, &fd->upward, "  %s includes %s", rel, to);
    }
    fclose(f);
    check_calls(root, path, fd);
    check_exports(root, path, fd);
}

static bool is_source(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (strcmp(dot, ".c") == 0 || strcmp(dot, ".h") == 0 || strcmp(dot, ".cu") == 0 ||
                   strcmp(dot, ".cuh") == 0);
}

static void walk(const char *root, const char *dir, graph *g, findings *f)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            walk(root, p, g, f);
        } else if (is_source(e->d_name)) {
            f->files++;
            check_file(root, p, g, f);
        }
    }
    closedir(d);
}

/* Circles between modules: a depth-first search that reports each back edge's circle. */
static void circles_from(const graph *g, int u, int *colour, int *stack, int depth, findings *f)
{
    colour[u] = 1;
    stack[depth] = u;
    for (int i = 0; i < g->n_edges; i++) {
        if (g->from[i] != u) continue;
        int v = g->to[i];
        if (colour[v] == 1) {
            char text[2048] = "";
            int k = depth;
            while (k > 0 && stack[k] != v)
                k--;
            for (; k <= depth; k++) {
                strncat(text, g->mod[stack[k]], sizeof text - strlen(text) - 1);
                strncat(text, " -> ", sizeof text - strlen(text) - 1);
            }
            strncat(text, g->mod[v], sizeof text - strlen(text) - 1);
            note(f, &f->circles, "  circle: %s", text);
        } else if (colour[v] == 0 && depth + 1 < MAX_FILES) {
            circles_from(g, v, colour, stack, depth + 1, f);
        }
    }
    colour[u] = 2;
}

/* Every .c of a wing beside a header of its own stem. */
static void check_headers(const char *root, findings *f)
{
    char src[PATH_MAX];
    snprintf(src, sizeof src, "%s/src", root);
    DIR *d = opendir(src);
    if (!d) return;
    struct dirent *w;
    while ((w = readdir(d))) {
        if (w->d_name[0] == '.' || strcmp(w->d_name, "ops") == 0) continue;
        char wd[PATH_MAX];
        snprintf(wd, sizeof wd, "%s/%s", src, w->d_name);
        DIR *dw = opendir(wd);
        if (!dw) continue;
        struct dirent *e;
        while ((e = readdir(dw))) {
            size_t n = strlen(e->d_name);
            if (n < 3 || strcmp(e->d_name + n - 2, ".c") != 0) continue;
            if (strcmp(w->d_name, "cmd") == 0 && strcmp(e->d_name, "gpuval_main.c") == 0) continue;
            char h[PATH_MAX];
            snprintf(h, sizeof h, "%s/%.*s.h", wd, (int)(n - 2), e->d_name);
            if (access(h, F_OK) != 0)
                note(f, &f->headers, "  src/%s/%s has no header of its own", w->d_name, e->d_name);
        }
        closedir(dw);
    }
    closedir(d);
}

/* The whole check of the tree at root (a realpath). */
static void check_tree(const char *root, findings *f)
{
    static graph g;
    memset(&g, 0, sizeof g);
    memset(f, 0, sizeof *f);
    const char *tops[] = {"abi",   "kernels", "oracle", "include", "src",
                          "tests", "tools",   "python", "ci"};
    for (size_t i = 0; i < sizeof tops / sizeof tops[0]; i++) {
        char d[PATH_MAX];
        snprintf(d, sizeof d, "%s/%s", root, tops[i]);
        walk(root, d, &g, f);
    }
    static int colour[MAX_FILES], stack[MAX_FILES];
    memset(colour, 0, sizeof colour);
    for (int u = 0; u < g.n; u++)
        if (colour[u] == 0) circles_from(&g, u, colour, stack, 0, f);
    check_headers(root, f);
}

static const char *srcdir(void)
{
    const char *s = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(s, "GPUVAL_SRCDIR names the source tree (tests/meson.build sets it)");
    static char real[PATH_MAX];
    cr_assert_not_null(realpath(s, real), "%s exists", s);
    return real;
}

Test(layers, the_tree_follows_the_rule)
{
    static findings f;
    check_tree(srcdir(), &f);
    cr_expect_gt(f.files, 150, "the walk found the sources (%d files)", f.files);
    cr_expect_eq(f.bad, 0, "%d violations of the layering:\n%s", f.bad, f.text);
}

/* PRINT_HOMES only shrinks: each of its files is in the tree and still prints. */
Test(layers, every_print_home_still_prints)
{
    for (int i = 0; i < N_PRINT_HOMES; i++) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", srcdir(), PRINT_HOMES[i].file);
        char *code = code_of(p);
        cr_expect_not_null(code, "%s, on PRINT_HOMES, is not in the tree", PRINT_HOMES[i].file);
        if (code)
            cr_expect_not_null(print_call(code),
                               "%s prints no longer: take it off PRINT_HOMES (%s)",
                               PRINT_HOMES[i].file, PRINT_HOMES[i].why);
        free(code);
    }
}

/* ---- the checker on planted trees ---------------------------------------------------------- */

static void plant(const char *root, const char *rel, const char *text)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    fputs(text, f);
    fclose(f);
}

static void make_root(char *real_root)
{
    char root[] = "/tmp/gv_layers_XXXXXX";
    cr_assert_not_null(mkdtemp(root));
    cr_assert_not_null(realpath(root, real_root));
    /* a clean tree of every kind of file the rule allows */
    plant(real_root, "abi/gv_abi.h", "");
    plant(real_root, "kernels/gk.h", "#include \"../abi/gv_abi.h\"\n");
    plant(real_root, "oracle/go.h", "#include \"../abi/gv_abi.h\"\n");
    plant(real_root, "include/gpuval.h", "");
    plant(real_root, "src/core/gv.h", "#include \"../../abi/gv_abi.h\"\n");
    plant(
        real_root, "src/core/gv.c",
        "#include \"core/gv.h\"\n#include \"../../kernels/gk.h\"\n#include \"oracle_version.h\"\n");
    plant(real_root, "src/core/knobs.h", "");
    plant(real_root, "src/core/knobs.c",
          "#include <stdlib.h>\nconst char *v(void) { return getenv(\"X\"); }\n");
    plant(real_root, "src/io/doc.h", "#include <jansson.h>\n#include \"core/gv.h\"\n");
    plant(real_root, "src/io/doc.c", "#include \"io/doc.h\"\n/* getenv (in a comment) */\n");
    plant(real_root, "src/cmd/main.h", "");
    plant(real_root, "src/cmd/main.c",
          "#include <getopt.h>\n#include \"cmd/main.h\"\n#include \"io/doc.h\"\n"
          "static int f(int c, char **v) { return getopt_long(c, v, \"\", 0, 0); }\n"
          "int gv_cmd_main(int c, char **v) { return f(c, v); }\n");
    plant(real_root, "src/cmd/gpuval_main.c",
          "#include \"cmd/main.h\"\nint main(int c, char **v) { return gv_cmd_main(c, v); }\n");
    plant(real_root, "src/cmd/gv_main.h", "#include \"../../include/gpuval.h\"\n");
    plant(real_root, "src/cmd/gv_main.c",
          "#include \"cmd/gv_main.h\"\n#include \"cmd/main.h\"\n"
          "int gv_main(int c, char **v) { return gv_cmd_main(c, v); }\n"
          "int gv_main_all(int c, char **v) { return gv_cmd_main(c, v); }\n");
    plant(real_root, "src/api/judge.h",
          "#include \"../../include/gpuval.h\"\n#include \"io/doc.h\"\n");
    plant(real_root, "src/api/judge.c",
          "#include \"api/judge.h\"\nint gv_judge(void) { return 0; }\n");
    /* a test reaches anything of the tree, through the include directories it is given */
    plant(real_root, "tests/cpu/testkit.h", "#include \"gv_abi.h\"\n");
    plant(real_root, "tests/cpu/test_x.c",
          "#include \"testkit.h\"\n#include \"cmd/main.h\"\n#include \"api/judge.h\"\n"
          "#include \"gk.h\"\n#include \"gpuval.h\"\n");
    plant(real_root, "tests/gpu/test_y.c",
          "#include \"../cpu/testkit.h\"\n#include \"gv_families.h\"\n");
    plant(real_root, "src/ops/vadd.c", "#include \"core/gv.h\"\n#include \"../../oracle/go.h\"\n");
}

static void remove_root(const char *real_root)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", real_root);
    cr_expect_eq(system(cmd), 0);
}

Test(layers, a_clean_planted_tree_passes)
{
    char root[PATH_MAX];
    make_root(root);
    static findings f;
    check_tree(root, &f);
    cr_expect_eq(f.bad, 0, "a clean tree:\n%s", f.text);
    remove_root(root);
}

Test(layers, each_kind_of_violation_is_seen)
{
    char root[PATH_MAX];
    make_root(root);
    /* upward: core reaching io, and the device layer reaching src/ */
    plant(root, "src/core/up.h", "#include \"io/doc.h\"\n");
    plant(root, "kernels/bad.cu", "#include \"../src/core/gv.h\"\n");
    /* a circle between two modules of one wing */
    plant(root, "src/io/a.h", "");
    plant(root, "src/io/a.c", "#include \"io/a.h\"\n#include \"io/b.h\"\n");
    plant(root, "src/io/b.h", "");
    plant(root, "src/io/b.c", "#include \"io/b.h\"\n#include \"io/a.h\"\n");
    /* an include that resolves nowhere */
    plant(root, "src/io/lost.h", "#include \"io/nothere.h\"\n");
    /* the grep rules */
    plant(root, "src/io/env.h", "");
    plant(root, "src/io/env.c",
          "#include <stdlib.h>\nconst char *e(void) { return getenv (\"HOME\"); }\n");
    plant(root, "src/core/js.h", "#include <jansson.h>\n");
    plant(root, "src/io/opt.h", "");
    plant(root, "src/io/opt.c", "#include <getopt.h>\n");
    /* a library wing speaking in exit codes and usage errors (cmd/ may; core/gv.c is the
       table's home) */
    plant(root, "src/runs/quit.h", "");
    plant(root, "src/runs/quit.c",
          "#include \"runs/quit.h\"\nint q(int n) { if (n) gv_usage_error(\"x\"); return "
          "GV_EXIT_USAGE; }\n/* GV_EXIT_OK in a comment */\n");
    plant(root, "src/fleet/tally.h", "");
    plant(root, "src/fleet/tally.c",
          "#include \"fleet/tally.h\"\nint t(void) { return gv_exit_code(0, 0, 1, 1, 0); }\n");
    plant(root, "src/cmd/ends.c",
          "#include \"cmd/ends.h\"\nint gv_cmd_ends(void) { gv_usage_error(\"y\"); return "
          "GV_EXIT_USAGE; }\n");
    plant(root, "src/cmd/ends.h", "");
    plant(root, "src/core/gv.c",
          "#include \"core/gv.h\"\n#include \"../../kernels/gk.h\"\n#include \"oracle_version.h\"\n"
          "int gv_exit_meaning(int c) { return c == GV_EXIT_OK; }\n");
    /* a .c without its header */
    plant(root, "src/runs/alone.c", "");
    /* the probe and the api reaching the command wing */
    plant(root, "src/probe/peek.h", "#include \"cmd/main.h\"\n");
    plant(root, "src/api/call.h", "#include \"cmd/main.h\"\n");
    /* a command-wing export: a helper under a library's name beside the allowed shapes of
       function (static, gv_cmd_*, a prototype, attributes, a character brace) */
    plant(root, "src/cmd/leak.h", "int gv_parse_thing(const char *s);\n");
    plant(root, "src/cmd/leak.c",
          "#include \"cmd/leak.h\"\n"
          "static int quiet(const char *s) __attribute__((unused));\n"
          "static int quiet(const char *s) { return s[0] == '{'; }\n"
          "static const char *brace = \"}\";\n"
          "int gv_cmd_leak(void) { return brace[0] == '}'; }\n"
          "int\ngv_parse_thing(const char *s)\n{\n    return s[0];\n}\n");
    /* a library wing printing; render/ and cmd/ may, and a comment or string naming it is
       no call */
    plant(root, "src/bench/say.h", "");
    plant(root, "src/bench/say.c",
          "#include <stdio.h>\n#include \"bench/say.h\"\n"
          "void s(int n) { if (n) printf (\"%d\\n\", n); }\n");
    plant(root, "src/render/show.h", "");
    plant(root, "src/render/show.c",
          "#include <stdio.h>\n#include \"render/show.h\"\n"
          "void show(FILE *f) { fputs(\"printf(\", f); }\n");
    plant(root, "src/cmd/tell.h", "");
    plant(root, "src/cmd/tell.c",
          "#include <stdio.h>\n#include \"cmd/tell.h\"\n"
          "int gv_cmd_tell(void) { return fprintf(stderr, \"x\\n\"); }\n");
    plant(root, "src/io/quiet.h", "");
    plant(root, "src/io/quiet.c",
          "#include \"io/quiet.h\"\n/* printf(\"in a comment\") */\n"
          "int q(char *b) { return snprintf(b, 4, \"printf(\"); }\n");
    /* a test's include that resolves nowhere */
    plant(root, "tests/cpu/test_lost.c", "#include \"nothere.h\"\n");
    static findings f;
    check_tree(root, &f);
    cr_expect_eq(f.upward, 4, "upward includes:\n%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/probe/peek.h includes src/cmd/main.h"), "%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/api/call.h includes src/cmd/main.h"), "%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/core/up.h includes src/io/doc.h"), "%s", f.text);
    cr_expect_not_null(strstr(f.text, "kernels/bad.cu includes src/core/gv.h"), "%s", f.text);
    cr_expect_eq(f.circles, 1, "circles:\n%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/io/a -> src/io/b -> src/io/a"), "%s", f.text);
    cr_expect_eq(f.unresolved, 2, "unresolved:\n%s", f.text);
    cr_expect_not_null(strstr(f.text, "tests/cpu/test_lost.c includes \"nothere.h\""), "%s",
                       f.text);
    cr_expect_not_null(strstr(f.text, "src/io/lost.h includes \"io/nothere.h\""), "%s", f.text);
    cr_expect_eq(f.greps, 6, "grep rules:\n%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/runs/quit.c names an exit code"), "%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/runs/quit.c calls gv_usage_error"), "%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/fleet/tally.c calls gv_usage_error or gv_exit_code"),
                       "%s", f.text);
    cr_expect_null(strstr(f.text, "src/cmd/ends.c"), "cmd maps statuses to exits:\n%s", f.text);
    cr_expect_null(strstr(f.text, "src/core/gv.c"), "the exit table's home:\n%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/io/env.c calls getenv"), "%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/core/js.h includes <jansson.h>"), "%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/io/opt.c uses getopt"), "%s", f.text);
    cr_expect_eq(f.prints, 1, "printing:\n%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/bench/say.c calls printf (text for people"), "%s",
                       f.text);
    cr_expect_eq(f.headers, 1, "headers:\n%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/runs/alone.c has no header"), "%s", f.text);
    cr_expect_eq(f.exports, 1, "command-wing exports:\n%s", f.text);
    cr_expect_not_null(strstr(f.text, "src/cmd/leak.c defines gv_parse_thing"), "%s", f.text);
    remove_root(root);
}

/* ---- the rule and DESIGN.md's floors ------------------------------------------------------ */

/* The floor of each wing in DESIGN.md's **Floors** table (the fenced block after that line, one
   line a floor: its number, then its wings), which tools/structure.py reads too; -1 for a
   wing the table does not name. */
static int floor_of(const char *design, const char *wing)
{
    const char *t = strstr(design, "**Floors**");
    t = t ? strstr(t, "```\n") : NULL;
    if (!t) return -1;
    t += 4;
    const char *end = strstr(t, "```");
    size_t wl = strlen(wing);
    for (const char *line = t; end && line < end;) {
        const char *nl = strchr(line, '\n');
        if (!nl) break;
        int floor = atoi(line);
        for (const char *p = line; p + wl <= nl; p++)
            if (strncmp(p, wing, wl) == 0 && (p == line || p[-1] == ' ') &&
                (p + wl == nl || p[wl] == ' '))
                return isdigit((unsigned char)line[0]) ? floor : -1;
        line = nl + 1;
    }
    return -1;
}

/* Each wing of RULES on a floor, and each wing it may include (not itself) on a lower one:
   the count of disagreements, each named in why. */
static int rule_against_floors(const char *design, char *why, size_t len)
{
    int bad = 0;
    why[0] = '\0';
    for (int i = 0; i < N_RULES; i++) {
        int f = floor_of(design, RULES[i].wing);
        if (f < 0) {
            bad++;
            snprintf(why + strlen(why), len - strlen(why), "  %s has no floor\n", RULES[i].wing);
            continue;
        }
        for (int k = 0; k < 10 && RULES[i].may[k]; k++) {
            if (strcmp(RULES[i].may[k], RULES[i].wing) == 0) continue;
            int g = floor_of(design, RULES[i].may[k]);
            if (g < 0 || g >= f) {
                bad++;
                snprintf(why + strlen(why), len - strlen(why),
                         "  %s (floor %d) may include %s (floor %d)\n", RULES[i].wing, f,
                         RULES[i].may[k], g);
            }
        }
    }
    return bad;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    static char text[1 << 18];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

Test(layers, the_rule_steps_down_design_md_floors)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/docs/DESIGN.md", srcdir());
    const char *design = slurp(path);
    char why[4096];
    cr_expect_eq(rule_against_floors(design, why, sizeof why), 0,
                 "RULES and docs/DESIGN.md's Floors disagree:\n%s", why);
    /* the checker on planted tables: cmd put under render, and the api wing left out */
    const char *swapped = "**Floors**\n```\n0  abi\n2  core\n3  ops io\n4  bench coll api probe\n"
                          "5  runs\n6  fleet\n7  cmd\n8  render\n```\n";
    cr_expect_eq(rule_against_floors(swapped, why, sizeof why), 1, "%s", why);
    cr_expect_not_null(strstr(why, "cmd (floor 7) may include render (floor 8)"), "%s", why);
    const char *no_api = "**Floors**\n```\n2  core\n3  ops io\n4  bench coll probe\n"
                         "5  runs\n6  fleet\n7  render\n8  cmd\n```\n";
    cr_expect_eq(rule_against_floors(no_api, why, sizeof why), 2, "%s", why);
    cr_expect_not_null(strstr(why, "api has no floor"), "%s", why);
    cr_expect_not_null(strstr(why, "cmd (floor 8) may include api (floor -1)"), "%s", why);
}

/* The oracle cache's version (meson.build's oracle_version.h) hashes what can change a
   reference and nothing else, so an edit to the judge leaves the cache warm. */
Test(layers, the_oracle_cache_version_hashes_what_makes_references)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/meson.build", srcdir());
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    const char *start = strstr(text, "oracle_version_h = custom_target(");
    cr_assert_not_null(start, "meson.build makes oracle_version.h");
    const char *end = strstr(start, "capture: true)");
    cr_assert_not_null(end);
    char block[4096];
    snprintf(block, sizeof block, "%.*s", (int)(end - start), start);
    const char *must[] = {"oracle_src",           "ops_src",
                          "src/core/gen.c",       "src/core/problem.c",
                          "src/core/reference.c", "abi/gv_abi.h"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        cr_expect_not_null(strstr(block, must[i]), "the version hashes %s:\n%s", must[i], block);
    const char *never[] = {"judge", "metrics", "run.c", "runner", "model_floor", "cmd/"};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        cr_expect_null(strstr(block, never[i]), "the version must not hash %s:\n%s", never[i],
                       block);
}
