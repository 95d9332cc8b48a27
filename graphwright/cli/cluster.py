"""`graphwright worker`, `graphwright scheduler` and `graphwright cluster certs`: a Dask cluster for
`graphwright ingest --cluster`, closed by mutual TLS off loopback (graphwright/dask_ingest/trust.py)."""

from __future__ import annotations

from urllib.parse import urlsplit

import click

from graphwright.cli.common import fail, load_settings
from graphwright.errors import ClusterError

_INSECURE_HELP = "Allow plain TCP off loopback: anyone who reaches the port can run code on the workers."


def _tls_arguments(role: str) -> list[str]:
    from graphwright.dask_ingest.trust import tls_files

    try:
        files = tls_files(load_settings().home, role)
    except ClusterError as exc:
        fail(str(exc))
    return ["--tls-ca-file", str(files.ca), "--tls-cert", str(files.cert), "--tls-key", str(files.key)]


def _health_only(role: str) -> None:
    """The HTTP server of a scheduler or worker keeps its health check only: no Prometheus metrics, no static
    files, no scheduler JSON API (an operator who wants them sets DASK_DISTRIBUTED__<ROLE>__HTTP__ROUTES)."""
    import os

    import dask

    if f"DASK_DISTRIBUTED__{role.upper()}__HTTP__ROUTES" not in os.environ:
        dask.config.set({f"distributed.{role}.http.routes": ["distributed.http.health"]})


def _listening(host: str, insecure: bool, scheme: str, what: str) -> None:
    from graphwright.dask_ingest.trust import is_loopback_address

    if scheme != "tls" and not is_loopback_address(f"tcp://{host}:1") and not insecure:
        fail(
            f"{what} would listen on {host} with plain TCP, where anyone who reaches it runs code on the workers: "
            "use --protocol tls with `graphwright cluster certs`, or --insecure on a network of trusted machines"
        )


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("scheduler")
@click.option("--nthreads", default=1, show_default=True, type=click.IntRange(1, 256), help="Tasks at a time.")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address this worker listens on: loopback, unless the scheduler is on another machine.",
)
@click.option("--name", default=None, help="The worker's name in the scheduler (default: its address).")
@click.option("--insecure", is_flag=True, help=_INSECURE_HELP)
@click.argument("dask_options", nargs=-1, type=click.UNPROCESSED)
def worker(
    scheduler: str, nthreads: int, host: str, name: str | None, insecure: bool, dask_options: tuple[str, ...]
) -> None:
    """Run a Dask worker that ingests for `graphwright ingest --cluster SCHEDULER`: it builds the embedder and
    the extractor once, from this machine's settings (its environment and .env, keys included: none crosses
    the network), and embeds and extracts what the client sends. One task at a time by default: the bundled
    embedder already runs a stream per core. It listens on loopback, with no dashboard and no metrics, unless
    told otherwise; off loopback it needs tls:// and the certificates of `graphwright cluster certs` (or
    --insecure). Options after `--` go to `dask worker` as they are.

    \b
    Example:
      graphwright scheduler &
      graphwright worker tcp://127.0.0.1:8786 &
      graphwright ingest docs/ --cluster tcp://127.0.0.1:8786
      graphwright worker tls://10.0.0.5:8786 --host 10.0.0.7 -- --memory-limit 8GB
    """
    from graphwright.dask_ingest.trust import check_address

    try:
        from distributed.cli.dask_worker import main as dask_worker
    except ImportError:
        fail("graphwright worker needs Dask distributed: pip install 'graphwright[cluster]'")
    try:
        tls = check_address(scheduler, insecure=insecure, what="the scheduler")
    except ClusterError as exc:
        fail(str(exc))
    _listening(host, insecure, "tls" if tls else "tcp", "the worker")
    args = [scheduler, "--nthreads", str(nthreads), "--host", host, "--preload", "graphwright.dask_ingest.preload"]
    # The worker's HTTP server (health, metrics) stays on loopback whatever --host says; no dashboard.
    args += ["--no-dashboard", "--dashboard-address", "127.0.0.1:0", *(["--name", name] if name else [])]
    args += [*(_tls_arguments("worker") if tls else []), *dask_options]
    _health_only("worker")
    dask_worker.main(args=args, prog_name="graphwright worker")


@click.command(context_settings={"ignore_unknown_options": True})
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8786, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--protocol",
    type=click.Choice(["tcp", "tls"]),
    default=None,
    help="tls: mutual TLS with `graphwright cluster certs` (default: tcp on loopback, tls elsewhere).",
)
@click.option("--insecure", is_flag=True, help=_INSECURE_HELP)
@click.argument("dask_options", nargs=-1, type=click.UNPROCESSED)
def scheduler(host: str, port: int, protocol: str | None, insecure: bool, dask_options: tuple[str, ...]) -> None:
    """Run a Dask scheduler for `graphwright worker` and `graphwright ingest --cluster`: on loopback, with no
    dashboard, unless told otherwise; off loopback with mutual TLS (every worker and client must show a
    certificate of this cluster's CA), or plain TCP only with --insecure. Options after `--` go to
    `dask scheduler`.

    \b
    Example (one machine):
      graphwright scheduler &
    Example (several machines: the certificates first, then ca.pem and each role's pair copied to its machine):
      graphwright cluster certs --host 10.0.0.5 --host 10.0.0.7
      graphwright scheduler --host 10.0.0.5
    """
    from graphwright.dask_ingest.trust import is_loopback_address

    try:
        from distributed.cli.dask_scheduler import main as dask_scheduler
    except ImportError:
        fail("graphwright scheduler needs Dask distributed: pip install 'graphwright[cluster]'")
    scheme = protocol or ("tcp" if is_loopback_address(f"tcp://{host}:1") or insecure else "tls")
    _listening(host, insecure, scheme, "the scheduler")
    args = ["--host", host, "--port", str(port), "--protocol", scheme]
    args += ["--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
    args += [*(_tls_arguments("scheduler") if scheme == "tls" else []), *dask_options]
    click.echo(f"graphwright scheduler at {scheme}://{host}:{port}", err=True)
    _health_only("scheduler")
    dask_scheduler.main(args=args, prog_name="graphwright scheduler")


@click.group()
def cluster() -> None:
    """The cluster's trust: its certificates (see `graphwright scheduler` and `graphwright worker`)."""


@cluster.command("certs")
@click.option("--host", "hosts", multiple=True, help="A scheduler's or worker's address or name (repeat).")
@click.option("--force", is_flag=True, help="Replace existing certificates (every machine needs the new ones).")
def certs(hosts: tuple[str, ...], force: bool) -> None:
    """Write a CA and the scheduler's, the workers' and the clients' certificates and keys under the home
    (cluster-tls/, owner-only). Copy ca.pem and a role's pair to each machine's home; ca-key.pem stays here.

    \b
    Example:
      graphwright cluster certs --host 10.0.0.5 --host 10.0.0.7
      graphwright scheduler --host 10.0.0.5          # tls://10.0.0.5:8786
      graphwright ingest docs/ --cluster tls://10.0.0.5:8786
    """
    from graphwright.dask_ingest.trust import write_certificates

    home = load_settings().home
    try:
        written = write_certificates(home, [h for h in hosts if urlsplit(f"x://{h}").hostname], force=force)
    except ClusterError as exc:
        fail(str(exc))
    click.echo(f"wrote {len(written)} files to {written[0].parent} (owner-only)")
    for path in written:
        click.echo(f"  {path.name}")
