"""The classroom benchmark's pieces: arguments, clear setup errors, the summary line, the sizing arithmetic, and
deploy/config.yaml equal to what the sizing computes from assets/classroom.json.

A real hub with one student is started by tests/system/test_classroom_hub.py (`make check`).
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest
from jupyter_server.services.kernels.connection.base import serialize_binary_message

from benchmarks import classroom, hub, sizing
from benchmarks.student import Browser
from tools.chapters import CHAPTERS

ROOT = Path(__file__).resolve().parents[1]


def _chapter(name: str, seconds: float, cell_s: float, kernel_mb: float, cpu_s: float = 1.0, error=None) -> dict:
    return {"chapter": name, "cells": 3, "error": error, "kernel_start_s": 1.0, "seconds": seconds, "cpu_s": cpu_s,
            "slowest_cell": {"index": 4, "seconds": cell_s}, "kernel_peak_mb": kernel_mb}


def _run(size: int, chapters: list[dict], server_mb: float = 100.0) -> dict:
    return {"class_size": size, "cpus": 2, "cpu_share": 2 / size, "seconds": 1.0,
            "load_average_start": [0.5, 0.5, 0.5], "load_average_end": [1.0, 1.0, 1.0],
            "client_cpu_s": 0.1, "hub_peak_mb": 120.0, "proxy_peak_mb": 60.0,
            "students": [{"name": f"student{i + 1}", "server_peak_mb": server_mb, "chapters": chapters}
                         for i in range(size)]}


def _results(*runs: dict) -> dict:
    return {"command": "python -m benchmarks.classroom", "targets": {"chapter_s": 90, "cell_s": 30},
            "chapters": ["00_start_here.ipynb", "05_train_and_compare.ipynb"],
            "machine": {"date_utc": "2026-12-01 20:00", "cpus": 2}, "runs": list(runs)}


@pytest.mark.parametrize(("argv", "says"), [
    (["--students", "0"], "--students must be at least 1"),
    (["--students", "two"], "whole numbers"),
    (["--chapters", "99"], "no chapter starts with 99"),
    (["--chapters", "01,42"], "no chapter starts with 42"),
    (["--out", "/no/such/folder/c.json"], "does not exist"),
    (["--out", "."], "is a folder"),
    (["--port", "70000"], "--port must be between"),
])
def test_a_bad_argument_is_one_clear_line_and_exit_code_2(argv, says, capsys) -> None:
    assert classroom.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err


def test_an_unwritable_output_is_refused(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(classroom.os, "access", lambda path, mode: False)  # a read-only folder (root writes anywhere)
    assert classroom.main(["--out", str(tmp_path / "c.json")]) == 2
    assert capsys.readouterr().err.strip() == f"error: --out {tmp_path / 'c.json'} cannot be written"


def test_the_arguments_default_to_the_grid_every_chapter_and_the_assets_file() -> None:
    args = classroom.parse_args([])
    assert args.students == [1, 2, 4, 8]
    assert [p.name for p in args.chapters] == list(CHAPTERS)
    assert args.out == ROOT / "assets" / "classroom.json"
    chosen = classroom.parse_args(["--students", "4", "--chapters", "07,03,05", "--out", "c.json"])
    assert chosen.students == [4] and [p.name[:2] for p in chosen.chapters] == ["03", "05", "07"]


def test_missing_npm_is_one_clear_line_and_exit_code_2(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(hub, "NPM_DIR", tmp_path / "npm")  # no proxy installed there
    monkeypatch.setattr(hub.shutil, "which", lambda name: None)
    assert classroom.main(["--students", "1", "--chapters", "00", "--out", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "install Node.js with npm" in err[0] and hub.PROXY in err[0], err
    assert not (tmp_path / "c.json").exists()


def test_a_port_in_use_is_refused_before_anything_starts() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(hub.SetupError, match=f"port {port} on 127.0.0.1 is in use"):
            asyncio.run(hub.LocalHub(port).__aenter__())


def test_free_ports_are_distinct_and_in_the_agreed_range() -> None:
    ports = hub.free_ports(3)
    assert len(set(ports)) == 3 and all(20000 <= p < 60000 and hub.port_is_free(p) for p in ports)


def test_the_hub_config_keeps_everything_on_loopback_with_one_home_per_student(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(hub, "proxy_command", lambda: ["configurable-http-proxy"])
    text = hub.hub_config(tmp_path, 20001, 20002, 20003, "secret")
    assert "c.JupyterHub.bind_url = 'http://127.0.0.1:20001'" in text
    assert "c.JupyterHub.hub_ip = '127.0.0.1'" in text
    assert "c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:20003'" in text
    assert "c.JupyterHub.authenticator_class = 'dummy'" in text and "c.JupyterHub.spawner_class = 'simple'" in text
    assert f"home_dir_template = '{tmp_path / 'homes' / '{username}'}'" in text
    assert str(tmp_path / "jupyterhub.sqlite") in text
    assert "0.0.0.0" not in text


class FakeKernelSocket:
    """A kernel websocket that answers one execute_request: a message for someone else, the cell's error (in the
    binary frame used for messages with buffers), the reply and the idle status."""

    def __init__(self, fail: bool) -> None:
        self.fail, self.frames, self.sent = fail, [], []

    async def write_message(self, text: str) -> None:
        request = json.loads(text)
        self.sent.append(request)
        mine = {"msg_id": request["header"]["msg_id"]}

        def message(kind: str, content: dict, parent: dict = mine, channel: str = "iopub") -> dict:
            return {"header": {"msg_type": kind, "msg_id": kind}, "parent_header": parent, "metadata": {},
                    "content": content, "channel": channel, "msg_type": kind}

        error = {"ename": "ValueError", "evalue": "no such head", "traceback": []}
        self.frames = [json.dumps(message("status", {"execution_state": "idle"}, parent={"msg_id": "other"})),
                       json.dumps(message("status", {"execution_state": "busy"}))]
        if self.fail:
            self.frames.append(serialize_binary_message({**message("error", error), "buffers": [b"x"]}))
        self.frames += [json.dumps(message("execute_reply", {"status": "error" if self.fail else "ok", **error},
                                           channel="shell")),
                        json.dumps(message("status", {"execution_state": "idle"}))]

    async def read_message(self) -> str | bytes:
        return self.frames.pop(0)


@pytest.mark.parametrize("fail", [False, True])
def test_a_cell_runs_until_its_reply_and_idle_and_its_error_is_kept(fail: bool) -> None:
    socket = FakeKernelSocket(fail)
    browser = Browser(SimpleNamespace(url="http://127.0.0.1:1"), "student1", "token")  # _execute needs no hub
    error = asyncio.run(browser._execute(socket, "1 / 0"))
    (sent,) = socket.sent
    assert sent["channel"] == "shell" and sent["header"]["msg_type"] == "execute_request"
    assert sent["content"]["code"] == "1 / 0" and sent["content"]["stop_on_error"]
    assert socket.frames == []  # read up to the cell's own idle, not the other message's
    assert error == ({"ename": "ValueError", "evalue": "no such head"} if fail else None)


def test_the_summary_line_sums_up_every_class_size() -> None:
    small = _run(1, [_chapter("00", 5.0, 2.0, 300)])
    big = _run(2, [_chapter("00", 12.5, 4.25, 300), _chapter("05", 80.0, 3.0, 500, error={"ename": "E"})])
    assert classroom.summary_line([small, big]) == "students=2 errors=2 slowest_chapter_s=80.0 slowest_cell_s=4.2"
    assert classroom.summary_line([small]) == "students=1 errors=0 slowest_chapter_s=5.0 slowest_cell_s=2.0"


def test_a_class_size_meets_the_targets_only_with_no_error_and_no_slow_chapter_or_cell() -> None:
    ok = sizing.run_figures(_run(2, [_chapter("00", 89.0, 29.0, 300)]))
    assert ok["meets"] and ok["memory_mb"] == 400 and ok["hub_mb"] == 180 and ok["cpu_share"] == 1
    assert not sizing.run_figures(_run(2, [_chapter("00", 91.0, 5.0, 300)]))["meets"]
    assert not sizing.run_figures(_run(2, [_chapter("00", 50.0, 31.0, 300)]))["meets"]
    assert not sizing.run_figures(_run(2, [_chapter("00", 5.0, 1.0, 300, error={"ename": "E"})]))["meets"]


def test_a_learner_needs_the_share_of_the_most_crowded_class_that_met_the_targets() -> None:
    results = _results(_run(1, [_chapter("05", 30.0, 10.0, 500, cpu_s=45.0)]),
                       _run(2, [_chapter("05", 60.0, 20.0, 510)]),
                       _run(4, [_chapter("05", 120.0, 40.0, 505)]))
    each = sizing.learner(results)
    assert each["cpu_share"] == 1  # 2 students on 2 cores met the targets, 4 did not
    assert each["cpu_limit"] == 2  # alone, the kernel used 45 CPU s in 30 s: 1.5 cores, rounded up
    assert each["memory_mb"] == 100 + 510 and each["memory_limit_mb"] == 100 + 3 * 510 and each["hub_mb"] == 180
    need = sizing.class_needs(30, each)
    assert need == {"students": 30, "cores": 30, "memory_gb": sizing._gb(180 + 30 * 610),
                    "memory_gb_open": sizing._gb(180 + 30 * 1630)}
    assert need["memory_gb"] == 18.1  # (180 + 18300) / 1024 = 18.05 GB, rounded up to a tenth


def test_half_a_core_each_makes_a_class_of_ten_need_five_cores() -> None:
    each = {"cpu_share": 0.5, "cpu_limit": 1, "memory_mb": 600, "memory_limit_mb": 1600, "hub_mb": 200}
    assert [sizing.class_needs(n, each)["cores"] for n in (10, 30, 100)] == [5, 15, 50]
    assert sizing.class_needs(10, each)["memory_gb"] == 6.1  # (200 + 6000) / 1024 = 6.05


def test_when_no_class_size_met_the_targets_the_cores_are_unknown_and_the_guide_says_so() -> None:
    results = _results(_run(1, [_chapter("05", 120.0, 40.0, 500)]))
    each = sizing.learner(results)
    assert each["cpu_share"] is None and sizing.class_needs(30, each)["cores"] is None
    text = sizing.markdown(results, list(CHAPTERS))
    assert "no measured class size met the targets" in text and "| 30 learners | unknown |" in text
    assert "Only chapters 00, 05 were measured" in text
    assert "NO measured share met the targets" in sizing.z2jh_config(results)


def test_the_deploy_config_carries_the_numbers_the_sizing_computes_from_the_measurement() -> None:
    results = json.loads((ROOT / "assets" / "classroom.json").read_text())
    committed = (ROOT / "deploy" / "config.yaml").read_text()
    assert committed == sizing.z2jh_config(results), "run python -m benchmarks.sizing"
    each = sizing.learner(results)
    assert f"guarantee: {each['memory_mb']}M" in committed and f"limit: {each['memory_limit_mb']}M" in committed
    assert f"limit: {each['cpu_limit']}\n" in committed


def test_the_guide_shows_the_class_sizes_measured() -> None:
    results = json.loads((ROOT / "assets" / "classroom.json").read_text())
    guide = (ROOT / "docs" / "instructor.md").read_text()
    assert sizing.markdown(results, list(CHAPTERS)) in guide
    for run in results["runs"]:
        assert f"\n| {run['class_size']} | " in guide
