"""Channel credentials for TLS and mutual TLS, from files named as the regent CLI names them.

The CLI's --cacert/--cert/--key, defaulting to $REGENT_CACERT/$REGENT_CERT/$REGENT_KEY (docs/security.md):
plaintext without a CA certificate; a client certificate and its key go together and need a CA certificate.
"""

import os
from typing import Optional, Tuple

import grpc

_ENV = ("REGENT_CACERT", "REGENT_CERT", "REGENT_KEY")


def tls_files(cacert: Optional[str] = None, cert: Optional[str] = None,
              key: Optional[str] = None) -> Tuple[Optional[str], Optional[str], Optional[str]]:
    """The CA certificate, client certificate and key paths: each argument, else its environment variable
    (an empty one counts as unset), else None.

    Raises ValueError for a certificate without its key (or the reverse), or a client certificate without a CA
    certificate, the CLI's usage errors.
    """
    given = [arg if arg else (os.environ.get(var) or None) for arg, var in zip((cacert, cert, key), _ENV)]
    ca, c, k = (str(p) if p is not None else None for p in given)
    if (c is None) != (k is None):
        raise ValueError("cert and key go together (REGENT_CERT, REGENT_KEY)")
    if c is not None and ca is None:
        raise ValueError("cert needs cacert (client certificates are for TLS)")
    return ca, c, k


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise ValueError("cannot read %s: %s" % (path, e.strerror)) from e


def credentials(cacert: Optional[str] = None, cert: Optional[str] = None,
                key: Optional[str] = None) -> Optional[grpc.ChannelCredentials]:
    """gRPC channel credentials for tls_files(cacert, cert, key), or None for plaintext (no CA certificate).

    The servers are verified against the CA certificate (PEM); with cert and key (PEM, the key PKCS#8 as the
    server's tools write it) the client presents its certificate, whose CN is its identity for the server's
    per-name permissions. Raises ValueError for the usage errors of tls_files() and for a file that cannot be
    read (naming it).
    """
    ca, c, k = tls_files(cacert, cert, key)
    if ca is None:
        return None
    return grpc.ssl_channel_credentials(root_certificates=_read(ca),
                                        private_key=_read(k) if k else None,
                                        certificate_chain=_read(c) if c else None)


def channel(endpoint: str, creds: Optional[grpc.ChannelCredentials]) -> grpc.Channel:
    """A channel to host:port: over TLS with `creds`, plaintext without."""
    return grpc.insecure_channel(endpoint) if creds is None else grpc.secure_channel(endpoint, creds)
