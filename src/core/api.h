/* api.h: the descriptor half of the public API (api.c): gv_api_version, gv_api_strerror and
 * gv_register_family, declared in include/gpuval.h, which is what this header brings in. */
#ifndef GV_API_H
#define GV_API_H

#include "../../include/gpuval.h"

#endif
