/* op_info.h: an op's description (op_info.c): gv_op_json for `gpuval list --json`, and
 * gv_op_info and gv_free, declared in include/gpuval.h, which this header brings in. */
#ifndef GV_API_OP_INFO_H
#define GV_API_OP_INFO_H

#include <jansson.h>

#include "../../include/gpuval.h"
#include "core/op.h"

/* An op's description, as `gpuval list --json` and gv_op_info give it: name, family, summary,
   dims, dtypes, modes, shapes, dists, canaries, planted_bug, ... (docs/schemas.md). */
json_t *gv_op_json(const gv_op *op);

#endif
