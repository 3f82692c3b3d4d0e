/* fuzz_json.c: the run-file reader of `compare` and `report`. The input is one document, or two
 * split at the first NUL (BASE and NEW); each is parsed as gpuval parses a file (json_loadb,
 * flags 0), rendered as HTML and Markdown when its schema is known (gv_render_*), and the pair
 * is compared (gv_compare_runs, printed with gv_cmd_compare_print). Output goes to /dev/null. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmd/compare.h"
#include "runs/compare_runs.h"
#include "fuzz.h"
#include "core/gv.h"
#include "render/render.h"

static FILE *null_out(void)
{
    static FILE *f;
    if (!f) f = fopen("/dev/null", "w");
    if (!f) abort();
    return f;
}

static void render(const json_t *doc)
{
    if (gv_render_kind_of(doc) == GV_RENDER_UNKNOWN) return;
    gv_render_html(null_out(), doc);
    gv_render_md(null_out(), doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t n1 = nul ? (size_t)(nul - data) : size;
    json_error_t err;
    json_t *base = json_loadb((const char *)data, n1, 0, &err);
    json_t *new_doc =
        nul ? json_loadb((const char *)nul + 1, size - n1 - 1, 0, &err) : json_incref(base);
    if (base) render(base);
    if (nul && new_doc) render(new_doc);
    if (base && new_doc) {
        gv_cmp_opts o = GV_CMP_OPTS_DEFAULT;
        gv_cmp_result r;
        char why[512] = "";
        int rc = gv_compare_runs(base, new_doc, &o, &r, why, sizeof why);
        if (rc == GV_OK) {
            gv_cmd_compare_print(null_out(), &r);
            gv_cmp_result_free(&r);
        } else {
            GV_FUZZ_CHECK(rc != GV_EINVAL || why[0] != '\0');
        }
    }
    json_decref(base);
    json_decref(new_doc);
    return 0;
}
