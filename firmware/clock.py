# mcuroof firmware, clock: set the CPU clock with machine.freq(hz) and report what resulted.
# 'was' is the clock before setting it: run again after the suites, it shows whether the board
# kept the clock all along (a hard reset would have brought back the default). Needs common.py.
def _freq(m):
    f = m.freq()
    return f[0] if type(f) is tuple else f


def setclock(hz):
    rec = {'t': 'clock', 'hz': hz, 'was': None, 'freq': None, 'why': None}
    try:
        import machine
        rec['was'] = _freq(machine)
        machine.freq(hz)
        rec['freq'] = _freq(machine)
    except Exception as e:
        rec['why'] = repr(e).replace('"', "'").replace('\\', '/')
    emit(rec)
