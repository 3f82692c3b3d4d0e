/* check.h: the example's assertion: print both sides and where, count the failure. */
#ifndef EXT_CHECK_H
#define EXT_CHECK_H

#include <stdio.h>

static int ext_failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ext_failures++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#endif
