"""`graphwright worker`: a Dask worker for `graphwright ingest --cluster`."""

from __future__ import annotations

import click

from graphwright.cli.common import fail


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
@click.argument("dask_options", nargs=-1, type=click.UNPROCESSED)
def worker(scheduler: str, nthreads: int, host: str, name: str | None, dask_options: tuple[str, ...]) -> None:
    """Run a Dask worker that ingests for `graphwright ingest --cluster SCHEDULER`: it builds the embedder and
    the extractor once, from this machine's settings (its environment and .env, keys included: none crosses
    the network), and embeds and extracts what the client sends. One task at a time by default: the bundled
    embedder already runs a stream per core. Options after `--` go to `dask worker` as they are.

    \b
    Example:
      dask scheduler --host 127.0.0.1 --port 8786 &
      graphwright worker tcp://127.0.0.1:8786 &
      graphwright worker tcp://127.0.0.1:8786 &
      graphwright ingest docs/ --cluster tcp://127.0.0.1:8786
      graphwright worker tcp://10.0.0.5:8786 --host 10.0.0.7 -- --memory-limit 8GB
    """
    try:
        from distributed.cli.dask_worker import main as dask_worker
    except ImportError:
        fail("graphwright worker needs Dask distributed: pip install 'graphwright[cluster]'")
    args = [scheduler, "--nthreads", str(nthreads), "--host", host, "--preload", "graphwright.cluster.preload"]
    args += ["--no-dashboard", *(["--name", name] if name else []), *dask_options]
    dask_worker.main(args=args, prog_name="graphwright worker")
