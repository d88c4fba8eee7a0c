"""Build configuration for kvlog's compiled layer (metadata lives in pyproject.toml).

Build-time switches (read here only, never at import time):
  KVLOG_DEBUG_BUILD=1         bounds-checked Cython, -O0 -g, assertions on, annotated HTML
  KVLOG_MARCH=<arch>          opt-in -march=<arch> for local builds; never set for wheels
  KVLOG_WARNINGS_AS_ERRORS=1  -Werror on the hand-written C kernels' warnings
  KVLOG_CYTHON_BUILD_DIR=<dir> write the generated .c files there instead of beside the .pyx files, so a
                              wheel or debug build never reuses (or leaves behind) another build's C code
  KVLOG_REQUIRE_JAR=1         fail the wheel build when the JVM Spark source's jar cannot be put in it
                              (`make wheel` and the wheels workflow set it); otherwise a build without javac
                              or pyspark leaves the jar out with a one-line message
  KVLOG_REQUIRE_SYSTEM_CODECS=1  fail when liblz4/libzstd cannot be linked (see CODEC_SOURCES below)
  KVLOG_SPARK_CLASSPATH=<dir> the folder of Spark jars to compile the jar against (default: the jars/ of the
                              pyspark this Python can import); see tools/build_jar.py
"""

import importlib.util
import os
import pathlib
import sys
from glob import glob

import numpy
from Cython import __version__ as cython_version
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.errors import SetupError

DEBUG = os.environ.get("KVLOG_DEBUG_BUILD") == "1"
MARCH = os.environ.get("KVLOG_MARCH", "")
WERROR = os.environ.get("KVLOG_WARNINGS_AS_ERRORS") == "1"
# Debug builds get their own generated C by default: the directives differ, and cythonize only looks at mtimes.
CYTHON_BUILD_DIR = os.environ.get("KVLOG_CYTHON_BUILD_DIR") or ("build-debug/cython" if DEBUG else None)
REQUIRE_JAR = os.environ.get("KVLOG_REQUIRE_JAR") == "1"
HERE = pathlib.Path(__file__).resolve().parent

CORE = "src/kvlog/_core"
INCLUDE = [f"{CORE}/include", numpy.get_include()]
HEADERS = sorted(glob(f"{CORE}/include/*.h"))
CRC_SOURCES = [f"{CORE}/csrc/cpu.c", f"{CORE}/csrc/crc32.c", f"{CORE}/csrc/crc32c.c"]
# The record decoder's own snappy/lz4/zstd decompression without the GIL (csrc/codec.c): snappy is kvlog's
# own code; lz4 and zstd are the system's liblz4 and libzstd (Debian: liblz4-dev libzstd-dev, RHEL/manylinux:
# lz4-devel libzstd-devel; tools/system_libs.sh installs them), linked dynamically and grafted into wheels by
# auditwheel. Without them the build goes on with snappy only (lz4 and zstd batches are then inflated by the
# Python packages, holding the GIL), unless KVLOG_REQUIRE_SYSTEM_CODECS=1 (the Makefile and the wheels).
REQUIRE_SYSTEM_CODECS = os.environ.get("KVLOG_REQUIRE_SYSTEM_CODECS") == "1"
_PROBE = """#include <lz4frame.h>
#include <zstd.h>
int main(void) { LZ4F_dctx *l; ZSTD_DCtx *z = ZSTD_createDCtx();
  return (int)LZ4F_isError(LZ4F_createDecompressionContext(&l, LZ4F_VERSION)) + (z == 0); }
"""


def _system_codecs() -> bool:
    """Whether this machine compiles and links against liblz4 and libzstd (a probe program, as configure does)."""
    import shlex
    import subprocess
    import sysconfig
    import tempfile

    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp, "probe.c")
        src.write_text(_PROBE)
        cmd = [*cc, str(src), "-o", str(pathlib.Path(tmp, "probe")), "-llz4", "-lzstd"]
        try:
            return subprocess.run(cmd, capture_output=True).returncode == 0
        except OSError:
            return False


HAVE_SYSTEM_CODECS = _system_codecs()
if not HAVE_SYSTEM_CODECS:
    hint = "install liblz4 and libzstd's headers (Debian: liblz4-dev libzstd-dev; RHEL: lz4-devel libzstd-devel)"
    if REQUIRE_SYSTEM_CODECS:
        raise SetupError(f"KVLOG_REQUIRE_SYSTEM_CODECS=1 but liblz4/libzstd cannot be linked: {hint}")
    print(f"setup.py: liblz4/libzstd not found ({hint}); lz4 and zstd batches are decompressed holding the GIL",
          file=sys.stderr)
CODEC_SOURCES = [f"{CORE}/csrc/codec.c"]
CODEC_MACROS = [("KVLOG_SYSTEM_CODECS", "1" if HAVE_SYSTEM_CODECS else "0")]
CODEC_LIBRARIES = ["lz4", "zstd"] if HAVE_SYSTEM_CODECS else []

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
    "autotestdict": False,
    "auto_pickle": False,
    # Free-threaded CPython (3.13t/3.14t) keeps the GIL off with these modules imported. What makes that
    # true: no module keeps mutable state in Python objects; the C kernels' shared state is the CPU
    # dispatch (atomics, set once: csrc/cpu.c, crc32*.c, md5.c), the buffer pool (a mutex: csrc/mem.c);
    # every decoder, encoder and map owns its buffers and codec contexts. `make tsan` checks the kernels.
    "freethreading_compatible": True,
}

cflags = ["-fvisibility=hidden", "-Wall", "-Wno-unused-function", "-Wno-unreachable-code"]
cflags += ["-O0", "-g", "-UNDEBUG"] if DEBUG else ["-O3"] + (["-g"] if os.environ.get("KVLOG_KEEP_SYMBOLS") else [])
if MARCH:
    cflags.append(f"-march={MARCH}")
if WERROR:
    cflags.append("-Werror=implicit-function-declaration")
ldflags = [] if DEBUG or os.environ.get("KVLOG_KEEP_SYMBOLS") else ["-s"]
macros = [
    ("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
    ("KVLOG_BUILD_MODE", '"debug"' if DEBUG else '"release"'),
    ("KVLOG_CYTHON_VERSION", f'"{cython_version}"'),
]


def ext(name: str, extra_sources: list[str] = (), extra_macros: list[tuple[str, str]] = (),
        libraries: list[str] = ()) -> Extension:
    return Extension(
        f"kvlog._core.{name}",
        [f"{CORE}/{name}.pyx", *extra_sources],
        include_dirs=INCLUDE,
        depends=HEADERS + glob(f"{CORE}/*.pxd") + glob(f"{CORE}/*.pxi"),
        extra_compile_args=cflags,
        extra_link_args=ldflags,
        define_macros=macros + list(extra_macros),
        libraries=list(libraries),
    )


extensions = [
    ext("crc", CRC_SOURCES),
    ext("records", CRC_SOURCES + [f"{CORE}/csrc/mem.c"] + CODEC_SOURCES, CODEC_MACROS, CODEC_LIBRARIES),
    ext("index"),
    ext("offset_map", [f"{CORE}/csrc/cpu.c", f"{CORE}/csrc/md5.c"]),
    ext("partitioner"),
    ext("point", CRC_SOURCES),
    ext("typed", [f"{CORE}/csrc/{name}.c" for name in ("mem", "columns", "typed", "avro", "proto", "json")]),
]


def _jar_tool():
    """tools/build_jar.py, loaded by path (tools/ is not a package), or None when this tree lacks it."""
    tool = HERE / "tools" / "build_jar.py"
    if not tool.is_file():
        return None
    spec = importlib.util.spec_from_file_location("kvlog_build_jar", tool)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildPyWithJar(build_py):
    """The usual build_py, then the JVM Spark source's jar as package data: kvlog/spark/jars/kvlog-spark.jar.

    The jar comes from build-jar/ when it is up to date with java/ (no JDK needed: the wheels workflow builds
    it once before cibuildwheel), else tools/build_jar.py compiles it there. Without javac or Spark's jars the
    wheel goes without it (the Python source remains), unless KVLOG_REQUIRE_JAR=1. Editable installs skip it:
    kvlog.spark.jar_path() finds build-jar/ in the checkout.
    """

    def run(self):
        super().run()
        self._jar = None
        if getattr(self, "editable_mode", False):
            return
        tool = _jar_tool()
        if tool is None:
            why = "tools/build_jar.py is not in this source tree"
            if REQUIRE_JAR:
                raise SetupError(f"KVLOG_REQUIRE_JAR=1 but {why}")
            print(f"setup.py: {why}; the wheel carries no kvlog-spark.jar", file=sys.stderr)
            return
        try:
            jar = tool.build(HERE / "build-jar", require=REQUIRE_JAR)
        except tool.JarBuildError as exc:
            if REQUIRE_JAR:
                raise SetupError(f"{exc} (KVLOG_REQUIRE_JAR=1)") from exc
            print(f"{exc}; the wheel carries no {tool.JAR_NAME}", file=sys.stderr)
            return
        if jar is None:
            return
        dest = os.path.join(self.build_lib, "kvlog", "spark", "jars", tool.JAR_NAME)
        self.mkpath(os.path.dirname(dest))
        self.copy_file(str(jar), dest, preserve_times=False)
        self._jar = dest

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        jar = getattr(self, "_jar", None)
        return outputs + [jar] if jar and jar not in outputs else outputs


setup(
    cmdclass={"build_py": BuildPyWithJar},
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        annotate=DEBUG,
        nthreads=0,
        build_dir=CYTHON_BUILD_DIR,
    ),
)
