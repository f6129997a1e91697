#!/usr/bin/env python3
"""The fixed positions of docs/pattern-eval.md ("5x8, 6x8 and 7x7"): five per board.

Usage: python3 docs/fixed-positions.py ROWS COLS EMPTIES

From the start, position k (k = 0 to 4) plays the k-th legal move in row-major order first
(modulo their number; when the first ply has fewer than k + 1 moves, the first move and then the
last legal move of the second ply), then the middle legal move in row-major order at each turn,
until EMPTIES squares are empty. Prints `moves | board string` per position, the board string
as `reversi solve --board` reads it. A plain move generator of its own, so that the positions do
not depend on the program they measure.
"""
import sys

R, C, E = map(int, sys.argv[1:4])
DIRECTIONS = [(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0)]


def start():
    r0, c0 = R // 2 - 1, C // 2 - 1
    return {(r0, c0): "O", (r0 + 1, c0 + 1): "O", (r0, c0 + 1): "X", (r0 + 1, c0): "X"}


def flips(board, side, r, c):
    if (r, c) in board:
        return []
    other = "O" if side == "X" else "X"
    out = []
    for dr, dc in DIRECTIONS:
        line, rr, cc = [], r + dr, c + dc
        while 0 <= rr < R and 0 <= cc < C and board.get((rr, cc)) == other:
            line.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if line and 0 <= rr < R and 0 <= cc < C and board.get((rr, cc)) == side:
            out += line
    return out


def moves(board, side):
    return [(r, c) for r in range(R) for c in range(C) if flips(board, side, r, c)]


for k in range(5):
    board, side, names, first_count = start(), "X", [], 0
    while R * C - len(board) > E:
        legal = moves(board, side)
        if not legal:
            side = "O" if side == "X" else "X"
            if not moves(board, side):
                break
            names.append("pass")
            continue
        ply = len(names)
        if ply == 0:
            m = legal[k % len(legal)]
            first_count = len(legal)
        elif ply == 1 and k >= first_count:
            m = legal[-1]
        else:
            m = legal[len(legal) // 2]
        for sq in flips(board, side, *m):
            board[sq] = side
        board[m] = side
        names.append("abcdefgh"[m[1]] + str(m[0] + 1))
        side = "O" if side == "X" else "X"
    text = "".join(board.get((r, c), "-") for r in range(R) for c in range(C))
    print(" ".join(names), "|", text, side)
