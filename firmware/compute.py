# mcuroof firmware, compute suite helper: times one multiply-accumulate kernel.
# Each kernel iteration is a dot product of u elements from two small resident arrays, unrolled
# so that loop overhead is small (host/mcuroof/kernels.py renders them). Needs common.py.
import array


def peak(k, em, ty, tc, u, n, kn=None, rep=1, z=None):
    # kn: an ISA peak kernel's name; it does rep dot products per loop iteration
    x = array.array(tc, [1] * u)
    w = array.array(tc, [j + 1 for j in range(u)])
    mn, md, ov, r = measure(k, x, w, None, n)
    if z:
        # the harness's cost timed on an empty function of k's emitter (common.measure times _nop)
        ov = min(_run(z, x, w, None, n, r), _run(z, x, w, None, n, r))
    d = {'t': 'mac', 'em': em, 'ty': ty, 'macs': u * n * rep, 'r': r, 'us': mn, 'med': md,
         'ovh': ov, 'chk': int(k(x, w, None, n)), 'u': u, 'n': n}
    if kn:
        d['k'] = kn
        d['rep'] = rep
    emit(d)
    x = w = None
    gc.collect()
