/* cache.c: `gpuval cache info|clear` — where the oracle cache is, what it holds, and
 * emptying it. The cache itself is cache.c. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cache.h"
#include "core/reference.h"
#include "cmd/cache.h"
#include "cmd/cli.h"

/* cache takes one word and --help, no options: its help has no option table. */
static const char cache_head[] =
    "usage: gpuval cache info|clear\n"
    "\n"
    "The oracle cache keeps each case's float64 reference and gauges, so that a second check\n"
    "of the same case skips the CPU oracle. It lives in $XDG_CACHE_HOME/gpuval (else\n"
    "~/.cache/gpuval); GPUVAL_CACHE_MAX caps its size (bytes, or with K M G T; default 32G),\n"
    "the least recently used entries going first. Entries are checksummed and versioned: a\n"
    "corrupt, truncated or stale one is reported, removed and recomputed. Only files it made\n"
    "are ever removed; temporaries a killed run left are removed once an hour old.\n"
    "A cache directory reached through a symbolic link below $XDG_CACHE_HOME (or $HOME) is\n"
    "refused unless GPUVAL_CACHE_SYMLINK=1; an unusable directory (a file where a directory\n"
    "must be) makes `cache` exit 2 and a check run warn and go on without the cache.\n"
    "`check --no-cache` neither reads nor writes it. A reference is stored when its oracle\n"
    "took longer than reading it back would: GPUVAL_CACHE_MIN_MS (default 1) plus its bytes\n"
    "at 4 GB/s; the others are \"cheap\" in a run's oracle_cache and its last line.\n"
    "\n"
    "  info   the directory, its entries, temporaries and bytes, the cap and the store rule,\n"
    "         and the last check's hits and misses, its misses by op and why each missed\n"
    "  clear  remove every entry and every stale temporary\n";

static const gv_exit_line cache_exits[] = {
    {GV_EXIT_OK, "done"},
    {GV_EXIT_USAGE, "bad usage, no cache directory (neither XDG_CACHE_HOME nor HOME set), or "
                    "one that cannot be used (not a directory, or a symbolic link not allowed)"},
};

static const gv_help cache_help = {
    .head = cache_head, .exits = cache_exits, .n_exits = GV_NEXITS(cache_exits)};

/* The note the last check left in dir (gv_cache_note_run): its counts and its misses by op,
   each with why. A note that is not a regular file, or an unreadable one, is left unsaid. */
static void print_last_run(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/" GV_CACHE_NOTE_NAME, dir);
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
        printf("last run   none noted (a check with the cache on leaves its misses here)\n");
        return;
    }
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f))
        fputs(line, stdout);
    fclose(f);
}

int gv_cmd_cache(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        gv_cmd_help_print(stdout, &cache_help);
        return GV_EXIT_OK;
    }
    if (argc != 2 || (strcmp(argv[1], "info") != 0 && strcmp(argv[1], "clear") != 0)) {
        gv_cmd_usage_cmd("cache", "cache takes one word, info or clear");
        return GV_EXIT_USAGE;
    }
    char dir[4096], why[4600];
    int usable = gv_cache_dir(dir, sizeof dir, why, sizeof why);
    if (usable != 0) {
        gv_usage_error("oracle cache: %s", why);
        return GV_EXIT_USAGE;
    }
    if (strcmp(argv[1], "clear") == 0) {
        int n = gv_cache_clear(dir);
        printf("removed %d files from %s\n", n, dir);
        return GV_EXIT_OK;
    }
    gv_cache_usage u;
    gv_cache_usage_of(dir, &u);
    uint64_t cap = gv_cache_max_bytes(), bytes = u.entry_bytes + u.temporary_bytes;
    printf("directory  %s\nentries    %d\ntemporary  %d (%d older than %d s, removed by the next "
           "run)\nbytes      %llu (%.2f GiB, temporaries included)\ncap        %llu (%.2f GiB)\n",
           dir, u.entries, u.temporaries, u.stale_temporaries, GV_CACHE_TMP_MAX_AGE_S,
           (unsigned long long)bytes, (double)bytes / 1073741824.0, (unsigned long long)cap,
           (double)cap / 1073741824.0);
    /* what a run stores: its misses past this are "stored", the others "cheap" */
    printf("stores     references whose oracle took over %g ms + their bytes at %g GB/s "
           "(GPUVAL_CACHE_MIN_MS)\n",
           gv_cache_min_ms(), GV_CACHE_READ_BYTES_PER_MS / 1e6);
    print_last_run(dir);
    return GV_EXIT_OK;
}
