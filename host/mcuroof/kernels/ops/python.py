"""Layer ops as plain Python loops, for the bytecode and native emitters."""

from __future__ import annotations

from typing import Callable

from mcuroof.kernels import emitters
from mcuroof.kernels.ops.contract import HEAD, MAC_OPS, Variant

_WINDOW = "   y0=oy*SH-PT;x0=ox*SW-PL\n   ky0=max(0,-y0);ky1=min(KH,H-y0);kx0=max(0,-x0);kx1=min(KW,V-x0)\n"

CONV = (
    "def k(X,W,O,P):\n"
    + HEAD
    + " o=0\n for oy in range(OH):\n  for ox in range(OW):\n"
    + _WINDOW
    + "   for oc in range(OC):\n    a={acc}\n    for ky in range(ky0,ky1):\n"
    "     xi=((y0+ky)*V+x0+kx0)*C;wi=((oc*KH+ky)*KW+kx0)*C;n=(kx1-kx0)*C\n"
    "{inner1}{fin}    O[o]=a;o+=1\n"
)
DEPTHWISE = (
    "def k(X,W,O,P):\n"
    + HEAD
    + " o=0\n for oy in range(OH):\n  for ox in range(OW):\n"
    + _WINDOW
    + "   for oc in range(OC):\n    a={acc}\n    for ky in range(ky0,ky1):\n"
    "     xi=((y0+ky)*V+x0+kx0)*C+oc;wi=(ky*KW+kx0)*C+oc;n=kx1-kx0\n"
    "{innerC}{fin}    O[o]=a;o+=1\n"
)
DENSE = (
    "def k(X,W,O,P):\n C=P[2];OC=P[5]\n for oc in range(OC):\n    a={acc}\n    xi=0;wi=oc*C;n=C\n"
    "{inner0}{fin}    O[oc]=a\n"
)
POOL = (
    "def k(X,W,O,P):\n"
    + HEAD
    + " o=0\n for oy in range(OH):\n  for ox in range(OW):\n"
    + _WINDOW
    + "   for oc in range(OC):\n    a={init}\n    for ky in range(ky0,ky1):\n"
    "     for kx in range(kx0,kx1):\n      v=X[((y0+ky)*V+x0+kx)*C+oc]\n      {step}\n"
    "    O[o]={result};o+=1\n"
)
ADD = "def k(X,W,O,P):\n for i in range(P[15]):\n  a=X[i]+W[i]\n{fin}  O[i]=a\n"
RELU = "def k(X,W,O,P):\n for i in range(P[15]):\n  a=X[i]\n  if a<0:a={zero}\n  O[i]=a\n"

INT_FIN = "a=(a*P[12])>>P[13]\nif a>127:a=127\nif a<P[14]:a=P[14]\n"
FLOAT_FIN = "if P[14] and a<0:a=0.0\n"
ADD_INT_FIN = "if a>127:a=127\nif a<-128:a=-128\n"


def indent_lines(code: str, n: int) -> str:
    return "".join(" " * n + ln + "\n" for ln in code.splitlines())


def loop_inner(stride: str) -> str:
    """The dot product over n taps from X[xi] and W[wi], `stride` elements apart, into a."""
    step = "" if stride == "1" else f"*{stride}"
    return f"for j in range(n):\n a+=X[xi+j{step}]*W[wi+j{step}]"


def python_source(op: str, em: str, ty: str, inner: Callable[[str], str] = loop_inner) -> str | None:
    """Kernel for bytecode or native (its row's decorator); with another `inner` dot product (the
    m0 module's asm `dot` call), the Python loops around it."""

    def _inner(stride: str, indent: int = 5) -> str:
        return indent_lines(inner(stride), indent)

    integer = ty == "int8"
    fin = INT_FIN if integer else FLOAT_FIN
    acc = "P[16+oc]" if integer else "P[16+oc]*0.125"
    if op in MAC_OPS:
        template = {"CONV_2D": CONV, "DEPTHWISE_CONV_2D": DEPTHWISE, "FULLY_CONNECTED": DENSE}[op]
        src = template.format(
            acc=acc, inner0=_inner("1", 4), inner1=_inner("1"), innerC=_inner("C"), fin=indent_lines(fin, 4)
        )
    elif op in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
        avg = op == "AVERAGE_POOL_2D"
        cnt = "((ky1-ky0)*(kx1-kx0))"
        src = POOL.format(
            init=("0" if integer else "0.0") if avg else ("-128" if integer else "-1e30"),
            step="a+=v" if avg else "if v>a:a=v",
            result=(f"a//{cnt}" if integer else f"a/{cnt}") if avg else "a",
        )
    elif op == "ADD":
        src = ADD.format(fin=indent_lines(ADD_INT_FIN if integer else "", 2))
    elif op == "RELU":
        src = RELU.format(zero="0" if integer else "0.0")
    else:
        return None
    return emitters.get(em).decorator + src if inner is loop_inner else src


# the generic layer module's hooks (kernels.emitters.Emitter.generic names this module; kernels.ops.dispatch calls them)
def generic(op: str, emitter: str, dtype: str) -> str | None:
    return python_source(op, emitter, dtype)


def limit(layer) -> str | None:
    return None  # every layer of an op it runs


def variant(job) -> Variant:
    return Variant()
