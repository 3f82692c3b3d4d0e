/* fuzz_size.c: the --size grammar (gv_size_spec_parse). Any input either parses into shapes
 * whose every dim is a positive integer no larger than GV_MAX_DIM, which format back into a
 * spec that parses to the same shapes, or is refused with a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "core/gv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = gv_fuzz_cstr(data, size);
    if (!spec) return 0;
    gv_shape shapes[16];
    char err[512] = "";
    int n = gv_size_spec_parse(spec, shapes, 16, err, sizeof err);
    if (n < 0) {
        GV_FUZZ_CHECK(err[0] != '\0'); /* a refusal says why */
    } else {
        GV_FUZZ_CHECK(n >= 1 && n <= 16);
        char again[16 * 4 * 24], *p = again;
        for (int i = 0; i < n; i++) {
            GV_FUZZ_CHECK(shapes[i].nd >= 1 && shapes[i].nd <= GV_MAX_DIMS);
            for (int k = 0; k < shapes[i].nd; k++)
                GV_FUZZ_CHECK(shapes[i].d[k] >= 1 && (double)shapes[i].d[k] <= GV_MAX_DIM);
            char one[128];
            gv_shape_format(&shapes[i], one, sizeof one);
            p += snprintf(p, sizeof again - (size_t)(p - again), "%s%s", i ? "," : "", one);
        }
        gv_shape back[16];
        int m = gv_size_spec_parse(again, back, 16, err, sizeof err);
        GV_FUZZ_CHECK(m == n);
        for (int i = 0; i < n; i++) {
            GV_FUZZ_CHECK(back[i].nd == shapes[i].nd);
            for (int k = 0; k < shapes[i].nd; k++)
                GV_FUZZ_CHECK(back[i].d[k] == shapes[i].d[k]);
        }
    }
    free(spec);
    return 0;
}
