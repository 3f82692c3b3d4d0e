#!/usr/bin/env python3
"""tools/build_wheel.py: the Python package (python/) as a wheel that carries a CPU-only
libgpuval and the shared libraries it needs, so that `pip install gpuval-*.whl` works on a
machine with only Python (no meson, CUDA, OpenBLAS, LAPACKE, FFTW or jansson installed).

    python3 tools/build_wheel.py --lib build/include/libgpuval.so --out dist
    python3 tools/build_wheel.py --builddir build-wheel --out dist   # configures and builds it
    python3 tools/build_wheel.py --check dist/gpuval-1.4.0-py3-none-linux_x86_64.whl

What `auditwheel repair` does, for a library the package loads with ctypes rather than for a
Python extension: every library in libgpuval's dependency closure (ldd) that is not in the
system set below is copied into gpuval/_libs/ under a name with its content hash
(libopenblas-1a2b3c4d.so.0, so that another copy of OpenBLAS in the same process, numpy's for
one, is never taken for it), its SONAME and every DT_NEEDED that names it are rewritten to that
name, and each library's RPATH is $ORIGIN, so they find one another there and nowhere else.
patchelf (Debian's `patchelf`) does the rewriting; the result is checked with ldd under an
empty LD_LIBRARY_PATH before the wheel is written.

The system set is the manylinux policy's (PEP 600, auditwheel's policy.json) that a CPU-only
libgpuval meets: glibc's libraries and libgcc_s. libgomp, libgfortran and libquadmath are not in
it (auditwheel bundles them too). The platform tag is linux_x86_64, not a manylinux one: the
libraries are Debian's, built against the build machine's glibc, and no policy's glibc floor
is claimed. The wheel's tag is py3-none: the package holds no Python extension.

--check WHEEL verifies a wheel as an installer should: WHEEL, METADATA and RECORD present and
agreeing with the file name, every file listed in RECORD once with its sha256 and size, and no
listed file missing (exit 1 with each fault named).
"""
import argparse
import base64
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# glibc (libc, libm, libpthread, libdl, librt, libutil, libresolv, the loader, the vDSO) and
# libgcc_s: every manylinux policy allows them, and every Linux Python links the first
SYSTEM = {"linux-vdso.so.1", "ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libpthread.so.0",
          "libdl.so.2", "librt.so.1", "libutil.so.1", "libresolv.so.2", "libgcc_s.so.1"}
PLATFORM = "linux_x86_64"
TAG = f"py3-none-{PLATFORM}"
LIBDIR = "gpuval/_libs"
# a zip entry's time: fixed (or SOURCE_DATE_EPOCH), so the same inputs give the same wheel
EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01, zip's first day


class WheelError(Exception):
    pass


def run(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        raise WheelError(f"{' '.join(cmd)}: exit {res.returncode}: {res.stderr.strip()}")
    return res.stdout


def ldd(path, env=None, warnings=None):
    """{name: resolved path or None (not found)} over the dependency closure of path; the
    loader's warnings (a version requirement it cannot check) appended to warnings."""
    res = subprocess.run(["ldd", path], capture_output=True, text=True, env=env)
    if res.returncode != 0:
        raise WheelError(f"ldd {path}: exit {res.returncode}: {res.stderr.strip()}")
    if warnings is not None:
        warnings += [w.strip() for w in res.stderr.splitlines() if w.strip()]
    out = res.stdout
    deps = {}
    for line in out.splitlines():
        line = line.strip()
        m = re.match(r"(\S+) => (not found|(\S+) \(0x[0-9a-f]+\))", line)
        if m:
            deps[m.group(1)] = m.group(3)
            continue
        m = re.match(r"(\S+) \(0x[0-9a-f]+\)$", line)  # the loader and the vDSO
        if m:
            deps[os.path.basename(m.group(1))] = m.group(1)
    return deps


def hashed_name(soname, path):
    """libopenblas.so.0 -> libopenblas-<8 hex of its content's sha256>.so.0"""
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:8]
    stem, dot, rest = soname.partition(".so")
    return f"{stem}-{digest}{dot}{rest}"


def bundle_libraries(lib, dest):
    """Copy lib and its non-system dependencies into dest with the names, SONAMEs, DT_NEEDED
    and RPATH the module docstring gives; returns [(original name, source path, new name)]."""
    if not shutil.which("patchelf"):
        raise WheelError("patchelf is not installed (apt-get install patchelf): it rewrites "
                         "the bundled libraries' names and RPATH")
    deps = ldd(lib)
    missing = sorted(n for n, p in deps.items() if p is None)
    if missing:
        raise WheelError(f"{lib}: its dependencies {', '.join(missing)} are not found")
    for n in deps:
        if n.startswith(("libcudart", "libcublas", "libcufft", "libcuda.")):
            raise WheelError(f"{lib} is a CUDA build ({n}); the wheel carries a CPU-only "
                             "libgpuval (meson setup BUILDDIR -Dcuda=disabled)")
        if n.startswith(("libasan", "libubsan", "libtsan")):
            raise WheelError(f"{lib} is built with sanitizers ({n}); Python cannot load it")
    own = run(["patchelf", "--print-soname", lib]).strip()
    assert own.startswith("libgpuval.so."), own
    bundled = [(n, os.path.realpath(p)) for n, p in sorted(deps.items()) if n not in SYSTEM]
    renames = {n: hashed_name(n, p) for n, p in bundled}
    os.makedirs(dest, exist_ok=True)
    shutil.copyfile(os.path.realpath(lib), os.path.join(dest, own))
    # the build's debug information is not the package's: -g from debugoptimized
    run(["strip", "--strip-debug", os.path.join(dest, own)])
    for n, p in bundled:
        shutil.copyfile(p, os.path.join(dest, renames[n]))
    for name in [own] + [renames[n] for n, _ in bundled]:
        path = os.path.join(dest, name)
        os.chmod(path, 0o755)
        # one change per patchelf run: patchelf 0.14 (Debian 12) given --set-soname and
        # --replace-needed together pointed the version requirement on libgfortran
        # (.gnu.version_r) at the new SONAME's string, and the loader then looked for
        # GFORTRAN_8 in libopenblas itself (undefined symbol _gfortran_concat_string)
        if name != own:
            run(["patchelf", "--set-soname", name, path])
        for needed in run(["patchelf", "--print-needed", path]).split():
            if needed in renames:
                run(["patchelf", "--replace-needed", needed, renames[needed], path])
        run(["patchelf", "--remove-rpath", path])
        # DT_RPATH (--force-rpath) rather than DT_RUNPATH: it is searched before LD_LIBRARY_PATH
        # and it serves the library's own dependencies too, as auditwheel sets it
        run(["patchelf", "--force-rpath", "--set-rpath", "$ORIGIN", path])
    check_closure(os.path.join(dest, own), dest)
    return [(n, p, renames[n]) for n, p in bundled]


def check_closure(lib, libdir):
    """Every dependency of lib resolves inside libdir or to the system set, under an empty
    LD_LIBRARY_PATH; a list of faults (empty when it holds)."""
    env = dict(os.environ, LD_LIBRARY_PATH="")
    libdir = os.path.realpath(libdir)
    faults = []
    deps = ldd(lib, env=env, warnings=faults)
    for n, p in sorted(deps.items()):
        if p is None:
            faults.append(f"{n}: not found")
        elif n in SYSTEM:
            continue
        elif os.path.dirname(os.path.realpath(p)) != libdir:
            faults.append(f"{n}: resolved outside the wheel, at {p}")
    # and the loader binds every symbol at its version: a library ldd resolves can still fail
    # to load (a version requirement pointed at the wrong library is an undefined symbol)
    probe = "import ctypes, sys; sys.exit(ctypes.CDLL(sys.argv[1]).gv_api_version() < 1000)"
    res = subprocess.run([sys.executable, "-c", probe, lib], capture_output=True, text=True,
                         env=env)
    if res.returncode != 0:
        faults.append(f"does not load: {res.stderr.strip().splitlines()[-1:]}")
    if faults:
        raise WheelError(f"{lib}: " + "; ".join(faults))


def package_version(src):
    text = open(os.path.join(src, "src", "gpuval", "__init__.py")).read()
    m = re.search(r'^__version__ = "([^"]+)"$', text, re.M)
    if not m:
        raise WheelError("python/src/gpuval/__init__.py: no __version__ = \"...\" line")
    return m.group(1)


def metadata(src, version):
    """METADATA (core metadata 2.1) and entry_points.txt from python/pyproject.toml."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        raise WheelError("tools/build_wheel.py needs Python 3.11 or later (tomllib)") from None
    with open(os.path.join(src, "pyproject.toml"), "rb") as f:
        proj = tomllib.load(f)["project"]
    lines = ["Metadata-Version: 2.1", f"Name: {proj['name']}", f"Version: {version}",
             f"Summary: {proj['description']}", f"Requires-Python: {proj['requires-python']}"]
    if "license" in proj and "text" in proj["license"]:
        lines.append(f"License: {proj['license']['text']}")
    lines += [f"Requires-Dist: {d}" for d in proj.get("dependencies", [])]
    for extra, reqs in sorted(proj.get("optional-dependencies", {}).items()):
        lines.append(f"Provides-Extra: {extra}")
        lines += [f"Requires-Dist: {r}; extra == \"{extra}\"" for r in reqs]
    lines.append("Description-Content-Type: text/markdown")
    readme = open(os.path.join(src, proj.get("readme", "README.md")), encoding="utf-8").read()
    meta = "\n".join(lines) + "\n\n" + readme
    eps = []
    for group, entries in sorted(proj.get("entry-points", {}).items()):
        eps.append(f"[{group}]")
        eps += [f"{k} = {v}" for k, v in sorted(entries.items())]
        eps.append("")
    return proj["name"], meta, "\n".join(eps)


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def package_files(src):
    """(arcname, path) of the package's Python files."""
    pkg = os.path.join(src, "src", "gpuval")
    out = []
    for root, dirs, files in os.walk(pkg):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "_libs"))
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(root, f)
                out.append(("gpuval/" + os.path.relpath(path, pkg).replace(os.sep, "/"), path))
    return out


def licenses(bundled):
    """(arcname, text) of each bundled library's copyright file, found through dpkg where the
    libraries are Debian's; and a table of what was bundled from where."""
    out, table = [], ["# library in the wheel <- its original name, file, Debian package"]
    seen = set()
    for n, path, new in bundled:
        pkg = ""
        if shutil.which("dpkg"):
            res = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
            if res.returncode != 0:  # /usr/lib/... is /lib/... on a merged-/usr system
                res = subprocess.run(["dpkg", "-S", re.sub(r"^/usr/lib/", "/lib/", path)],
                                     capture_output=True, text=True)
            if res.returncode == 0:
                pkg = res.stdout.split(":")[0].strip()
        table.append(f"{new} <- {n} {path} {pkg or '(no package found)'}")
        copyright_file = f"/usr/share/doc/{pkg}/copyright"
        if pkg and pkg not in seen and os.path.isfile(copyright_file):
            seen.add(pkg)
            out.append((f"bundled/{pkg}.copyright", open(copyright_file, "rb").read()))
    return out, "\n".join(table) + "\n"


def write_wheel(out_dir, name, version, files):
    """files: [(arcname, bytes)] of the package; the dist-info's are added, RECORD last."""
    base = f"{name}-{version}-{TAG}.whl"
    path = os.path.join(out_dir, base)
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    tmp = path + ".part"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            info = zipfile.ZipInfo(arc, date_time=zip_time())
            mode = 0o755 if re.search(r"\.so(\.|$)", arc) else 0o644
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
            rows.append((arc, record_hash(data), str(len(data))))
        record_name = f"{name}-{version}.dist-info/RECORD"
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        for r in rows:
            w.writerow(r)
        w.writerow((record_name, "", ""))
        info = zipfile.ZipInfo(record_name, date_time=zip_time())
        info.external_attr = (0o100000 | 0o644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, buf.getvalue())
    os.replace(tmp, path)
    return path


def zip_time():
    import time
    return time.gmtime(max(EPOCH, 315532800))[:6]


def build(lib, src, out_dir):
    version = package_version(src)
    name, meta, entry_points = metadata(src, version)
    files = [(arc, open(p, "rb").read()) for arc, p in package_files(src)]
    with tempfile.TemporaryDirectory() as tmp:
        bundled = bundle_libraries(lib, tmp)
        for f in sorted(os.listdir(tmp)):
            files.append((f"{LIBDIR}/{f}", open(os.path.join(tmp, f), "rb").read()))
    dist_info = f"{name}-{version}.dist-info"
    lic, table = licenses(bundled)
    files += [(f"{dist_info}/{a}", d) for a, d in lic]
    files.append((f"{dist_info}/BUNDLED", table.encode()))
    files.append((f"{dist_info}/METADATA", meta.encode()))
    files.append((f"{dist_info}/WHEEL", ("Wheel-Version: 1.0\nGenerator: gpuval "
                                         "tools/build_wheel.py\nRoot-Is-Purelib: false\n"
                                         f"Tag: {TAG}\n").encode()))
    files.append((f"{dist_info}/entry_points.txt", entry_points.encode()))
    files.append((f"{dist_info}/top_level.txt", b"gpuval\n"))
    return write_wheel(out_dir, name, version, files), bundled


def check_wheel(path):
    """The faults of the wheel at path (empty: it is sound), as the module docstring says."""
    faults = []
    m = re.match(r"([A-Za-z0-9_.]+)-([^-]+)-([^-]+)-([^-]+)-([^-]+)\.whl$", os.path.basename(path))
    if not m:
        return [f"{path}: not a wheel's file name (NAME-VERSION-PY-ABI-PLATFORM.whl)"]
    name, version = m.group(1), m.group(2)
    tag = "-".join(m.group(3, 4, 5))
    dist_info = f"{name}-{version}.dist-info"
    try:
        z = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as e:
        return [f"{path}: {e}"]
    with z:
        names = [i.filename for i in z.infolist() if not i.is_dir()]
        for n in names:
            if n.startswith("/") or ".." in n.split("/"):
                faults.append(f"{n}: a path outside the install directory")
        if len(set(names)) != len(names):
            faults.append("a file is in the archive twice")
        for need in ("WHEEL", "METADATA", "RECORD"):
            if f"{dist_info}/{need}" not in names:
                faults.append(f"{dist_info}/{need}: missing")
        if faults:
            return faults
        wheel = z.read(f"{dist_info}/WHEEL").decode()
        if "Wheel-Version: 1.0" not in wheel.splitlines():
            faults.append("WHEEL: no Wheel-Version: 1.0")
        if f"Tag: {tag}" not in wheel.splitlines():
            faults.append(f"WHEEL: no Tag: {tag} (the file name's)")
        meta = z.read(f"{dist_info}/METADATA").decode().split("\n\n")[0].splitlines()
        if f"Name: {name}" not in meta or f"Version: {version}" not in meta:
            faults.append(f"METADATA: Name and Version are not {name} {version}")
        record = z.read(f"{dist_info}/RECORD").decode()
        listed = {}
        for row in csv.reader(io.StringIO(record)):
            if not row:
                continue
            if len(row) != 3:
                faults.append(f"RECORD: a row of {len(row)} fields: {row}")
                continue
            if row[0] in listed:
                faults.append(f"RECORD: {row[0]} listed twice")
            listed[row[0]] = row
        for n in names:
            if n not in listed:
                faults.append(f"{n}: in the archive, not in RECORD")
                continue
            _, h, size = listed[n]
            if n == f"{dist_info}/RECORD":
                continue  # RECORD cannot hold its own hash
            data = z.read(n)
            if h != record_hash(data):
                faults.append(f"{n}: sha256 {record_hash(data)[7:]} is not RECORD's {h}")
            if size != str(len(data)):
                faults.append(f"{n}: {len(data)} bytes, RECORD says {size}")
        for n in listed:
            if n not in names:
                faults.append(f"{n}: in RECORD, not in the archive")
    return faults


def build_lib(builddir):
    """A CPU-only libgpuval in builddir (configured on first use), built alone."""
    if not os.path.isfile(os.path.join(builddir, "build.ninja")):
        subprocess.run(["meson", "setup", builddir, REPO, "-Dcuda=disabled"], check=True)
    subprocess.run(["meson", "compile", "-C", builddir, "include/gpuval:shared_library"],
                   check=True)
    return os.path.join(builddir, "include", "libgpuval.so")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--lib", help="a CPU-only build's libgpuval.so (BUILDDIR/include/libgpuval.so)")
    g.add_argument("--builddir", help="configure (-Dcuda=disabled) and build libgpuval here")
    g.add_argument("--check", metavar="WHEEL", help="verify a wheel's RECORD, WHEEL, METADATA")
    ap.add_argument("--python", default=os.path.join(REPO, "python"),
                    help="the package's directory (default: the repository's python/)")
    ap.add_argument("--out", default="dist", help="where the wheel goes (default: dist)")
    args = ap.parse_args(argv)
    if args.check:
        faults = check_wheel(args.check)
        for f in faults:
            print(f"{args.check}: {f}", file=sys.stderr)
        if not faults:
            print(f"{args.check}: sound (RECORD hashes and sizes, WHEEL, METADATA)")
        return 1 if faults else 0
    try:
        lib = args.lib or build_lib(args.builddir)
        path, bundled = build(lib, args.python, args.out)
    except (WheelError, OSError, subprocess.CalledProcessError) as e:
        print(f"build_wheel: {e}", file=sys.stderr)
        return 1
    for n, p, new in bundled:
        print(f"  bundled {new} <- {p}")
    faults = check_wheel(path)
    assert not faults, faults  # what build() writes must pass its own check
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
