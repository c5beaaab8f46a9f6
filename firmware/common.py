# mcuroof firmware, common part: record writer and timing harness.
# Runs on MicroPython 1.9 and later: no f-strings, no json, nothing allocated while timing.
try:
    import utime as time
except ImportError:
    import time
import gc
import micropython

SCHEMA = 1
ticks = time.ticks_us
tdiff = time.ticks_diff
_seq = [0]


#--
def _chk(s):
    # Fletcher-16 over the record body; host/mcuroof/protocol.py checks the same sum.
    a = 0
    b = 0
    for c in bytes(s, 'utf8'):
        a = (a + c) % 255
        b = (b + a) % 255
    return (b << 8) | a


def _sc(v):
    if v is True:
        return 'true'
    if v is False:
        return 'false'
    if v is None:
        return 'null'
    if type(v) is str:
        return '"' + v + '"'
    return repr(v)


def _js(d):
    # Records are flat: scalars and lists of scalars (no recursion: the micro:bit stack is 2 KB).
    s = ''
    for k in d:
        v = d[k]
        if type(v) is list:
            e = ''
            for x in v:
                e += ',' + _sc(x)
            v = '[' + e[1:] + ']'
        else:
            v = _sc(v)
        s += ',"' + k + '":' + v
    return '{' + s[1:] + '}'


def emit(d):
    body = '%d %s' % (_seq[0], _js(d))
    print('@mcr %04x %s' % (_chk(body), body))
    _seq[0] += 1


#--
def _run(fn, a, b, c, n, r):
    t0 = ticks()
    for _ in range(r):
        fn(a, b, c, n)
    return tdiff(ticks(), t0)


def _nop(a, b, c, n):
    return 0


def measure(fn, a, b, c, n):
    # Grow the repeat count until one trial spans WIN us, then keep TRIALS trials.
    r = 1
    t = _run(fn, a, b, c, n, r)
    while t < WIN and r < 1 << 24:
        r = r * 2 if t * 2 < WIN else r + r * (WIN - t) // t + 1
        t = _run(fn, a, b, c, n, r)
    ts = [0] * TRIALS
    for i in range(TRIALS):
        ts[i] = _run(fn, a, b, c, n, r)
    ts.sort()
    # the harness's cost, as the kernel's time: the least of TRIALS runs (an interrupt landing
    # in one of only two runs moved small kernels' rates by 0.3 %)
    ov = _run(_nop, a, b, c, n, r)
    for i in range(TRIALS - 1):
        ov = min(ov, _run(_nop, a, b, c, n, r))
    return ts[0], ts[TRIALS // 2], ov, r


def finish():
    emit({'t': 'end', 'records': _seq[0] + 1})
