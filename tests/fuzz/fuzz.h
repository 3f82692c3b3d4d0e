/* fuzz.h: what the fuzz harnesses share. Each harness defines LLVMFuzzerTestOneInput; built
 * with clang -fsanitize=fuzzer it is a libFuzzer target (meson -Dfuzz=enabled), built with
 * replay.c it replays files (the CPU suite replays tests/fuzz/corpus and tests/fuzz/crashes). */
#ifndef GV_FUZZ_H
#define GV_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant of the code under test: abort (a crash libFuzzer keeps) when it fails. */
#define GV_FUZZ_CHECK(cond)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The input as a NUL-terminated string (cut at its first NUL); free it. NULL on no memory. */
static inline char *gv_fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return NULL;
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
