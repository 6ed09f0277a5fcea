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
VERSION = 0
# Version 2: one vector per edge end, of 4-byte ids.
FIELDS_V2 = {"src": 9, "dst": 10}
# Version 3: one vector of 12-byte Edge structs, src at 0 and dst at 4.
EDGES = 13
# Version 4 on: the same structs in a section after the FlatBuffers head, a
# Section struct (64-bit offset from the file's start, then count) inline.
EDGE_SECTION = 16


def main():
    src, dst, index, which, value = sys.argv[1:6]
    data = bytearray(open(src, "rb").read())
    root = struct.unpack_from("<I", data, 0)[0]
    vtable = root - struct.unpack_from("<i", data, root)[0]
    vtable_size = struct.unpack_from("<H", data, vtable)[0]

    def field_at(number):
        slot = 4 + 2 * number
        at = struct.unpack_from("<H", data, vtable + slot)[0] if slot < vtable_size else 0
        return root + at if at else None

    at = field_at(VERSION)
    version = struct.unpack_from("<I", data, at)[0] if at else 0
    if version == 2:
        field, stride, offset = field_at(FIELDS_V2[which]), 4, 0
    elif version == 3:
        field, stride, offset = field_at(EDGES), 12, {"src": 0, "dst": 4}[which]
    else:
        field, stride, offset = field_at(EDGE_SECTION), 12, {"src": 0, "dst": 4}[which]
    if field is None:
        sys.exit("graph has no edges")
    if version >= 4:
        first, length = struct.unpack_from("<QQ", data, field)
    else:
        vector = field + struct.unpack_from("<I", data, field)[0]
        first, length = vector + 4, struct.unpack_from("<I", data, vector)[0]
    if int(index) >= length:
        sys.exit(f"edge {index} out of range ({length} edges)")
    struct.pack_into("<I", data, first + stride * int(index) + offset, int(value))
    open(dst, "wb").write(data)


if __name__ == "__main__":
    main()
