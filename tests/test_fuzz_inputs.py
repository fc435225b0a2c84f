"""Fuzzing the two public surfaces with hypothesis: CLI argument lists and HTTP paths and queries.

The property is the issue's: no traceback and no crash (CLI: exit 0 or 2, never 70 'internal
error'; HTTP: never a 5xx, never a Python traceback in the body). The default run tries a few
hundred cases per surface; the slow run (CI's full command) tries thousands.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

NAMES = ["v_sad_u32", "V_SAD_U32_e64", "clmad", "s_mov_b32", "v_lshl_add_u64", "mad.lo.s32", "add", "v_", "", "%",
         "..", "../../etc/passwd", "v_mov_b32_dpp", "buffer_atomic_add"]
ARCHS = ["rdna3", "rdna4", "cdna5", "gfx1100", "vega", "ptx", "nvidia", "rdna9", "", "RDNA3", "gfx9999"]
WEIRD = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=40)
TOKEN = st.one_of(st.sampled_from(NAMES), st.sampled_from(ARCHS), WEIRD,
                  st.sampled_from(["--json", "--arch", "--limit", "--from", "--to", "--catalog", "--bogus", "-a", "-f",
                                   "--vendor", "--form", "0", "-1", "501", "abc", "S0=1", "S1=0x10", "S2=1.5", "a=3",
                                   "S0=", "=5", "S0=nan", "S0=-2147483648", "x" * 300]))
COMMANDS = st.sampled_from(["show", "search", "diff", "archs", "eval", "nosuch", "--help", ""])


def run_cli(argv: list[str]) -> tuple[int, str]:
    from gpuisa.cli import main

    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exc:
        main(argv)
    return int(exc.value.code or 0), err.getvalue()


def check_cli(argv: list[str]) -> None:
    code, err = run_cli(argv)
    assert "Traceback" not in err and "internal error" not in err, (argv, err)
    assert code in (0, 2), (argv, code, err)
    if code == 2:
        assert len(err.splitlines()) == 1 and err.startswith("gpuisa: error: "), (argv, err)


CLI_CASES = st.builds(lambda c, rest: [c, *rest] if c else rest, COMMANDS, st.lists(TOKEN, max_size=6))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CLI_CASES)
def test_cli_arguments(catalog_path: Path, argv: list[str]):
    check_cli([*argv, "--catalog", str(catalog_path)] if argv and argv[0] in ("show", "search", "diff", "archs") else argv)


SEGMENT = st.one_of(st.sampled_from(["amd", "ptx", "arch", "diff", "api", "instruction", "search", "static", "archs",
                                     "style.css", "app.js", "", ".", ".."]),
                    st.sampled_from(NAMES), st.sampled_from(ARCHS), WEIRD)
PARAM = st.sampled_from(["q", "arch", "limit", "name", "a", "b", "junk", "q[]", ""])
VALUE = st.one_of(st.sampled_from(NAMES + ARCHS + ["0", "-1", "501", "9" * 30, "a " * 50]), WEIRD)


def url_of(segments: list[str], query: list[tuple[str, str]]) -> str:
    path = "/" + "/".join(quote(s, safe="") for s in segments)
    if query:
        path += "?" + "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in query)
    return path


HTTP_CASES = st.builds(url_of, st.lists(SEGMENT, min_size=0, max_size=4), st.lists(st.tuples(PARAM, VALUE), max_size=3))


@pytest.fixture(scope="module")
def client(catalog_path: Path):
    from fastapi.testclient import TestClient

    from gpuisa.web.app import create_app

    with TestClient(create_app(catalog_path), raise_server_exceptions=False, follow_redirects=False) as c:
        yield c


def check_http(client, url: str) -> None:
    r = client.get("http://testserver" + url)   # absolute: the test client refuses a relative "//x" path
    assert r.status_code < 500, (url, r.status_code, r.text[:300])
    assert "Traceback" not in r.text, url


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(HTTP_CASES)
def test_http_paths_and_queries(client, url: str):
    check_http(client, url)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.function_scoped_fixture])
@given(HTTP_CASES)
def test_http_paths_and_queries_exhaustive(client, url: str):
    check_http(client, url)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CLI_CASES)
def test_cli_arguments_exhaustive(catalog_path: Path, argv: list[str]):
    check_cli([*argv, "--catalog", str(catalog_path)] if argv and argv[0] in ("show", "search", "diff", "archs") else argv)


@pytest.mark.parametrize(("url", "status"), [
    ("/api/diff/rdna3/rdna4?name=clmad", 400), ("/diff/rdna3/rdna4?name=clmad", 400),
    ("/api/search?q=" + "a%20" * 200, 400), ("/search?q=" + "a+" * 90, 400), ("/api/search?q=" + "a+" * 13, 400),
    ("/api/instruction/" + "v" * 129, 400), ("/amd/%00", 400), ("/api/search?q=%ff%fe", 200),
])
def test_known_hostile_urls(client, url: str, status: int):
    r = client.get(url)
    assert r.status_code == status, (url, r.status_code, r.text[:200])
