/* inputs.h: gv_make_inputs and gv_case_inputs_free (inputs.c), declared in include/gpuval.h,
 * which is what this header brings in. */
#ifndef GV_API_INPUTS_H
#define GV_API_INPUTS_H

#include "../../include/gpuval.h"

#endif
