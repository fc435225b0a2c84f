"""Every CLI misuse ends in exactly one `gpuisa: error:` line on stderr and exit status 2.

The table runs `gpuisa.cli.main` in-process (the same code the `gpuisa` script runs); a few cases
that only a real process can show (undecodable argv bytes, Ctrl-C, the installed entry point) run
as subprocesses. Each case names the fragment its one line must hold, so a misuse that fails for
another reason than the one intended does not pass.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpuisa.limits import MAX_ARGUMENT_CHARS, MAX_QUERY_CHARS, MAX_QUERY_TERMS

# (id, argv, fragment of the error line); "{catalog}", "{file}", "{dir}" are filled in per test.
NO_CATALOG = [
    ("no arguments", [], "no command given"),
    ("unknown command", ["frobnicate"], "No such command 'frobnicate'"),
    ("unknown option", ["--bogus"], "No such option: --bogus"),
    ("show without name", ["show"], "Missing argument"),
    ("search without text", ["search"], "Missing argument"),
    ("eval without name", ["eval"], "give an instruction name"),   # the name is optional since `eval --coverage`
    ("show unknown option", ["show", "v_sad_u32", "--bogus"], "No such option: --bogus"),
    ("option without value", ["show", "v_sad_u32", "--arch"], "--arch"),
    ("limit not a number", ["search", "sad", "--limit", "abc"], "'--limit'"),
    ("limit float", ["search", "sad", "--limit", "2.5"], "'--limit'"),
    ("port too large", ["serve", "--port", "99999"], "'--port'"),
    ("port zero", ["serve", "--port", "0"], "'--port'"),
    ("port not a number", ["serve", "--port", "http"], "'--port'"),
    ("cache negative", ["serve", "--cache", "-1"], "'--cache'"),
    ("origin not a URL", ["serve", "--origin", "javascript:alert(1)", "--catalog", "{catalog}"], "--origin"),
    ("jobs zero", ["build", "--jobs", "0"], "'--jobs'"),
    ("jobs not a number", ["build", "--jobs", "many"], "'--jobs'"),
    ("site without --out", ["site"], "--out"),
    ("archs extra argument", ["archs", "extra"], "Got unexpected extra argument"),
    ("show two names", ["show", "a", "b"], "Got unexpected extra argument"),
    ("fetch retries not a number", ["fetch", "--retries", "x"], "'--retries'"),
    ("fetch unknown source", ["fetch", "--only", "nosuchsource", "--list"], "nosuchsource"),
    ("argument too long", ["show", "a" * (MAX_ARGUMENT_CHARS + 1)], f"at most {MAX_ARGUMENT_CHARS}"),
    ("argument of 50,000 characters", ["search", "x" * 50_000], "characters long"),
    ("argument not UTF-8", ["show", "v_\udcff\udcfe"], "not valid UTF-8"),
    ("argument with NUL", ["show", "v_sad\x00u32"], "NUL"),
    ("catalog missing", ["archs", "--catalog", "{dir}/none.sqlite"], "no catalog at"),
    ("catalog not a database", ["archs", "--catalog", "{file}"], "not a gpuisa catalog"),
    ("catalog is a folder", ["show", "v_sad_u32", "--catalog", "{dir}"], "no catalog at"),
    ("build catalog is a folder", ["build", "--catalog", "{dir}"], "is a folder"),
    ("build catalog under a file", ["build", "--catalog", "{file}/catalog.sqlite"], "cannot write the catalog"),
    ("build catalog unwritable", ["build", "--catalog", "/proc/gpuisa-catalog.sqlite"], "cannot write the catalog"),
    ("build sources missing", ["build", "--sources", "{dir}/nowhere", "--catalog", "{dir}/c.sqlite"],
     "sources folder not found"),
    ("site out is a file", ["site", "--out", "{file}", "--catalog", "{catalog}"], "is not a folder"),
    ("site out under a file", ["site", "--out", "{file}/site", "--catalog", "{catalog}"], "cannot write the output folder"),
    ("site out unwritable", ["site", "--out", "/proc/gpuisa-site", "--catalog", "{catalog}"],
     "cannot write the output folder"),
    ("serve catalog under a file", ["serve", "--catalog", "{file}/c.sqlite"], "cannot write the catalog"),
]

WITH_CATALOG = [
    ("unknown instruction", ["show", "v_no_such_thing"], "unknown instruction 'v_no_such_thing'"),
    ("unknown arch", ["show", "v_sad_u32", "--arch", "rdna9"], "unknown architecture 'rdna9'"),
    ("not in that manual", ["show", "v_lshl_add_u64", "--arch", "rdna3"], "not in the rdna3 manual"),
    ("limit zero", ["search", "sad", "--limit", "0"], "--limit"),
    ("limit over 500", ["search", "sad", "--limit", "501"], "--limit"),
    ("search blank", ["search", "   "], "empty search text"),
    ("search too long", ["search", "a" * (MAX_QUERY_CHARS + 1)], f"at most {MAX_QUERY_CHARS}"),
    ("search too many words", ["search", " ".join(["a"] * (MAX_QUERY_TERMS + 1))], f"at most {MAX_QUERY_TERMS}"),
    ("search 5,000 words", ["search", " ".join(["a"] * 2000)], "at most"),
    ("search unknown arch", ["search", "sad", "--arch", "rdna9"], "unknown architecture"),
    ("diff unknown arch", ["diff", "--from", "rdna9", "--to", "rdna4"], "unknown architecture 'rdna9'"),
    ("diff unknown name", ["diff", "v_no_such_thing"], "unknown instruction"),
    ("diff of a PTX instruction", ["diff", "clmad"], "clmad"),
    ("eval unknown vendor", ["eval", "v_sad_u32", "--vendor", "intel"], "unknown vendor"),
    ("eval operand without value", ["eval", "v_sad_u32", "--arch", "rdna3", "S0"], "S0"),
    ("eval operand not a number", ["eval", "v_sad_u32", "--arch", "rdna3", "S0=abc"], "S0"),
    ("eval unknown instruction", ["eval", "v_no_such_thing", "--arch", "rdna3"], "v_no_such_thing"),
    ("eval float for a u32 operand", ["eval", "v_sad_u32", "--arch", "rdna3", "S0=1.5", "S1=1", "S2=1"], "S0"),
    ("eval unknown arch", ["eval", "v_sad_u32", "--arch", "rdna9"], "rdna9"),
]


def _fill(argv: list[str], catalog: Path, tmp: Path) -> list[str]:
    file = tmp / "plain.txt"
    file.write_text("not a catalog\n")
    return [a.replace("{catalog}", str(catalog)).replace("{file}", str(file)).replace("{dir}", str(tmp)) for a in argv]


def _run_main(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    from gpuisa.cli import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return int(exc.value.code or 0), out, err


def _assert_one_error_line(code: int, err: str, fragment: str) -> None:
    lines = err.splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and lines[0].startswith("gpuisa: error: "), err
    assert fragment in lines[0], (fragment, lines[0])
    assert "Traceback" not in err


def test_the_table_has_at_least_forty_misuses():
    assert len(NO_CATALOG) + len(WITH_CATALOG) >= 40


@pytest.mark.parametrize(("argv", "fragment"), [c[1:] for c in NO_CATALOG], ids=[c[0] for c in NO_CATALOG])
def test_misuse_without_a_catalog(argv, fragment, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GPUISA_CATALOG", str(tmp_path / "absent.sqlite"))
    code, _, err = _run_main(_fill(argv, tmp_path / "absent.sqlite", tmp_path), capsys)
    _assert_one_error_line(code, err, fragment)


@pytest.mark.parametrize(("argv", "fragment"), [c[1:] for c in WITH_CATALOG], ids=[c[0] for c in WITH_CATALOG])
def test_misuse_with_a_catalog(argv, fragment, catalog_path, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GPUISA_CATALOG", str(catalog_path))
    code, _, err = _run_main(_fill(argv, catalog_path, tmp_path), capsys)
    _assert_one_error_line(code, err, fragment)


def test_output_paths_are_checked_before_building(tmp_path):
    """`build --catalog` at an unwritable place fails at once, not after reading the sources."""
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "gpuisa", "build", "--catalog", "/proc/x/catalog.sqlite"],
                       capture_output=True, timeout=60)
    assert r.returncode == 2 and r.stderr.decode().startswith("gpuisa: error: cannot write the catalog")
    assert time.monotonic() - start < 30   # a build takes minutes; this is only the process start


def test_undecodable_argv_bytes_in_a_real_process():
    r = subprocess.run([sys.executable.encode(), b"-m", b"gpuisa", b"show", b"v_\xff\xfe"], capture_output=True, timeout=60)
    lines = r.stderr.decode().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "not valid UTF-8" in lines[0]


def test_help_is_not_an_error(capsys):
    code, out, err = _run_main(["--help"], capsys)
    assert code == 0 and "search" in out and err == ""


def test_no_arguments_prints_the_commands_and_one_error_line(capsys):
    code, out, err = _run_main([], capsys)
    assert code == 2 and "build" in out and "search" in out
    _assert_one_error_line(code, err, "no command given")


def test_closed_stdout_is_quiet(catalog_path):
    """`gpuisa search x | head -1`: the reader goes away; no traceback, no 'Exception ignored' noise."""
    proc = subprocess.Popen([sys.executable, "-m", "gpuisa", "search", "v", "--limit", "500", "--catalog", str(catalog_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert b"Traceback" not in err and b"Exception ignored" not in err


def _descendants(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout.split()
    kids = [int(p) for p in out]
    return kids + [g for k in kids for g in _descendants(k)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def test_ctrl_c_during_a_command_exits_130(catalog_path):
    """SIGINT to the process group (as a terminal sends it) while `gpuisa serve` runs: 130 and 'interrupted'."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "gpuisa", "serve", "--port", str(port), "--catalog", str(catalog_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    assert proc.stdout is not None
    proc.stdout.readline()   # "serving ..." is printed once the app is built
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.decode().strip().splitlines()[-1] == "gpuisa: interrupted"
