"""Collect every learner's notebooks from a JupyterHub, for the grader: collected/<learner>/<notebook>.ipynb.

    python -m classroom.collect https://hub.example.org --token-file admin.token --chapter 01 --start --out collected
    python -m classroom.grade collected --chapter 01 --out grades/01 --roster roster.csv

Through the hub's REST API and each learner's server's contents API, with an admin's token (or a service's with
list:users, read:users, access:servers and, for --start, admin:servers). Only reads. See docs/instructor.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from pathlib import Path

import nbformat

FOLDER = "several-spotlights"  # in each learner's home: where deploy/deliver.py puts the notebooks
START_TIMEOUT_S = 300
REQUEST_TIMEOUT_S = 30  # a hub that does not answer: said within half a minute, not after the start's five


class Hub:
    """The hub's REST API and the learners' servers behind its proxy, with one token."""

    def __init__(self, url: str, token: str) -> None:
        # the hub's root, also from a page's address copied from the browser (.../hub/home, .../user/ana/lab)
        self.url, self.token = re.sub(r"/(hub|user)(/.*)?$", "", url.rstrip("/")), token

    def request(self, method: str, path: str) -> object:
        """One JSON request to the hub's address plus `path`; the decoded answer (None when empty)."""
        headers = {"Authorization": f"token {self.token}"}
        request = urllib.request.Request(self.url + path, method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
            body = response.read()
        return json.loads(body) if body else None

    def running(self, name: str) -> bool:
        server = self.request("GET", f"/hub/api/users/{urllib.parse.quote(name)}")["servers"].get("")
        return bool(server and server.get("ready"))

    def start(self, name: str) -> None:
        """Start a learner's server and wait until it is ready."""
        self.request("POST", f"/hub/api/users/{urllib.parse.quote(name)}/server")
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.running(name):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name}'s server did not start within {START_TIMEOUT_S} s")
            time.sleep(1)

    def notebooks(self, name: str) -> dict[str, dict]:
        """file name -> the contents API's model (the notebook as JSON in "content", when it was saved in
        "last_modified") of every .ipynb in ~/several-spotlights of a learner's home."""
        base = f"/user/{urllib.parse.quote(name)}/api/contents/{FOLDER}"
        listing = self.request("GET", f"{base}?content=1")["content"]
        return {item["name"]: self.request("GET", f"{base}/{urllib.parse.quote(item['name'])}?content=1&type=notebook")
                for item in listing if item["type"] == "notebook"}


def collect(hub: Hub, out: Path, chapter: str | None = None, start: bool = False) -> dict:
    """Copy every learner's notebooks into out/<learner>/ (admins' are left out); what happened to each account,
    in one line."""
    report = {}
    for user in hub.request("GET", "/hub/api/users"):
        name, started = user["name"], False
        if user.get("admin"):  # the instructor's own copies (answers typed in class) are not a learner's work
            report[name] = "skipped: an admin's account, not a learner's"
            continue
        try:
            if not hub.running(name):
                if not start:
                    report[name] = "skipped: their server is not running (--start starts it)"
                    continue
                hub.start(name)
                started = True
            found = {file: model for file, model in hub.notebooks(name).items()
                     if chapter is None or file.startswith(chapter)}
            (out / name).mkdir(parents=True, exist_ok=True)
            for file, model in found.items():
                (out / name / file).write_text(nbformat.writes(nbformat.from_dict(model["content"])), encoding="utf-8")
            saved = max((str(model.get("last_modified", "")) for model in found.values()), default="")[:16]
            # when they last saved: a save well before the end of class means their last changes may be missing
            report[name] = (f"{len(found)} notebook(s), last saved {saved.replace('T', ' ')} UTC" if found
                            else f"no notebook in ~/{FOLDER}") + (
                " (server started, then stopped)" if started else "")
        except (urllib.error.URLError, TimeoutError, KeyError) as problem:
            report[name] = f"not collected: {problem}"
        finally:
            if started:
                hub.request("DELETE", f"/hub/api/users/{urllib.parse.quote(name)}/server")
    return report


def _advice(problem: Exception, hub: str) -> str:
    """What to do about a problem reaching the hub: a token that may not list users, a page's address, no answer."""
    if getattr(problem, "code", None) == 403:
        return ("the token may not list the hub's users: use an admin's token, made at the hub's /hub/token while "
                "logged in as an admin")
    if isinstance(problem, json.JSONDecodeError) or getattr(problem, "code", None) == 404:
        return "the address answered with a page, not the hub's API: give the hub's root address, https://hub.example.org"
    if type(problem) is urllib.error.URLError:  # no answer at all (an HTTPError is an answer)
        return f"no hub answered at {hub}: check the address, with its https://, and that the hub is running"
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hub", help="the hub's address, e.g. https://hub.example.org")
    parser.add_argument("--token-file", type=Path, required=True, help="a file holding an admin's or service's token")
    parser.add_argument("--out", type=Path, default=Path("collected"), help="folder to write <learner>/<notebook> into")
    parser.add_argument("--chapter", help="only this chapter's notebook (e.g. 01)")
    parser.add_argument("--start", action="store_true", help="start stopped servers for the copy, then stop them")
    args = parser.parse_args(argv)
    try:
        token = args.token_file.read_text().strip()
        report = collect(Hub(args.hub, token), args.out, args.chapter and args.chapter.zfill(2), args.start)
    except (OSError, urllib.error.URLError, json.JSONDecodeError) as problem:
        why = _advice(problem, args.hub)
        print(f"error: {problem}" + (f" ({why})" if why else ""), file=sys.stderr)
        return 2
    for name, what in sorted(report.items()):
        print(f"{name}: {what}")
    chapter = f" --chapter {args.chapter.zfill(2)} --out grades/{args.chapter.zfill(2)}" if args.chapter else ""
    print(f"collected into {args.out}: grade with python -m classroom.grade {args.out}{chapter} (add --roster with "
          "the class's roster: a learner skipped here is then graded as missing; a grading run writes its --out "
          "folder afresh)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
