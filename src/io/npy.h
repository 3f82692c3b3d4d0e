/* npy.h: NumPy .npy files in and out (npy.c) — the format of numpy.lib.format, versions 1.0,
 * 2.0 and 3.0 (3.0: the header is UTF-8), little-endian f32 '<f4', f64 '<f8', f16 '<f2',
 * bfloat16, and raw bit patterns '|u1' / '|V1' and '<u2' (GV_NPY_U8, GV_NPY_U16). NumPy has no bfloat16: gpuval writes it as the 2-byte opaque type '<V2' and reads
 * '<V2' and '|V2' as bfloat16 bits (NumPy loads such a file as void '|V2'; its values as f32
 * are (a.view('<u2').astype('<u4') << 16).view('<f4')). Complex '<c8' and '<c16' (NumPy's
 * complex64 and complex128: interleaved re, im) are read and written in C order only: a
 * Fortran-order complex file is refused (np.ascontiguousarray first), as is any other
 * complex itemsize ('<c4', '<c32') or a big-endian one.
 *
 * The reader is written for hostile files: the header length is bounded before anything is
 * allocated, the shape's element and byte counts are checked for int64 overflow, and the file
 * must hold exactly the bytes the header announces (no short data, no trailing bytes). A
 * Fortran-order file is transposed on reading: the array in memory is always row-major (C
 * order), gpuval's layout. Every fault comes back as a message naming the file. */
#ifndef GV_NPY_H
#define GV_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gv_npy_type {
    GV_NPY_F32,
    GV_NPY_F64,
    GV_NPY_F16,
    GV_NPY_BF16,
    /* complex values as NumPy lays them out: (re, im) pairs of f32 ('<c8') and f64 ('<c16').
       gpuval's complex tensors hold the same bytes as reals with a last dim of 2
       (gv_npy_complex_view) */
    GV_NPY_C64,
    GV_NPY_C128,
    /* raw bit patterns of a low-precision format the reader declares (`gpuval judge --dtype`):
       unsigned '|u1' (also read: the opaque '|V1' that ml_dtypes' float8_e4m3fn and
       float8_e5m2 arrays save as) for fp8 codes, '<u2' for bf16 or f16 codes (a torch bf16
       tensor saved as t.view(torch.int16).numpy().view('<u2')). Loaded as the integers. */
    GV_NPY_U8,
    GV_NPY_U16,
    GV_NPY_NTYPES
} gv_npy_type;

#define GV_NPY_MAX_DIMS 8
/* The longest header gpuval reads (NumPy's own reader refuses headers over 10000 bytes by
   default; the format allows 4 GiB). */
#define GV_NPY_MAX_HEADER 65536

typedef struct gv_npy {
    gv_npy_type type;
    int nd; /* 0: a scalar (one element) */
    int64_t shape[GV_NPY_MAX_DIMS];
    int64_t count;      /* elements: the product of shape */
    bool fortran_order; /* as the file said; data is row-major either way */
    int version;        /* 1, 2 or 3 */
    bool complex_view;  /* the file was complex: gv_npy_complex_view made these its reals */
    void *data;         /* count elements of type, row-major */
} gv_npy;

/* "f32", "f64", "f16", "bf16", "c64", "c128", "u8", "u16" */
const char *gv_npy_type_name(gv_npy_type t);
/* "<f4", "<f8", "<f2", "<V2", "<c8", "<c16", "|u1", "<u2" */
const char *gv_npy_descr(gv_npy_type t);
size_t gv_npy_type_size(gv_npy_type t);
bool gv_npy_type_complex(gv_npy_type t);
/* The real type a complex type's components have (F32 for C64, F64 for C128); t itself for
   a real type. */
gv_npy_type gv_npy_component(gv_npy_type t);
/* A complex array as the reals it holds: type F32 or F64, a last dim of 2 appended (re, im),
   count doubled, the data untouched. GV_OK (a real array is left as it is), or GV_EINVAL with
   the fault in err when the shape has no room for the extra dim. */
int gv_npy_complex_view(const char *name, gv_npy *a, char *err, size_t errlen);
/* Element i as f64 (exact for every type: each converts to f64 without rounding; a complex
   type's element i is component i of its real view). */
double gv_npy_load(gv_npy_type t, const void *data, int64_t i);

/* Parse a whole .npy image (buf, len bytes) into a (data allocated; gv_npy_free). GV_OK, or
 * GV_EINVAL with the fault in err ("bad magic", "data is 12 bytes, the header's shape (2, 4)
 * of <f4 needs 32"), or GV_ENOMEM. name prefixes the message. */
int gv_npy_parse(const char *name, const unsigned char *buf, size_t len, gv_npy *a, char *err,
                 size_t errlen);
/* Read path: as gv_npy_parse, the header read first and the file's size checked against it
 * before the data is allocated. GV_EIO when the file cannot be opened or read (err says). */
int gv_npy_read(const char *path, gv_npy *a, char *err, size_t errlen);
void gv_npy_free(gv_npy *a);

/* Write a row-major array as a version 1.0 file (its header, at most 8 dims, always fits) through
 * gv_write_file (outfile.h). 0, or -1 with errno. */
int gv_npy_write(const char *path, gv_npy_type t, int nd, const int64_t *shape, const void *data);
/* The same with the order named: fortran true writes fortran_order True, data then being in
 * Fortran order (the first index fastest), as NumPy writes an F-contiguous array. */
int gv_npy_write_order(const char *path, gv_npy_type t, int nd, const int64_t *shape,
                       const void *data, bool fortran);

#endif
