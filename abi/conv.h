/* conv.h: the geometry of each op of the conv family, the contract kernels/conv.cu and
 * src/ops/conv.c share. A case's dims are at most four numbers (n, c, s, o: batch, input
 * channels, the image's side, output channels), so the window, the stride, the zero padding
 * and whether there is a bias are facts of the op, named in it: conv.2d is PyTorch's
 * conv2d(x, w, b, stride=1, padding=1) with a 3 x 3 window, conv.2d.k1 its 1 x 1,
 * conv.2d.k7s2 ResNet's stem (7 x 7, stride 2, padding 3), conv.1d conv1d(x, w, b, padding=1)
 * with a window of 3, taken as a plane of one row and a 1 x 3 window; conv.2d.valid and
 * conv.1d.valid are nn.Conv2d's and nn.Conv1d's defaults as KernelBench writes them (padding
 * 0, bias=False), conv.2d.pointwise its 1 x 1 without a bias; conv.3d is conv3d(x, w, b, padding=1)
 * with a 3 x 3 x 3 window over an s x s x s volume, and conv.3d.valid its padding-0, bias-free
 * form; conv.2d.transposed, conv.1d.transposed and conv.3d.transposed are
 * nn.ConvTranspose2d/1d/3d(c, o, 3, bias=False) (stride 1, padding 0: the output one window
 * less one longer a side). A 2-D geometry is a 3-D one of depth 1 (kd 1, pd 0).
 * Dilation and groups (torch's dilation= and groups=) are columns of the table too:
 * conv.2d.strided is conv2d(x, w, stride=2, padding=1), 3 x 3, no bias; conv.2d.k11s4
 * AlexNet's first layer (11 x 11, stride 4, padding 2, a bias); conv.2d.dilated conv2d(x, w,
 * padding=2, dilation=2), 3 x 3, no bias; conv.2d.grouped conv2d(x, w, b, padding=1,
 * groups=4), 3 x 3 (c and o multiples of 4); conv.2d.depthwise nn.Conv2d(c, o, 3, groups=c,
 * bias=False) (o a multiple of c: each input channel its own o / c outputs) and
 * conv.2d.depthwise.k3x1 its 3 x 1 window (kernel_size=(3, 1)); conv.1d.dilated
 * nn.Conv1d(c, o, 3, stride=3, dilation=4, bias=False). Groups 0 in the table means groups = c
 * (depthwise: the count is the case's, not the op's). */
#ifndef GV_ABI_CONV_H
#define GV_ABI_CONV_H

#include <stdint.h>

/* X(name, window depth, rows, columns, stride, padding of the depth, of the rows, of the
   columns, bias (1) or none (0), transposed (1), dilation, groups (0: as many as the input's
   channels): ConvTranspose at stride 1 and padding 0 is the correlation of the input padded
   by window - 1 on each side with the window flipped and the weights read (in, out) where conv
   reads (out, in), so it is a geometry with that padding and this flag; the transposed ones
   take dilation 1 and groups 1) */
#define GK_CONV_GEOMETRIES(X)                                                                      \
    X(k3, 1, 3, 3, 1, 0, 1, 1, 1, 0, 1, 1)                                                         \
    X(k1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 1, 1)                                                         \
    X(k7s2, 1, 7, 7, 2, 0, 3, 3, 1, 0, 1, 1)                                                       \
    X(c1d, 1, 1, 3, 1, 0, 0, 1, 1, 0, 1, 1)                                                        \
    X(v3, 1, 3, 3, 1, 0, 0, 0, 0, 0, 1, 1)                                                         \
    X(pw, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1)                                                         \
    X(c1dv, 1, 1, 3, 1, 0, 0, 0, 0, 0, 1, 1)                                                       \
    X(k3d, 3, 3, 3, 1, 1, 1, 1, 1, 0, 1, 1)                                                        \
    X(v3d, 3, 3, 3, 1, 0, 0, 0, 0, 0, 1, 1)                                                        \
    X(t3, 1, 3, 3, 1, 0, 2, 2, 0, 1, 1, 1)                                                         \
    X(t1d, 1, 1, 3, 1, 0, 0, 2, 0, 1, 1, 1)                                                        \
    X(t3d, 3, 3, 3, 1, 2, 2, 2, 0, 1, 1, 1)                                                        \
    X(s3, 1, 3, 3, 2, 0, 1, 1, 0, 0, 1, 1)                                                         \
    X(k11s4, 1, 11, 11, 4, 0, 2, 2, 1, 0, 1, 1)                                                    \
    X(d3, 1, 3, 3, 1, 0, 2, 2, 0, 0, 2, 1)                                                         \
    X(g3, 1, 3, 3, 1, 0, 1, 1, 1, 0, 1, 4)                                                         \
    X(dw3, 1, 3, 3, 1, 0, 0, 0, 0, 0, 1, 0)                                                        \
    X(c1dd, 1, 1, 3, 3, 0, 0, 0, 0, 0, 4, 1)                                                       \
    X(dw31, 1, 3, 1, 1, 0, 0, 0, 0, 0, 1, 0)

/* Whether a geometry is conv.1d's, a plane of one row (dims n, c, l, o): a window of one row,
   no padding of the rows, and more than one column (a 1 x 1 window is conv.2d.k1's). A
   constant expression: the descriptors' static geometries use it. */
#define GK_CONV_ONE_ROW(kh, kw, ph) ((kh) == 1 && (ph) == 0 && (kw) > 1)

/* Whether a geometry is a volume's (conv.3d: an s x s x s input), a window deeper than one. */
#define GK_CONV_VOLUME(kd) ((kd) > 1)

/* An output side: PyTorch's floor((in + 2 pad - dilation (window - 1) - 1) / stride) + 1; 0
   where the padded input is shorter than the dilated window. */
static inline int64_t gk_conv_out_side_dil(int64_t in, int64_t window, int64_t stride, int64_t pad,
                                           int64_t dilation)
{
    int64_t span = in + 2 * pad - dilation * (window - 1) - 1;
    return span < 0 ? 0 : span / stride + 1;
}

/* The same at dilation 1. */
static inline int64_t gk_conv_out_side(int64_t in, int64_t window, int64_t stride, int64_t pad)
{
    return gk_conv_out_side_dil(in, window, stride, pad, 1);
}

#endif
