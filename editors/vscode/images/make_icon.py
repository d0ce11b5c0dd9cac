"""Draws the extension's Marketplace icon, icon.png (128x128 RGBA), with the
standard library only: a 4x4 grid of kernel tiles (a Pallas grid of blocks)
on a dark rounded square, one tile marked: the finding.

usage: python3 make_icon.py [OUT.png]
"""

import struct
import sys
import zlib

SIZE = 128
BACKGROUND = (22, 27, 45)
TILE = (64, 160, 220)
MARK = (255, 140, 40)


def inside_rounded(x, y, x0, y0, x1, y1, r):
    """Is the pixel centre (x+.5, y+.5) inside the rounded rectangle?"""
    px, py = x + 0.5, y + 0.5
    if not (x0 <= px < x1 and y0 <= py < y1):
        return False
    cx = min(max(px, x0 + r), x1 - r)
    cy = min(max(py, y0 + r), y1 - r)
    return (px - cx) ** 2 + (py - cy) ** 2 <= r * r


def pixel(x, y):
    if not inside_rounded(x, y, 0, 0, SIZE, SIZE, 22):
        return (0, 0, 0, 0)
    margin, gap, n = 18, 6, 4
    tile = (SIZE - 2 * margin - (n - 1) * gap) / n
    for row in range(n):
        for col in range(n):
            tx, ty = margin + col * (tile + gap), margin + row * (tile + gap)
            if inside_rounded(x, y, tx, ty, tx + tile, ty + tile, 4):
                if (row, col) == (2, 1):
                    return (*MARK, 255)
                # fade the tiles from top-left to bottom-right
                k = 1.0 - 0.35 * (row + col) / (2 * (n - 1))
                return (*(int(c * k) for c in TILE), 255)
    return (*BACKGROUND, 255)


def png(width, height, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "icon.png"
    with open(out, "wb") as f:
        f.write(png(SIZE, SIZE, [[pixel(x, y) for x in range(SIZE)] for y in range(SIZE)]))
