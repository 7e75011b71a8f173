"""The table files and reading them: the HDF5 format, the sectors and chunks in
memory, one layer's reads, compact codes, the warm probes' kernels, and the solve a file
lacks named in errors. May import ``core``, ``rules`` and ``index``."""
