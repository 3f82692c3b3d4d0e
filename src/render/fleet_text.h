/* fleet_text.h: the lines of the per-device workers (fleet/workers.h) on the terminal
 * (fleet_text.c): the line that starts them, each worker's captured output under its device's
 * header, and a device that left no run. check, bench, tradeoffs and screen pass it. */
#ifndef GV_FLEET_TEXT_H
#define GV_FLEET_TEXT_H

#include "fleet/workers.h"

extern const gv_fleet_printer gv_fleet_text_printer;

#endif
