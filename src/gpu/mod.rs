//! GPU backend: device/adapter set-up, typed buffers, generic primitives (scan) and the SPD stepper.
