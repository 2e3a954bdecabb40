"""A real JupyterHub on 127.0.0.1 for the classroom benchmark and the system tests: start it, add students, stop it.

Its proxy comes from npm (into build/npm, as reveal.js does); the dummy authenticator and the local process
spawner run every student's server as the current user, each with a home of its own in a temporary folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

from tools.build_slides import NPM_DIR, NpmMissingError, npm_package
from tools.chapters import ROOT
from tools.editions import build
from tools.lab import free_port

PROXY = "configurable-http-proxy@5.3.0"
SERVICE = "classroom-benchmark"  # the hub service whose token adds students, starts and reads their servers
CLASS_LINK = "/lab/tree/several-spotlights/00_start_here.ipynb"  # where a learner lands, as deploy/config.yaml says
START_TIMEOUT_S = 300  # starting 8 servers at once on 2 busy cores takes a while


class SetupError(RuntimeError):
    """Something the benchmark needs is missing (npm, the proxy, a free port): the message says what to do."""


def proxy_command() -> list[str]:
    """configurable-http-proxy from build/npm, installed with npm the first time."""
    try:
        npm_package(PROXY, "JupyterHub and the classroom benchmark")
    except (NpmMissingError, subprocess.CalledProcessError) as missing:
        raise SetupError(f"installing {PROXY} into {NPM_DIR}: {missing}") from None
    return [str(NPM_DIR / "node_modules" / ".bin" / "configurable-http-proxy")]


def hub_config(folder: Path, port: int, hub_port: int, api_port: int, token: str) -> str:
    """jupyterhub_config.py: everything on 127.0.0.1, one home folder per student under folder/homes."""
    settings = {
        "JupyterHub.bind_url": f"http://127.0.0.1:{port}", "JupyterHub.hub_ip": "127.0.0.1",
        "JupyterHub.hub_port": hub_port, "ConfigurableHTTPProxy.api_url": f"http://127.0.0.1:{api_port}",
        "ConfigurableHTTPProxy.command": proxy_command(),  # database, secret, proxy.pid: JupyterHub's cwd, `folder`
        "JupyterHub.authenticator_class": "dummy", "Authenticator.allow_all": True,
        "Authenticator.admin_users": {"teacher"},  # the instructor's account, as deploy/README.md sets one up
        "JupyterHub.spawner_class": "simple",
        "SimpleLocalProcessSpawner.home_dir_template": str(folder / "homes" / "{username}"),
        # this venv's Python runs the servers and (through its kernelspec) the kernels, activated or not
        "Spawner.cmd": [sys.executable, "-m", "jupyterhub.singleuser"],
        "Spawner.args": ["--allow-root"] if os.geteuid() == 0 else [], "Spawner.default_url": CLASS_LINK,
        "Spawner.start_timeout": START_TIMEOUT_S, "Spawner.http_timeout": START_TIMEOUT_S,
        "JupyterHub.services": [{"name": SERVICE, "api_token": token}],
        "JupyterHub.load_roles": [{"name": SERVICE, "services": [SERVICE], "scopes": [
            "admin:users", "admin:servers", "tokens", "list:users", "read:users", "access:servers"]}],
    }
    keep = [name for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "SPOTLIGHTS_SOLUTIONS") if name in os.environ]
    lines = [f"c.{name} = {value!r}" for name, value in settings.items()]
    return "\n".join([*lines, f"c.Spawner.env_keep.extend({keep!r})  # OpenBLAS's, as the machine sets them, and a "
                               "graded class's switch for solution()"]) + "\n"


class LocalHub:
    """A JupyterHub on 127.0.0.1 in a temporary folder; `async with LocalHub() as hub:` starts and stops it."""

    def __init__(self) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="spotlights-hub-"))
        self.homes = self._folder / "homes"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = secrets.token_hex(32)  # the service's: an admin's scopes, and access to every student's server
        self._hub: psutil.Popen | None = None
        self._seen: dict[int, psutil.Process] = {}
        self._http = AsyncHTTPClient(force_instance=True, max_clients=64)

    async def __aenter__(self) -> LocalHub:
        try:
            await self._start()
        except BaseException:
            self.stop()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.stop()

    async def _start(self) -> None:
        config = self._folder / "jupyterhub_config.py"
        config.write_text(hub_config(self._folder, self.port, free_port(), free_port(), self.token))
        self.homes.mkdir(exist_ok=True)
        with (self._folder / "hub.log").open("w") as log:  # its own session: Ctrl-C reaches this process only
            self._hub = psutil.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=self._folder,
                                     stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while True:
            if self._hub.poll() is not None:
                raise SetupError(f"JupyterHub exited with code {self._hub.returncode}: {self.log_tail()}")
            try:
                await self.api("GET", "/")
                return
            except (OSError, HTTPClientError):
                if time.monotonic() > deadline:
                    raise SetupError(f"JupyterHub did not answer on {self.url} in 120 s: {self.log_tail()}") from None
                await asyncio.sleep(0.5)

    def log_tail(self) -> str:
        """The last five lines of the hub's log (the proxy and the servers log there too), on one line."""
        path = self._folder / "hub.log"
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-5:]) if path.exists() else ""

    async def request(self, method: str, url: str, token: str, body: object = None) -> dict | list | None:
        """One JSON request to the hub or a server through the proxy; the decoded answer (None when empty)."""
        request = HTTPRequest(url, method=method, headers={"Authorization": f"token {token}"},
                              body=None if body is None and method in ("GET", "DELETE") else json.dumps(body or {}),
                              request_timeout=START_TIMEOUT_S)
        response = await self._http.fetch(request)
        return json.loads(response.body) if response.body else None

    async def api(self, method: str, path: str, body: object = None) -> dict | list | None:
        """The hub's REST API (/hub/api...), as the benchmark's service."""
        return await self.request(method, f"{self.url}/hub/api{path}", self.token, body)

    def deliver(self, name: str) -> Path:
        """Give a student the learner edition as a class's hub does: deploy/deliver.py copies it into their home
        from the folder postBuild puts it in (made here once). Returns the folder the notebooks are in."""
        share = self._folder / "share"
        if not share.exists():
            build("learner", share / "notebooks")
            shutil.copy2(ROOT / "deploy" / "deliver.py", share)
        (self.homes / name).mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(share / "deliver.py")], env={**os.environ, "HOME": str(self.homes / name)},
                       check=True)
        return self.homes / name / "several-spotlights"

    async def add_students(self, names: list[str]) -> dict[str, str]:
        """Create the users, start their servers at once, wait until all are ready; each one's API token."""
        await self.api("POST", "/users", {"usernames": names})
        await asyncio.gather(*(self.api("POST", f"/users/{name}/server") for name in names))
        deadline, waiting = time.monotonic() + START_TIMEOUT_S, set(names)
        while waiting:
            for name in sorted(waiting):
                model = await self.api("GET", f"/users/{name}")
                server = model["servers"].get("")
                if server and server["ready"]:
                    waiting.discard(name)
                elif not model["pending"] and not server:
                    raise SetupError(f"{name}'s server stopped while starting: {self.log_tail()}")
            if waiting and time.monotonic() > deadline:
                raise SetupError(f"servers not ready after {START_TIMEOUT_S} s: {sorted(waiting)}")
            await asyncio.sleep(0.5)
        tokens = await asyncio.gather(*(
            self.api("POST", f"/users/{name}/tokens", {"note": SERVICE, "expires_in": 24 * 3600}) for name in names))
        return {name: answer["token"] for name, answer in zip(names, tokens, strict=True)}

    def processes(self) -> dict[str, list[psutil.Process]]:
        """The hub, its proxy and each student's server, as running now (each remembered for stopping)."""
        if self._hub is None or not self._hub.is_running():
            return {"hub": [], "proxy": []}
        found: dict[str, list[psutil.Process]] = {"hub": [self._hub], "proxy": []}
        for child in self._hub.children(recursive=True):
            self._seen.setdefault(child.pid, child)
            try:
                user = child.environ().get("JUPYTERHUB_USER")
                if user is not None and child.parent().pid == self._hub.pid:
                    found.setdefault(f"server:{user}", []).append(child)
                elif "configurable-http-proxy" in " ".join(child.cmdline()):
                    found["proxy"].append(child)
            except psutil.Error:
                continue
        return found

    def stop(self) -> None:
        """Stop the hub (on SIGTERM it stops the servers and the proxy), then, by PID, whatever it started that runs."""
        if self._hub is not None:
            self.processes()  # remember every process now, before parents exit and children get reparented
            if self._hub.poll() is None:
                self._hub.terminate()
                try:
                    self._hub.wait(timeout=30)
                except psutil.TimeoutExpired:
                    self._hub.kill()
            survivors = [p for p in self._seen.values() if p.is_running()]
            for process in survivors:
                with contextlib.suppress(psutil.NoSuchProcess):
                    process.terminate()
            for process in psutil.wait_procs(survivors, timeout=10)[1]:
                with contextlib.suppress(psutil.NoSuchProcess):
                    process.kill()
            self._http.close()
            self._hub = None
        shutil.rmtree(self._folder, ignore_errors=True)

    def still_running(self) -> list[int]:
        """PIDs of processes this hub started that are still alive (empty after `stop`)."""
        return sorted(pid for pid, p in self._seen.items() if p.is_running())
