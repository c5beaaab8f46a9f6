"""Layer ops for the viper emitter: int8 on raw byte pointers."""

from __future__ import annotations

from mcuroof.kernels.ops.contract import PARAMS, Variant
from mcuroof.kernels.ops.python import indent_lines
from mcuroof.kernels.viper_int8 import GROUP, vterm


# viper: int8 on raw byte pointers; (v ^ 128) - 128 sign-extends a loaded byte on any word size.
# MAC loops walk integer addresses (xa, wa: the buffers' addresses) and load at constant offsets
# from a pointer re-based every 8 elements (ptr8(i)[0..7]): indexed loads cost an add each and
# a loop test per MAC, which kept the old kernels at 40 % of the viper ceiling.
def _vword(j: str) -> str:
    """int32 word j of P from its two little-endian halves, the high one sign-extended: right
    on 32- and 64-bit ports with small constants only (P[j] would be a runtime call)."""
    return f"(((pq[{j}*2+1]^0x8000)-0x8000)<<16)|pq[{j}*2]"


_VHEAD = " x=ptr8(X);w=ptr8(W);out=ptr8(O);xa=int(x);wa=int(w);pq=ptr16(P)\n" + "".join(
    f" {name}={_vword(str(j))}\n" for j, name in enumerate(PARAMS)
)
_VWINDOW = (
    "   y0=oy*SH-PT;x0=ox*SW-PL\n   ky0=0;ky1=KH;kx0=0;kx1=KW\n"
    "   if y0<0:ky0=0-y0\n   if H-y0<KH:ky1=H-y0\n"
    "   if x0<0:kx0=0-x0\n   if V-x0<KW:kx1=V-x0\n"
)
_VBIAS = "b=16+oc;a=" + _vword("b") + "\n"
_VFIN = "    a=(a*M)>>S\n    if a>127:a=127\n    if a<LO:a=LO\n"
_VSPATIAL = " o=0\n for oy in range(OH):\n  for ox in range(OW):\n" + _VWINDOW + "   for oc in range(OC):\n"


def _vdot(indent: int) -> str:
    """a += the dot product of the bytes at addresses i (input) and k (weights) up to i == e:
    8 at a time, then 4, then one at a time (first layers' rows are short: 4 or 9 bytes)."""
    eight = "+".join(vterm(str(j), str(j)) for j in range(GROUP))
    four = "+".join(vterm(str(j), str(j)) for j in range(4))
    code = (
        f"while i+{GROUP}<=e:\n p=ptr8(i);q=ptr8(k)\n a+={eight}\n i+={GROUP};k+={GROUP}\n"
        f"if i+4<=e:\n p=ptr8(i);q=ptr8(k)\n a+={four}\n i+=4;k+=4\n"
        f"while i<e:\n p=ptr8(i);q=ptr8(k)\n a+={vterm('0', '0')}\n i+=1;k+=1\n"
    )
    return indent_lines(code, indent)


def _vdepthwise() -> str:
    """Depthwise output channels of one pixel: input and weights C apart. A 3-wide window is one
    expression per shape, whole (nine terms) or clipped by padding (2x2, 2x3, 3x2: the edges and
    corners), at offsets set once per call and a shape picked once per pixel; other windows go
    row by row."""
    xo = ["0", "C", "C2", "VC", "VC+C", "VC+C2", "VC2", "VC2+C", "VC2+C2"]
    terms = lambda taps: "+".join(vterm(f"X{j}", f"W{j}") for j in taps)
    three = "+".join(vterm(o, o) for o in ("0", "C", "C2"))
    shapes = ((15, range(9)), (10, (0, 1, 3, 4)), (11, range(6)), (14, (0, 1, 3, 4, 6, 7)))  # m*4+n
    cases = "".join(
        f"    {'if' if i == 0 else 'elif'} cs=={cs}:\n     a+=" + terms(taps) + "\n"
        for i, (cs, taps) in enumerate(shapes)
    )
    return (
        "   n=kx1-kx0;m=ky1-ky0\n   i0=xa+((y0+ky0)*V+x0+kx0)*C;k0=wa+(ky0*KW+kx0)*C\n"
        "   cs=0\n   if KW==3:cs=m*4+n\n"
        "   for oc in range(OC):\n    "
        + _VBIAS
        + "    p=ptr8(i0+oc);q=ptr8(k0+oc)\n"
        + cases
        + "    else:\n     i=i0+oc;k=k0+oc\n     for ky in range(m):\n"
        + indent_lines(
            f"if n==3:\n p=ptr8(i);q=ptr8(k)\n a+={three}\n"
            f"else:\n for j in range(n):\n  p=ptr8(i+j*C);q=ptr8(k+j*C)\n  a+={vterm('0', '0')}\n"
            "i+=VC;k+=KC\n",
            6,
        )
        + _VFIN
        + "    out[o]=a;o+=1\n",
        " C2=C*2;VC=V*C;VC2=VC*2;KC=KW*C\n" + "".join(f" X{j}={o};W{j}=C*{j}\n" for j, o in enumerate(xo)),
    )


VIPER = {
    "CONV_2D": _VSPATIAL + "    " + _VBIAS + "    for ky in range(ky0,ky1):\n"
    "     i=xa+((y0+ky)*V+x0+kx0)*C;k=wa+((oc*KH+ky)*KW+kx0)*C;e=i+(kx1-kx0)*C\n"
    + _vdot(5)
    + _VFIN
    + "    out[o]=a;o+=1\n",
    "DEPTHWISE_CONV_2D": _vdepthwise()[1]
    + " o=0\n for oy in range(OH):\n  for ox in range(OW):\n"
    + _VWINDOW
    + _vdepthwise()[0],
    "FULLY_CONNECTED": " for oc in range(OC):\n    "
    + _VBIAS
    + "    i=xa;k=wa+oc*C;e=i+C\n"
    + _vdot(4)
    + _VFIN
    + "    out[oc]=a\n",
    "AVERAGE_POOL_2D": _VSPATIAL + "    a=0\n    for ky in range(ky0,ky1):\n     for kx in range(kx0,kx1):\n"
    "      a+=(x[((y0+ky)*V+x0+kx)*C+oc]^128)-128\n"
    "    out[o]=a//((ky1-ky0)*(kx1-kx0));o+=1\n",
    "MAX_POOL_2D": _VSPATIAL + "    a=-128\n    for ky in range(ky0,ky1):\n     for kx in range(kx0,kx1):\n"
    "      v=(x[((y0+ky)*V+x0+kx)*C+oc]^128)-128\n      if v>a:a=v\n"
    "    out[o]=a;o+=1\n",
    "ADD": " for i in range(N):\n  a=((x[i]^128)-128)+((w[i]^128)-128)\n"
    "  if a>127:a=127\n  if a<-128:a=-128\n  out[i]=a\n",
    "RELU": " for i in range(N):\n  a=(x[i]^128)-128\n  if a<0:a=0\n  out[i]=a\n",
}


def viper_source(op: str, ty: str) -> str | None:
    if ty != "int8" or op not in VIPER:
        return None
    return "@micropython.viper\ndef k(X,W,O,P):\n" + _VHEAD + VIPER[op]


# the generic layer module's hooks (kernels.emitters.Emitter.generic names this module; kernels.ops.dispatch calls them)
def generic(op: str, emitter: str, dtype: str) -> str | None:
    return viper_source(op, dtype)


def limit(layer) -> str | None:
    return None  # every layer of an op it runs


def variant(job) -> Variant:
    """Windows clipped by padding take paths of their own (the window terms)."""
    return Variant(window_paths=True)
