"""How locked down the Neo4j server is, read from the server itself (`graphwright doctor`): whether Cypher can
read files or reach the network through LOAD CSV, whether its HTTP API answers any web origin, and which
procedures run unrestricted. graphwright's read-only gate refuses every LoadCSV plan whatever the server
allows; these are the database's own locks behind it, which an operator of a managed Neo4j (Aura, a cluster,
their own) has to set."""

from __future__ import annotations

from dataclasses import dataclass

from graphwright.errors import QueryRejectedError
from graphwright.graph_store.connection import Neo4jConnection
from graphwright.graph_store.queries import admin as q

# LOAD CSV from an address that serves nothing: the refusal says whether a lock stopped it (the setting or the
# IP blocklist) or the load was attempted. Nothing is read: port 1 of the database host's loopback answers
# nothing, and the file does not exist.
FILE_PROBE = "file:///graphwright-doctor-probe-does-not-exist.csv"
NETWORK_PROBE = "http://127.0.0.1:1/graphwright-doctor-probe.csv"
_BLOCKED_WORDS = ("allow_csv_import_from_file_urls", "is blocked", "blocklist", "not allowed", "permission", "denied")
_WATCHED = (
    "dbms.security.allow_csv_import_from_file_urls",
    "server.directories.import",
    "dbms.security.http_access_control_allow_origin",
    "dbms.security.procedures.unrestricted",
    "server.default_listen_address",
    "server.http.listen_address",
    "db.memory.transaction.max",
    "db.memory.transaction.total.max",
    "db.transaction.timeout",
)
# Settings whose value 0 (Neo4j's default) means "no limit": one query may then take every byte of the heap
# or run for ever.
_LIMITS = {  # setting: (the check's name, what to set)
    "db.memory.transaction.max": (
        "memory per transaction",
        "set db.memory.transaction.max (e.g. half the heap) so one query cannot take it all",
    ),
    "db.memory.transaction.total.max": (
        "memory of all transactions",
        "set db.memory.transaction.total.max (e.g. 70% of the heap)",
    ),
    "db.transaction.timeout": (
        "transaction timeout",
        "set db.transaction.timeout (e.g. 300s) so no transaction runs for ever",
    ),
}


def _unlimited(value: str) -> bool:
    """ "0", "0B", "0s", "0ms", "" -> True."""
    digits = value.strip().rstrip("BbKkMmGgs").rstrip("m")
    return not digits or all(c in "0." for c in digits)


@dataclass(frozen=True)
class PostureCheck:
    name: str
    value: str
    ok: bool
    advice: str = ""


def blocked(message: str) -> bool:
    """Whether Neo4j's answer to a probe says a lock refused it (anything else: the load was tried)."""
    return any(word in message.lower() for word in _BLOCKED_WORDS)


def judge(settings: dict[str, str], file_probe: str, network_probe: str) -> list[PostureCheck]:
    """The verdicts, from the server's settings (what it would show; missing when it hides them) and what
    it answered to the two LOAD CSV probes."""
    advice = {
        "LOAD CSV from files": "set dbms.security.allow_csv_import_from_file_urls=false (and "
        "server.directories.import to an empty folder)",
        "LOAD CSV from the network": "self-managed: set internal.dbms.cypher_ip_blocklist=0.0.0.0/0,::/0; "
        "Enterprise/Aura: DENY LOAD ON ALL DATA TO the role graphwright uses",
    }
    checks = [
        PostureCheck(
            name, "refused" if blocked(answer) else "allowed", blocked(answer), "" if blocked(answer) else advice[name]
        )
        for name, answer in zip(advice, (file_probe, network_probe))
    ]
    origin = settings.get("dbms.security.http_access_control_allow_origin")
    if origin is not None:
        checks.append(
            PostureCheck(
                "HTTP API origins",
                origin,
                origin.strip() != "*",
                ""
                if origin.strip() != "*"
                else "set dbms.security.http_access_control_allow_origin to the Browser's own origin, not *",
            )
        )
    unrestricted = settings.get("dbms.security.procedures.unrestricted")
    if unrestricted is not None:
        # gds.* unrestricted is what Graph Data Science needs to run at all (`db start --gds` sets it), and user
        # Cypher cannot reach it (the read-only gate refuses the gds namespace); anything wider is a risk.
        granted = [p.strip() for p in unrestricted.split(",") if p.strip()]
        risky = [p for p in granted if p.startswith(("apoc", "gds", "*")) and p != "gds.*"]
        checks.append(
            PostureCheck(
                "unrestricted procedures",
                unrestricted or "(none)",
                not risky,
                "" if not risky else "grant apoc/gds procedures only what they need",
            )
        )
    for name in ("server.default_listen_address", "server.http.listen_address"):
        address = settings.get(name)
        if address is not None:
            host = address.rsplit(":", 1)[0] if ":" in address and not address.startswith("[") else address
            local = host in ("127.0.0.1", "localhost", "::1", "[::1]", "")
            checks.append(
                PostureCheck(
                    name,
                    address,
                    local,
                    "" if local else "anything beyond loopback needs a firewall and TLS in front of it",
                )
            )
    for setting, (name, fix) in _LIMITS.items():
        value = settings.get(setting)
        if value is not None:
            checks.append(PostureCheck(name, value, not _unlimited(value), fix if _unlimited(value) else ""))
    return checks


def read_posture(connection: Neo4jConnection) -> tuple[list[PostureCheck], str]:
    """The checks of the server behind `connection`, and a note when its settings could not be read
    (Aura and locked-down clusters hide them; the probes still answer)."""
    note = ""
    try:
        rows = connection.read(q.SECURITY_SETTINGS, names=list(_WATCHED))
        settings = {row["name"]: str(row["value"]) for row in rows}
    except QueryRejectedError as exc:
        settings, note = {}, f"settings not readable here ({exc}); judged by the probes alone"
    answers = []
    for url in (FILE_PROBE, NETWORK_PROBE):
        try:
            connection.read(q.LOAD_PROBE, url=url)
            answers.append("loaded")
        except QueryRejectedError as exc:
            answers.append(str(exc))
    return judge(settings, answers[0], answers[1]), note
