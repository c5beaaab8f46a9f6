# A 16-tap FIR filter over 256 int16 samples, in viper: the kind of filter that runs in front of
# a keyword-spotting network.  mcuroof kernel examples/kernels/fir_viper.py --board unix
# The contract (README, "Your own kernels"): kernel_NAME() returns (fn, macc, bytes, check[, roofs]).
import array
import micropython

N = 256     # output samples per call
TAPS = 16


@micropython.viper
def fir(x, h, y, n: int):
    # int16 samples and taps, int32 outputs; ptr16 loads are unsigned: (v ^ 0x8000) - 0x8000
    # sign-extends them. The tap loop is unrolled 4x, so one loop test serves four MACs.
    X = ptr16(x)
    H = ptr16(h)
    Y = ptr32(y)
    for i in range(n):
        a = 0
        j = 0
        while j < 16:
            a += ((X[i + j] ^ 0x8000) - 0x8000) * ((H[j] ^ 0x8000) - 0x8000)
            a += ((X[i + j + 1] ^ 0x8000) - 0x8000) * ((H[j + 1] ^ 0x8000) - 0x8000)
            a += ((X[i + j + 2] ^ 0x8000) - 0x8000) * ((H[j + 2] ^ 0x8000) - 0x8000)
            a += ((X[i + j + 3] ^ 0x8000) - 0x8000) * ((H[j + 3] ^ 0x8000) - 0x8000)
            j += 4
        Y[i] = a


def kernel_fir():
    x = array.array('h', [((i * 75 + 74) % 257 - 128) * 64 for i in range(N + TAPS - 1)])
    h = array.array('h', [(j * 37) % 129 - 64 for j in range(TAPS)])
    y = array.array('i', [0] * N)
    # the reference: the same filter in plain Python, from the definition
    ref = [sum(x[i + j] * h[j] for j in range(TAPS)) for i in range(N)]
    macc = N * TAPS
    moved = (N + TAPS - 1) * 2 + TAPS * 2 + N * 4   # samples and taps read once, outputs written
    return lambda: fir(x, h, y, N), macc, moved, lambda r: list(y) == ref, 'viper int16'
