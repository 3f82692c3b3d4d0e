/* fuzz_options.c: the option parsers of the command line. The first byte picks the parser, the
 * rest (up to a NUL) is the argument: --seed (gv_cmd_parse_seed, with a round trip through its
 * decimal form), --dtype, --mode, --dist, --size (gv_cmd_parse_sizes), --sweep (gv_sweep_parse,
 * for an op picked by the second byte) and the escaping of arguments quoted back
 * (gv_printable: no control byte survives, never longer than the buffer). */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_plan.h"
#include "cmd/cli.h"
#include "fuzz.h"
#include "core/gv.h"
#include "core/registry.h"

static int n_ops(void)
{
    static int n = -1;
    if (n < 0)
        for (n = 0; gv_registry()[n]; n++)
            ;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    uint8_t which = data[0], opi = data[1];
    char *s = gv_fuzz_cstr(data + 2, size - 2);
    if (!s) return 0;
    switch (which % 7) {
    case 0: {
        uint64_t seed = 12345;
        if (gv_cmd_parse_seed(s, &seed) == 0) {
            char dec[32];
            snprintf(dec, sizeof dec, "%" PRIu64, seed);
            uint64_t back = 0;
            GV_FUZZ_CHECK(gv_cmd_parse_seed(dec, &back) == 0 && back == seed);
            /* decimal digits or 0x hex only */
            GV_FUZZ_CHECK(s[0] >= '0' && s[0] <= '9');
        } else {
            GV_FUZZ_CHECK(seed == 12345); /* a refused seed leaves the old one */
        }
        break;
    }
    case 1: {
        unsigned mask = 0;
        if (gv_cmd_parse_dtype_list(s, &mask) == 0)
            GV_FUZZ_CHECK(mask != 0 && mask < (1u << GV_NDTYPES));
        break;
    }
    case 2: {
        unsigned mask = 0;
        if (gv_cmd_parse_mode_list(s, &mask) == 0)
            GV_FUZZ_CHECK(mask != 0 && mask < (1u << GV_NMODES));
        break;
    }
    case 3: {
        int dist = -1;
        if (gv_cmd_parse_dist(s, &dist) == 0) GV_FUZZ_CHECK(dist >= 0 && dist < GV_NDISTS);
        break;
    }
    case 4: {
        gv_shape shapes[8];
        gv_selection sel;
        memset(&sel, 0, sizeof sel);
        if (gv_cmd_parse_sizes(s, shapes, 8, &sel) == 0)
            GV_FUZZ_CHECK(sel.n_shapes >= 1 && sel.n_shapes <= 8);
        break;
    }
    case 5: {
        gv_sweep sw;
        memset(&sw, 0, sizeof sw);
        sw.op = gv_registry()[opi % n_ops()];
        char why[512] = "";
        if (gv_sweep_parse(&sw, s, why, sizeof why) == GV_OK) {
            GV_FUZZ_CHECK(sw.lo >= 1 && sw.lo <= sw.hi);
            GV_FUZZ_CHECK(sw.dim >= 0 && sw.dim < GV_MAX_DIMS);
        } else {
            GV_FUZZ_CHECK(why[0] != '\0');
        }
        break;
    }
    case 6: {
        size_t len = 4 + opi % 200;
        char *buf = malloc(len);
        if (!buf) break;
        gv_printable(s, buf, len);
        GV_FUZZ_CHECK(strlen(buf) < len);
        for (const char *p = buf; *p; p++)
            GV_FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
        free(buf);
        break;
    }
    }
    free(s);
    return 0;
}
