/* case_io.h: a case's tensors as .npy files (case_io.c) — the user's inputs for
 * `check --inputs`, a failing case dumped by `check --dump-failures` (inputs, GPU output,
 * oracle output, case.json) and what `gpuval replay` reads back. */
#ifndef GV_CASE_IO_H
#define GV_CASE_IO_H

#include <stdbool.h>

#include "io/npy.h"
#include "io/run_doc.h"
#include "core/run.h"
#include "io/schemas.h"
#include "io/tensor_shape.h" /* gv_tensor_shape, for this header's users */

/* The user's inputs for one op: files (comma-separated .npy paths, one per input of op, in
 * the op's input order) read into arrays[] (*n of them; free each with gv_npy_free), their
 * common dtype into *dtype and the op's dims inferred from their shapes into *shape.
 * GV_OK, or GV_EINVAL / GV_EIO with the file and the fault in err. */
int gv_inputs_load(const gv_op *op, const char *files, gv_npy *arrays, int *n, gv_dtype *dtype,
                   gv_shape *shape, char *err, size_t errlen);
/* The same for `gpuval judge`, which also takes inputs stored in low-precision formats (f16,
   bf16, raw bits: GV_NPY_F16, BF16, U8, U16) beside f32 or f64 ones: *dtype is then the f32
   or f64 arrays' dtype, f32 where there is none (the compute dtype, api/lowp.h). */
int gv_inputs_load_lowp(const gv_op *op, const char *files, gv_npy *arrays, int *n,
                        gv_dtype *dtype, gv_shape *shape, char *err, size_t errlen);
/* The loaded arrays as given inputs for gv_run_case_io, with what the caller says they are
   (gv_inputs, gv.h: a user's arrays are GIVEN). */
void gv_inputs_given(const gv_npy *arrays, int n, gv_inputs in, gv_given_inputs *given);

/* The case's directory name under --dump-failures: OP-DTYPE-MODE-DIST-SHAPE-sSEED, any
 * character outside [A-Za-z0-9._-] made '_'. */
char *gv_dump_name(const gv_case *c, char *buf, size_t len);

/* Before any work: could --dump-failures create or write into dir? 0, or -1 with why. */
int gv_probe_dump_dir(const char *dir, char *err, size_t errlen);
/* Before any work, without --force: -1 (with the first one named) when dir/NAME of one of the
 * n cases exists already, else 0. */
int gv_dump_taken(const char *dir, const gv_case *cases, int n, char *err, size_t errlen);

/* Write dir/NAME/ for a judged case: in_T.npy for each input T, out_T.gpu.npy (the device's
 * output, in the dtype) and out_T.oracle.npy (the f64 reference) for each output, and
 * case.json (gv_schema(GV_DOC_CASE)). p may have no tensors (the case stopped before its problem
 * was built): then case.json alone. inputs: the --inputs list or NULL (generated). An existing case
 * directory is refused unless force. 0, or -1 with the fault in err. */
int gv_dump_case(const char *dir, const gv_problem *p, const gv_result *r, const gv_run_info *info,
                 const char *inputs, bool force, char *err, size_t errlen);

#endif
