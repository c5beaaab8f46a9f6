# mcuroof firmware, layers suite helper: runs one network layer, or a tile of it, on data
# generated from a seed, times it and emits its output checksum for the host to check.
# The host sends each layer kernel as its own script (host/mcuroof/layer_kernels.py renders
# them) and the tile candidates, largest first. Needs common.py.
import array

ISZ = {'b': 1, 'f': 4}
RESERVE = 1024  # heap left free for timing and writing records once a tile's buffers are made
# the record type: the calibration suite's scripts set 'cal'
LT = 'layer'


def fill(a, n, s, q):
    # Park-Miller-like LCG small enough for 30-bit ints; host/mcuroof/layers.py makes the same
    for i in range(n):
        s = (s * 75 + 74) % 65537
        a[i] = (s % 15 - 7) * q
    return s


def osum(o, n):
    s = 0
    for i in range(n):
        s += o[i] * (i % 7 + 1)
    return s


#--
def alloc(tc, c):
    # c: [nx, nw, no, nb, P0..P15]; nb biases follow the 16 parameters in P
    # a collection and gc.mem_free() each scan the heap (22 and 16 ms of qemu-m3's 110 KB, 3x
    # on qemu-m7's 297 KB): a calibration shape ('cal') needs no heap figure, so one of each
    f = 0
    if LT == 'layer':
        gc.collect()
        f = gc.mem_free()
    z = ISZ[tc]
    x = array.array(tc, bytearray(c[0] * z))
    w = array.array(tc, bytearray(c[1] * z))
    o = array.array(tc, bytearray(c[2] * z))
    p = array.array('i', c[4:] + [0] * c[3])
    gc.collect()
    m = gc.mem_free()
    if m < RESERVE:
        raise MemoryError
    return x, w, o, p, f and f - m


#--
def ecall(k, w, o, p, r):
    # k's own call, in this heap: MicroPython allocates a large frame on the heap, first fit,
    # so the call costs more the more small holes the heap has before a large enough one.
    # The least of TRIALS runs, one where time is exact (as the harness's own cost in common.py)
    e = _run(k, None, w, o, p, r)
    for i in range(TRIALS - 1):
        e = min(e, _run(k, None, w, o, p, r))
    return e


#--
def layer(k, i, em, ty, tc, q, cands, j=0, g=0):
    # The largest tile that fits: a MemoryError moves on to the next candidate. Candidates
    # are numbered from j (the host's companion tiles follow its first candidates); returns
    # the number of the tile run, None if none fitted. g: k is defined in Python and returns
    # at once when X is None, so its own call is timed too ('call').
    j0 = j
    for c in cands:
        try:
            x, w, o, p, h = alloc(tc, c)
            break
        except MemoryError:
            x = w = o = p = None
        j += 1
    if j == j0 + len(cands):
        emit({'t': 'skip', 'k': i, 'em': em, 'ty': ty, 'why': 'no memory', 'cand': j0})
        return
    fill(x, c[0], 1, q)
    fill(w, c[1], 2, q)
    s = 3
    for b in range(c[3]):
        s = (s * 75 + 74) % 65537
        p[16 + b] = s % 129 - 64
    mn, md, ov, r = measure(k, x, w, o, p)
    # the own call at once, in the heap the trials left (a record built first moved it 12 %)
    e = ecall(k, w, o, p, r) if g else None
    rec = {'t': LT, 'k': i, 'em': em, 'ty': ty, 'cand': j, 'heap': h, 'r': r,
           'us': mn, 'med': md, 'ovh': ov, 'chk': osum(o, c[2])}
    if g:
        rec['call'] = e
    emit(rec)
    # the buffers let go; the next alloc() collects them (a collection: 22 ms on qemu-m3)
    x = w = o = p = None
    return j
