"""The classroom benchmark's pieces: clear argument errors, the kernel protocol, the sizing arithmetic, and
deploy/config.yaml as the sizing computes it from assets/classroom.json. A real hub: tests/system/test_classroom_hub.py.
"""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
from jupyter_server.services.kernels.connection.base import serialize_binary_message

from benchmarks import classroom, sizing
from classroom import hub
from tools.chapters import CHAPTERS, ROOT


def _run(size: int, seconds: float, cell_s: float, kernel_mb: float, cpu_s: float = 1.0, error=None) -> dict:
    """One measured class size: every student ran one chapter 05 with these figures."""
    chapter = {"chapter": "05_train_and_compare.ipynb", "error": error, "seconds": seconds, "cpu_s": cpu_s,
               "slowest_cell": {"index": 4, "seconds": cell_s}, "kernel_peak_mb": kernel_mb}
    return {"class_size": size, "cpu_share": 2 / size, "hub_peak_mb": 120.0, "proxy_peak_mb": 60.0,
            "load_average_start": [0.5, 0.5, 0.5],
            "students": [{"name": f"s{i}", "server_peak_mb": 100.0, "chapters": [chapter]} for i in range(size)]}


def _results(*runs: dict) -> dict:
    return {"command": "python -m benchmarks.classroom", "chapters": ["05_train_and_compare.ipynb"],
            "machine": {"date_utc": "2026-12-01 20:00", "cpus": 2}, "runs": list(runs)}


@pytest.mark.parametrize(("argv", "says"), [(["--students", "0"], "at least 1"), (["--students", "two"], "whole"),
                                            (["--chapters", "01,42"], "no chapter starts with 42"),
                                            (["--out", "/no/such/folder/c.json"], "does not exist")])
def test_a_bad_argument_is_one_clear_line_and_exit_code_2(argv: list[str], says: str, capsys) -> None:
    assert classroom.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err


def test_the_hub_listens_on_loopback_only_and_opens_where_a_class_does(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(hub, "proxy_command", lambda: ["configurable-http-proxy"])
    monkeypatch.setenv("SPOTLIGHTS_SOLUTIONS", "off")  # a graded class's: its servers get it too
    text = hub.hub_config(tmp_path, 20001, 20002, 20003, "secret")
    assert "127.0.0.1:20001" in text and "0.0.0.0" not in text and "'SPOTLIGHTS_SOLUTIONS']" in text
    assert f"defaultUrl: {hub.CLASS_LINK}" in (ROOT / "deploy" / "config.yaml").read_text() and hub.CLASS_LINK in text


@pytest.mark.parametrize("fail", [False, True])
def test_a_cell_runs_until_its_reply_and_idle_and_its_error_is_kept(fail: bool) -> None:
    """A kernel websocket answering one execute_request: a message for someone else, what the cell printed, its
    error (in the binary frame used for messages with buffers), the reply and the idle status."""
    frames, sent = [], []

    async def write_message(text: str) -> None:
        request = json.loads(text)
        sent.append(request)

        def message(kind: str, content: dict, parent: str = request["header"]["msg_id"]) -> dict:
            return {"header": {"msg_type": kind, "msg_id": kind}, "parent_header": {"msg_id": parent},
                    "metadata": {}, "content": content, "channel": "iopub", "msg_type": kind}

        error = {"ename": "ValueError", "evalue": "no such head", "traceback": []}
        frames.extend([json.dumps(message("status", {"execution_state": "idle"}, parent="other")),
                       json.dumps(message("stream", {"name": "stdout", "text": '{"peak_mb": 1.0}\n'})),
                       *([serialize_binary_message({**message("error", error), "buffers": [b"x"]})] if fail else []),
                       json.dumps(message("execute_reply", {"status": "error" if fail else "ok", **error})),
                       json.dumps(message("status", {"execution_state": "idle"}))])

    async def read_message() -> str | bytes:
        return frames.pop(0)

    socket = SimpleNamespace(write_message=write_message, read_message=read_message)
    browser = classroom.Browser(SimpleNamespace(url="http://127.0.0.1:1"), "s1", "token")
    error, printed = asyncio.run(browser._execute(socket, "1 / 0"))
    assert sent[0]["header"]["msg_type"] == "execute_request" and sent[0]["content"]["code"] == "1 / 0"
    assert frames == [] and error == ({"ename": "ValueError", "evalue": "no such head"} if fail else None)
    assert printed == '{"peak_mb": 1.0}\n'


def test_a_learner_needs_the_share_of_the_most_crowded_class_that_met_the_targets() -> None:
    results = _results(_run(1, 30.0, 10.0, 500, cpu_s=45.0), _run(2, 60.0, 20.0, 510), _run(4, 120.0, 40.0, 505))
    each = sizing.learner(results)
    assert each["cpu_share"] == each["cpu_guarantee"] == 1  # 2 students on 2 cores met the targets, 4 did not
    assert each["cpu_limit"] == 2  # alone, the kernel used 45 CPU s in 30 s: 1.5 cores, rounded up
    assert each["memory_mb"] == 100 + 510 and each["memory_limit_mb"] == 100 + 3 * 510 and each["hub_mb"] == 180
    need = sizing.class_needs(30, each)
    assert need["cores"] == 30 and need["memory_gb"] == 18.1  # (180 + 30 * 610) / 1024 = 18.05, rounded up


def test_when_no_class_size_met_the_targets_the_cores_are_unknown_and_the_pages_say_so() -> None:
    for failing in (_run(1, 120.0, 5.0, 500), _run(1, 50.0, 31.0, 500), _run(1, 5.0, 1.0, 500, error={"e": 1})):
        each = sizing.learner(results := _results(failing))
        assert each["cpu_share"] is None and sizing.class_needs(30, each)["cores"] is None
        assert each["cpu_guarantee"] == each["cpu_limit"] == 1  # the guarantee falls back to a whole limit's worth
    assert "| 30 learners | unknown |" in sizing.markdown(results) and "PROVISIONAL" in sizing.z2jh_config(results)
    assert "PROVISIONAL" not in sizing.z2jh_config(dict(results, chapters=list(CHAPTERS)))


def test_the_deploy_config_is_what_the_sizing_computes_from_the_measurement() -> None:
    results = json.loads((ROOT / "assets" / "classroom.json").read_text())
    assert (ROOT / "deploy" / "config.yaml").read_text() == sizing.z2jh_config(results), "python -m benchmarks.sizing"
