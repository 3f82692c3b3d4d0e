/* scan.h: the layout contract of scan.cumsum's block-wise scan (kernels/scan.cu), shared by
 * the kernel and the error model (src/ops/scan.c): how a row is tiled, hence how many
 * rounded additions a term goes through on its way to an output. */
#ifndef GV_ABI_SCAN_H
#define GV_ABI_SCAN_H

#include <stdint.h>

/* One block a row, GK_SCAN_THREADS threads, each holding GK_SCAN_PER_THREAD consecutive
   elements of a tile of GK_SCAN_TILE; the tiles of a row are scanned one after another, each
   offset by the carry (the sum of the tiles before it). */
#define GK_SCAN_THREADS    256
#define GK_SCAN_PER_THREAD 4
#define GK_SCAN_TILE       (GK_SCAN_THREADS * GK_SCAN_PER_THREAD)

static inline int64_t gk_scan_tiles(int64_t n)
{
    return n < 1 ? 1 : (n + GK_SCAN_TILE - 1) / GK_SCAN_TILE;
}

/* The rounded additions a term x_k goes through on its way to y_j at most (E = 4 elements a
   thread, 8 warps; docs/error-models.md, section scan):
     same thread:   its local running sum (<= E - 1), the final add of the thread's offset: E;
     same warp:     the thread total (E - 1), the warp's Hillis-Steele scan (<= 5 levels, one
                    addition each), offset = warp prefix + lane prefix (1), carry + offset (1),
                    + the local sum (1): E + 7;
     earlier warp:  as above plus the scan of the 8 warp totals (<= 3 levels): E + 10;
     earlier tile s, output in tile t: to the tile's total (E + 7), into the carry (1), the
     carries of tiles s + 1 .. t - 1 (t - s - 1), carry + offset (1), + local (1):
                    E + 9 + (t - s) <= E + 9 + t.
   The largest over a row of T tiles (t <= T - 1): max(E + 10, E + 8 + T) <= E + 9 + T. */
static inline int64_t gk_scan_depth(int64_t n)
{
    return GK_SCAN_PER_THREAD + 9 + gk_scan_tiles(n);
}

#endif
