# The mel filterbank of keyword-spotting feature extraction: 40 triangular filters (Q7 weights)
# over the power spectrum of a 512-point FFT at 16 kHz (bins 0-128: up to 4 kHz). Plain Python,
# so it runs everywhere, the micro:bit included (MicroPython 1.9.2, 8 KB heap).
#   mcuroof kernel examples/kernels/kws_mel.py --board qemu-microbit
import array

# filter edges (FFT bins) on the HTK mel scale, 20 Hz to 4 kHz: filter f spans EDGES[f]..EDGES[f+2]
EDGES = (0, 1, 2, 4, 5, 6, 7, 9, 10, 12, 14, 15, 17, 19, 21, 23, 25, 27, 30, 32, 35, 37, 40, 43, 46,
         50, 53, 56, 60, 64, 68, 72, 77, 82, 86, 92, 97, 103, 108, 115, 121, 128)
NF = 40
BINS = 129
# sum(out) and out[20] for the spectrum below, computed on the host with numpy
# (tests/test_user_kernel.py computes them again)
TOTAL = 32324733
OUT20 = 667447


def mel(spec, w, lo, n, out):
    k = 0
    for f in range(NF):
        a = 0
        s = lo[f]
        for j in range(n[f]):
            a += spec[s + j] * w[k]
            k += 1
        out[f] = a


def weights():
    lo = array.array('h', EDGES[:NF])
    n = array.array('h', bytearray(2 * NF))   # from a bytearray: no list in the 8 KB heap
    for f in range(NF):
        n[f] = EDGES[f + 2] - EDGES[f]
    w = array.array('h', bytearray(2 * sum(n)))
    k = 0
    for f in range(NF):
        a, m, b = EDGES[f], EDGES[f + 1], EDGES[f + 2]
        for i in range(a, b):
            w[k] = 128 * (i - a) // (m - a) if i < m else 128 * (b - i) // (b - m)
            k += 1
    return lo, n, w


def kernel_mel():
    spec = array.array('h', bytearray(2 * BINS))
    s = 1
    for i in range(BINS):
        s = (s * 75 + 74) % 65537
        spec[i] = s % 4096
    lo, n, w = weights()
    out = array.array('i', bytearray(4 * NF))
    macc = len(w)
    moved = BINS * 2 + len(w) * 2 + NF * 2 * 2 + NF * 4   # spectrum, weights, lo and n, output
    return (lambda: mel(spec, w, lo, n, out), macc, moved,
            lambda r: sum(out) == TOTAL and out[20] == OUT20, 'bytecode int16')
