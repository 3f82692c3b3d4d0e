/* replay.c: a main for a fuzz harness without libFuzzer: runs LLVMFuzzerTestOneInput on every
 * file named, and on every file of every directory named. The CPU suite replays the kept corpus
 * (tests/fuzz/corpus/NAME) and every crash input (tests/fuzz/crashes/NAME) this way; a crash or
 * a failed invariant (abort) fails the test. Exits 2 when a named path cannot be read or no file
 * was replayed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) return -1;
    unsigned char *copy = malloc(n ? n : 1); /* exactly n bytes: an overread is caught */
    if (!copy) return -1;
    memcpy(copy, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(copy, n);
    free(copy);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 2;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (replay_file(argv[i])) return 2;
            files++;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[i], &names, NULL, alphasort);
        if (n < 0) {
            perror(argv[i]);
            return 2;
        }
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
            struct stat fs;
            if (names[k]->d_name[0] != '.' && stat(path, &fs) == 0 && S_ISREG(fs.st_mode)) {
                if (replay_file(path)) return 2;
                files++;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("replayed %d files\n", files);
    return files ? 0 : 2;
}
