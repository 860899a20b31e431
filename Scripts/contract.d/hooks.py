"""Schemathesis hooks of Scripts/contract (docs/architecture.md, "The contract stage").

They make the generated requests reach past the checks a schema cannot state:

- every signed-route body (`/v1/push/*`) is signed again just before it is sent: a fresh `ts`,
  this run's P-256 key as `publicKeyJwk`, and `sig` over the route's signed message exactly as
  docs/relay.md "Signed requests" defines it (numbers in JavaScript's form, live-activity items
  normalised);
- the gateway's bearer routes carry a session from a real handshake (`pushgate gateway
  challenge`, the project's Orca-compatible host client), the host's routes its access token;
- a schema-valid case that breaks a rule JSON Schema cannot state (lengths in UTF-8 bytes or
  UTF-16 code units, `x-max-utf8-bytes` / `x-max-utf16-units` in the documents; the 4096-byte
  APNs payload; a `send` whose signed message ends as another route's; an X25519 key libsodium
  cannot seal to) is not generated: the server refuses it with 400 by design, in prose.

Environment (set by Scripts/contract): CONTRACT_PUSHGATE (the `pushgate` tool),
CONTRACT_RELAY_URL, CONTRACT_WORK (a private directory), CONTRACT_HOST_TOKEN.
"""

import base64
import json
import os
import secrets
import subprocess
import time
from functools import lru_cache
from pathlib import Path

import schemathesis
import yaml
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, x25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

DOCS = Path(__file__).resolve().parents[2] / "docs" / "openapi"
SIGNED_PREFIX = "/v1/push/"
# The relay's routes without a security scheme: the signed ones, hapi's, the gateway's handshake.
UNAUTHENTICATED_PREFIXES = ("/v1/push", "/v1/host/")
# The endings of every other route's message `ts.tokens.` + suffix (docs/relay.md "Signed requests").
OTHER_ROUTES_SUFFIXES = ["ios", "android", "ios.unregister", "android.unregister", "ios.liveactivity", "background"]
APNS_PAYLOAD_MAX_BYTES = 4096


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# One host key for the whole run: every signed request comes from the same serverId.
KEY = ec.generate_private_key(ec.SECP256R1())
_numbers = KEY.public_key().public_numbers()
JWK = {"kty": "EC", "crv": "P-256", "x": b64url(_numbers.x.to_bytes(32, "big")), "y": b64url(_numbers.y.to_bytes(32, "big"))}


def sign(message: str) -> str:
    """P1363 `r‖s` over `message`, unpadded base64url."""
    r, s = decode_dss_signature(KEY.sign(message.encode(), ec.ECDSA(hashes.SHA256())))
    return b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


# --- JavaScript's String(number) and JSON.stringify, as the relay writes them -------------------

def js_number(value) -> str:
    """`String(number)` of the double `value` reads as (ECMA-262 Number::toString)."""
    x = float(value)
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number(-x)
    mantissa, _, exponent = repr(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    all_digits = whole + fraction
    digits = all_digits.lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(all_digits) - len(digits))
    digits = digits.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    e = n - 1
    sign_ = "+" if e >= 0 else "-"
    return (digits if k == 1 else digits[0] + "." + digits[1:]) + "e" + sign_ + str(abs(e))


def js_integer(value) -> str:
    return str(int(value))


_SHORT_ESCAPES = {0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x5C: "\\\\"}


def js_string(text: str) -> str:
    """A JSON string as JSON.stringify writes it: `/` and non-ASCII raw."""
    out = []
    for ch in text:
        code = ord(ch)
        if code in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[code])
        elif code < 0x20:
            out.append("\\u%04x" % code)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def utf16_prefix(text: str, units: int) -> str:
    """The longest prefix of at most `units` UTF-16 code units; a pair cut in half is dropped."""
    out, used = [], 0
    for ch in text:
        width = 2 if ord(ch) > 0xFFFF else 1
        if used + width > units:
            break
        out.append(ch)
        used += width
    return "".join(out)


def sorted_tokens(tokens) -> str:
    return ",".join(sorted(tokens, key=lambda token: token.encode("utf-16-be")))


# --- The signed messages of docs/relay.md "Signed requests" ------------------------------------

def normalized_items(items) -> str:
    rows = []
    for item in items:
        session = item["sessionID"] if "sessionID" in item else item["sessionId"]
        members = [("sessionID", js_string(session)), ("title", js_string(utf16_prefix(item.get("title", ""), 80))),
                   ("status", js_string(item["status"])), ("startedAt", js_number(item["startedAt"]))]
        if "endedAt" in item:
            members.append(("endedAt", js_number(item["endedAt"])))
        rows.append("{" + ",".join(js_string(key) + ":" + value for key, value in members) + "}")
    return "[" + ",".join(rows) + "]"


def live_activity_message(ts: int, body: dict) -> str:
    state = body["contentState"]
    parts = [str(ts), sorted_tokens(body["tokens"]), body["event"], state["status"], js_integer(state["eventVersion"]),
             js_number(state["updatedAt"]), js_number(state["endedAt"]) if "endedAt" in state else "",
             js_integer(body["dismissalDate"]) if "dismissalDate" in body else "",
             js_integer(body["staleDate"]) if "staleDate" in body else ""]
    if any(key in state for key in ("title", "workingCount", "items")):
        parts += [state.get("title", ""), js_integer(state["workingCount"]) if "workingCount" in state else "",
                  normalized_items(state.get("items") or [])]
    return ".".join(parts)


def signed_message(route: str, ts: int, body: dict) -> str:
    """The message `route` signs for `body`; raises when the body's types do not allow one."""
    if route in ("register-token", "unregister-token"):
        message = f"{ts}.{_text(body['token'])}.{_text(body.get('platform', 'ios'))}"
        return message + ".unregister" if route == "unregister-token" else message
    if route in ("register-live-activity-token", "unregister-live-activity-token"):
        return f"{ts}.{_text(body['token'])}.ios.liveactivity"
    if route == "send":
        return f"{ts}.{sorted_tokens(_texts(body['tokens']))}.{_text(body['title'])}"
    if route == "background":
        return f"{ts}.{sorted_tokens(_texts(body['tokens']))}.background"
    if route == "live-activity":
        return live_activity_message(ts, body)
    raise ValueError(route)


def _text(value) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


def _texts(values) -> list:
    if not isinstance(values, list):
        raise TypeError("not a list")
    return [_text(value) for value in values]


# --- What the documents cannot state -------------------------------------------------------------

@lru_cache(maxsize=None)
def document(name: str) -> dict:
    return yaml.safe_load((DOCS / name).read_text())


def _resolve(doc: dict, schema):
    while isinstance(schema, dict) and "$ref" in schema:
        node = doc
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def breaks_unit_limits(doc: dict, schema, value) -> bool:
    """Whether `value` breaks an `x-max-utf8-bytes`, `x-max-utf8-bytes-total` or
    `x-max-utf16-units` of `schema`, at any depth the value has."""
    schema = _resolve(doc, schema)
    if not isinstance(schema, dict):
        return False
    if isinstance(value, str):
        if len(value.encode("utf-8", "surrogatepass")) > schema.get("x-max-utf8-bytes", float("inf")):
            return True
        if utf16_units(value) > schema.get("x-max-utf16-units", float("inf")):
            return True
    for branch in schema.get("allOf", []):
        if breaks_unit_limits(doc, branch, value):
            return True
    if isinstance(value, dict):
        total = sum(len(k.encode()) + len(v.encode()) for k, v in value.items() if isinstance(v, str))
        if total > schema.get("x-max-utf8-bytes-total", float("inf")):
            return True
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        names = schema.get("propertyNames")
        for key, member in value.items():
            if names is not None and breaks_unit_limits(doc, names, key):
                return True
            member_schema = properties.get(key, extra if isinstance(extra, dict) else None)
            if member_schema is not None and breaks_unit_limits(doc, member_schema, member):
                return True
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return any(breaks_unit_limits(doc, schema["items"], element) for element in value)
    return False


def escaped_size(value) -> int:
    """An upper bound of the bytes `value` takes in the relay's JSON (every control character
    as a six-byte escape)."""
    if isinstance(value, str):
        return 2 + sum(6 if ord(ch) < 0x20 else 2 if ch in '"\\' else len(ch.encode("utf-8", "surrogatepass")) for ch in value)
    if isinstance(value, dict):
        return 2 + sum(escaped_size(k) + 1 + escaped_size(v) + 1 for k, v in value.items())
    if isinstance(value, list):
        return 2 + sum(escaped_size(element) + 1 for element in value)
    return 25  # a number, true, false or null in JavaScript's form


def breaks_payload_limit(route: str, body: dict) -> bool:
    """Whether the APNs payload the relay would build may exceed 4096 bytes: an upper bound of
    its size, so a case near the limit is left out too."""
    if route == "send":
        parts = [body.get(key) for key in ("title", "body", "collapseId", "category", "data")] + [body.get("badge")]
        return 200 + sum(escaped_size(part) for part in parts if part is not None) > APNS_PAYLOAD_MAX_BYTES
    if route == "background":
        return 100 + escaped_size(body.get("collapseIds", [])) > APNS_PAYLOAD_MAX_BYTES
    if route == "live-activity":
        return 200 + escaped_size(body.get("contentState", {})) > APNS_PAYLOAD_MAX_BYTES
    return False


def signs_another_routes_message(body: dict) -> bool:
    """A `send` whose signed message ends with `.` and another route's suffix (docs/security.md, M3)."""
    try:
        message = signed_message("send", 0, body)
    except (KeyError, TypeError):
        return False
    return any(message.endswith("." + suffix) for suffix in OTHER_ROUTES_SUFFIXES)


def cannot_seal_to(body: dict) -> bool:
    """An X25519 key with no usable shared secret (a low-order point), which libsodium refuses."""
    try:
        key = x25519.X25519PublicKey.from_public_bytes(base64.b64decode(body["hostPublicKeyB64"], validate=True))
        x25519.X25519PrivateKey.generate().exchange(key)
    except (KeyError, TypeError, ValueError):
        return True
    return False


def breaks_prose_rule(method: str, path: str, schema_document: str, body) -> bool:
    """Whether `body` breaks a rule of its operation that only the document's prose states."""
    if not isinstance(body, dict):
        return False
    doc = document(schema_document)
    operation = doc["paths"].get(path, {}).get(method.lower(), {})
    schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if schema is not None and breaks_unit_limits(doc, schema, body):
        return True
    if path.startswith(SIGNED_PREFIX):
        route = path[len(SIGNED_PREFIX):]
        if breaks_payload_limit(route, body):
            return True
        if route == "send" and signs_another_routes_message(body):
            return True
    if path == "/v1/host/challenge" and "hostPublicKeyB64" in body and cannot_seal_to(body):
        return True
    return False


def _document_of(case) -> str:
    return "relay.yaml" if case.operation.schema.raw_schema["info"]["title"] == "pushgate-relay" else "host.yaml"


@schemathesis.hook
def filter_case(context, case):
    """Leaves out the schema-valid cases the server refuses by a rule of the prose."""
    meta = case.meta
    if meta is None or meta.generation.mode.is_negative:
        return True
    if case.path == "/api/sessions/{id}/state" and isinstance(case.path_parameters, dict):
        session = case.path_parameters.get("id")
        if isinstance(session, str) and utf16_units(session) > 128:
            return False
    return not breaks_prose_rule(case.method, case.path, _document_of(case), case.body)


@schemathesis.hook
def before_call(context, case, kwargs):
    """Comes from a client address of its own, and signs a signed-route body again: fresh `ts`,
    this run's key, the route's message. A body whose types leave no message to sign, or that
    breaks a rule of the prose, is sent as it is."""
    if case.path.startswith(UNAUTHENTICATED_PREFIXES):
        spread_clients(case)
    if not case.path.startswith(SIGNED_PREFIX) or not isinstance(case.body, dict):
        return
    body = dict(case.body)
    if breaks_prose_rule(case.method, case.path, "relay.yaml", body):
        return
    ts = int(time.time() * 1000)
    try:
        message = signed_message(case.path[len(SIGNED_PREFIX):], ts, body)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError):
        return
    body.update(publicKeyJwk=dict(JWK), ts=ts, sig=sign(message))
    case.body = body


def spread_clients(case):
    """An `X-Forwarded-For` address of its own for each request, which the relay (started with
    `TRUST_PROXY_HOPS=1`) takes as the client: the fixed per-IP buckets (`/v1/push`'s 300 a
    minute, the gateway's 30 handshakes) then refuse nothing the run sends. The addresses are
    198.18.0.0/15's (benchmarking) and only ever written into the header. Only on routes without
    a security scheme: a header written here makes schemathesis judge the case's headers again,
    which would take a case whose bearer it spoiled on purpose for a valid one."""
    address = "198.%d.%d.%d" % (18 + secrets.randbelow(2), secrets.randbelow(256), secrets.randbelow(256))
    case.headers = {**(case.headers or {}), "X-Forwarded-For": address}


# --- Authentication --------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def gateway_session() -> str:
    """A session from a real handshake: `pushgate gateway challenge` answers the encrypted
    challenge with a fresh X25519 key and keeps the token in a file of its own."""
    work = Path(os.environ["CONTRACT_WORK"])
    key, session = work / "gateway-host.key", work / "gateway-host.session"
    tool = os.environ["CONTRACT_PUSHGATE"]
    relay = os.environ["CONTRACT_RELAY_URL"]
    if not key.exists():
        subprocess.run([tool, "gateway", "key", "--out", str(key)], check=True, capture_output=True)
    subprocess.run([tool, "gateway", "challenge", "--gateway", relay, "--origin", os.environ["CONTRACT_GATEWAY_ORIGIN"],
                    "--key", str(key), "--session", str(session)], check=True, capture_output=True)
    return session.read_text().strip()


@schemathesis.hook
def after_load_schema(context, schema):
    """The handshake comes before any generated request: those to `/v1/host/*` soon empty the
    client's handshake bucket (30 a minute)."""
    if schema.raw_schema["info"]["title"] == "pushgate-relay":
        gateway_session()


@schemathesis.auth(retry_on=[]).apply_to(path_regex="^/v1/(devices|send)")
class GatewaySession:
    def get(self, case, context):
        return gateway_session()

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@schemathesis.auth(retry_on=[]).apply_to(path_regex="^/api/")
class HostAccessToken:
    def get(self, case, context):
        return os.environ["CONTRACT_HOST_TOKEN"]

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}
