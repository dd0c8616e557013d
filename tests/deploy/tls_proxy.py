"""A loopback stand-in for a platform router: terminates TLS (a self-signed certificate made with
openssl), appends the connecting address to X-Forwarded-For, sets X-Forwarded-Proto, and forwards
the request to the web process over plain HTTP, passing the answer back byte for byte (no
decompression: what the browser receives is what gunicorn sent). Runs in a thread of the test."""

from __future__ import annotations

import http.client
import ssl
import subprocess
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    cert, key = directory / "proxy.crt", directory / "proxy.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],  # fmt: skip
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


def _handler(upstream_port: int):
    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # the web process logs requests itself
            pass

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            prior = self.headers.get("X-Forwarded-For")
            peer = self.client_address[0]
            headers["X-Forwarded-For"] = f"{prior}, {peer}" if prior else peer
            headers["X-Forwarded-Proto"] = "https"
            upstream = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=60)
            try:
                upstream.request(self.command, self.path, body=body, headers=headers)
                answer = upstream.getresponse()
                payload = answer.read()
            except (OSError, http.client.HTTPException):
                # Nothing, or a cut body (gunicorn's worker timeout ends a stream mid-way): a router
                # answers 502 then, as Heroku's does (H13), rather than pass on a truncated answer.
                self.send_error(502)
                return
            finally:
                upstream.close()
            self.send_response_only(answer.status, answer.reason)
            for name, value in answer.getheaders():
                if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                try:
                    self.wfile.write(payload)
                except OSError:  # the client left before reading the body (as browsers do)
                    self.close_connection = True

        do_GET = do_POST = do_HEAD = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _forward

    return Forward


@contextmanager
def tls_proxy(upstream_port: int, workdir: Path):
    """Yields (https_url, certificate_path); the proxy listens on a free loopback port."""
    cert, key = self_signed_certificate(workdir)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(upstream_port))
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", cert
    finally:
        server.shutdown()
        server.server_close()
