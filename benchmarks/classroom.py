"""A whole class at once: N students on a real JupyterHub, each running chapters top to bottom at the same time.

    python -m benchmarks.classroom                                            # the grid: 1, 2, 4, 8 students
    python -m benchmarks.classroom --students 4 --chapters 03,05,07 --out c.json

A fresh hub per class size (classroom/hub.py); the default output, assets/classroom.json, also rewrites
deploy/config.yaml (benchmarks/sizing.py). The last line sums the run up; a missing tool, a port in use or a bad
argument: one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import sys
import time
from argparse import ArgumentTypeError
from pathlib import Path

import nbformat
import psutil
from jupyter_client.jsonutil import json_default
from jupyter_client.session import Session
from jupyter_server.services.kernels.connection.base import deserialize_binary_message
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from benchmarks.measure import KERNEL_FIGURES, load, machine
from benchmarks.sizing import CELL_TARGET_S, CHAPTER_TARGET_S, DEPLOY_CONFIG, RESULTS, run_figures, write_deploy_config
from classroom.hub import START_TIMEOUT_S, LocalHub, SetupError, proxy_command
from tools.chapters import ROOT, chapter_paths

GRID = (1, 2, 4, 8)
SAMPLE_S = 0.5
CELL_TIMEOUT_S = 600  # a cell still running after this long counts as an error, and the chapter stops there
MB = 2**20


class Browser:
    """One student's connection to their own server through the hub's proxy, running chapters as JupyterLab does:
    a kernel started with the server's REST API, one `execute_request` per code cell on its websocket (built by
    jupyter_client's Session), read until the kernel is idle again."""

    def __init__(self, hub: LocalHub, name: str, token: str) -> None:
        self.hub, self.token = hub, token
        self.base = f"{hub.url}/user/{name}/api"
        self.session = Session(username=name)

    async def run_chapter(self, notebook: Path, folder: str) -> dict:
        """Run `notebook`'s code cells in a new kernel started in `folder` (relative to home), then shut it down as
        a learner closing the chapter would; its figures (the kernel's peak memory and CPU time as the kernel
        itself reports them, measure.KERNEL_FIGURES) and first error."""
        cells = [(i, cell.source) for i, cell in enumerate(nbformat.read(notebook, as_version=4).cells)
                 if cell.cell_type == "code" and cell.source.strip()]  # (index in the notebook, code)
        began = time.perf_counter()
        result = {"chapter": notebook.name, "cells": len(cells), "error": None, "kernel_start_s": None,
                  "slowest_cell": None, "cpu_s": None, "kernel_peak_mb": None}
        kernel = None
        try:
            kernel = await self.hub.request("POST", f"{self.base}/kernels", self.token,
                                            {"name": "python3", "path": folder})
            url = f"{self.base}/kernels/{kernel['id']}/channels?session_id={self.session.session}"
            socket = await websocket_connect(
                HTTPRequest(url.replace("http://", "ws://", 1), headers={"Authorization": f"token {self.token}"},
                            connect_timeout=START_TIMEOUT_S, request_timeout=START_TIMEOUT_S),
                max_message_size=512 * MB)  # tornado's 20 s default timed out with 8 kernels starting on 2 cores
            result["kernel_start_s"] = round(time.perf_counter() - began, 2)
            slowest = (None, 0.0)
            with contextlib.closing(socket):
                for index, source in cells:
                    start = time.perf_counter()
                    error, _ = await self._execute(socket, source)
                    slowest = max(slowest, (index, time.perf_counter() - start), key=lambda pair: pair[1])
                    if error is not None:
                        result["error"] = {"cell": index, **error}
                        break
                result["slowest_cell"] = {"index": slowest[0], "seconds": round(slowest[1], 2)}
                figures = json.loads((await self._execute(socket, KERNEL_FIGURES))[1])
                result |= {"cpu_s": round(figures["cpu_s"], 2), "kernel_peak_mb": figures["peak_mb"]}
        except Exception as exc:  # a broken connection or a failed request is this chapter's error, not the run's
            result["error"] = result["error"] or {"cell": None, "ename": type(exc).__name__, "evalue": str(exc)[:300]}
        finally:
            result["seconds"] = round(time.perf_counter() - began, 2)
            if kernel is not None:
                with contextlib.suppress(Exception):
                    await self.hub.request("DELETE", f"{self.base}/kernels/{kernel['id']}", self.token)
        return result

    async def _execute(self, socket, code: str) -> tuple[dict | None, str]:
        """Send one execute_request; read until its reply and the kernel's idle status. The error, if any, and
        what the cell printed."""
        request = self.session.msg("execute_request", content={
            "code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False,
            "stop_on_error": True})
        request["channel"] = "shell"
        await socket.write_message(json.dumps(request, default=json_default))
        replied = idle = False
        error, printed = None, []
        deadline = time.monotonic() + CELL_TIMEOUT_S
        while not (replied and idle):
            left = deadline - time.monotonic()
            if left <= 0:
                return {"ename": "Timeout", "evalue": f"no reply within {CELL_TIMEOUT_S} s"}, "".join(printed)
            raw = await asyncio.wait_for(socket.read_message(), timeout=left)
            if raw is None:
                return {"ename": "ConnectionClosed", "evalue": "the kernel's websocket closed"}, "".join(printed)
            # JSON text, or the binary form the server uses for messages with buffers
            message = deserialize_binary_message(raw) if isinstance(raw, bytes) else json.loads(raw)
            if message.get("parent_header", {}).get("msg_id") != request["msg_id"]:
                continue
            kind, content = message["header"]["msg_type"], message["content"]
            if kind == "error" or (kind == "execute_reply" and content.get("status") == "error"):
                error = error or {"ename": content.get("ename", "Error"), "evalue": str(content.get("evalue"))[:300]}
            if kind == "stream":
                printed.append(content.get("text", ""))
            replied |= kind == "execute_reply"
            idle |= kind == "status" and content.get("execution_state") == "idle"
        return error, "".join(printed)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", default=",".join(map(str, GRID)),
                        help="class sizes to measure, e.g. 4 or 1,2,4,8 (default: %(default)s)")
    parser.add_argument("--chapters", default="", help="chapter prefixes, e.g. 01,03 (default: every chapter)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results file (default: assets/classroom.json)")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"\d+(,\d+)*", args.students):
        raise ArgumentTypeError(f"--students takes whole numbers separated by commas, not {args.students!r}")
    args.students = sorted({int(n) for n in args.students.split(",")})
    if args.students[0] < 1:
        raise ArgumentTypeError("--students must be at least 1")
    if unknown := [p for p in args.chapters.split(",") if p.strip() and not chapter_paths(p.strip())]:
        raise ArgumentTypeError(f"--chapters: no chapter starts with {', '.join(unknown)} "
                                f"(chapters: {', '.join(path.name[:2] for path in chapter_paths(''))})")
    args.chapters = chapter_paths(args.chapters)
    if not args.out.parent.is_dir() or args.out.is_dir():
        raise ArgumentTypeError(f"--out {args.out}: give a file in a folder that exists (the folder "
                                f"{args.out.parent} does not exist, or the name is a folder)")
    return args


def summary_line(runs: list[dict]) -> str:
    sizes = [run_figures(run) for run in runs]
    return (f"students={max(s['class_size'] for s in sizes)} errors={sum(s['errors'] for s in sizes)} "
            f"slowest_chapter_s={max(s['slowest_chapter_s'] for s in sizes):.1f} "
            f"slowest_cell_s={max(s['slowest_cell_s'] for s in sizes):.1f}")


async def measure_class(size: int, chapters: list[Path]) -> dict:
    """`size` students on a fresh hub, all running `chapters` at once, while every process's memory is sampled."""
    names = [f"student{i + 1}" for i in range(size)]
    peaks: dict[str, float] = {}

    def sample() -> None:
        for key, processes in hub.processes().items():
            total = 0
            for process in processes:
                with contextlib.suppress(psutil.Error):  # a process that just exited
                    total += process.memory_info().rss
            peaks[key] = max(peaks.get(key, 0.0), round(total / MB, 1))

    async def sampling() -> None:
        while True:
            sample()
            await asyncio.sleep(SAMPLE_S)

    async def student(browser: Browser) -> list[dict]:
        return [await browser.run_chapter(path, "several-spotlights") for path in chapters]

    async with LocalHub() as hub:
        for name in names:
            hub.deliver(name)
        tokens = await hub.add_students(names)
        sampler = asyncio.create_task(sampling())
        load_start, cpu_start, began = load(), time.process_time(), time.perf_counter()
        try:
            done = await asyncio.gather(*(student(Browser(hub, name, tokens[name])) for name in names))
        finally:
            sampler.cancel()
        seconds, cpu = time.perf_counter() - began, time.process_time() - cpu_start
        sample()
        run = {"class_size": size, "cpus": os.cpu_count(), "cpu_share": round(os.cpu_count() / size, 3),
               "seconds": round(seconds, 1), "load_average_start": load_start, "load_average_end": load(),
               "client_cpu_s": round(cpu, 1), "hub_peak_mb": peaks.get("hub", 0.0),
               "proxy_peak_mb": peaks.get("proxy", 0.0),
               "students": [{"name": name, "server_peak_mb": peaks.get(f"server:{name}", 0.0), "chapters": rows}
                            for name, rows in zip(names, done, strict=True)]}
    if left := hub.still_running():
        raise RuntimeError(f"processes the hub started are still running after it stopped: {left}")
    return run


async def measure(sizes: list[int], chapters: list[Path]) -> dict:
    results = {"command": "python -m benchmarks.classroom " + " ".join(sys.argv[1:]),
               "targets": {"chapter_s": CHAPTER_TARGET_S, "cell_s": CELL_TARGET_S},
               "chapters": [path.name for path in chapters], "machine": machine(), "runs": []}
    for size in sizes:
        run = await measure_class(size, chapters)
        results["runs"].append(run)
        print(f"{size} student(s) on {run['cpus']} cores, load average {run['load_average_start']} -> "
              f"{run['load_average_end']}: {summary_line([run])}", flush=True)
    results["machine_end"] = machine()
    return results


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(argv)
        proxy_command()  # npm and the proxy first: a clear message before anything starts
        results = asyncio.run(measure(args.students, args.chapters))
    except (ArgumentTypeError, SetupError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the hub and every process it started have been stopped; nothing written", file=sys.stderr)
        return 130
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")
    if args.out.resolve() == RESULTS:
        write_deploy_config(results)
        print(f"wrote {RESULTS.relative_to(ROOT)} and {DEPLOY_CONFIG.relative_to(ROOT)}; "
              "now run python -m benchmarks.report")
    print(summary_line(results["runs"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
