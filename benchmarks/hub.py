"""A real JupyterHub on 127.0.0.1 for the classroom benchmark: start it, add students, stop every process.

JupyterHub from pip, its proxy (configurable-http-proxy) from npm, installed once into build/npm as the
slides' reveal.js is. The dummy authenticator and JupyterHub's SimpleLocalProcessSpawner: every student's
single-user server runs as the current user, with a home folder of its own. The hub's database, config and
log live in a temporary folder, on free ports. `LocalHub` is a context manager: leaving it (normally, on an
error or on Ctrl-C) stops the students' servers through the hub, then the hub, then, by PID, any process the
hub started (proxy, servers, kernels) that is still running.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

from tools.editions import build

ROOT = Path(__file__).resolve().parents[1]
NPM_DIR = ROOT / "build" / "npm"  # git-ignored; tools/build_slides.py keeps reveal.js here too
PROXY = "configurable-http-proxy@5.3.0"
"""The npm package and version of JupyterHub's proxy."""
SERVICE = "classroom-benchmark"
"""The hub service whose token creates the students, starts their servers and hands out their tokens."""
START_TIMEOUT_S = 300  # starting 8 servers at once on 2 busy cores takes a while


class SetupError(RuntimeError):
    """Something the benchmark needs is missing (npm, the proxy, a free port): the message says what to do."""


def proxy_command() -> list[str]:
    """configurable-http-proxy from build/npm, installed with npm the first time."""
    package = NPM_DIR / "node_modules" / "configurable-http-proxy"
    manifest = package / "package.json"
    if not manifest.exists() or json.loads(manifest.read_text())["version"] != PROXY.rsplit("@", 1)[1]:
        npm = shutil.which("npm")
        if npm is None:
            raise SetupError(f"JupyterHub's proxy is {PROXY} from npm, installed once into {NPM_DIR}: install "
                             "Node.js with npm (e.g. apt-get install npm) and run this again")
        done = subprocess.run([npm, "install", "--prefix", str(NPM_DIR), "--no-audit", "--no-fund", PROXY],
                              capture_output=True, text=True)
        if done.returncode != 0 or not manifest.exists():
            raise SetupError(f"npm could not install {PROXY} into {NPM_DIR}: {done.stderr.strip()[-300:]}")
    if shutil.which("node") is None:
        raise SetupError("configurable-http-proxy needs Node.js: install it (e.g. apt-get install nodejs)")
    return [str(NPM_DIR / "node_modules" / ".bin" / "configurable-http-proxy")]


def port_is_free(port: int) -> bool:
    """Whether nothing listens on 127.0.0.1:`port`."""
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(count: int, taken: set[int] = frozenset()) -> list[int]:
    """`count` distinct free ports on 127.0.0.1, picked at random between 20000 and 60000."""
    ports: list[int] = []
    for _ in range(200):
        port = 20000 + secrets.randbelow(40000)
        if port not in taken and port not in ports and port_is_free(port):
            ports.append(port)
            if len(ports) == count:
                return ports
    raise SetupError("found no free port on 127.0.0.1 between 20000 and 60000")


def hub_config(folder: Path, port: int, hub_port: int, api_port: int, token: str) -> str:
    """jupyterhub_config.py: everything on 127.0.0.1, one home folder per student under folder/homes."""
    settings = {
        "JupyterHub.bind_url": f"http://127.0.0.1:{port}",
        "JupyterHub.hub_ip": "127.0.0.1",
        "JupyterHub.hub_port": hub_port,
        "ConfigurableHTTPProxy.api_url": f"http://127.0.0.1:{api_port}",
        "ConfigurableHTTPProxy.command": proxy_command(),
        "ConfigurableHTTPProxy.pid_file": str(folder / "proxy.pid"),
        "JupyterHub.db_url": f"sqlite:///{folder / 'jupyterhub.sqlite'}",
        "JupyterHub.cookie_secret_file": str(folder / "cookie_secret"),
        "JupyterHub.pid_file": str(folder / "hub.pid"),
        "JupyterHub.authenticator_class": "dummy",
        "Authenticator.allow_all": True,
        "JupyterHub.spawner_class": "simple",
        "SimpleLocalProcessSpawner.home_dir_template": str(folder / "homes" / "{username}"),
        # this venv's Python runs the servers and (through its kernelspec) the kernels, activated or not
        "Spawner.cmd": [sys.executable, "-m", "jupyterhub.singleuser"],
        "Spawner.args": ["--allow-root"] if os.geteuid() == 0 else [],
        "Spawner.default_url": "/lab",
        "Spawner.start_timeout": START_TIMEOUT_S,
        "Spawner.http_timeout": START_TIMEOUT_S,
        "JupyterHub.services": [{"name": SERVICE, "api_token": token}],
        "JupyterHub.load_roles": [{"name": SERVICE, "services": [SERVICE], "scopes": [
            "admin:users", "admin:servers", "tokens", "list:users", "read:users", "access:servers"]}],
    }
    keep = [name for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if name in os.environ]
    lines = [f"c.{name} = {value!r}" for name, value in settings.items()]
    lines.append(f"c.Spawner.env_keep.extend({keep!r})  # as the machine sets them for numpy's OpenBLAS")
    return "\n".join(lines) + "\n"


class LocalHub:
    """A JupyterHub on 127.0.0.1 in a temporary folder; `async with LocalHub() as hub:` starts and stops it."""

    def __init__(self, port: int | None = None) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="spotlights-hub-"))
        self.port = port
        self.homes = self._folder / "homes"
        self._token = secrets.token_hex(32)
        self._hub: psutil.Popen | None = None
        self._seen: dict[int, psutil.Process] = {}
        self._users: list[str] = []
        self._http = AsyncHTTPClient(force_instance=True, max_clients=64)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def token(self) -> str:
        """The benchmark service's token: an admin's scopes, and access to every student's server."""
        return self._token

    def deliver(self, name: str) -> Path:
        """Give a student the learner edition as a class's hub does: deploy/deliver.py copies it into their home,
        from the folder postBuild puts it in (built here once). Returns the folder the notebooks are in."""
        share = self._folder / "share"
        if not share.exists():
            build("learner", share / "notebooks")
            shutil.copy2(ROOT / "deploy" / "deliver.py", share)
        home = self.homes / name
        home.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(share / "deliver.py")], env={**os.environ, "HOME": str(home)}, check=True)
        return home / "several-spotlights"

    async def __aenter__(self) -> LocalHub:
        try:
            await self._start()
        except BaseException:
            await self.stop()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _start(self) -> None:
        if self.port is not None and not port_is_free(self.port):
            raise SetupError(f"port {self.port} on 127.0.0.1 is in use: pick another with --port or leave it out")
        taken = {self.port} if self.port else set()
        ports = free_ports(3 if self.port is None else 2, taken)
        if self.port is None:
            self.port = ports.pop()
        hub_port, api_port = ports
        config = self._folder / "jupyterhub_config.py"
        config.write_text(hub_config(self._folder, self.port, hub_port, api_port, self._token))
        self.homes.mkdir(exist_ok=True)
        log = (self._folder / "hub.log").open("w")
        # its own session: Ctrl-C reaches this process only, which then stops the hub in order
        self._hub = psutil.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=self._folder,
                                 stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
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

    def log_tail(self, lines: int = 5) -> str:
        """The end of the hub's log (the proxy and the servers log there too), on one line."""
        path = self._folder / "hub.log"
        text = path.read_text(errors="replace").strip().splitlines() if path.exists() else []
        return " | ".join(text[-lines:]) or "(no log)"

    async def request(self, method: str, url: str, token: str, body: object = None) -> dict | list | None:
        """One JSON request to the hub or a server through the proxy; the decoded answer (None when empty)."""
        request = HTTPRequest(url, method=method, headers={"Authorization": f"token {token}"},
                              body=None if body is None and method in ("GET", "DELETE") else json.dumps(body or {}),
                              request_timeout=START_TIMEOUT_S)
        response = await self._http.fetch(request)
        return json.loads(response.body) if response.body else None

    async def api(self, method: str, path: str, body: object = None) -> dict | list | None:
        """The hub's REST API (/hub/api...), as the benchmark's admin service."""
        return await self.request(method, f"{self.url}/hub/api{path}", self._token, body)

    async def add_students(self, names: list[str]) -> dict[str, str]:
        """Create the users, start their servers at once, wait until all are ready; each one's API token."""
        await self.api("POST", "/users", {"usernames": names})
        self._users += names
        await asyncio.gather(*(self.api("POST", f"/users/{name}/server") for name in names))
        deadline = time.monotonic() + START_TIMEOUT_S
        waiting = set(names)
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
        found: dict[str, list[psutil.Process]] = {"hub": [], "proxy": []}
        if self._hub is None or not self._hub.is_running():
            return found
        found["hub"].append(self._hub)
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

    async def stop(self) -> None:
        """Stop the servers through the hub, then the hub, then (by PID) whatever it started that still runs."""
        if self._hub is None:
            self._cleanup_folder()
            return
        self.processes()  # remember every process now, before parents exit and children get reparented
        if self._hub.poll() is None:
            try:
                await asyncio.wait_for(asyncio.gather(
                    *(self.api("DELETE", f"/users/{name}/server") for name in self._users),
                    return_exceptions=True), timeout=60)
            except (asyncio.TimeoutError, OSError):
                pass
            self._hub.terminate()
            try:
                self._hub.wait(timeout=30)
            except psutil.TimeoutExpired:
                self._hub.kill()
        survivors = [p for p in self._seen.values() if p.is_running()]
        for process in survivors:
            try:
                process.terminate()
            except psutil.NoSuchProcess:
                pass
        _, alive = psutil.wait_procs(survivors, timeout=10)
        for process in alive:
            try:
                process.kill()
            except psutil.NoSuchProcess:
                pass
        psutil.wait_procs(alive, timeout=10)
        self._http.close()
        self._hub = None
        self._cleanup_folder()

    def still_running(self) -> list[int]:
        """PIDs of processes this hub started that are still alive (empty after `stop`)."""
        return sorted(pid for pid, p in self._seen.items() if p.is_running())

    def _cleanup_folder(self) -> None:
        shutil.rmtree(self._folder, ignore_errors=True)
