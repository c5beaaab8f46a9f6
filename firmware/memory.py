# mcuroof firmware, memory suite helper: runs one STREAM-like kernel over a working-set sweep.
# The host sends each kernel as its own script (host/mcuroof/kernels.py renders them), then
# calls sweep(); buffers live only while that kernel runs. Needs common.py and
# CFG = {'min_n': int, ...}; CFG['heap'] (default 2): buffers take at most 1/heap of the free heap.
import array

ISZ = {'b': 1, 'h': 2, 'i': 4, 'f': 4}


def buffers(tc, maxws):
    # returns (buffers, elements, halvings): each MemoryError halves the buffers and is counted
    gc.collect()
    nb = 1 << 30
    h = 0
    while nb * 3 > maxws or nb * 3 > gc.mem_free() // CFG.get('heap', 2):
        nb //= 2
    while nb >= 16:
        try:
            bufs = []
            for _ in range(3):
                # small heaps: no temporary bytearray (it fragments an 8 KB heap); big: fast
                bufs.append(array.array(tc, range(nb // ISZ[tc]) if nb < 65536 else bytearray(nb)))
                gc.collect()
            return bufs, nb // ISZ[tc], h
        except MemoryError:
            bufs = None
            gc.collect()
            nb //= 2
            h += 1
    return None, 0, h


#--
def sweep(k, name, em, ty, tc, na, dst, f, maxws, mv):
    # na: arrays touched, dst: index of the output array, f: output = f * input (checked by the host);
    # mv: 0, or a function giving the kernel its buffers' views of n elements
    bufs, top, h = buffers(tc, maxws)
    if h:
        emit({'t': 'halved', 'k': name, 'em': em, 'ty': ty, 'why': 'MemoryError', 'times': h, 'n': top})
    if not bufs:
        emit({'t': 'skip', 'k': name, 'em': em, 'ty': ty, 'why': 'no memory'})
        return
    a = bufs[0]
    b = bufs[1]
    for i in range(top):
        a[i] = b[i] = i % 7 + 1
    v = bufs
    n = CFG['min_n']
    while n <= top:
        if mv:
            # the C copy's views of exactly n elements (host/mcuroof/kernels/memory.py C_COPY),
            # made before the timing
            v = mv(bufs, n)
        d = v[dst]
        # cleared where the host's check reads: a kernel that writes nothing fails it (copy's
        # output B holds the pattern the other kernels read)
        d[0] = d[n // 2] = d[n - 1] = 0
        mn, md, ov, r = measure(k, v[0], v[1], v[2], n)
        emit({'t': 'mem', 'k': name, 'em': em, 'ty': ty, 'n': n, 'isz': ISZ[tc],
              'bytes': na * n * ISZ[tc], 'r': r, 'us': mn, 'med': md, 'ovh': ov,
              'chk': int(d[0] + d[n // 2] + d[n - 1]), 'f': f})
        n *= 2
    bufs = v = a = b = d = None
    gc.collect()
