// The sdist has no extmod/; py/mphal.h includes this only for virtual pins, which this port lacks.
