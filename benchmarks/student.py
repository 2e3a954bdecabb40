"""One student's browser, for the classroom benchmark: run a chapter top to bottom through a Jupyter server.

As JupyterLab does: start a kernel with the server's REST API, open its websocket and send one `execute_request`
per code cell (jupyter_client's Session builds the messages), reading until the kernel is idle again, while the
kernel's memory is sampled with psutil.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path

import nbformat
import psutil
from jupyter_client.jsonutil import json_default
from jupyter_client.session import Session
from jupyter_server.services.kernels.connection.base import deserialize_binary_message
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from classroom.hub import START_TIMEOUT_S, LocalHub

CELL_TIMEOUT_S = 600
"""A cell still running after this long counts as an error, and the chapter stops there."""
SAMPLE_S = 0.25
MB = 2**20


def code_cells(path: Path) -> list[tuple[int, str]]:
    """(index in the notebook, source) of every code cell with code in it, in order."""
    nb = nbformat.read(path, as_version=4)
    return [(i, cell.source) for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and cell.source.strip()]


def tree_usage(process: psutil.Process) -> tuple[int, float]:
    """Resident bytes and CPU seconds (user + system, finished children included) of a process and its children."""
    rss, cpu = 0, 0.0
    try:
        tree = [process, *process.children(recursive=True)]
    except psutil.Error:  # it has exited
        tree = [process]
    for p in tree:
        with contextlib.suppress(psutil.Error):
            rss += p.memory_info().rss
            t = p.cpu_times()
            cpu += t.user + t.system + (t.children_user + t.children_system if p is process else 0)
    return rss, cpu


class Browser:
    """One student's connection to their own server through the hub's proxy."""

    def __init__(self, hub: LocalHub, name: str, token: str) -> None:
        self.hub, self.name, self.token = hub, name, token
        self.base = f"{hub.url}/user/{name}/api"
        self.session = Session(username=name)

    async def _kernel_process(self, kernel_id: str, wait_s: float = 10) -> psutil.Process | None:
        """The kernel's process under this student's server, found by its id in its command line."""
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            for server in self.hub.processes().get(f"server:{self.name}", [])[:1]:
                for child in server.children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        if any(kernel_id in part for part in child.cmdline()):
                            return child
            await asyncio.sleep(SAMPLE_S)
        return None

    async def run_chapter(self, notebook: Path, folder: str) -> dict:
        """Run `notebook`'s code cells in a new kernel started in the student's `folder` (relative to home), then
        shut it down as a learner closing the chapter would: wall time, kernel start time, CPU seconds, the slowest
        cell, the kernel's peak memory and the first error."""
        cells, began = code_cells(notebook), time.perf_counter()
        result = {"chapter": notebook.name, "cells": len(cells), "error": None, "kernel_start_s": None,
                  "slowest_cell": None, "cpu_s": None}
        kernel, process, peak, sampler = None, None, [0], None
        try:
            kernel = await self.hub.request("POST", f"{self.base}/kernels", self.token,
                                            {"name": "python3", "path": folder})
            process = await self._kernel_process(kernel["id"])
            if process is not None:
                sampler = asyncio.create_task(self._sample(process, peak))
            url = f"{self.base}/kernels/{kernel['id']}/channels?session_id={self.session.session}"
            socket = await websocket_connect(
                HTTPRequest(url.replace("http://", "ws://", 1), headers={"Authorization": f"token {self.token}"},
                            connect_timeout=START_TIMEOUT_S, request_timeout=START_TIMEOUT_S),
                max_message_size=512 * MB)  # tornado's 20 s default timed out with 8 kernels starting on 2 cores
            result["kernel_start_s"] = round(time.perf_counter() - began, 2)
            slowest = (None, 0.0)
            try:
                for index, source in cells:
                    start = time.perf_counter()
                    error = await self._execute(socket, source)
                    slowest = max(slowest, (index, time.perf_counter() - start), key=lambda pair: pair[1])
                    if error is not None:
                        result["error"] = {"cell": index, **error}
                        break
            finally:
                socket.close()
            result["slowest_cell"] = {"index": slowest[0], "seconds": round(slowest[1], 2)}
            result["cpu_s"] = round(tree_usage(process)[1], 2) if process is not None else None
        except Exception as exc:  # a broken connection or a failed request is this chapter's error, not the run's
            result["error"] = result["error"] or {"cell": None, "ename": type(exc).__name__, "evalue": str(exc)[:300]}
        finally:
            result["seconds"] = round(time.perf_counter() - began, 2)
            if sampler is not None:
                sampler.cancel()
                peak[0] = max(peak[0], tree_usage(process)[0])
            result["kernel_peak_mb"] = round(peak[0] / MB, 1) if process is not None else None
            if kernel is not None:
                with contextlib.suppress(Exception):
                    await self.hub.request("DELETE", f"{self.base}/kernels/{kernel['id']}", self.token)
        return result

    @staticmethod
    async def _sample(process: psutil.Process, peak: list[int]) -> None:
        while True:
            peak[0] = max(peak[0], tree_usage(process)[0])
            await asyncio.sleep(SAMPLE_S)

    async def _execute(self, socket, code: str) -> dict | None:
        """Send one execute_request; read until its reply and the kernel's idle status. The error, if any."""
        request = self.session.msg("execute_request", content={
            "code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False,
            "stop_on_error": True})
        request["channel"] = "shell"
        await socket.write_message(json.dumps(request, default=json_default))
        replied = idle = False
        error = None
        deadline = time.monotonic() + CELL_TIMEOUT_S
        while not (replied and idle):
            left = deadline - time.monotonic()
            if left <= 0:
                return {"ename": "Timeout", "evalue": f"no reply within {CELL_TIMEOUT_S} s"}
            raw = await asyncio.wait_for(socket.read_message(), timeout=left)
            if raw is None:
                return {"ename": "ConnectionClosed", "evalue": "the kernel's websocket closed"}
            # JSON text, or the binary form the server uses for messages with buffers
            message = deserialize_binary_message(raw) if isinstance(raw, bytes) else json.loads(raw)
            if message.get("parent_header", {}).get("msg_id") != request["msg_id"]:
                continue
            kind, content = message["header"]["msg_type"], message["content"]
            if kind == "error" or (kind == "execute_reply" and content.get("status") == "error"):
                error = error or {"ename": content.get("ename", "Error"), "evalue": str(content.get("evalue"))[:300]}
            replied |= kind == "execute_reply"
            idle |= kind == "status" and content.get("execution_state") == "idle"
        return error
