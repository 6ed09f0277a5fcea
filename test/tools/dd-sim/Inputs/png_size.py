"""Prints the width and height of a PNG file, after checking its signature
and its first chunk (IHDR): proof that a renderer made a real picture."""
import struct
import sys

with open(sys.argv[1], "rb") as f:
    data = f.read(33)
if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
    sys.exit("not a PNG file")
width, height = struct.unpack(">II", data[16:24])
print(f"png {width}x{height}")
