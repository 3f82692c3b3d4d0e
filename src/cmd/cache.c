/* cache.c: `gpuval cache info|clear` — where the oracle cache is, what it holds, and
 * emptying it. The cache itself is cache.c. */
#include <stdio.h>
#include <string.h>

#include "core/cache.h"
#include "cmd/cache.h"
#include "cmd/cli.h"

/* cache takes one word and --help, no options: its help has no option table. */
static const char cache_head[] =
    "usage: gpuval cache info|clear\n"
    "\n"
    "The oracle cache keeps each case's float64 reference and gauges, so that a second check\n"
    "of the same case skips the CPU oracle. It lives in $XDG_CACHE_HOME/gpuval (else\n"
    "~/.cache/gpuval); GPUVAL_CACHE_MAX caps its size (bytes, or with K M G T; default 16G),\n"
    "the least recently used entries going first. Entries are checksummed and versioned: a\n"
    "corrupt, truncated or stale one is reported, removed and recomputed.\n"
    "`check --no-cache` neither reads nor writes it.\n"
    "\n"
    "  info   the directory, its entries and bytes, and the cap\n"
    "  clear  remove every entry\n";

static const gv_exit_line cache_exits[] = {
    {GV_EXIT_OK, "done"},
    {GV_EXIT_USAGE, "bad usage or no cache directory (neither XDG_CACHE_HOME nor HOME set)"},
};

static const gv_help cache_help = {
    .head = cache_head, .exits = cache_exits, .n_exits = GV_NEXITS(cache_exits)};

int gv_cmd_cache(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        gv_help_print(stdout, &cache_help);
        return GV_EXIT_OK;
    }
    if (argc != 2 || (strcmp(argv[1], "info") != 0 && strcmp(argv[1], "clear") != 0)) {
        gv_usage_error("cache takes one word, info or clear");
        gv_help_print(stderr, &cache_help);
        return GV_EXIT_USAGE;
    }
    char dir[4096];
    if (gv_cache_default_dir(dir, sizeof dir) != 0) {
        gv_usage_error("no cache directory: set XDG_CACHE_HOME or HOME");
        return GV_EXIT_USAGE;
    }
    if (strcmp(argv[1], "clear") == 0) {
        int n = gv_cache_clear(dir);
        printf("removed %d files from %s\n", n, dir);
        return GV_EXIT_OK;
    }
    int entries;
    uint64_t bytes;
    gv_cache_stats(dir, &entries, &bytes);
    uint64_t cap = gv_cache_max_bytes();
    printf("directory  %s\nentries    %d\nbytes      %llu (%.2f GiB)\ncap        %llu (%.2f GiB)\n",
           dir, entries, (unsigned long long)bytes, (double)bytes / 1073741824.0,
           (unsigned long long)cap, (double)cap / 1073741824.0);
    return GV_EXIT_OK;
}
