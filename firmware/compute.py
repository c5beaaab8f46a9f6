# mcuroof firmware, compute suite helper: times one multiply-accumulate kernel.
# Each kernel iteration is a dot product of u elements from two small resident arrays, unrolled
# so that loop overhead is small (host/mcuroof/kernels.py renders them). Needs common.py.
import array


def peak(k, em, ty, tc, u, n):
    x = array.array(tc, [1] * u)
    w = array.array(tc, [j + 1 for j in range(u)])
    mn, md, ov, r = measure(k, x, w, None, n)
    emit({'t': 'mac', 'em': em, 'ty': ty, 'macs': u * n, 'r': r, 'us': mn, 'med': md,
          'ovh': ov, 'chk': int(k(x, w, None, n)), 'u': u, 'n': n})
    x = w = None
    gc.collect()
