"""Who a cluster trusts: whoever reaches a Dask scheduler can run code on its workers (their keys, their Neo4j
password, the graph they write), so a graphwright cluster is closed by mutual TLS (Dask's `Security`): a CA
of the operator's, made by `graphwright cluster certs` under the home (owner-only), signs the scheduler's,
the workers' and the clients' certificates, and every connection must show one. Plain TCP is allowed on
loopback only (one machine, its own users); any other address needs `tls://` and the certificates, or an
explicit `--insecure`."""

from __future__ import annotations

import datetime
import ipaddress
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from graphwright.errors import ClusterError

ROLES = ("scheduler", "worker", "client")
TLS_FOLDER = "cluster-tls"
_DAYS = 825  # the longest validity browsers' rules allow; a cluster renews with `cluster certs --force`


@dataclass(frozen=True)
class TlsFiles:
    """The PEM files of one role: the CA certificate (to check the others), its certificate and key."""

    ca: Path
    cert: Path
    key: Path


def tls_folder(home: Path) -> Path:
    return home / TLS_FOLDER


def role_files(home: Path, role: str) -> TlsFiles:
    folder = tls_folder(home)
    return TlsFiles(folder / "ca.pem", folder / f"{role}.pem", folder / f"{role}-key.pem")


def is_loopback_address(address: str) -> bool:
    """`tcp://127.0.0.1:8786`, `localhost:8786`, `[::1]:8786`: loopback. A name other than localhost is not."""
    host = urlsplit(address if "://" in address else f"tcp://{address}").hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_address(address: str, *, insecure: bool, what: str) -> bool:
    """Whether `address` is to be used with TLS. Plain TCP off loopback is refused without `insecure`."""
    scheme = urlsplit(address).scheme if "://" in address else "tcp"
    if scheme == "tls":
        return True
    if scheme not in ("tcp", ""):
        raise ClusterError(f"{what} {address}: use tcp:// on loopback or tls:// (mutual TLS) elsewhere")
    if not is_loopback_address(address) and not insecure:
        raise ClusterError(
            f"{what} {address} is not on loopback: anyone who reaches it could run code on the workers. Use "
            "tls://HOST:PORT with the certificates of `graphwright cluster certs`, or pass --insecure on a "
            "network only trusted machines reach"
        )
    return False


def tls_files(home: Path, role: str) -> TlsFiles:
    """The files of `role` under the home, every one there; ClusterError naming the command if one is absent."""
    files = role_files(home, role)
    missing = [p.name for p in (files.ca, files.cert, files.key) if not p.is_file()]
    if missing:
        raise ClusterError(
            f"TLS certificates missing in {files.ca.parent} ({', '.join(missing)}): run `graphwright cluster "
            "certs` there (and copy ca.pem and this role's pair to the other machines)"
        )
    return files


def security(home: Path, role: str) -> Any:
    """Dask's Security for `role` from the files under the home (`tls_files`)."""
    from distributed.security import Security

    files = tls_files(home, role)
    if role not in ROLES:
        raise ValueError(f"no TLS role {role!r}; roles: {', '.join(ROLES)}")
    return Security(
        require_encryption=True,
        tls_ca_file=str(files.ca),
        **{f"tls_{role}_cert": str(files.cert), f"tls_{role}_key": str(files.key)},
    )


def write_certificates(home: Path, hosts: list[str], *, force: bool = False) -> list[Path]:
    """A CA and a certificate and key for each role, signed by it, under `home/cluster-tls` (a 0700 folder,
    0600 files). `hosts` are put in the scheduler's and workers' names (loopback always). Refuses to replace
    existing files without `force`. Returns the files written."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    folder = tls_folder(home)
    if folder.exists() and any(folder.iterdir()) and not force:
        raise ClusterError(f"{folder} already holds certificates; --force replaces them (every machine needs the new)")
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    now = datetime.datetime.now(tz=datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "graphwright cluster CA")])
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True
        )  # digital signature, cert sign, CRL sign
        .sign(ca_key, hashes.SHA256())
    )
    names: list[x509.GeneralName] = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    written = [_write(folder / "ca.pem", ca_cert.public_bytes(serialization.Encoding.PEM))]
    written.append(_write(folder / "ca-key.pem", _pem_key(ca_key)))
    for role in ROLES:
        key = ec.generate_private_key(ec.SECP256R1())
        usage = [ExtendedKeyUsageOID.CLIENT_AUTH, ExtendedKeyUsageOID.SERVER_AUTH]
        cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"graphwright {role}")]))
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=_DAYS))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage(usage), critical=False)
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        written.append(_write(folder / f"{role}.pem", cert.public_bytes(serialization.Encoding.PEM)))
        written.append(_write(folder / f"{role}-key.pem", _pem_key(key)))
    return written


def _pem_key(key: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )


def _write(path: Path, data: bytes) -> Path:
    """Owner-only from the first byte (created 0600, never readable by others even for a moment)."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, stat.S_IRUSR | stat.S_IWUSR)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    return path
