"""Where libgpuval is looked for, and whether a library found there was built with CUDA.

The order (load_library in _lib.py tries them so):
1. GPUVAL_LIB, a path: used or refused, never replaced by another library.
2. A libgpuval that a meson build with CUDA made and installed: the libdir
   `pkg-config --variable=libdir gpuval` names, then ctypes.util.find_library("gpuval") (the
   loader's cache: an install to a system library directory). Such a library is taken here only when it links the CUDA runtime (its
   ELF dynamic section names libcudart), read from the file without loading it.
3. The library a wheel carries (gpuval/_libs/libgpuval.so.1, CPU only, its OpenBLAS, LAPACKE,
   FFTW, jansson and GCC runtime beside it, found through its RPATH $ORIGIN:
   tools/build_wheel.py).
4. A CPU-only libgpuval found as in 2: what a source install (pip install ./python, no bundled
   library) uses with a meson build made with -Dcuda=disabled.

So a wheel works alone, a CUDA build on the machine takes precedence over the wheel's CPU one,
and `pip install ./python` over a meson build works as before.

Nothing here needs numpy or loads a library, so tests/build can read it from its file.
"""

import ctypes.util
import glob
import os
import struct
import subprocess

SONAME = "libgpuval.so.1"  # GPUVAL_API_VERSION_MAJOR (include/meson.build's soversion)
BUNDLED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_libs")

# a CUDA build links the CUDA runtime (include/meson.build: -lcudart beside cuBLAS and cuFFT)
_CUDA_NEEDED_PREFIX = "libcudart.so"


def elf_needed(path):
    """The DT_NEEDED names of a 64-bit little-endian ELF file, or None where the file is not
    one or cannot be read (then whether it has CUDA is unknown, never guessed)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads, dynamic = [], None
    for i in range(phnum):
        off = phoff + i * phentsize
        if off + 56 > len(data):
            return None
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data, off)
        if p_type == 1:  # PT_LOAD
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == 2:  # PT_DYNAMIC
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        return None
    needed, strtab = [], None
    for off in range(dynamic[0], min(dynamic[0] + dynamic[1], len(data) - 15), 16):
        tag, val = struct.unpack_from("<qQ", data, off)
        if tag == 0:  # DT_NULL
            break
        if tag == 1:  # DT_NEEDED: an offset into the string table
            needed.append(val)
        elif tag == 5:  # DT_STRTAB: an address, mapped to the file through the PT_LOAD segments
            strtab = val
    if strtab is None:
        return None
    base = next((o + strtab - v for v, o, n in loads if v <= strtab < v + n), None)
    if base is None:
        return None
    names = []
    for n in needed:
        start = base + n
        end = data.find(b"\0", start)
        if start >= len(data) or end < 0:
            return None
        names.append(data[start:end].decode(errors="replace"))
    return names


def has_cuda(path):
    """True where the library links the CUDA runtime, False where it does not, None unknown."""
    needed = elf_needed(path)
    if needed is None:
        return None
    return any(n.startswith(_CUDA_NEEDED_PREFIX) for n in needed)


def loaded_path(name):
    """The file of a library this process loaded by name (GPUVAL_LIB=libgpuval.so.1 names no
    directory), from /proc/self/maps; name itself where it is a path or is not found there."""
    if os.sep in name:
        return name
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                fields = line.split(None, 5)
                base = os.path.basename(fields[5].strip()) if len(fields) == 6 else ""
                # libgpuval.so.1 is a link to the file mapped, libgpuval.so.1.3.0
                if base == name or base.startswith(name + "."):
                    return fields[5].strip()
    except OSError:
        pass
    return name


def _pkg_config_libdir():
    try:
        res = subprocess.run(["pkg-config", "--variable=libdir", "gpuval"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None, "pkg-config: not runnable"
    libdir = res.stdout.strip()
    if res.returncode != 0 or not libdir:
        return None, "pkg-config: no gpuval.pc on PKG_CONFIG_PATH"
    return libdir, f"pkg-config: libdir {libdir}"


def system_candidates():
    """Paths of libgpuval that a meson build left where pkg-config or the loader's cache finds
    them, in that order, and a note for each place looked at (for LibraryNotFound)."""
    paths, notes = [], []
    libdir, note = _pkg_config_libdir()
    notes.append(note)
    if libdir:
        # libgpuval.so is the development link, libgpuval.so.1 the runtime name (its SONAME),
        # libgpuval.so.1.3.0 the file: a build copied without its symlinks still has the last
        names = ["libgpuval.so", SONAME] + sorted(glob.glob(os.path.join(libdir, SONAME + ".*")))
        paths += [p for p in (os.path.join(libdir, n) for n in names) if os.path.exists(p)]
        if not paths:
            notes.append(f"{libdir}: no libgpuval.so*")
    found = ctypes.util.find_library("gpuval")
    notes.append(f"find_library('gpuval'): {found or 'nothing'}")
    if found and found not in paths:
        paths.append(found)
    return paths, notes


def bundled():
    """The wheel's own library, or None in a source install."""
    path = os.path.join(BUNDLED_DIR, SONAME)
    return path if os.path.isfile(path) else None


def candidates():
    """[(path, how it was found)] in the order of the module docstring, after GPUVAL_LIB, and
    the notes on where it looked."""
    system, notes = system_candidates()
    cuda = [p for p in system if has_cuda(p)]
    out = [(p, "a meson build with CUDA (pkg-config / loader cache)") for p in cuda]
    b = bundled()
    notes.append(f"bundled: {b or 'none (not installed from a wheel)'}")
    if b:
        out.append((b, "the wheel's bundled CPU-only library"))
    out += [(p, "a meson build (pkg-config / loader cache)") for p in system if p not in cuda]
    return out, notes
