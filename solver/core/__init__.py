"""The ground floor: the errors of user input, the per-user cache folder, where
Numba caches the kernels, its threading layer, and the bit intrinsics the kernels share.
Imports no other layer."""
