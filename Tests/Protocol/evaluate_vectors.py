#!/usr/bin/env python3
"""An independent evaluator of docs/PROTOCOL.md's decision, written from the document alone, run against
docs/protocol-vectors.json. Prints each failure and `N passed, N failed`; exits 1 on any failure.

Usage: python3 Tests/Protocol/evaluate_vectors.py [path/to/protocol-vectors.json]
"""
import hashlib
import json
import os
import re
import sys
from datetime import datetime, timedelta, timezone

INSTANT = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{3})?Z$")
PAST = datetime.min.replace(tzinfo=timezone.utc)
FUTURE = datetime.max.replace(tzinfo=timezone.utc)


def instant(text, missing):
    if text is None:
        return missing
    match = INSTANT.match(text)
    if not match:
        raise ValueError(f"not a UTC instant: {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    millis = int(match.group(7)[1:]) if match.group(7) else 0
    return datetime(year, month, day, hour, minute, second, millis * 1000, tzinfo=timezone.utc)


def version(text):
    """1 to 4 dot-separated runs of 1 to 9 digits; missing parts are 0; compared part by part."""
    parts = text.split(".")
    if not 1 <= len(parts) <= 4 or not all(re.fullmatch(r"[0-9]{1,9}", p) for p in parts):
        raise ValueError(f"not an app version: {text!r}")
    return tuple(int(p) for p in parts) + (0,) * (4 - len(parts))


def bucket(skin_id, device_id):
    digest = hashlib.sha256(f"{skin_id}:{device_id}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % 100


def in_rollout(entry, device_id):
    if entry["rollout"] >= 100:
        return True
    if entry["rollout"] <= 0 or not device_id:
        return False
    return bucket(entry["skinId"], device_id) < entry["rollout"]


def targeted(entry, platform, app_version, device_id):
    if platform not in entry["platforms"]:
        return False
    if entry["minAppVersion"] is not None and app_version < version(entry["minAppVersion"]):
        return False
    if entry["maxAppVersion"] is not None and app_version >= version(entry["maxAppVersion"]):
        return False
    return in_rollout(entry, device_id)


def active(entry, at):
    return instant(entry["startsAt"], PAST) <= at < instant(entry["endsAt"], FUTURE)


def variant_key(scale, appearance):
    scale = 3 if scale is None else int(scale)
    look = "light" if appearance is None else appearance.lower()
    if look == "unspecified":
        look = "light"
    if scale not in (1, 2, 3) or look not in ("light", "dark", "any"):
        raise ValueError("the poll would refuse this variant")
    return f"@{scale}x-{look}"


def precedence(entry):
    # Priority descending, then startsAt descending (latest first), then skinId ascending by bytes.
    start = instant(entry["startsAt"], PAST)
    return (-entry["priority"], -start.timestamp(), entry["skinId"].encode())


def list_order(entry):
    order = entry.get("order")
    return (order is None, order if order is not None else 0, entry["skinId"].encode())


def decide(catalog, device_id, app_version_text, at_text, scale, appearance, horizon_seconds):
    at = instant(at_text, None)
    key = variant_key(scale, appearance)
    answer = {"skinId": None, "skinSign": "", "next": None, "themes": []}
    if catalog["killed"]:
        return answer
    app_version = version(app_version_text)
    platform = catalog["platform"]
    holidays = sorted((e for e in catalog["skins"] if e["kind"] == "holiday"), key=precedence)
    eligible = [e for e in holidays if targeted(e, platform, app_version, device_id)]

    def winner(moment):
        return next((e for e in eligible if active(e, moment)), None)

    current = winner(at)
    if current is not None and key in current["packages"]:
        answer["skinId"] = current["skinId"]
        answer["skinSign"] = current["packages"][key]["skinSign"]
    boundaries = sorted({instant(e[k], None) for e in holidays for k in ("startsAt", "endsAt")})
    limit = at + timedelta(seconds=horizon_seconds)
    for moment in boundaries:
        if moment <= at:
            continue
        if moment > limit:
            break
        upcoming = winner(moment)
        if upcoming is None or (current is not None and upcoming["skinId"] == current["skinId"]):
            continue
        if key in upcoming["packages"]:
            answer["next"] = {"skinId": upcoming["skinId"], "skinSign": upcoming["packages"][key]["skinSign"]}
        break
    themes = sorted((e for e in catalog["skins"] if e["kind"] == "theme"), key=list_order)
    answer["themes"] = [
        t["skinId"] for t in themes
        if active(t, at) and targeted(t, platform, app_version, device_id) and key in t["packages"]
    ]
    return answer


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "docs", "protocol-vectors.json")
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    horizon = document["nextHorizonSeconds"]
    passed = failed = 0
    for vector in document["vectors"]:
        got = decide(document["catalogs"][vector["catalog"]], vector["deviceId"], vector["appVersion"],
                     vector["at"], vector["scale"], vector["appearance"], horizon)
        if got == vector["expect"]:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {vector['name']}\n  expected {json.dumps(vector['expect'])}\n  got      {json.dumps(got)}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
