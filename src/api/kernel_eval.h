/* kernel_eval.h: the C side of the generated-kernel gate (kernel_eval.c): `gpuval kernel-eval`
 * runs the Python gate (python/src/gpuval/kernel_eval.py) in a child python3, over this
 * libgpuval, and ends with its outcome. */
#ifndef GV_API_KERNEL_EVAL_H
#define GV_API_KERNEL_EVAL_H

#include "core/gv.h"

/* Where the gate's parts were found for this process (kernel_eval.c says in which order):
   the library the child is told to load (GPUVAL_LIB), "" where none was found beside this
   program (the Python package then looks for one itself); the directory put first on the
   child's PYTHONPATH, "" where the package is the installed one. */
typedef struct gv_kernel_eval_paths {
    char lib[4096];
    char pkg[4096];
} gv_kernel_eval_paths;

/* Fill *paths for this process (never fails: what is not found is ""). */
void gv_kernel_eval_locate(gv_kernel_eval_paths *paths);

/* Run `python3 -m gpuval.kernel_eval ARGS` (args: n of them, passed as given) with the child's
   environment this one's plus GPUVAL_LIB and PYTHONPATH from paths, wait for it, and return its
   outcome as a status: 0 OK, 1 FAIL, 2 BAD_INPUT (the gate's usage errors), 3 RUNTIME (the
   candidate could not run); BAD_INPUT with e's message where python3 is not on PATH or the
   package (or numpy) cannot be imported; RUNTIME where the child died of a signal. The gate
   prints its own report to this process's stdout and stderr. */
gv_status gv_kernel_eval_run(const gv_kernel_eval_paths *paths, int n, char *const *args,
                             gv_error *e);

#endif
