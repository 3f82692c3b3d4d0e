/* tensor_shape.c: a tensor's shape from its op's declarations (see tensor_shape.h). */
#include "io/tensor_shape.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "io/npy.h"

/* Field i of a ';'-list into buf: "" when absent. */
void gv_dims_field(const char *list, int i, char *buf, size_t len)
{
    const char *p = list;
    for (int k = 0; k < i && p; k++) {
        p = strchr(p, ';');
        if (p) p++;
    }
    buf[0] = '\0';
    if (!p) return;
    size_t n = strcspn(p, ";");
    if (n >= len) n = len - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
}

/* The index of dim name among the op's dims "m,k,n", or -1. */
static int dim_index(const char *dims, const char *name, size_t name_len)
{
    int idx = 0;
    for (const char *p = dims; *p; idx++) {
        size_t n = strcspn(p, ",");
        if (n == name_len && strncmp(p, name, n) == 0) return idx;
        p += n;
        if (*p == ',') p++;
    }
    return -1;
}

/* The dim indices of a tensor's expression "m,k" into idx[]; returns how many (0: flat). */
int gv_dims_expr(const char *dims, const char *expr, int *idx)
{
    int nd = 0;
    for (const char *p = expr; *p && nd < GV_NPY_MAX_DIMS;) {
        size_t n = strcspn(p, ",");
        /* a number: a side the op fixes (1 to 99999), named by no dim */
        size_t digits = strspn(p, "0123456789");
        if (digits == n && n > 0 && n < 6 && p[0] != '0')
            idx[nd++] = GV_DIM_FIXED(atoi(p));
        else
            idx[nd++] = dim_index(dims, p, n);
        p += n;
        if (*p == ',') p++;
    }
    return nd;
}

bool gv_tensor_complex(const gv_op *op, bool output, int i)
{
    unsigned mask = output ? op->complex_out : op->complex_in;
    return i >= 0 && i < 32 && (mask >> i) & 1u;
}

int gv_tensor_shape(const gv_case *c, const gv_layout *l, bool output, int i, int64_t *shape)
{
    assert(i >= 0 && i < (output ? l->n_out : l->n_in));
    int64_t count = output ? l->out[i].count : l->in[i].count;
    const char *list = output ? c->op->out_dims : c->op->in_dims;
    bool cplx = gv_tensor_complex(c->op, output, i);
    char expr[64] = "";
    if (list) {
        /* The descriptor's contract (op.h): one ';'-entry per tensor of the layout, each naming
           dims of the op's own, whose product is the layout's count (half of it for a complex
           tensor, whose pairs are a last dim of 2). --inputs matches files to the layout by it
           and a dump writes its shapes by it. An empty entry leaves the shape to the hook. */
        int fields = 1;
        for (const char *p = list; *p; p++)
            fields += *p == ';';
        assert(fields == (output ? l->n_out : l->n_in));
        gv_dims_field(list, i, expr, sizeof expr);
    }
    if (expr[0]) {
        int idx[GV_NPY_MAX_DIMS];
        int nd = gv_dims_expr(c->op->dims, expr, idx);
        int64_t prod = cplx ? 2 : 1;
        bool ok = nd > 0 && nd + cplx <= GV_NPY_MAX_DIMS;
        for (int k = 0; k < nd && ok; k++) {
            const bool fixed = GV_DIM_IS_FIXED(idx[k]);
            /* a dim of the op's, in the shape, or a fixed side */
            assert(fixed || (idx[k] >= 0 && idx[k] < c->shape.nd));
            ok = fixed || (idx[k] >= 0 && idx[k] < c->shape.nd);
            if (ok) {
                shape[k] = fixed ? GV_DIM_FIXED_SIDE(idx[k]) : c->shape.d[idx[k]];
                prod *= shape[k];
            }
        }
        assert(!ok || prod == count);
        if (ok && prod == count) {
            if (cplx) shape[nd++] = 2;
            return nd;
        }
    }
    if (c->op->tensor_shape) {
        int nd = c->op->tensor_shape(c, l, output, i, shape);
        int64_t prod = 1;
        for (int k = 0; k < nd && nd <= GV_NPY_MAX_DIMS; k++)
            prod *= shape[k];
        assert(nd >= 1 && nd <= GV_NPY_MAX_DIMS && prod == count); /* the hook's contract */
        /* a complex tensor's pairs are its last dim */
        assert(!cplx || (nd >= 1 && nd <= GV_NPY_MAX_DIMS && shape[nd - 1] == 2));
        if (nd >= 1 && nd <= GV_NPY_MAX_DIMS && prod == count) return nd;
    }
    if (cplx && count % 2 == 0) {
        shape[0] = count / 2;
        shape[1] = 2;
        return 2;
    }
    shape[0] = count;
    return 1;
}
