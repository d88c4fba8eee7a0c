import subprocess
import sys


def test_compiled_module_stubs_match_runtime():
    """The .pyi stubs shipped for kvlog._core describe the compiled modules exactly (mypy stubtest)."""
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "kvlog._core.crc", "kvlog._core.records", "kvlog._core.index",
         "kvlog._core.offset_map"],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_package_is_typed():
    import importlib.resources

    assert importlib.resources.files("kvlog").joinpath("py.typed").is_file()
