"""Does one expensive client stall everyone? A cached page's latency while 8 worst-case search clients run.

    python bench/bench_search_load.py [--catalog F] [--duration 20] [--clients 8] [--src DIR] [--json out.json]

The server runs as `gpuisa serve` does. One wrk connection fetches a cached instruction page and
reports its latency distribution (p50, p99); at the same time `--clients` wrk connections send the
issue's worst-case searches: half of them `a a a ... a` (100 words, 199 characters), half 12 random one-letter
prefix words (the most a search may have), each with a random extra parameter so no response cache
helps. The same run against the page alone is the baseline (the peer): the figure is the ratio.
`--src` runs the server from another checkout's src/ (e.g. the code before the worker pool) for a
before/after comparison on the same catalog. Needs wrk (apt-get install wrk).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from bench_web import free_port, process  # noqa: E402

PAGE = "/amd/rdna3/v_sad_u32"

WORST_CASE_LUA = """
local letters = "abcdefghijklmnopqrstuvwxyz"
local long = string.rep("a+", 99) .. "a"   -- 100 words in 199 characters: the most the old limit let through
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
request = function()
  local q
  if math.random() < 0.5 then
    q = long
  else
    local t = {}
    for i = 1, 12 do
      local k = math.random(1, 26)
      t[i] = letters:sub(k, k)
    end
    q = table.concat(t, "+")
  end
  return wrk.format("GET", "/api/search?q=" .. q .. "&junk=" .. math.random(1, 1000000000))
end
response = function(status, headers, body)
  local key = "status_" .. status
  counts = counts or {}
  counts[key] = (counts[key] or 0) + 1
end
done = function(summary, latency, requests)
  io.write("search latency p50 ", latency:percentile(50) / 1000, " ms, p99 ", latency:percentile(99) / 1000, " ms\\n")
end
"""


def parse_wrk(out: str) -> dict:
    def ms(label: str) -> float | None:
        m = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)\b", out)
        return round(float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)], 2) if m else None

    total = re.search(r"(\d+) requests in", out)
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    requests = int(total.group(1)) if total else 0
    if not requests:   # nothing answered within the run: wrk prints zeros, which would read as "fast"
        return {"requests": 0, "p50_ms": None, "p99_ms": None, "stalled": True}
    return {"requests": requests, "p50_ms": ms("50"), "p99_ms": ms("99"),
            "non_2xx": int(non2xx.group(1)) if non2xx else 0,
            "socket_errors": sum(int(x) for x in sock.groups()) if sock else 0}


def run(base: str, duration: int, clients: int, script: Path | None) -> dict:
    page = ["wrk", "-t1", "-c1", f"-d{duration}s", "--latency", "--timeout", "30s", base + PAGE]
    load = None
    if clients:
        load = subprocess.Popen(["wrk", "-t1", f"-c{clients}", f"-d{duration + 2}s", "--latency", "--timeout", "30s",
                                 "-s", str(script), base + "/"], stdout=subprocess.PIPE, text=True)
        time.sleep(1)
    out = subprocess.run(page, capture_output=True, text=True, check=True).stdout
    result = {"page": parse_wrk(out)}
    if load is not None:
        load_out, _ = load.communicate(timeout=duration + 60)
        result["search"] = parse_wrk(load_out)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--catalog", type=Path, default=None)
    ap.add_argument("--duration", type=int, default=20)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--src", type=Path, default=REPO / "src", help="src/ folder of the gpuisa to serve")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(args.src.resolve())}
    catalog = args.catalog or Path(os.environ.get("GPUISA_CATALOG", ""))
    if not catalog.is_file():
        raise SystemExit("give --catalog FILE (built with `gpuisa build --catalog FILE`)")
    work = Path(tempfile.mkdtemp(prefix="gpuisa-load-"))
    script = work / "worst.lua"
    script.write_text(WORST_CASE_LUA)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-c", "from gpuisa.cli import main; main()", "serve", "--catalog", str(catalog),
           "--port", str(port)]
    os.environ["PYTHONPATH"] = env["PYTHONPATH"]   # process() inherits the environment
    with process(cmd, base + PAGE):
        alone = run(base, args.duration, 0, None)
        loaded = run(base, args.duration, args.clients, script)
    summary = {"src": str(args.src), "clients": args.clients, "duration_s": args.duration, "cpus": os.cpu_count(),
               "loadavg": os.getloadavg(), "page_alone": alone["page"], "page_under_load": loaded["page"],
               "search_clients": loaded.get("search"),
               "p50_ratio_loaded_vs_alone": None if loaded["page"]["p50_ms"] is None else
               round(loaded["page"]["p50_ms"] / max(alone["page"]["p50_ms"] or 0, 1e-3), 1)}
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
