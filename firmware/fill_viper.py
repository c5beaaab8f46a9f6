# mcuroof firmware, layers suite helper where the board has viper (host kernels/emitters.py
# fills_in_viper): layers.py's fill and osum for int8 buffers in viper, the same LCG and the same
# sums (500 elements filled in 2.2 ms against 29.5 ms on qemu-m3). Float buffers keep layers.py's.
@micropython.viper
def _fb(a: ptr8, n: int, s: int, q: int) -> int:
    for i in range(n):
        s = (s * 75 + 74) % 65537
        a[i] = (s % 15 - 7) * q
    return s


@micropython.viper
def _ob(o: ptr8, n: int) -> int:
    s = 0
    for i in range(n):
        v = int(o[i])
        if v > 127:
            v -= 256
        s += v * (i % 7 + 1)
    return s


_fp = fill
_op = osum


def fill(a, n, s, q):
    if type(q) is int:
        return _fb(a, n, s, q)
    return _fp(a, n, s, q)


def osum(o, n):
    if n and type(o[0]) is int:
        return _ob(o, n)
    return _op(o, n)
