"""Running, checking and timing candidate kernels; reports."""
