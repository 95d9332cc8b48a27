"""Run the real Neo4j Community server of the packaged launcher project (`neo4j_local/`: a pom and one Java
class) as a background process: copy it to the user's cache and build it with Maven once, start it on loopback
with auth on, wait until Bolt answers, stop it cleanly."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import signal
import subprocess
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ClientError, ServiceUnavailable

from graphwright.config import user_cache_dir
from graphwright.errors import (
    LocalServerError,  # re-exported: they used to live here
)
from graphwright.private_files import PRIVATE_UMASK

LAUNCHER_CLASS = "io.graphwright.neo4jlocal.Launcher"
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# The flags the official `neo4j` script passes on Java 17 (off-heap access for the page cache and Netty).
_JVM_FLAGS = [
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+DisableExplicitGC",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
]


# The launcher's Maven project, inside the package so that `pip install` alone can start Neo4j.
PACKAGED_PROJECT = Path(__file__).resolve().parent / "neo4j_local"
# A Maven line saying an artifact arrived: "Downloaded from central: https://.../x.jar (1.2 MB at 3 MB/s)".
_DOWNLOADED = re.compile(r"^Downloaded from \S+: (\S+) \(([\d.]+) (B|kB|KB|MB|GB)")
_UNIT = {"B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9}


def project_sources(project: Path) -> list[Path]:
    return [project / "pom.xml", project / "gds" / "pom.xml", *sorted((project / "src").rglob("*.java"))]


def default_project_dir(cache_dir: Path | None = None) -> Path:
    """Where `db build` builds: a copy of the packaged project in the user's cache, one folder per version of
    its sources (site-packages may be read-only, and a new release must not run an old build)."""
    sources = project_sources(PACKAGED_PROJECT)
    digest = hashlib.sha256()
    for source in sources:
        digest.update(str(source.relative_to(PACKAGED_PROJECT)).encode() + b"\0" + source.read_bytes())
    target = (cache_dir or user_cache_dir()) / f"neo4j-local-{digest.hexdigest()[:12]}"
    if not (target / "pom.xml").exists():
        for source in reversed(sources):  # the pom last: its presence says the copy is whole
            copy = target / source.relative_to(PACKAGED_PROJECT)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(source.read_bytes())
    return target


@dataclass
class LocalServer:
    project_dir: Path
    home: Path
    bolt_uri: str
    http_port: int
    user: str
    password: str
    heap: str = "1g"
    pagecache: str = "512m"
    gds: bool = False  # with Neo4j Graph Data Science (OpenGDS) in its plugins folder

    def __post_init__(self) -> None:
        parsed = urlparse(self.bolt_uri)
        self.host = parsed.hostname or "127.0.0.1"
        self.bolt_port = parsed.port or 7687
        if self.host not in _LOOPBACK:
            raise LocalServerError(
                f"NEO4J_URI points at {self.host}; `graphwright db` only manages a server on this machine "
                "(127.0.0.1). Unset NEO4J_URI or point it at bolt://127.0.0.1:PORT."
            )
        if self.host == "localhost":
            self.host = "127.0.0.1"

    # --- paths ---------------------------------------------------------------------------------------
    @property
    def pid_file(self) -> Path:
        return self.home / "neo4j.pid"

    @property
    def log_file(self) -> Path:
        return self.home / "logs" / "launcher.log"

    @property
    def browser_url(self) -> str:
        return f"http://{self.host}:{self.http_port}/browser/"

    @property
    def bolt_url(self) -> str:
        return f"bolt://{self.host}:{self.bolt_port}"

    # --- build ---------------------------------------------------------------------------------------
    def is_built(self) -> bool:
        marker = self.project_dir / "target" / "lib" / ".complete"
        if not marker.exists():
            return False
        built = marker.stat().st_mtime
        return all(p.stat().st_mtime <= built for p in project_sources(self.project_dir))

    def build(self, progress: Callable[[int, int], None] | None = None) -> None:
        """`mvn package`: fetches Neo4j (about 130 artifacts, 120 MB) into Maven's cache the first time;
        `progress(artifacts, bytes)` is told of each one that arrives."""
        if not (self.project_dir / "pom.xml").exists():
            raise LocalServerError(
                f"neo4j-local Maven project not found at {self.project_dir} (set GRAPHWRIGHT_NEO4J_LOCAL_DIR)"
            )
        self._maven(self.project_dir, progress)
        (self.project_dir / "target" / "lib" / ".complete").touch()

    def _maven(self, project: Path, progress: Callable[[int, int], None] | None) -> None:
        mvn = shutil.which("mvn")
        if mvn is None:
            raise LocalServerError("Maven (mvn) is needed to fetch Neo4j; install it or use docker compose")
        proc = subprocess.Popen(
            [mvn, "-B", "package"],  # batch mode: one "Downloaded from" line per artifact, no bars
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        assert proc.stdout is not None
        tail: deque[str] = deque(maxlen=20)  # what a failed build's message quotes
        artifacts, fetched = 0, 0.0
        for line in proc.stdout:
            tail.append(line.rstrip())
            if progress is not None and (hit := _DOWNLOADED.match(line.strip())):
                artifacts += hit.group(1).endswith(".jar")
                fetched += float(hit.group(2)) * _UNIT[hit.group(3)]
                progress(artifacts, int(fetched))
        if proc.wait() != 0:
            raise LocalServerError(f"building {project.name} failed:\n" + "\n".join(tail))

    @property
    def gds_plugins(self) -> Path:
        return self.project_dir / "gds" / "target" / "plugins"

    def is_gds_built(self) -> bool:
        marker = self.gds_plugins / ".complete"
        return marker.exists() and (self.project_dir / "gds" / "pom.xml").stat().st_mtime <= marker.stat().st_mtime

    def build_gds(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Fetch OpenGDS (about 140 jars, 15 MB) into the plugins folder the server is started with."""
        self._maven(self.project_dir / "gds", progress)
        (self.gds_plugins / ".complete").touch()

    # --- process -------------------------------------------------------------------------------------
    def pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        try:
            os.kill(pid, 0)
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except (OSError, PermissionError):
            return None
        return pid if LAUNCHER_CLASS in cmdline else None

    def bolt_state(self) -> str:
        """'ok', 'auth' (a server answers but refuses our password) or 'down'."""
        driver = GraphDatabase.driver(self.bolt_url, auth=(self.user, self.password), connection_timeout=3)
        try:
            driver.verify_connectivity()
            return "ok"
        except AuthError:
            return "auth"
        except ClientError as exc:  # e.g. AuthenticationRateLimit after repeated wrong passwords
            if "Security" in (exc.code or ""):
                return "auth"
            raise
        except (ServiceUnavailable, OSError):
            return "down"
        finally:
            driver.close()

    def start(self, timeout: float = 180.0, progress: Callable[[int, int], None] | None = None) -> int:
        """Start (building first if needed) and return the pid once Bolt accepts our credentials."""
        if (pid := self.pid()) is not None:
            return pid
        if len(self.password) < 8:
            raise LocalServerError("NEO4J_PASSWORD must have at least 8 characters for the local server")
        state = self.bolt_state()
        if state != "down":
            raise LocalServerError(
                f"another server already answers on {self.bolt_url}"
                + (" and refuses NEO4J_PASSWORD" if state == "auth" else "")
                + "; stop it or choose another port in NEO4J_URI"
            )
        if not self.is_built():
            self.build(progress)
        if self.gds and not self.is_gds_built():
            self.build_gds(progress)
        java = shutil.which("java", path=os.path.join(os.environ.get("JAVA_HOME", ""), "bin")) or shutil.which("java")
        if java is None:
            raise LocalServerError("Java 17+ is needed to run the local Neo4j (or use docker compose)")
        self.log_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        target = self.project_dir / "target"
        classpath = f"{target / 'classes'}{os.pathsep}{target / 'lib' / '*'}"
        if self.gds:  # on the classpath too, as the distribution's script puts plugins: GDS's extension is found
            classpath += f"{os.pathsep}{self.gds_plugins / '*'}"  # there, and its procedures share its classes
        cmd = [
            java,
            f"-Xms{self.heap}",
            f"-Xmx{self.heap}",
            *_JVM_FLAGS,
            "-cp",
            classpath,
            LAUNCHER_CLASS,
            "--home",
            str(self.home),
            "--bolt",
            f"{self.host}:{self.bolt_port}",
            "--http",
            f"{self.host}:{self.http_port}",
            "--pagecache",
            self.pagecache,
            *(["--plugins", str(self.gds_plugins)] if self.gds else []),
        ]
        env = {**os.environ, "NEO4J_PASSWORD": self.password}
        with open(self.log_file, "ab") as log:
            proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
                umask=PRIVATE_UMASK,  # the store holds every document's text: owner-only, whoever starts it
            )
        ready = self.home / "ready"
        ready.unlink(missing_ok=True)
        self.pid_file.write_text(str(proc.pid))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self.pid_file.unlink(missing_ok=True)
                raise LocalServerError(f"Neo4j exited with status {proc.returncode} while starting:\n{self.log_tail()}")
            if ready.exists() and self.bolt_state() == "ok":
                return proc.pid
            time.sleep(0.5)
        self.stop()
        raise LocalServerError(f"Neo4j did not answer on {self.bolt_url} within {timeout:.0f}s:\n{self.log_tail()}")

    def stop(self, timeout: float = 60.0) -> bool:
        """SIGTERM (Neo4j checkpoints and closes the store), SIGKILL only after `timeout`."""
        pid = self.pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _alive(pid):
                break
            time.sleep(0.25)
        else:
            os.kill(pid, signal.SIGKILL)
        self.pid_file.unlink(missing_ok=True)
        return True

    def log_tail(self, lines: int = 25) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def write_password_file(path: Path) -> None:
    """A random password for a new local server, in a file only its owner can read (created 0600, never
    overwritten: a second caller keeps the first password)."""
    import secrets

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(secrets.token_urlsafe(24) + "\n")


def _alive(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reap it if it is our child
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"


def store_bytes(home: Path, database: str) -> int | None:
    """Size on disk of a database of the local server whose home is `home`; None when it is not there
    (another server, or nothing written yet)."""
    folder = home / "neo4j" / "data" / "databases" / database
    return _folder_bytes(folder) if folder.is_dir() else None


@dataclass(frozen=True)
class DiskUsage:
    """What the local server keeps on disk, by kind (bytes)."""

    stores: int  # every database's store files (data/databases)
    transaction_logs: int  # data/transactions: kept for recovery, pruned by the retention policy
    logs: int  # the server's own logs


def disk_usage(home: Path) -> DiskUsage | None:
    """The local server's disk use under the graphwright home `home`; None when no local server wrote there."""
    data = home / "neo4j" / "data"
    if not data.is_dir():
        return None
    return DiskUsage(
        stores=_folder_bytes(data / "databases"),
        transaction_logs=_folder_bytes(data / "transactions"),
        logs=_folder_bytes(home / "neo4j" / "logs"),
    )


def _folder_bytes(folder: Path) -> int:
    total = 0
    for entry in folder.rglob("*"):
        with contextlib.suppress(OSError):  # a running server rotates its files while we walk
            if entry.is_file() and not entry.is_symlink():
                total += entry.stat().st_size
    return total
