# mcuroof firmware, regions suite helper: read bandwidth of a memory region that a working-set
# sweep cannot reach (memory-mapped flash, SRAM, PSRAM). The host renders the reader
# k(wa, p, 0, n), which sums n x 32 bytes of 32-bit words from word address wa (address // 4,
# so that every address is a small int) p times over and returns one pass's sum, and w(buf),
# the word address of a buffer. Needs common.py and CFG = {'min_bytes': int, 'per_call': int}.
try:
    import machine
    _m32 = machine.mem32
except Exception:
    _m32 = None


def _slow(a, nb):
    # The second reader for data the host cannot know (flash): bytecode through machine.mem32.
    s = 0
    for i in range(0, nb, 4):
        s = (s + _m32[a + i]) & 0xffffffff
    return s


#--
def _buf(top):
    # A heap buffer of up to top bytes holding the memory suite's pattern i % 7 + 1.
    gc.collect()
    while top >= 64:
        try:
            b = bytearray(top)
            for i in range(top):
                b[i] = i % 7 + 1
            return b, top
        except MemoryError:
            b = None
            gc.collect()
            top //= 2
    return None, 0


def _skip(em, rg, why):
    emit({'t': 'skip', 'suite': 'regions', 'em': em, 'rg': rg, 'why': why})


def _inside(wa, rng):
    ok = not rng
    for j in range(0, len(rng), 2):
        ok = ok or rng[j] <= wa < rng[j + 1]
    return ok


#--
def _open(w, em, rg, top, rng):
    # a heap buffer of up to top bytes whose word address falls in one of the [lo, hi) pairs
    # of rng (when rng is not empty): (buffer, word address, size) or None after a skip record
    b, top = _buf(top)
    if b is None:
        _skip(em, rg, 'no memory for a buffer')
        return None
    wa = w(b)
    if not _inside(wa, rng):
        _skip(em, rg, 'buffer at 0x%x is not in this region' % (wa * 4))
        return None
    return b, wa, top


#--
def region(k, w, em, rg, wa, top, rng):
    # wa: word address of the region, or None for a heap buffer (see _open)
    b = None
    if wa is None:
        o = _open(w, em, rg, top, rng)
        if o is None:
            return
        b, wa, top = o
    sl = b is None and _m32 is not None
    n = CFG['min_bytes']
    done = ref = 0
    while n <= top:
        p = max(1, CFG['per_call'] // n)
        mn, md, ov, r = measure(k, wa, p, 0, n // 32)
        if sl:
            ref = (ref + _slow(wa * 4 + done, n - done)) & 0xffffffff
        emit({'t': 'reg', 'rg': rg, 'em': em, 'bytes': n * p, 'ws': n, 'p': p, 'r': r, 'us': mn,
              'med': md, 'ovh': ov, 'chk': k(wa, 1, 0, n // 32), 'ref': ref if sl else None,
              'pat': b is not None, 'adr': wa * 4})
        done = n
        n *= 2
    b = o = None
    gc.collect()
