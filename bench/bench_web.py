"""Load bench of the web reference with wrk: pages/s, p99 latency and errors, and the ratio against
the same page from the static export served by plain static servers (`python -m http.server`, and
nginx when installed).

    python bench/bench_web.py [--duration 30] [--connections 32] [--threads 2] [--json out.json]

Targets (issue "The web reference"): >= 500 pages/s, p99 < 50 ms, zero errors. The server runs as
`gpuisa serve` does (uvicorn, no access log, in-memory page cache). Needs `wrk` (apt-get install wrk).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = "/amd/cdna5/v_sad_u32"
SEARCH = "/api/search?q=v_sad"
STATIC_PAGE = "/amd/cdna5/v_sad_u32.html"

# Rotating search queries: prefixes and words, so the search endpoint is measured past its cache too.
ROTATE_LUA = """
local queries = {%s}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", "/api/search?limit=10&q=" .. queries[(i %% #queries) + 1])
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server for {url} exited: {proc.stderr.read().decode(errors='replace') if proc.stderr else ''}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except urllib.error.HTTPError as exc:
            raise SystemExit(f"{url} answered {exc.code}: {exc.read()[:300]!r}") from None
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"server at {url} did not come up")


@contextlib.contextmanager
def process(cmd: list[str], ready_url: str, cwd: Path | None = None) -> Iterator[None]:
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_ready(ready_url, proc)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def wrk(url: str, duration: int, connections: int, threads: int, script: Path | None = None) -> dict:
    """Run wrk and parse requests/s, p99 and errors (socket errors + non-2xx/3xx)."""
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency"]
    if script:
        cmd += ["-s", str(script)]
    out = subprocess.run([*cmd, url], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", out)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
    total = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = (int(non2xx.group(1)) if non2xx else 0) + (sum(int(x) for x in sock.groups()) if sock else 0)
    return {"url": url, "requests": total, "rps": round(rps, 1), "p99_ms": round(float(p99.group(1)) * scale, 2),
            "errors": errors}


def static_servers(root: Path) -> Iterator[tuple[str, list[str], int]]:
    """(label, command, port) for Python's http.server, and nginx with a throwaway config when installed."""
    port = free_port()
    yield "python -m http.server", [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port),
                                    "--directory", str(root)], port
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx:
        port = free_port()
        conf = root.parent / "nginx.conf"
        mime = "include /etc/nginx/mime.types;" if Path("/etc/nginx/mime.types").exists() else ""
        conf.write_text(
            f"daemon off; worker_processes auto; pid {root.parent}/nginx.pid; error_log stderr;\n"
            f"events {{ worker_connections 1024; }}\n"
            f"http {{ access_log off; {mime} server {{ listen 127.0.0.1:{port}; root {root}; }} }}\n")
        yield "nginx", [nginx, "-c", str(conf), "-p", str(root.parent)], port


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=int, default=30, help="seconds per wrk run")
    ap.add_argument("--connections", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--catalog", type=Path, default=None, help="catalog file (built when missing)")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    ap.add_argument("--skip-static", action="store_true", help="skip the static-export comparison")
    args = ap.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk not found (apt-get install -y wrk)")

    work = Path(tempfile.mkdtemp(prefix="gpuisa-bench-"))
    work.chmod(0o755)  # nginx workers may run as another user
    catalog = args.catalog or Path(os.environ.get("GPUISA_CATALOG", work / "catalog.sqlite"))
    gpuisa = [sys.executable, "-c", "from gpuisa.cli import main; main()"]
    if not catalog.is_file():
        subprocess.run([*gpuisa, "build", "--catalog", str(catalog)], check=True, stdout=subprocess.DEVNULL)

    from gpuisa.catalog.query import Catalog

    names = Catalog(catalog).names()
    queries = sorted({n.lower()[:k] for n in names[::7] for k in (4, 6, 9)})[:400]
    queries += ["absolute%20difference", "carry", "shift%20left", "convert", "atomic"]
    lua = work / "rotate.lua"
    lua.write_text(ROTATE_LUA % ", ".join(f'"{q}"' for q in queries))

    results: dict[str, dict] = {}
    w = (args.duration, args.connections, args.threads)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    load_before = os.getloadavg()
    with process([*gpuisa, "serve", "--catalog", str(catalog), "--port", str(port)], base + PAGE):
        results["page"] = wrk(base + PAGE, *w)
        results["page_c8"] = wrk(base + PAGE, args.duration, 8, 1)  # moderate concurrency: less queueing
        results["search"] = wrk(base + SEARCH, *w)
        results["search_rotating"] = wrk(base + "/", *w, script=lua)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with process([*gpuisa, "serve", "--catalog", str(catalog), "--port", str(port), "--cache", "0"], base + PAGE):
        results["page_uncached"] = wrk(base + PAGE, *w)

    site = work / "site"
    if not args.skip_static:
        subprocess.run([*gpuisa, "site", "--out", str(site), "--catalog", str(catalog)], check=True,
                       stdout=subprocess.DEVNULL)
    ratios = {}
    for label, cmd, port in ([] if args.skip_static else static_servers(site)):
        url = f"http://127.0.0.1:{port}{STATIC_PAGE}"
        with process(cmd, url):
            key = "static_page_" + ("nginx" if label == "nginx" else "http_server")
            results[key] = wrk(url, *w)
        ratios[label] = round(results["page"]["rps"] / results[key]["rps"], 2)
    summary = {"duration_s": args.duration, "connections": args.connections, "threads": args.threads,
               "cpus": os.cpu_count(), "loadavg_before": load_before, "loadavg_after": os.getloadavg(),
               "results": results, "page_vs_static_ratio": ratios,
               "targets_met": results["page"]["rps"] >= 500 and results["page"]["p99_ms"] < 50
               and all(r["errors"] == 0 for r in results.values())}
    shutil.rmtree(work, ignore_errors=True)

    print(f"{'run':<24} {'req/s':>10} {'p99 ms':>8} {'errors':>7} {'requests':>10}")
    for name, r in results.items():
        print(f"{name:<24} {r['rps']:>10.1f} {r['p99_ms']:>8.2f} {r['errors']:>7} {r['requests']:>10}")
    for label, ratio in ratios.items():
        print(f"gpuisa page / same page from the static export via {label}: {ratio:.2f}x")
    print(f"targets (>= 500 pages/s, p99 < 50 ms, 0 errors) met: {summary['targets_met']}; "
          f"load average before/after: {load_before[0]:.1f}/{summary['loadavg_after'][0]:.1f} on {os.cpu_count()} CPUs "
          "(wrk shares the machine: other load inflates p99)")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
