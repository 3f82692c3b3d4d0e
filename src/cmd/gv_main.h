/* gv_main.h: gv_main and gv_main_all (gv_main.c), declared in include/gpuval.h, which is what
 * this header brings in. */
#ifndef GV_GV_MAIN_H
#define GV_GV_MAIN_H

#include "../../include/gpuval.h"

#endif
