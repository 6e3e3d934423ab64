"""A small OpenID Connect provider for the end-to-end login test: discovery, an authorization endpoint that
signs in whoever `next_email` names (no form), a token endpoint that returns an RS256 id_token carrying the
request's nonce, and the JWKS to check it with. Enough for Streamlit's `st.login` (Authlib) to run its whole
authorization-code flow against it, nothing more; it serves 127.0.0.1 only."""
from __future__ import annotations

import base64
import json
import secrets
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from joserfc import jwt
from joserfc.jwk import RSAKey


class Provider:
    def __init__(self, client_id: str, client_secret: str):
        self.client_id, self.client_secret = client_id, client_secret
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig", "alg": "RS256"})
        self.next_email = "someone@example.org"
        self.codes: dict[str, dict] = {}
        self.tokens_issued: list[str] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "Provider":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def metadata(self) -> dict:
        return {"issuer": self.url, "authorization_endpoint": self.url + "/authorize",
                "token_endpoint": self.url + "/token", "jwks_uri": self.url + "/jwks",
                "userinfo_endpoint": self.url + "/userinfo", "end_session_endpoint": self.url + "/logout",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"], "scopes_supported": ["openid", "email", "profile"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
                "code_challenge_methods_supported": ["S256"]}

    def _authorized(self, headers, form: dict) -> bool:
        basic = headers.get("Authorization", "")
        if basic.startswith("Basic "):
            got = base64.b64decode(basic[6:]).decode().split(":", 1)
            pair = [urllib.parse.unquote(x) for x in got]
        else:
            pair = [form.get("client_id", ""), form.get("client_secret", "")]
        return pair == [self.client_id, self.client_secret]

    def _token(self, code: str) -> dict | None:
        grant = self.codes.pop(code, None)
        if grant is None:
            return None
        now = int(time.time())
        claims = {"iss": self.url, "sub": grant["email"], "aud": self.client_id, "iat": now, "exp": now + 600,
                  "email": grant["email"], "email_verified": True, "name": grant["email"].split("@")[0]}
        if grant.get("nonce"):
            claims["nonce"] = grant["nonce"]
        id_token = jwt.encode({"alg": "RS256", "kid": "test-key"}, claims, self.key)
        self.tokens_issued.append(grant["email"])
        return {"access_token": secrets.token_urlsafe(16), "token_type": "Bearer", "expires_in": 600,
                "id_token": id_token, "scope": "openid email profile"}

    def _handler(self):
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _json(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                if url.path == "/.well-known/openid-configuration":
                    return self._json(200, provider.metadata())
                if url.path == "/jwks":
                    return self._json(200, {"keys": [provider.key.as_dict(private=False)]})
                if url.path == "/authorize":
                    if query.get("client_id") != provider.client_id or query.get("response_type") != "code":
                        return self._json(400, {"error": "invalid_request"})
                    code = secrets.token_urlsafe(16)
                    provider.codes[code] = {"email": provider.next_email, "nonce": query.get("nonce")}
                    back = {"code": code, **({"state": query["state"]} if "state" in query else {})}
                    self.send_response(302)
                    self.send_header("Location", query["redirect_uri"] + "?" + urllib.parse.urlencode(back))
                    self.end_headers()
                    return None
                if url.path == "/logout":
                    self.send_response(302)
                    self.send_header("Location", query.get("post_logout_redirect_uri", "/"))
                    self.end_headers()
                    return None
                return self._json(404, {"error": "not_found"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                if self.path != "/token" or form.get("grant_type") != "authorization_code":
                    return self._json(400, {"error": "unsupported_grant_type"})
                if not provider._authorized(self.headers, form):
                    return self._json(401, {"error": "invalid_client"})
                token = provider._token(form.get("code", ""))
                return self._json(200, token) if token else self._json(400, {"error": "invalid_grant"})

        return Handler
