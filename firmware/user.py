# mcuroof firmware, user kernels (`mcuroof kernel FILE.py`): calls the user's kernel_NAME(),
# which returns (callable, macc, bytes, check[, 'emitter dtype']), checks one call's result,
# times the callable with common.py's measure and emits one record. Needs common.py.


def _call(f, b, c, n):
    f()


def _none():
    pass


def _txt(e):
    # the exception as one JSON-safe line: 'ValueError: bad size'
    s = str(e)
    s = repr(type(e))[8:-2] + (': ' + s if s else '')
    return s.replace('\\', '/').replace('"', "'").replace('\n', ' ')[:120]


def _tb(e):
    # the traceback's frames as 'line:name;...' (innermost last), '' where the port cannot print
    # one into a buffer; the host maps the lines to the user's file
    try:
        import sys
        try:
            import io
        except ImportError:
            import uio as io
        s = io.StringIO()
        sys.print_exception(e, s)
        v = s.getvalue()
    except Exception:
        return ''
    out = []
    for ln in v.split('\n'):
        i = ln.find(', line ')
        if i > 0:
            out.append(ln[i + 7:].replace(', in ', ':').replace('"', "'"))
    return ';'.join(out)[-120:]


#--
def _fail(name, at, why, tb=''):
    gc.collect()
    emit({'t': 'uerr', 'k': name, 'at': at, 'exc': why, 'tb': tb, 'heap': gc.mem_free() + gc.mem_alloc(),
          'free': gc.mem_free()})


def _num(v):
    return type(v) in (int, float) and v > 0


#--
def _bad(t):
    # what breaks the contract, or None
    if type(t) is not tuple or len(t) not in (4, 5) or not callable(t[0]):
        return 'returned ' + repr(type(t))[8:-2]
    if not (_num(t[1]) and _num(t[2])):
        return 'macc ' + repr(t[1]) + ', bytes ' + repr(t[2])


def _ok(want, got):
    if callable(want):
        return bool(want(got))
    return got == want


#--
def _rf(t):
    return str(t[4])[:30].replace('"', "'") if len(t) > 4 else ''


#--
def user(name, setup):
    # timed inline, not in a helper: the micro:bit's stack holds about 7 nested calls
    at = 'setup'
    t = g = None
    try:
        t = setup()
        b = _bad(t)
        if b:
            return _fail(name, 'contract', b)
        at = 'fn'
        g = t[0]()
        at = 'ok'
        if not _ok(t[3], g):
            return _fail(name, 'check', repr(g)[:60].replace('"', "'"))
        at = 'timing'
        mn, md, ov, r = measure(_call, t[0], 0, 0, 0)
        ov = min(_run(_call, _none, 0, 0, 0, r), _run(_call, _none, 0, 0, 0, r))
        emit({'t': 'uk', 'k': name, 'macc': t[1], 'bytes': t[2], 'roof': _rf(t),
              'r': r, 'us': mn, 'med': md, 'ovh': ov})
    except Exception as e:
        t = g = None
        _fail(name, at, _txt(e), _tb(e))
    t = g = None
    gc.collect()
