#!/usr/bin/env python3
# png-regions.py FILE.png: the plot areas a screenshot of a report shows,
# one line each: "TOP BOTTOM COLOURED" (pixel rows, and how many coloured
# pixels lie in them). A plot area is a band of rows with at least 150
# pixels of the plots' background (#fbfbfb); coloured pixels (channels apart by more
# than 60: the groups' colours, never the greys of text, grid and axes) are
# the marks drawn in it. Standard library only (zlib), 8-bit RGB or RGBA.
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG: " + path)
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                sys.exit("unsupported PNG: depth %d colour type %d" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = read_png(sys.argv[1])
    area_rows = []
    for y, line in enumerate(rows):
        n = 0
        for x in range(0, w * bpp, bpp):
            if line[x] == 251 and line[x + 1] == 251 and line[x + 2] == 251:
                n += 1
        if n >= 150:
            area_rows.append(y)
    bands = []
    for y in area_rows:
        if bands and y - bands[-1][1] <= 40:
            bands[-1][1] = y
        else:
            bands.append([y, y])
    for top, bottom in bands:
        if bottom - top < 40:
            continue
        coloured = 0
        for y in range(top, bottom + 1):
            line = rows[y]
            for x in range(0, w * bpp, bpp):
                r, g, b = line[x], line[x + 1], line[x + 2]
                if max(r, g, b) - min(r, g, b) > 60:
                    coloured += 1
        print(top, bottom, coloured)


main()
