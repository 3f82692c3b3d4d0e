#!/usr/bin/env python3
"""embed_text.py: text files as a C source of string literals, for files the program must
carry rather than find on disk (gpuval probe's expectation files, probe/sm_XY.expect).

    embed_text.py HEADER SYMBOL FILE...   > out.c

writes `const gv_embedded_file SYMBOL[]`, one {name, text} per FILE (name: the file's base
name), ended by {NULL, NULL}; HEADER is the header that declares the type and the symbol.
Only printable ASCII, tabs and newlines are accepted: anything else is an error, so that the
file read at run time is byte for byte the file in the tree."""
import os
import sys


def literal_lines(text):
    out = []
    for line in text.splitlines(keepends=True):
        esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
        esc = esc.replace("\n", "\\n")
        out.append('     "' + esc + '"')
    return out or ['     ""']


def main(argv):
    if len(argv) < 4:
        sys.exit("usage: embed_text.py HEADER SYMBOL FILE...")
    header, symbol, files = argv[1], argv[2], argv[3:]
    names = [os.path.basename(f) for f in files]
    print("/* Generated at build time by tools/embed_text.py from " + ", ".join(names) +
          ": do not edit. */")
    print('#include "%s"\n' % header)
    print("const gv_embedded_file %s[] = {" % symbol)
    for path, name in zip(files, names):
        with open(path, "rb") as f:
            data = f.read()
        for i, b in enumerate(data):
            if not (32 <= b < 127 or b in (9, 10)):
                sys.exit("%s: byte %d is 0x%02x: only printable ASCII, tabs and newlines embed"
                         % (path, i, b))
        print('    {"%s",' % name)
        print("\n".join(literal_lines(data.decode("ascii"))) + "},")
    print("    {NULL, NULL},")
    print("};")


if __name__ == "__main__":
    main(sys.argv)
