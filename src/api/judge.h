/* judge.h: judging outputs computed outside gpuval (judge.c): the one code path of
 * `gpuval judge` (cmd/judge.c) and of gv_judge and gv_judgement_free, declared in
 * include/gpuval.h, which this header brings in. No device is used: the inputs and the f64
 * oracle are the host's, the outputs the caller's. */
#ifndef GV_API_JUDGE_H
#define GV_API_JUDGE_H

#include <jansson.h>

#include "../../include/gpuval.h"
#include "core/op.h"

/* Judge spec's outputs: the case built (case.h), the inputs checked (generated: bit for bit
   the generator's; given: the caller's), the f64 reference (the oracle cache's where valid),
   the outputs judged by the rules their inputs allow, r filled as check fills a case's result.
   *arrays (when not NULL) gets the record of the arrays judged: their names, dtypes, counts
   and the SHA-256 of their bytes. GV_OK when r holds a verdict (ERROR included); GV_EINVAL or
   GV_ENOMEM with the reason in err for a spec that cannot be judged. */
int gv_judge_run(const gv_judge_spec *spec, gv_result *r, json_t **arrays, char *err,
                 size_t errlen);

#endif
