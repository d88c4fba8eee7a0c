"""Build configuration for kvlog's compiled layer (metadata lives in pyproject.toml).

Build-time switches (read here only, never at import time):
  KVLOG_DEBUG_BUILD=1         bounds-checked Cython, -O0 -g, assertions on, annotated HTML
  KVLOG_MARCH=<arch>          opt-in -march=<arch> for local builds; never set for wheels
  KVLOG_WARNINGS_AS_ERRORS=1  -Werror on the hand-written C kernels' warnings
  KVLOG_CYTHON_BUILD_DIR=<dir> write the generated .c files there instead of beside the .pyx files, so a
                              wheel or debug build never reuses (or leaves behind) another build's C code
"""

import os
from glob import glob

import numpy
from Cython import __version__ as cython_version
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("KVLOG_DEBUG_BUILD") == "1"
MARCH = os.environ.get("KVLOG_MARCH", "")
WERROR = os.environ.get("KVLOG_WARNINGS_AS_ERRORS") == "1"
# Debug builds get their own generated C by default: the directives differ, and cythonize only looks at mtimes.
CYTHON_BUILD_DIR = os.environ.get("KVLOG_CYTHON_BUILD_DIR") or ("build-debug/cython" if DEBUG else None)

CORE = "src/kvlog/_core"
INCLUDE = [f"{CORE}/include", numpy.get_include()]
HEADERS = sorted(glob(f"{CORE}/include/*.h"))
CRC_SOURCES = [f"{CORE}/csrc/cpu.c", f"{CORE}/csrc/crc32.c", f"{CORE}/csrc/crc32c.c"]

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
    "autotestdict": False,
    "auto_pickle": False,
}

cflags = ["-fvisibility=hidden", "-Wall", "-Wno-unused-function", "-Wno-unreachable-code"]
cflags += ["-O0", "-g", "-UNDEBUG"] if DEBUG else ["-O3"]
if MARCH:
    cflags.append(f"-march={MARCH}")
if WERROR:
    cflags.append("-Werror=implicit-function-declaration")
ldflags = [] if DEBUG else ["-s"]
macros = [
    ("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
    ("KVLOG_BUILD_MODE", '"debug"' if DEBUG else '"release"'),
    ("KVLOG_CYTHON_VERSION", f'"{cython_version}"'),
]


def ext(name: str, extra_sources: list[str] = ()) -> Extension:
    return Extension(
        f"kvlog._core.{name}",
        [f"{CORE}/{name}.pyx", *extra_sources],
        include_dirs=INCLUDE,
        depends=HEADERS + glob(f"{CORE}/*.pxd") + glob(f"{CORE}/*.pxi"),
        extra_compile_args=cflags,
        extra_link_args=ldflags,
        define_macros=macros,
    )


extensions = [
    ext("crc", CRC_SOURCES),
    ext("records", CRC_SOURCES + [f"{CORE}/csrc/mem.c"]),
    ext("index"),
    ext("offset_map", [f"{CORE}/csrc/cpu.c", f"{CORE}/csrc/md5.c"]),
    ext("partitioner"),
    ext("point", CRC_SOURCES),
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        annotate=DEBUG,
        nthreads=0,
        build_dir=CYTHON_BUILD_DIR,
    ),
)
