#!/usr/bin/env python3
"""Overwrites one edge end in a binary .ddir file, to make corrupt inputs.

Usage: patch-ddir-edge.py IN OUT EDGE_INDEX {src|dst} VALUE

Walks the FlatBuffers layout of lib/IR/ddir.fbs by hand (root table, vtable,
vector), so tests can produce graphs the writer would never produce, such
as a dangling edge, without a second FlatBuffers implementation.
"""
import struct
import sys

# Field numbers of table Graph in lib/IR/ddir.fbs (declaration order).
FIELDS = {"src": 9, "dst": 10}


def main():
    src, dst, index, which, value = sys.argv[1:6]
    data = bytearray(open(src, "rb").read())
    root = struct.unpack_from("<I", data, 0)[0]
    vtable = root - struct.unpack_from("<i", data, root)[0]
    vtable_size = struct.unpack_from("<H", data, vtable)[0]
    slot = 4 + 2 * FIELDS[which]
    if slot >= vtable_size:
        sys.exit("graph has no edge vector")
    field = root + struct.unpack_from("<H", data, vtable + slot)[0]
    vector = field + struct.unpack_from("<I", data, field)[0]
    length = struct.unpack_from("<I", data, vector)[0]
    if int(index) >= length:
        sys.exit(f"edge {index} out of range ({length} edges)")
    struct.pack_into("<I", data, vector + 4 + 4 * int(index), int(value))
    open(dst, "wb").write(data)


if __name__ == "__main__":
    main()
