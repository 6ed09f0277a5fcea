#!/usr/bin/env python3
"""Builds fuzzing seed corpora from the text graphs the project ships.

Usage: make-seed-corpus.py TEXT_DIR BINARY_DIR SOURCE_DIR...

Copies every *.ddir.txt under the source folders into TEXT_DIR and writes
its binary form (with the dd-opt on PATH) into BINARY_DIR.
"""
import os
import shutil
import subprocess
import sys


def main():
    text_dir, bin_dir, sources = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(text_dir, exist_ok=True)
    os.makedirs(bin_dir, exist_ok=True)
    count = 0
    for src in sources:
        for root, _, names in os.walk(src):
            for name in sorted(names):
                if not name.endswith(".ddir.txt"):
                    continue
                seed = f"{count}-{name}"
                shutil.copy(os.path.join(root, name), os.path.join(text_dir, seed))
                subprocess.run(["dd-opt", os.path.join(root, name), "-o",
                                os.path.join(bin_dir, seed + ".ddir")], check=True)
                count += 1
    print(f"{count} seeds")
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main())
