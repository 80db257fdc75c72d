"""Keeping freed image memory for the next image in a render process or a build (glibc's ``malloc`` only).

Contract. :func:`keep_freed_image_memory` asks the C allocator to serve Pillow's image blocks (16 MiB each by
default) from the heap and to keep up to :data:`KEPT_FREE_BYTES` of freed heap instead of handing it back to the
system at once. It changes no pixel and no output; it returns whether the allocator took the advice (False on a
system without glibc's ``mallopt``, where it does nothing).

Why. A sheet is tens of MiB and each cell a few; a render process draws and frees one after another. By default
glibc maps each large block anew and unmaps it when freed, and the kernel hands every page of the next one back
zeroed: a 1,000-card build with two render processes took about 500,000 page faults and a second of
system time (100,000 faults and 0.4 s with this advice; one process without the pool was already near that,
since glibc's own threshold had risen in it). The figures are in the commit that added this module. A build's own
process (``ttsmod build``) takes the advice too: a rebuild draws its changed sheets in it and then reads and
writes tens of megabytes of save text into the memory the images freed.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
"""``mallopt`` parameters, from glibc's ``malloc.h``."""

MAPPED_FROM_BYTES = 32 * 1024 * 1024
"""Blocks this large or larger are mapped on their own (glibc's largest allowed threshold on 64-bit systems);
Pillow's 16 MiB image blocks stay below it."""
KEPT_FREE_BYTES = 128 * 1024 * 1024
"""Freed heap kept for reuse before it is handed back (a few sheets' worth; well inside the build's 1 GiB)."""

_advised = False


def keep_freed_image_memory() -> bool:
    """Advise glibc's allocator as the module says, once per process; True when it took the advice."""
    global _advised
    if _advised:
        return True
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    _advised = bool(mallopt(M_MMAP_THRESHOLD, MAPPED_FROM_BYTES)) and bool(mallopt(M_TRIM_THRESHOLD,
                                                                                  KEPT_FREE_BYTES))
    return _advised
