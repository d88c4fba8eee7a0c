import importlib.machinery
import pathlib
import subprocess
import sys

import kvlog._core


def compiled_modules():
    """Every extension module of kvlog._core, found in the installed package (not a hand-kept list)."""
    pkg = pathlib.Path(kvlog._core.__file__).parent
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    names = {p.name.split(".", 1)[0] for p in pkg.iterdir() if p.name.endswith(suffixes)}
    return sorted(f"kvlog._core.{n}" for n in names)


def test_every_compiled_module_has_a_stub():
    mods = compiled_modules()
    assert {"kvlog._core.crc", "kvlog._core.records", "kvlog._core.index", "kvlog._core.offset_map"} <= set(mods)
    pkg = pathlib.Path(kvlog._core.__file__).parent
    missing = [m for m in mods if not (pkg / (m.rsplit(".", 1)[1] + ".pyi")).is_file()]
    assert not missing, missing


def test_compiled_module_stubs_match_runtime():
    """The .pyi stubs shipped for kvlog._core describe the compiled modules exactly (mypy stubtest)."""
    proc = subprocess.run([sys.executable, "-m", "mypy.stubtest", *compiled_modules()],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_package_is_typed():
    import importlib.resources

    assert importlib.resources.files("kvlog").joinpath("py.typed").is_file()
