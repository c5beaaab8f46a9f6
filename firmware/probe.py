# mcuroof firmware, probe: what this board and port offer (first record of every run).
def resolution():
    best = 1 << 30
    for _ in range(8):
        t0 = ticks()
        t1 = ticks()
        while t1 == t0:
            t1 = ticks()
        best = min(best, tdiff(t1, t0))
    return best


def _loop(a, b, c, n):
    for i in range(n):
        pass


def has(src):
    try:
        exec(src)
        return True
    except Exception:
        return False


#--
def emitters():
    found = ['bytecode']
    for em, body in (('native', 'def f():\n pass'), ('viper', 'def f():\n pass'),
                     ('asm_thumb', 'def f(r0):\n add(r0, r0, 1)'), ('asm_rv32', 'def f(a0):\n addi(a0, a0, 1)')):
        if has('@micropython.' + em + '\n' + body):
            found.append(em)
    return found


#--
gc.collect()
EMS = emitters()
CPU = None
#--
# the core's ID registers (Arm M-profile, read by machine.mem32; board.identity decodes them):
# CPUID, then on Armv7-M and later ID_ISAR3 (DSP), MVFR0/1 (FPU, MVE) where the core may have
# them. Only where asm_thumb runs (a Thumb core), not on a host OS. Top-level code, not a
# function: the micro:bit's 8 KB heap frees it before the probe's own checks compile.
import sys
arm = getattr(sys.implementation, '_mpy', 0) >> 10 & 15 in (0, 4, 5, 6, 7, 8)
if arm and 'asm_thumb' in EMS and sys.platform not in ('linux', 'darwin', 'win32'):
    try:
        import machine
        CPU = [machine.mem32[0xE000ED00]]
        # M3, then M4, M7, M33, M55, M85, M52, M35P (board.identity.PARTS)
        V7M = (0xC23, 0xC24, 0xC27, 0xD21, 0xD22, 0xD23, 0xD24, 0xD31)
        if CPU[0] >> 4 & 0xFFF in V7M:
            CPU.append(machine.mem32[0xE000ED6C])
        if CPU[0] >> 4 & 0xFFF in V7M[1:]:
            CPU.append(machine.mem32[0xE000EF40])
            CPU.append(machine.mem32[0xE000EF44])
    except Exception:
        CPU = None
#--
# RISC-V (sys.implementation._mpy's architecture 11, RV32IMC): misa, the extensions the hart
# implements (a bit per letter), read by asm_rv32 (CSRRS from the machine mode MicroPython runs
# in); never an Arm address. MISA: None where not read.
MISA = None
if getattr(sys.implementation, '_mpy', 0) >> 10 & 15 == 11 and 'asm_rv32' in EMS:
    try:
        exec('@micropython.asm_rv32\ndef misa():\n csrrs(a0, zero, 0x301)')
        MISA = misa()
    except Exception:
        MISA = None
#--
# the DWT cycle counter (Armv7-M and later), touched only where CPUID names an M3 or later core:
# the Cortex-M0/M0+ have none, and there a read of an absent address may fault. DEMCR.TRCENA on,
# the M7's lock access unlocked, CTRL.CYCCNTENA on (unless CTRL.NOCYCCNT says there is no
# counter), then CYCCNT counted against ticks_us over WIN us. The reader is viper (a few
# instructions, no allocation: CYCCNT modulo 2**30 is a small int; host board.cycle_counter takes
# differences modulo 2**30, which 2**32 is a multiple of: safe across CYCCNT's wrap-around).
# DWT: [DEMCR, CTRL, CYCCNT before, after, us between], as read; None where not read.
DWT = None
if CPU and CPU[0] >> 4 & 0xFFF in V7M:
    try:
        m = machine.mem32
        m[0xE000EDFC] = m[0xE000EDFC] | 0x1000000
        if CPU[0] >> 4 & 0xFFF == 0xC27:
            m[0xE0001FB0] = 0xC5ACCE55
        c = m[0xE0001000]
        if not c >> 25 & 1:
            m[0xE0001000] = c | 1
        try:
            exec('@micropython.viper\ndef cyc() -> int:\n    return int(ptr32(0xE0001004)[0]) & 0x3FFFFFFF')
        except Exception:
            def cyc():
                return m[0xE0001004] & 0x3FFFFFFF
        t0 = ticks()
        c0 = cyc()
        while tdiff(ticks(), t0) < WIN:
            pass
        t1 = ticks()
        c1 = cyc()
        DWT = [m[0xE000EDFC], m[0xE0001000], c0, c1, tdiff(t1, t0)]
    except Exception:
        DWT = None


#--
def probe():
    import sys
    gc.collect()
    try:
        import machine
        freq = machine.freq()
        if type(freq) is tuple:
            freq = freq[0]
    except Exception:
        freq = None
    mn, md, ov, r = measure(_loop, 0, 0, 0, 64)
    emit({'t': 'probe', 'schema': SCHEMA, 'platform': sys.platform,
          'version': list(sys.implementation.version), 'freq': freq,
          'tick_us': resolution(), 'loop_us': mn, 'loop_ovh': ov, 'loop_n': 64 * r,
          'emitters': EMS, 'cpu': CPU, 'mpy': getattr(sys.implementation, '_mpy', None), 'misa': MISA, 'dwt': DWT, 'float': has('x = 1.5 * 2'),
          'memoryview': has('m = memoryview(bytearray(4))\nm[0:2] = m[2:4]'), 'free': gc.mem_free()})


probe()
finish()
