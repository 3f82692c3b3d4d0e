/* judge_api.h: judging outputs computed outside gpuval (judge_api.c): the one code path of
 * `gpuval judge`, `gpuval inputs` (judge.c) and the 1.2 API of include/gpuval.h (gv_judge,
 * gv_make_inputs, gv_op_info). No device is used: the inputs and the f64 oracle are the host's,
 * the outputs the caller's. */
#ifndef GV_CMD_JUDGE_API_H
#define GV_CMD_JUDGE_API_H

#include <jansson.h>

#include "core/api.h"
#include "core/op.h"

/* An op by its name or its family's ("gemm": the family's first op); NULL if none. */
const gv_op *gv_judge_find_op(const char *name);

/* An op's description, as `gpuval list --json` and gv_op_info give it: name, family, summary,
   dims, dtypes, modes, shapes, dists, canaries, planted_bug, ... (docs/schemas.md). */
json_t *gv_op_json(const gv_op *op);

/* One case from names, checked: op (gv_judge_find_op), dtype (GV_DTYPE_*), mode (NULL:
   native), size (one shape in the op's dims), dist (NULL: the op's default), seed; and its
   layout into l. GV_OK, or GV_EINVAL with the reason in err. */
int gv_judge_case_make(const char *op, int dtype, const char *mode, const char *size,
                       const char *dist, uint64_t seed, gv_case *c, gv_layout *l, char *err,
                       size_t errlen);

/* The shape (C order) of input i (output when `output`) of case c with layout l: nd. */
int gv_judge_tensor_shape(const gv_case *c, const gv_layout *l, bool output, int i,
                          int64_t shape[GV_MAX_DIMS]);

/* Judge spec's outputs: the case built, the inputs checked (generated: bit for bit the
   generator's; given: the caller's), the f64 reference (the oracle cache's where valid), the
   outputs judged by the rules their inputs allow, r filled as check fills a case's result.
   *arrays (when not NULL) gets the record of the arrays judged: their names, dtypes, counts
   and the SHA-256 of their bytes. GV_OK when r holds a verdict (ERROR included); GV_EINVAL or
   GV_ENOMEM with the reason in err for a spec that cannot be judged. */
int gv_judge_run(const gv_judge_spec *spec, gv_result *r, json_t **arrays, char *err,
                 size_t errlen);

#endif
