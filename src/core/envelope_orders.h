/* envelope_orders.h: the legal evaluation orders of one dot product or one sum, in one
 * precision, bit for bit (included twice by envelope.c: ENV_T float with fmaf, double with fma).
 * Every result is what a correct kernel of that order computes in ENV_T with each operation
 * rounded in the current rounding mode (envelope.c sets round-toward-zero around an impostor's
 * call). C11 mode makes GCC keep -ffp-contract=off, so `p = x * y; s = s + p` stays two
 * roundings, and nothing is reassociated (no -ffast-math): each order is the order written.
 * Not a header with a guard: a template, one instance per ENV_T. */

/* The pairwise tree of v[0..k), in place, adjacent pairs level by level (an odd one out waits
   for the next level): v[0], or 0 for k = 0. Lanes' partials (k a power of two) and the pairwise
   order of every sum alike. */
static inline ENV_T ENV_NAME(pairwise)(ENV_T *v, int64_t k)
{
    for (int64_t s = 1; s < k; s <<= 1)
        for (int64_t i = 0; i + s < k; i += 2 * s)
            v[i] = v[i] + v[i + s];
    return k > 0 ? v[0] : (ENV_T)0;
}

/* The scale of the rounding errors of any order, not only the modelled ones: every partial sum
   of any order is a sub-sum of the terms, at most G = sum |term| in magnitude, and k - 1
   additions round, so G^2 (k - 1) bounds the sum of the squared partials of every order. The
   modelled chains' own sum (sq) is the floor where it is larger (the products' roundings of an
   unfused order). Without it, an order whose slices resonate with the data (tiles dealt
   round-robin, at a stride that aliases a period of the products to a near-constant) has
   partials far larger than any modelled chain's and fell outside (tests/cpu/model_envelope.c,
   "DCT, frequencies K/32 apart"). */
static inline double ENV_NAME(any_order)(double sq, double g_abs, int64_t k)
{
    double any = g_abs * g_abs * (double)(k > 1 ? k - 1 : 0);
    return any > sq ? any : sq;
}

/* The pairwise tree of ENV_W interleaved sequences at once: v[l ENV_W + w] is term l of lane
   w; each lane's sum into v[w], by pairwise's own steps. */
static inline void ENV_NAME(pairwise_lanes)(ENV_T *v, int64_t k)
{
    for (int64_t s = 1; s < k; s <<= 1)
        for (int64_t i = 0; i + s < k; i += 2 * s) {
            ENV_T *to = v + i * ENV_W;
            const ENV_T *from = v + (i + s) * ENV_W;
            ENV_LANES
            for (int w = 0; w < ENV_W; w++)
                to[w] = to[w] + from[w];
        }
}

/* sum over l of x[l] y_w[l] for ENV_W dot products that share x (one row of A, ENV_W columns
   of B: y interleaved, y[l ENV_W + w] is term l of lane w), into res[w ENV_NDOT + q]: the FMA
   chain in k order; the unfused chain (rounded product, rounded sum) in k order; FMA chains
   over blocks of 4, 16, 32, 64, 256 terms, each block's partial added to a running total in
   order (a tile loop; also split-k with that many chunks); the FMA chain in reverse order; 8
   and 32 interleaved FMA chains (term l to chain l mod L: SIMD lanes, a warp's threads),
   combined as a tree; sliced-K (tiles of 8 terms dealt round-robin to 4 FMA chains, combined
   as a tree); and the pairwise tree over the rounded products (adjacent pairs, level by level,
   an odd one carried up). tmp holds k ENV_W values. sq[w]: the scale of one order's rounding
   errors (envelope.c's width floor), in f64: the sum of the rounded products squared plus the
   largest, over the chains (in order, 8 and 32 lanes, sliced-K, the split-K slices), of the
   sum of their partial sums squared.
   Then split-K as cuBLAS runs an f32 product (measured on an H100, cuBLAS 13.1 through torch
   2.11: each of seven products from 64x4096x64 to 1024x4096x1024 and 256x16384x256 matched one
   of these bit for bit on every sampled element, and none of the orders above): S slices, each
   an FMA chain over its own terms, the slices' partials added in slice order. Contiguous
   slices (cublasLt's separate split-K reduce; S = 4, 16 and 64 seen): slice s takes terms
   [s L, (s + 1) L), L = ceil(k / S), for S = 2, 4, 8, 16, 32, 64. Round-robin (the in-kernel
   split-K of its FFMA kernels; S = 16 seen): tiles of 8 terms dealt to S slices in turn, for
   S = 4, 8, 16, 32. res[w ENV_NDOT + ENV_NDOT0 ..].
   Every lane is its own dot product, computed by its own operations in its own order: the
   lanes only let the compiler issue ENV_W of the same operation at once (ENV_LANES), so each
   lane's results are those of one element computed alone, bit for bit (IEEE operations,
   fmaf/fma correctly rounded, no contraction in C11 mode, no reassociation). Where and when a
   block or slice ends depends on l alone, never on a lane's data. */
static ENV_CLONES void ENV_NAME(dot_lanes)(const ENV_T *x, const ENV_T *y, int64_t k, ENV_T *tmp,
                                           double *res, double *sq)
{
    enum { W = ENV_W };
    static const int cont_s[ENV_NCONT] = {2, 4, 8, 16, 32, 64}, rr_s[ENV_NRR] = {4, 8, 16, 32};
    ENV_T cacc[ENV_NCONT][W] = {{0}}, ctot[ENV_NCONT][W] = {{0}}, racc[ENV_NRR][32][W] = {{{0}}};
    int64_t clen[ENV_NCONT], cleft[ENV_NCONT];
    bool cstarted[ENV_NCONT] = {false};
    double sqc[ENV_NCONT][W] = {{0}}, sqr[ENV_NRR][W] = {{0}}, g_abs[W] = {0};
    for (int i = 0; i < ENV_NCONT; i++)
        clen[i] = cleft[i] = (k + cont_s[i] - 1) / cont_s[i];
    double sq_acc[W] = {0}, sq_p[W] = {0}, sq8[W] = {0}, sq32[W] = {0}, sqs[W] = {0};
    ENV_T seq[W] = {0}, unf[W] = {0}, sl[4][W] = {{0}};
    ENV_T a4[W] = {0}, a16[W] = {0}, a32[W] = {0}, a64[W] = {0}, a256[W] = {0};
    ENV_T t4[W] = {0}, t16[W] = {0}, t32[W] = {0}, t64[W] = {0}, t256[W] = {0};
    ENV_T rev[W] = {0}, l8[8][W] = {{0}}, l32[32][W] = {{0}};
    for (int64_t l = 0; l < k; l++) {
        const ENV_T xl = x[l], xr = x[k - 1 - l];
        const ENV_T *yl = y + l * W, *yr = y + (k - 1 - l) * W;
        ENV_T *p = tmp + l * W, *c8 = l8[l & 7], *c32 = l32[l & 31], *sli = sl[(l >> 3) & 3];
        ENV_LANES
        for (int w = 0; w < W; w++) {
            ENV_T pw = xl * yl[w];
            p[w] = pw;
            seq[w] = ENV_FMA(xl, yl[w], seq[w]);
            sq_acc[w] += (double)seq[w] * (double)seq[w];
            sq_p[w] += (double)pw * (double)pw;
            g_abs[w] += fabs((double)pw);
            rev[w] = ENV_FMA(xr, yr[w], rev[w]);
            c8[w] = ENV_FMA(xl, yl[w], c8[w]);
            sq8[w] += (double)c8[w] * (double)c8[w];
            c32[w] = ENV_FMA(xl, yl[w], c32[w]);
            sq32[w] += (double)c32[w] * (double)c32[w];
            sli[w] = ENV_FMA(xl, yl[w], sli[w]);
            sqs[w] += (double)sli[w] * (double)sli[w];
            unf[w] = unf[w] + pw;
            a4[w] = ENV_FMA(xl, yl[w], a4[w]);
            a16[w] = ENV_FMA(xl, yl[w], a16[w]);
            a32[w] = ENV_FMA(xl, yl[w], a32[w]);
            a64[w] = ENV_FMA(xl, yl[w], a64[w]);
            a256[w] = ENV_FMA(xl, yl[w], a256[w]);
        }
        int64_t e = l + 1;
        if ((e & 3) == 0) {
            ENV_LANES
            for (int w = 0; w < W; w++)
                t4[w] = t4[w] + a4[w], a4[w] = 0;
            if ((e & 15) == 0) {
                ENV_LANES
                for (int w = 0; w < W; w++)
                    t16[w] = t16[w] + a16[w], a16[w] = 0;
                if ((e & 31) == 0) {
                    ENV_LANES
                    for (int w = 0; w < W; w++)
                        t32[w] = t32[w] + a32[w], a32[w] = 0;
                    if ((e & 63) == 0) {
                        ENV_LANES
                        for (int w = 0; w < W; w++)
                            t64[w] = t64[w] + a64[w], a64[w] = 0;
                        if ((e & 255) == 0) {
                            ENV_LANES
                            for (int w = 0; w < W; w++)
                                t256[w] = t256[w] + a256[w], a256[w] = 0;
                        }
                    }
                }
            }
        }
        for (int i = 0; i < ENV_NCONT; i++) {
            ENV_T *ca = cacc[i];
            double *sc = sqc[i];
            ENV_LANES
            for (int w = 0; w < W; w++) {
                ca[w] = ENV_FMA(xl, yl[w], ca[w]);
                sc[w] += (double)ca[w] * (double)ca[w];
            }
            if (--cleft[i] == 0 || e == k) { /* a slice ends: its partial joins the total */
                ENV_T *ct = ctot[i];
                if (cstarted[i]) {
                    ENV_LANES
                    for (int w = 0; w < W; w++)
                        ct[w] = ct[w] + ca[w];
                } else {
                    for (int w = 0; w < W; w++)
                        ct[w] = ca[w];
                }
                for (int w = 0; w < W; w++)
                    ca[w] = 0;
                cstarted[i] = true, cleft[i] = clen[i];
            }
        }
        int64_t tile = l / ENV_RR_TILE;
        for (int i = 0; i < ENV_NRR; i++) {
            ENV_T *acc = racc[i][tile % rr_s[i]];
            double *sr = sqr[i];
            ENV_LANES
            for (int w = 0; w < W; w++) {
                acc[w] = ENV_FMA(xl, yl[w], acc[w]);
                sr[w] += (double)acc[w] * (double)acc[w];
            }
        }
    }
    /* the last, partial block (none where k is a multiple: adding its +0 would change a -0) */
    for (int w = 0; w < W; w++) {
        if (k & 3) t4[w] = t4[w] + a4[w];
        if (k & 15) t16[w] = t16[w] + a16[w];
        if (k & 31) t32[w] = t32[w] + a32[w];
        if (k & 63) t64[w] = t64[w] + a64[w];
        if (k & 255) t256[w] = t256[w] + a256[w];
    }
    ENV_NAME(pairwise_lanes)(tmp, k);
    ENV_NAME(pairwise_lanes)(&l8[0][0], 8);
    ENV_NAME(pairwise_lanes)(&l32[0][0], 32);
    ENV_NAME(pairwise_lanes)(&sl[0][0], 4);
    /* the round-robin slices that got a tile */
    int64_t tiles = (k + ENV_RR_TILE - 1) / ENV_RR_TILE;
    int used[ENV_NRR];
    for (int i = 0; i < ENV_NRR; i++)
        used[i] = tiles < rr_s[i] ? (int)tiles : rr_s[i];
    for (int w = 0; w < W; w++) {
        double *r = res + (int64_t)w * ENV_NDOT;
        r[0] = seq[w];
        r[1] = unf[w];
        r[2] = t4[w];
        r[3] = t16[w];
        r[4] = t32[w];
        r[5] = t64[w];
        r[6] = t256[w];
        r[7] = k > 0 ? tmp[w] : 0;
        r[8] = rev[w];
        r[9] = l8[0][w];
        r[10] = l32[0][w];
        r[11] = sl[0][w];
        double sq_split = 0.0;
        for (int i = 0; i < ENV_NCONT; i++) {
            r[ENV_NDOT0 + i] = ctot[i][w];
            if (sqc[i][w] > sq_split) sq_split = sqc[i][w];
        }
        /* the slices' partials in slice order */
        for (int i = 0; i < ENV_NRR; i++) {
            ENV_T t = used[i] > 0 ? racc[i][0][w] : 0;
            for (int s = 1; s < used[i]; s++)
                t = t + racc[i][s][w];
            r[ENV_NDOT0 + ENV_NCONT + i] = t;
            if (sqr[i][w] > sq_split) sq_split = sqr[i][w];
        }
        double mx = sq_acc[w] > sq8[w] ? sq_acc[w] : sq8[w];
        mx = mx > sq32[w] ? mx : sq32[w];
        mx = mx > sqs[w] ? mx : sqs[w];
        mx = mx > sq_split ? mx : sq_split;
        sq[w] = ENV_NAME(any_order)(mx + sq_p[w], g_abs[w], k);
    }
}

/* One tile of reduce.sum's kernel (kernels/reduce.cu, reduce_tile_kernel; reduce_onepass.cuh,
   tile_tree): the sum of t[0..len), read as 0 at and past len, of a tile of 2048. Thread h
   (0..255) holds t[j 256 + h], j = 0..7, and adds them as ((v0+v1)+(v2+v3))+((v4+v5)+(v6+v7));
   each warp's 32 lanes then fold lane l + off into lane l for off = 16, 8, 4, 2, 1 (shuffles
   down); the 8 warps' sums, likewise for off = 4, 2, 1. */
static ENV_T ENV_NAME(tile)(const ENV_T *t, int64_t len)
{
    ENV_T a[256], v[8];
    for (int h = 0; h < 256; h++) {
        for (int j = 0; j < 8; j++) {
            int64_t i = (int64_t)j * 256 + h;
            v[j] = i < len ? t[i] : (ENV_T)0;
        }
        a[h] = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
    }
    ENV_T w[8];
    for (int wp = 0; wp < 8; wp++) {
        ENV_T *l = a + 32 * wp;
        for (int off = 16; off > 0; off >>= 1)
            for (int q = 0; q < off; q++)
                l[q] = l[q] + l[q + off];
        w[wp] = l[0];
    }
    for (int off = 4; off > 0; off >>= 1)
        for (int q = 0; q < off; q++)
            w[q] = w[q] + w[q + off];
    return w[0];
}

/* reduce.sum's whole tree over x[0..n): the tiles' sums into tmp (n / 2048 + 1 values), then
   the same kernel over them until one tile is left; onepass: reduce.sum.onepass's, the tiles'
   sums by groups of 2048 (each group by the tile tree), the groups' sums added in order. Each
   level is read before it is overwritten: tile b's sum goes to tmp[b], at or before its own
   first element. */
static ENV_T ENV_NAME(block_tree)(const ENV_T *x, int64_t n, ENV_T *tmp, bool onepass)
{
    int64_t len = n;
    const ENV_T *src = x;
    for (;;) {
        int64_t tiles = len < 1 ? 1 : (len + 2047) / 2048;
        if (onepass && src != x) {
            ENV_T s = 0;
            for (int64_t g = 0; g < len; g += 2048) {
                ENV_T t = ENV_NAME(tile)(src + g, len - g < 2048 ? len - g : 2048);
                s = g == 0 ? t : s + t;
            }
            return s;
        }
        if (src == x) {
            /* the first level on all cores where this is the only element being judged (the
               caller's loop over elements is not a parallel region then): each tile is its own
               sum, so the same bits on any thread count. The threads take the caller's
               rounding mode (rz replays run toward zero) and give theirs back. A later level
               sums tmp in place (tile b's sum lands in an earlier tile's span): one core. */
            int mode = fegetround();
#pragma omp parallel if (tiles >= ENV_TREE_PAR_TILES)
            {
                int own = fegetround();
                fesetround(mode);
#pragma omp for schedule(static)
                for (int64_t b = 0; b < tiles; b++) {
                    int64_t start = b * 2048, left = len - start;
                    tmp[b] =
                        ENV_NAME(tile)(src + start, left < 2048 ? (left > 0 ? left : 0) : 2048);
                }
                fesetround(own);
            }
        } else {
            for (int64_t b = 0; b < tiles; b++) {
                int64_t start = b * 2048, left = len - start;
                tmp[b] = ENV_NAME(tile)(src + start, left < 2048 ? (left > 0 ? left : 0) : 2048);
            }
        }
        if (tiles == 1) return tmp[0];
        src = tmp, len = tiles;
    }
}

/* sum over l of x[l], into res[0..ENV_NSUM): in order; blocks of 4, 16, 32, 64, 256 added in
   order; the pairwise tree; in reverse order; 8 and 32 interleaved chains; reduce.sum's
   block tree. tmp holds k
   values. *sq: the sum of the in-order partial sums squared, in f64. */
static ENV_CLONES void ENV_NAME(sum)(const ENV_T *x, int64_t k, ENV_T *tmp, double *res,
                                     double *sq)
{
    double sq_acc = 0.0, g_abs = 0.0;
    ENV_T seq = 0;
    ENV_T a4 = 0, a16 = 0, a32 = 0, a64 = 0, a256 = 0;
    ENV_T t4 = 0, t16 = 0, t32 = 0, t64 = 0, t256 = 0;
    ENV_T rev = 0, l8[8] = {0}, l32[32] = {0};
    for (int64_t l = 0; l < k; l++) {
        ENV_T xl = x[l];
        tmp[l] = xl;
        seq = seq + xl;
        sq_acc += (double)seq * (double)seq;
        g_abs += fabs((double)xl);
        rev = rev + x[k - 1 - l];
        l8[l & 7] = l8[l & 7] + xl;
        l32[l & 31] = l32[l & 31] + xl;
        a4 = a4 + xl;
        a16 = a16 + xl;
        a32 = a32 + xl;
        a64 = a64 + xl;
        a256 = a256 + xl;
        int64_t e = l + 1;
        if ((e & 3) == 0) {
            t4 = t4 + a4, a4 = 0;
            if ((e & 15) == 0) {
                t16 = t16 + a16, a16 = 0;
                if ((e & 31) == 0) {
                    t32 = t32 + a32, a32 = 0;
                    if ((e & 63) == 0) {
                        t64 = t64 + a64, a64 = 0;
                        if ((e & 255) == 0) t256 = t256 + a256, a256 = 0;
                    }
                }
            }
        }
    }
    if (k & 3) t4 = t4 + a4;
    if (k & 15) t16 = t16 + a16;
    if (k & 31) t32 = t32 + a32;
    if (k & 63) t64 = t64 + a64;
    if (k & 255) t256 = t256 + a256;
    ENV_NAME(pairwise)(tmp, k);
    res[0] = seq;
    res[1] = t4;
    res[2] = t16;
    res[3] = t32;
    res[4] = t64;
    res[5] = t256;
    res[6] = k > 0 ? tmp[0] : 0;
    res[7] = rev;
    res[8] = ENV_NAME(pairwise)(l8, 8);
    res[9] = ENV_NAME(pairwise)(l32, 32);
    res[10] = ENV_NAME(block_tree)(x, k, tmp, false); /* tmp's pairwise sums are spent */
    *sq = ENV_NAME(any_order)(sq_acc, g_abs, k);
}

/* One declared order of a sum of x[0..k) (gv_env_order): res[0..*nres). tmp holds k values. */
static ENV_CLONES void ENV_NAME(sum_order)(const ENV_T *x, int64_t k, const gv_env_order *o,
                                           ENV_T *tmp, double *res, int *nres)
{
    ENV_T acc = 0, part = 0;
    *nres = 1;
    switch (o->kind) {
    case GV_ORDER_PAIRWISE:
        for (int64_t l = 0; l < k; l++)
            tmp[l] = x[l];
        res[0] = ENV_NAME(pairwise)(tmp, k);
        return;
    case GV_ORDER_BLOCKED:
        for (int64_t l = 0; l < k; l++) {
            part = part + x[l];
            if ((l + 1) % o->block == 0 || l + 1 == k) acc = acc + part, part = 0;
        }
        res[0] = acc;
        return;
    case GV_ORDER_TREE:
    case GV_ORDER_TREE_ONEPASS:
        res[0] = ENV_NAME(block_tree)(x, k, tmp, o->kind == GV_ORDER_TREE_ONEPASS);
        return;
    default: /* GV_ORDER_K */
        for (int64_t l = 0; l < k; l++)
            acc = acc + x[l];
        res[0] = acc;
        return;
    }
}

/* One declared order of sum x[l] y[l] (gv_env_order), with the variants a kernel of that order
   may take: k: the FMA chain and the unfused chain; blocked:B: the same over blocks of B, each
   block's partial added to the running total; pairwise: the tree over the rounded products;
   tree: 8 and 32 interleaved FMA chains combined as a tree. res[0..*nres). tmp holds k. */
static ENV_CLONES void ENV_NAME(dot_order)(const ENV_T *x, const ENV_T *y, int64_t k,
                                           const gv_env_order *o, ENV_T *tmp, double *res,
                                           int *nres)
{
    ENV_T fma_acc = 0, unf_acc = 0, fma_part = 0, unf_part = 0, l8[8] = {0}, l32[32] = {0};
    *nres = 2;
    switch (o->kind) {
    case GV_ORDER_PAIRWISE:
        for (int64_t l = 0; l < k; l++)
            tmp[l] = x[l] * y[l];
        res[0] = ENV_NAME(pairwise)(tmp, k);
        *nres = 1;
        return;
    case GV_ORDER_BLOCKED:
        for (int64_t l = 0; l < k; l++) {
            ENV_T p = x[l] * y[l];
            fma_part = ENV_FMA(x[l], y[l], fma_part);
            unf_part = unf_part + p;
            if ((l + 1) % o->block == 0 || l + 1 == k) {
                fma_acc = fma_acc + fma_part, unf_acc = unf_acc + unf_part;
                fma_part = unf_part = 0;
            }
        }
        break;
    case GV_ORDER_TREE:
    case GV_ORDER_TREE_ONEPASS:
        for (int64_t l = 0; l < k; l++) {
            l8[l & 7] = ENV_FMA(x[l], y[l], l8[l & 7]);
            l32[l & 31] = ENV_FMA(x[l], y[l], l32[l & 31]);
        }
        fma_acc = ENV_NAME(pairwise)(l8, 8);
        unf_acc = ENV_NAME(pairwise)(l32, 32);
        break;
    default: /* GV_ORDER_K */
        for (int64_t l = 0; l < k; l++) {
            ENV_T p = x[l] * y[l];
            fma_acc = ENV_FMA(x[l], y[l], fma_acc);
            unf_acc = unf_acc + p;
        }
        break;
    }
    res[0] = fma_acc;
    res[1] = unf_acc;
}
