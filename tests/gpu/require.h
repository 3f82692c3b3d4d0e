/* require.h: whether GPUVAL_REQUIRE_GPU asks for a device. Any value but unset, empty or "0"
 * does ("1", "yes", "true", ...): a CI job that sets it must not be skipped by a typo of "1".
 * Header-only so that tests/cpu/test_hostile.c checks the very rule tests/gpu/main.c uses. */
#ifndef GV_TEST_REQUIRE_H
#define GV_TEST_REQUIRE_H

#include <stdbool.h>
#include <string.h>

static inline bool gv_require_gpu(const char *value)
{
    return value && value[0] && strcmp(value, "0") != 0;
}

#endif
