#!/usr/bin/env python3
"""cr_share_replay.py: `gpuval probe`'s cr_share (src/probe/fprint.c) replayed through libcublas
directly, on a GPU, without gpuval: the same operands (the probe's counter-based generator, seed
777: a 128 x 1024 A and a 1024 x 128 B of 53-bit values in [1, 2)), the same call gemm.cublas
makes for a row-major product (cublasDgemm N,N with n, m, k and B first: kernels/gemm.cu), the
math mode, emulation strategy and mantissa control kernels/device.cu sets for each mode, and
every output compared with the exact dot product (Python integers) rounded to nearest even.
Prints, per mode, how many of the 16384 outputs are correctly rounded and the mantissa bits the
emulation used. It measured the cr_share lines of probe/sm_90.expect (an H100, 2026-11-27):

    LD_LIBRARY_PATH=build/gpu-bundle/lib:/usr/local/cuda/lib64 python3 tools/cr_share_replay.py

Needs numpy and the CUDA 13 runtime and cuBLAS (libcudart.so.13, libcublas.so.13)."""
import ctypes
import numpy as np

def lib(*names):
    for n in names:
        try:
            return ctypes.CDLL(n)
        except OSError:
            pass
    raise OSError("none of %s" % (names,))

rt = lib("libcudart.so.13", "libcudart.so")
cb = lib("libcublas.so.13", "libcublas.so")
vp = ctypes.c_void_p

def ck(rc, what):
    if rc != 0:
        raise RuntimeError("%s: %d" % (what, rc))

def dmalloc(nbytes):
    p = vp()
    ck(rt.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(nbytes)), "cudaMalloc")
    return p

def h2d(d, a):
    ck(rt.cudaMemcpy(d, a.ctypes.data_as(vp), ctypes.c_size_t(a.nbytes), 1), "H2D")

def d2h(a, d):
    ck(rt.cudaMemcpy(a.ctypes.data_as(vp), d, ctypes.c_size_t(a.nbytes), 2), "D2H")

h = vp()
ck(cb.cublasCreate_v2(ctypes.byref(h)), "cublasCreate")
bitsp = dmalloc(4)
have_bitptr = True

def setmode(mode):
    global have_bitptr
    if mode == "native":
        ck(cb.cublasSetMathMode(h, 2), "math")
        ck(cb.cublasSetEmulationStrategy(h, 0), "strategy")
        return
    ck(cb.cublasSetMathMode(h, 8), "math")
    ck(cb.cublasSetEmulationStrategy(h, 2), "strategy")
    if mode == "auto":
        ck(cb.cublasSetFixedPointEmulationMantissaControl(h, 0), "dynamic")
    else:
        ck(cb.cublasSetFixedPointEmulationMantissaControl(h, 1), "fixed")
        ck(cb.cublasSetFixedPointEmulationMaxMantissaBitCount(h, int(mode)), "bits")
    if have_bitptr:
        if cb.cublasSetFixedPointEmulationMantissaBitCountPointer(h, bitsp) != 0:
            have_bitptr = False

M64 = (1 << 64) - 1

def mix(x):
    x = (x + 0x9e3779b97f4a7c15) & M64
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M64
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M64
    return x ^ (x >> 31)

def replica(modes):
    """gpuval probe's cr_share construction (src/probe/fprint.c, branch f41) bit for bit:
    A 128x1024, B 1024x128 row-major from mix(777...), the call gemm.cublas makes (C^T = B^T A^T,
    dgemm(N, N, n, m, k, B, n, A, k, C, n)), every output against the exact sum."""
    m, k, n = 128, 1024, 128
    st = 777
    vals = []
    for i in range(m * k + k * n):
        vals.append((1 << 52) + mix(st) % (1 << 52))
        st += 1
    Ai = np.array(vals[:m * k], dtype=np.int64).reshape(m, k)
    Bi = np.array(vals[m * k:], dtype=np.int64).reshape(k, n)
    A = np.ldexp(Ai.astype(np.float64), -52)
    B = np.ldexp(Bi.astype(np.float64), -52)
    S = Ai.astype(object).dot(Bi.astype(object))
    R = np.array([[np.ldexp(float(S[i, j]), -104) for j in range(n)] for i in range(m)])
    out = {}
    for mode in modes:
        try:
            dA, dB, dC = dmalloc(A.nbytes), dmalloc(B.nbytes), dmalloc(8 * m * n)
            h2d(dA, np.ascontiguousarray(A)); h2d(dB, np.ascontiguousarray(B))
            setmode(mode)
            neg = np.array([-1], dtype=np.int32)
            h2d(bitsp, neg)
            one, zero = ctypes.c_double(1), ctypes.c_double(0)
            ck(cb.cublasDgemm_v2(h, 0, 0, n, m, k, ctypes.byref(one), dB, n, dA, k, ctypes.byref(zero), dC, n), "dgemm")
            ck(rt.cudaDeviceSynchronize(), "sync")
            C = np.zeros((m, n))
            d2h(C, dC)
            bits = np.zeros(1, dtype=np.int32)
            d2h(bits, bitsp)
            for d in (dA, dB, dC):
                rt.cudaFree(d)
            cr = int(np.sum(C == R))
            out[mode] = {"cr_count": cr, "cr": round(100.0 * cr / (m * n), 1), "bits_used": int(bits[0])}
        except Exception as e:
            out[mode] = {"error": str(e)}
        print("replica", mode, out[mode], flush=True)
    return out


if __name__ == "__main__":
    replica(["native", "auto", "32", "40", "48", "56"])
