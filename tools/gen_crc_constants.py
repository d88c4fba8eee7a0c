#!/usr/bin/env python3
"""Generate every table and constant used by kvlog's CRC kernels.

kvlog implements two reflected CRCs (init 0xFFFFFFFF, final xor 0xFFFFFFFF):

    crc32   IEEE 802.3   reflected polynomial 0xEDB88320  (zlib.crc32)
    crc32c  Castagnoli   reflected polynomial 0x82F63B78  (java.util.zip.CRC32C)

Everything below is derived from those two numbers.  Usage:

    python tools/gen_crc_constants.py            # print every table and constant as C, for reading

The C sources no longer carry these as generated blocks: since issue 44, kvlog_crc_tables.h computes
them from the polynomial once at start-up (the same derivations, in C), and the test vectors and the
differential CRC tests check the results. This file stays the derivation and a pure-Python model;
its self-check runs first.

Conventions (see also the comments in csrc/crc32.c)
---------------------------------------------------
Polynomials over GF(2) are Python ints, bit i = coefficient of x^i ("normal"
form).  A reflected CRC stores the coefficient of x^(w-1-i) in bit i of a
w-bit word: rev_w(f).  The first message byte occupies the low byte of a
little-endian load and its bit 0 is the highest-degree coefficient, so a
16-byte block B loaded into a 128-bit register is rev_128(B(x)).

The internal CRC state after a message M, starting from state s, is
    state(M) = s * x^(8|M|)  +  M(x) * x^32      (mod P)
and the API value is ~state (init/final xor 0xFFFFFFFF).

Carry-less multiplication of reflected operands: if a = rev_m(A) and
b = rev_n(B) then clmul(a, b) = rev_(m+n-1)(A*B).  All the "k" constants are
therefore stored as rev_33 of a degree<32 remainder (i.e. rev_32 shifted left
by one), so that a 64-bit lane times a constant lands in a rev_96 frame.

Folding a 128-bit register R = rev_128(H*x^64 + L) forward by D bits:
    R' = clmul(lo64(R), rev_33(x^(D+32) mod P))
       ^ clmul(hi64(R), rev_33(x^(D-32) mod P))
is congruent to (H*x^64 + L) * x^D and is again in rev_128 form, so it can be
xored onto the data block that ends D bits later.  Constant pair kD = {lo, hi}.

Final reduction of R (which stands for R(x)*x^32 mod P):
    R2 = clmul(lo64(R), rev_33(x^96 mod P)) ^ (R >> 64)     96 bits, rev_96
    R3 = clmul(lo32(R2), rev_33(x^64 mod P)) ^ (R2 >> 32)   64 bits, rev_64
    Barrett with mu = floor(x^64 / P):
    q  = lo32(clmul(lo32(R3), rev_33(mu)))                  rev_32(floor(T1*mu/x^32))
    crc = bits 32..63 of (R3 ^ clmul(q, rev_33(P)))

Combining CRC-32C streams with the crc32 instruction: crc32_u64(0, v) with
v = rev_64(V) computes V*x^32 mod P; clmul(rev_32(C), rev_32(K)) = rev_64(C*K*x),
so shifting a state C over 8*L zero bits is crc32_u64(0, clmul(C, K)) with
K = rev_32(x^(8L-33) mod P).

Shift tables (no carry-less multiplier available): the map C -> C*x^(8L) mod P
is GF(2)-linear, so it is tabulated per input byte: 4 x 256 words per L.
"""
import random
import sys
import zlib

POLYS = {"crc32": 0xEDB88320, "crc32c": 0x82F63B78}

# Byte lengths of one stream for the table-combined 3-way crc32-instruction kernels.
SHIFT_LENGTHS = (4096, 512, 64)
# The clmul-combined 3-way kernel uses K[m] for a shift of m*8 bytes, m = 1..COMBINE_M
COMBINE_STREAMS = 3
COMBINE_BLOCK = 1024   # bytes per stream in the big-block loop
COMBINE_M = COMBINE_STREAMS * COMBINE_BLOCK // 8
# Folding distances (bits) for which constant pairs are emitted.
FOLD_DISTANCES = (128, 256, 384, 512, 1024, 1536, 2048)


# --------------------------------------------------------------- GF(2)[x] ---
def rev(v, w):
    r = 0
    for i in range(w):
        if v >> i & 1:
            r |= 1 << (w - 1 - i)
    return r


def clmul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        b >>= 1
    return r


def pmod(a, p):
    dp = p.bit_length() - 1
    while a.bit_length() - 1 >= dp:
        a ^= p << (a.bit_length() - 1 - dp)
    return a


def pdiv(a, p):
    dp = p.bit_length() - 1
    q = 0
    while a and a.bit_length() - 1 >= dp:
        s = a.bit_length() - 1 - dp
        q |= 1 << s
        a ^= p << s
    return q


def xpow(n, p):
    """x^n mod p, n >= 0, by square and multiply."""
    r, b = 1, pmod(2, p)
    while n:
        if n & 1:
            r = pmod(clmul(r, b), p)
        b = pmod(clmul(b, b), p)
        n >>= 1
    return r


def full_poly(reflected):
    return (1 << 32) | rev(reflected, 32)


# ------------------------------------------------------------- constants ---
def slice8_tables(reflected):
    t0 = []
    for b in range(256):
        c = b
        for _ in range(8):
            c = (c >> 1) ^ (reflected if c & 1 else 0)
        t0.append(c)
    tabs = [t0]
    for k in range(1, 8):
        prev = tabs[-1]
        tabs.append([(prev[b] >> 8) ^ t0[prev[b] & 0xFF] for b in range(256)])
    return tabs


def fold_pair(d, p):
    return (rev(xpow(d + 32, p), 33), rev(xpow(d - 32, p), 33))


def fold_consts(reflected):
    p = full_poly(reflected)
    c = {"k%d" % d: fold_pair(d, p) for d in FOLD_DISTANCES}
    c["k96"] = rev(xpow(96, p), 33)
    c["k64"] = rev(xpow(64, p), 33)
    c["mu"] = rev(pdiv(1 << 64, p), 33)
    c["poly"] = rev(p, 33)
    return c


def shift_table(reflected, nbytes):
    p = full_poly(reflected)
    xs = xpow(8 * nbytes, p)
    out = []
    for k in range(4):
        row = []
        for b in range(256):
            cpoly = rev(b << (8 * k), 32)
            row.append(rev(pmod(clmul(cpoly, xs), p), 32))
        out.append(row)
    return out


def combine_consts(reflected):
    p = full_poly(reflected)
    return [rev(xpow(64 * m - 33, p), 32) for m in range(1, COMBINE_M + 1)]


# ----------------------------------------------- pure-Python self checks ---
def crc_bitwise(reflected, data, crc=0):
    c = crc ^ 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (reflected if c & 1 else 0)
    return c ^ 0xFFFFFFFF


def crc_slice8(tabs, data, crc=0):
    c = crc ^ 0xFFFFFFFF
    i = 0
    while len(data) - i >= 8:
        lo = int.from_bytes(data[i:i + 4], "little") ^ c
        hi = int.from_bytes(data[i + 4:i + 8], "little")
        c = (tabs[7][lo & 255] ^ tabs[6][lo >> 8 & 255] ^ tabs[5][lo >> 16 & 255] ^
             tabs[4][lo >> 24] ^ tabs[3][hi & 255] ^ tabs[2][hi >> 8 & 255] ^
             tabs[1][hi >> 16 & 255] ^ tabs[0][hi >> 24])
        i += 8
    for b in data[i:]:
        c = (c >> 8) ^ tabs[0][(c ^ b) & 255]
    return c ^ 0xFFFFFFFF


M64 = (1 << 64) - 1


def model_fold(consts, data, crc=0):
    """Model of the 128-bit PCLMUL kernel (one lane, fold by 128, Barrett)."""
    assert len(data) % 16 == 0 and data
    blocks = [int.from_bytes(data[i:i + 16], "little") for i in range(0, len(data), 16)]
    r = blocks[0] ^ (crc ^ 0xFFFFFFFF)
    klo, khi = consts["k128"]
    for b in blocks[1:]:
        r = clmul(r & M64, klo) ^ clmul(r >> 64, khi) ^ b
    r2 = clmul(r & M64, consts["k96"]) ^ (r >> 64)
    r3 = clmul(r2 & 0xFFFFFFFF, consts["k64"]) ^ (r2 >> 32)
    q = clmul(r3 & 0xFFFFFFFF, consts["mu"]) & 0xFFFFFFFF
    s = ((r3 ^ clmul(q, consts["poly"])) >> 32) & 0xFFFFFFFF
    return s ^ 0xFFFFFFFF


def model_fold_distance(consts, d, reflected):
    """Check kD: folding a block forward by D bits equals appending D zero bits."""
    rng = random.Random(d)
    for _ in range(20):
        a = bytes(rng.randrange(256) for _ in range(16))
        z = bytes(d // 8)
        r = int.from_bytes(a, "little")
        klo, khi = consts["k%d" % d]
        f = clmul(r & M64, klo) ^ clmul(r >> 64, khi)
        # f is congruent to a*x^D: both messages must give the same CRC (from state 0)
        want = crc_bitwise(reflected, a + z, 0xFFFFFFFF)
        got = crc_bitwise(reflected, f.to_bytes(16, "little"), 0xFFFFFFFF)
        assert want == got, (d, hex(want), hex(got))


def model_combine(reflected, k):
    p = full_poly(reflected)
    rng = random.Random(7)
    for m in (1, 2, 5, 128):
        c = rng.getrandbits(32)
        prod = clmul(c, k[m - 1])               # rev_64 of C*K*x (63 bits used)
        v = rev(prod, 64)                       # V
        got = rev(pmod(v << 32, p), 32)         # crc32_u64(0, prod)
        want = rev(pmod(clmul(rev(c, 32), xpow(64 * m, p)), p), 32)
        assert got == want, m


def model_pow2(reflected, k, p2):
    p = full_poly(reflected)

    def mul(a, b):      # crc32_u64(0, clmul(a, b)) on rev32 operands
        return rev(pmod(rev(clmul(a, b), 64) << 32, p), 32)

    for m in (1, 3, 100, 255, 384):
        r = None
        for i in range(64):
            if m >> i & 1:
                r = p2[i] if r is None else mul(r, p2[i])
        assert r == k[m - 1], m


def model_shift(reflected, tab, nbytes):
    rng = random.Random(nbytes)
    for _ in range(50):
        c = rng.getrandbits(32)
        got = tab[0][c & 255] ^ tab[1][c >> 8 & 255] ^ tab[2][c >> 16 & 255] ^ tab[3][c >> 24]
        # state c followed by nbytes zero bytes (raw state, no xor)
        want = crc_bitwise(reflected, bytes(nbytes), c ^ 0xFFFFFFFF) ^ 0xFFFFFFFF
        assert got == want


def self_check():
    assert crc_bitwise(POLYS["crc32"], b"123456789") == 0xCBF43926
    assert crc_bitwise(POLYS["crc32c"], b"123456789") == 0xE3069283
    rng = random.Random(1)
    for name, refl in POLYS.items():
        tabs = slice8_tables(refl)
        fc = fold_consts(refl)
        for n in (0, 1, 7, 8, 9, 100, 1000):
            d = bytes(rng.randrange(256) for _ in range(n))
            c0 = rng.getrandbits(32)
            want = crc_bitwise(refl, d, c0)
            assert crc_slice8(tabs, d, c0) == want
            if name == "crc32":
                assert want == zlib.crc32(d, c0)
        for n in (16, 32, 160):
            d = bytes(rng.randrange(256) for _ in range(n))
            c0 = rng.getrandbits(32)
            assert model_fold(fc, d, c0) == crc_bitwise(refl, d, c0), name
        for d in FOLD_DISTANCES:
            model_fold_distance(fc, d, refl)
        model_combine(refl, combine_consts(refl))
        model_pow2(refl, combine_consts(refl), pow2_consts(refl))
        for L in SHIFT_LENGTHS:
            model_shift(refl, shift_table(refl, L), L)


# ------------------------------------------------------------ C emitters ---
def c_u32_array(vals, per_line=6, indent="    "):
    lines = []
    for i in range(0, len(vals), per_line):
        lines.append(indent + ", ".join("0x%08xu" % v for v in vals[i:i + per_line]) + ",")
    return "\n".join(lines)


def c_u64(v):
    return "UINT64_C(0x%09x)" % v


def emit_slice8(name, refl):
    tabs = slice8_tables(refl)
    out = ["static const uint32_t %s_slice8[8][256] = {" % name]
    for t in tabs:
        out.append("  {")
        out.append(c_u32_array(t))
        out.append("  },")
    out.append("};")
    return "\n".join(out)


def emit_fold(name, refl):
    c = fold_consts(refl)
    out = ["/* reflected poly 0x%08X; pairs are {rev33(x^(D+32) mod P), rev33(x^(D-32) mod P)} */" % refl,
           "static const kvlog_crc_fold_consts %s_fold = {" % name]
    for d in FOLD_DISTANCES:
        lo, hi = c["k%d" % d]
        out.append("    { %s, %s },  /* k%d */" % (c_u64(lo), c_u64(hi), d))
    # per-lane constants to fold the 4 lanes of a zmm register into lane 3
    lanes = list(c["k384"]) + list(c["k256"]) + list(c["k128"]) + [0, 0]
    out.append("    { " + ", ".join(c_u64(v) for v in lanes[:4]) + ",")
    out.append("      " + ", ".join(c_u64(v) for v in lanes[4:]) + " },  /* zmm lanes: k384 k256 k128 0 */")
    out.append("    %s,  /* k96 = rev33(x^96 mod P) */" % c_u64(c["k96"]))
    out.append("    %s,  /* k64 = rev33(x^64 mod P) */" % c_u64(c["k64"]))
    out.append("    %s,  /* mu  = rev33(x^64 div P) */" % c_u64(c["mu"]))
    out.append("    %s,  /* poly = rev33(P) */" % c_u64(c["poly"]))
    out.append("    %d,  /* hw_crc32c: final reduction may use the x86 crc32 instruction */"
               % (1 if refl == POLYS["crc32c"] else 0))
    out.append("};")
    return "\n".join(out)


def emit_shift(name, refl, nbytes):
    t = shift_table(refl, nbytes)
    out = ["/* state -> state * x^(8*%d) mod P, one row per input byte */" % nbytes,
           "static const uint32_t %s_shift%d[4][256] = {" % (name, nbytes)]
    for row in t:
        out.append("  {")
        out.append(c_u32_array(row))
        out.append("  },")
    out.append("};")
    return "\n".join(out)


def pow2_consts(reflected):
    p = full_poly(reflected)
    return [rev(xpow(64 * (1 << i) - 33, p), 32) for i in range(64)]


def emit_combine(name, refl):
    k = combine_consts(refl)
    out = ["/* K[m-1] = rev32(x^(64*m - 33) mod P): shift a state over 8*m bytes with",
           "   crc32_u64(0, clmul(state, K)); m = 1..%d */" % COMBINE_M,
           "#define %s_COMBINE_BLOCK %d" % (name.upper(), COMBINE_BLOCK),
           "static const uint32_t %s_combine[%d] = {" % (name, COMBINE_M),
           c_u32_array(k),
           "};",
           "/* P2[i] = rev32(x^(64*2^i - 33) mod P); with mul(a, b) = crc32_u64(0, clmul(a, b)),",
           "   mul(x^(a-33), x^(b-33)) = x^(a+b-33), so K for any m is a product of P2 entries */",
           "static const uint32_t %s_pow2[64] = {" % name,
           c_u32_array(pow2_consts(refl)),
           "};"]
    return "\n".join(out)


def blocks():
    """name -> (file, C text)"""
    b = {}
    b["crc32_slice8"] = ("csrc/crc32.c", emit_slice8("crc32", POLYS["crc32"]))
    b["crc32_fold"] = ("csrc/crc32.c", emit_fold("crc32", POLYS["crc32"]))
    b["crc32_shift"] = ("csrc/crc32.c", "\n".join(
        emit_shift("crc32", POLYS["crc32"], L) for L in SHIFT_LENGTHS))
    b["crc32c_slice8"] = ("csrc/crc32c.c", emit_slice8("crc32c", POLYS["crc32c"]))
    b["crc32c_fold"] = ("csrc/crc32c.c", emit_fold("crc32c", POLYS["crc32c"]))
    b["crc32c_shift"] = ("csrc/crc32c.c", "\n".join(
        emit_shift("crc32c", POLYS["crc32c"], L) for L in SHIFT_LENGTHS))
    b["crc32c_combine"] = ("csrc/crc32c.c", emit_combine("crc32c", POLYS["crc32c"]))
    return b


def main(argv):
    self_check()
    b = blocks()
    if len(argv) > 1 and argv[1] in ("--check", "--write"):
        raise SystemExit(f"{argv[1]}: the C sources hold no generated blocks any more; the tables are computed "
                         "at start-up (src/kvlog/_core/include/kvlog_crc_tables.h) and checked by the tests")
    for name, (fn, body) in b.items():
        print("/* BEGIN GENERATED %s (tools/gen_crc_constants.py) */" % name)
        print(body)
        print("/* END GENERATED %s */" % name)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
