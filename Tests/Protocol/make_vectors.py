#!/usr/bin/env python3
"""Writes docs/protocol-vectors.json: the catalogs and the vectors that pin docs/PROTOCOL.md.

Every expected answer below is written by hand from the protocol's rules (the intent is in each vector's name);
nothing here evaluates a decision. The only computation is finding device ids whose rollout buckets are the ones a
vector names (SHA-256 as the protocol defines the bucket), and deriving fixture package signs.

Run: python3 Tests/Protocol/make_vectors.py  (rewrites docs/protocol-vectors.json; check the diff).
"""
import hashlib
import json
import os

VARIANTS = [f"@{s}x-{a}" for s in (1, 2, 3) for a in ("light", "dark", "any")]


def bucket(skin_id, device_id):
    digest = hashlib.sha256(f"{skin_id}:{device_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 100


def device(name, **wanted):
    """The first id `<name>-<n>` whose bucket for each skin in `wanted` is the value given (or in the range)."""
    n = 0
    while True:
        candidate = f"{name}-{n}"
        if all(bucket(skin, candidate) in (value if isinstance(value, range) else [value])
               for skin, value in wanted.items()):
            return candidate
        n += 1


def sign(skin_id, key):
    return hashlib.sha256(f"{skin_id}{key}".encode()).hexdigest()[:32]


def packages(skin_id, keys=VARIANTS):
    return {
        key: {
            "skinSign": sign(skin_id, key),
            "packageUrl": f"/api/v1/packages/{sign(skin_id, key)}.zip",
            "sha256": hashlib.sha256(sign(skin_id, key).encode()).hexdigest(),
            "size": 1000 + len(skin_id),
        }
        for key in keys
    }


def entry(skin_id, kind="holiday", order=None, starts=None, ends=None, priority=0, platforms=("ios", "android"),
          min_version=None, max_version=None, rollout=100, keys=VARIANTS, title=None):
    item = {
        "skinId": skin_id, "kind": kind, "order": order, "startsAt": starts, "endsAt": ends, "priority": priority,
        "platforms": list(platforms), "minAppVersion": min_version, "maxAppVersion": max_version, "rollout": rollout,
    }
    if kind == "theme":
        item["title"] = title or skin_id.title()
        item["description"] = f"The {skin_id} theme."
    item["packages"] = packages(skin_id, keys)
    return item


ENTRIES = [
    entry("winter", starts="2026-12-01T00:00:00Z", ends="2027-01-01T00:00:00Z"),
    entry("legacy", starts="2026-12-20T00:00:00Z", ends="2026-12-22T00:00:00Z", priority=9,
          min_version="7.0.1", max_version="7.2"),
    entry("android-only", starts="2026-12-20T00:00:00Z", ends="2027-01-01T00:00:00Z", priority=20,
          platforms=("android",)),
    entry("zero", starts="2026-12-20T00:00:00Z", ends="2026-12-27T00:00:00Z", priority=50, rollout=0),
    entry("xmas-eve", starts="2026-12-24T00:00:00Z", ends="2026-12-26T00:00:00Z", priority=5),
    entry("xmas-beta", starts="2026-12-24T12:00:00Z", ends="2026-12-25T00:00:00Z", priority=5, rollout=50),
    entry("tie-b", starts="2026-12-28T00:00:00Z", ends="2026-12-29T00:00:00Z", priority=3),
    entry("tie-a", starts="2026-12-28T00:00:00Z", ends="2026-12-29T00:00:00Z", priority=3, min_version="8.0"),
    entry("partial-pkgs", starts="2026-12-30T00:00:00Z", ends="2026-12-31T00:00:00Z", priority=4,
          keys=["@1x-light", "@1x-dark"]),
    entry("gold", kind="theme", order=1, starts="2026-12-20T00:00:00Z", ends="2027-01-10T00:00:00Z", rollout=30),
    entry("classic", kind="theme", order=2),
    entry("noir", kind="theme", order=2, platforms=("android",)),
    entry("mint", kind="theme", min_version="8.0"),
    entry("aurora", kind="theme"),
]


def catalog(platform, killed=False):
    return {
        "app": "demo", "platform": platform, "revision": 42, "horizonEndsAt": "2027-02-01T00:00:00Z",
        "complete": True, "killed": killed, "skins": ENTRIES,
    }


# Devices named by their buckets: xmas-beta rolls out to 50 %, gold to 30 %.
# Each is also placed outside the other partial rollouts, so only the bucket in its name decides.
OUT_GOLD = range(30, 100)
OUT_BETA = range(50, 100)
BETA_IN = device("beta49", gold=OUT_GOLD, **{"xmas-beta": 49})
BETA_OUT = device("beta50", gold=OUT_GOLD, **{"xmas-beta": 50})
GOLD_IN = device("gold29", gold=29, **{"xmas-beta": OUT_BETA})
GOLD_OUT = device("gold30", gold=30, **{"xmas-beta": OUT_BETA})
GOLD_ZERO = device("gold0", gold=0, **{"xmas-beta": OUT_BETA})
ZERO_BUCKET0 = device("zero0", zero=0, gold=OUT_GOLD, **{"xmas-beta": OUT_BETA})
PLAIN = device("plain", gold=99, **{"xmas-beta": 99})  # outside every partial rollout


def pick(skin_id, key="@3x-light"):
    return {"skinId": skin_id, "skinSign": sign(skin_id, key)}


def vector(name, at, expect_skin, expect_next, themes, device_id=PLAIN, app_version="7.1.0", scale=None,
           appearance=None, catalog_name="ios", key="@3x-light"):
    return {
        "name": name, "catalog": catalog_name, "deviceId": device_id, "appVersion": app_version, "at": at,
        "scale": scale, "appearance": appearance,
        "expect": {
            "skinId": expect_skin, "skinSign": sign(expect_skin, key) if expect_skin else "",
            "next": pick(expect_next, key) if expect_next else None, "themes": themes,
        },
    }


BASE_THEMES = ["classic", "aurora"]
VECTORS = [
    vector("before every window: nothing current, winter is next (starts within 7 days)",
           "2026-11-30T23:59:59Z", None, "winter", BASE_THEMES),
    vector("window start is inclusive: winter at its first instant; nothing starts within 7 days",
           "2026-12-01T00:00:00Z", "winter", None, BASE_THEMES),
    vector("next looks exactly 7 days ahead, inclusive: legacy starts at now + 7 d",
           "2026-12-13T00:00:00Z", "winter", "legacy", BASE_THEMES),
    vector("next looks no further than 7 days: legacy starts 1 s past now + 7 d",
           "2026-12-12T23:59:59Z", "winter", None, BASE_THEMES),
    vector("higher priority wins inside its version range (7.0.1 <= 7.1.0 < 7.2); winter follows it",
           "2026-12-20T00:00:00Z", "legacy", "winter", BASE_THEMES),
    vector("minAppVersion is inclusive: 7.0.1 gets legacy", "2026-12-20T00:00:00Z", "legacy", "winter",
           BASE_THEMES, app_version="7.0.1"),
    vector("below minAppVersion: 7.0 < 7.0.1 gets winter; next skips winter itself and finds xmas-eve",
           "2026-12-20T00:00:00Z", "winter", "xmas-eve", BASE_THEMES, app_version="7.0"),
    vector("maxAppVersion is exclusive: 7.2.0 equals 7.2, so no legacy", "2026-12-20T00:00:00Z", "winter",
           "xmas-eve", BASE_THEMES, app_version="7.2.0"),
    vector("versions compare numerically: 7.10 is above 7.2", "2026-12-20T00:00:00Z", "winter", "xmas-eve",
           BASE_THEMES, app_version="7.10"),
    vector("four-part versions: 7.1.9.999 is inside 7.0.1 ..< 7.2", "2026-12-21T00:00:00Z", "legacy", "winter",
           BASE_THEMES, app_version="7.1.9.999"),
    vector("window end is exclusive: legacy's last millisecond", "2026-12-21T23:59:59.999Z", "legacy", "winter",
           BASE_THEMES),
    vector("window end is exclusive: at legacy's endsAt winter applies again", "2026-12-22T00:00:00Z", "winter",
           "xmas-eve", BASE_THEMES),
    vector("rollout 0 never applies, even to bucket 0 (zero has the highest priority)",
           "2026-12-21T00:00:00Z", "legacy", "winter", ["classic", "aurora"], device_id=ZERO_BUCKET0),
    vector("platform targeting: android gets android-only (priority 20) and android's themes",
           "2026-12-21T00:00:00Z", "android-only", None, ["classic", "noir", "aurora"], catalog_name="android"),
    vector("platform targeting: an ios device never gets android-only", "2026-12-23T00:00:00Z", "winter",
           "xmas-eve", BASE_THEMES),
    vector("bucket 49 of a 50 % rollout: xmas-eve now, xmas-beta next", "2026-12-24T00:00:00Z", "xmas-eve",
           "xmas-beta", BASE_THEMES, device_id=BETA_IN),
    vector("bucket 50 of a 50 % rollout: xmas-beta never; next is winter after xmas-eve ends",
           "2026-12-24T00:00:00Z", "xmas-eve", "winter", BASE_THEMES, device_id=BETA_OUT),
    vector("equal priority: the later start wins (xmas-beta over xmas-eve) for bucket 49",
           "2026-12-24T12:00:00Z", "xmas-beta", "xmas-eve", BASE_THEMES, device_id=BETA_IN),
    vector("bucket 50 stays on xmas-eve while xmas-beta runs", "2026-12-24T12:00:00Z", "xmas-eve", "winter",
           BASE_THEMES, device_id=BETA_OUT),
    vector("no device id: outside every partial rollout", "2026-12-24T12:00:00Z", "xmas-eve", "winter",
           BASE_THEMES, device_id=None),
    vector("an empty device id counts as none", "2026-12-24T12:00:00Z", "xmas-eve", "winter", BASE_THEMES,
           device_id=""),
    vector("xmas-beta's end: bucket 49 is back on xmas-eve", "2026-12-25T00:00:00Z", "xmas-eve", "winter",
           BASE_THEMES, device_id=BETA_IN),
    vector("equal priority and start: the smaller skinId wins (tie-a over tie-b) for 8.0",
           "2026-12-28T00:00:00Z", "tie-a", "winter", ["classic", "aurora", "mint"], app_version="8.0"),
    vector("tie-a's minAppVersion 8.0 leaves 7.1.0 with tie-b", "2026-12-28T00:00:00Z", "tie-b", "winter",
           BASE_THEMES),
    vector("a winner without the variant's package is no skin (no fall-back to winter); next is winter",
           "2026-12-30T00:00:00Z", None, "winter", BASE_THEMES),
    vector("scale 1 light: the winner's @1x-light package; next is winter's @1x-light", "2026-12-30T00:00:00Z",
           "partial-pkgs", "winter", BASE_THEMES, scale=1, key="@1x-light"),
    vector("scale 2 dark: the @2x-dark packages", "2026-12-23T00:00:00Z", "winter", "xmas-eve",
           BASE_THEMES, scale=2, appearance="dark", key="@2x-dark"),
    vector("appearance any: the package with both appearances", "2026-12-23T00:00:00Z", "winter", "xmas-eve",
           BASE_THEMES, scale=1, appearance="any", key="@1x-any"),
    vector("appearance names in any case: Dark is dark", "2026-12-23T00:00:00Z", "winter", "xmas-eve",
           BASE_THEMES, scale=3, appearance="Dark", key="@3x-dark"),
    vector("appearance unspecified means light", "2026-12-23T00:00:00Z", "winter", "xmas-eve", BASE_THEMES,
           scale=2, appearance="unspecified", key="@2x-light"),
    vector("theme rollout bucket 29 of 30 %: gold listed first (order 1)", "2026-12-20T00:00:00Z", "legacy",
           "winter", ["gold", "classic", "aurora"], device_id=GOLD_IN),
    vector("theme rollout bucket 30 of 30 %: no gold", "2026-12-20T00:00:00Z", "legacy", "winter",
           BASE_THEMES, device_id=GOLD_OUT),
    vector("theme window start is inclusive: gold at its startsAt for bucket 0; themes without a window always",
           "2026-12-20T00:00:00Z", "legacy", "winter", ["gold", "classic", "aurora"], device_id=GOLD_ZERO),
    vector("theme window end is exclusive; after every holiday window nothing is current or next",
           "2027-01-10T00:00:00Z", None, None, BASE_THEMES, device_id=GOLD_ZERO),
    vector("theme targeting: mint's minAppVersion 8.0; unordered themes by id (aurora, mint)",
           "2027-01-02T00:00:00Z", None, None, ["gold", "classic", "aurora", "mint"], device_id=GOLD_ZERO,
           app_version="8.0.0"),
    vector("theme order ties break by id: classic before noir (both order 2) on android",
           "2027-01-02T00:00:00Z", None, None, ["classic", "noir", "aurora"], catalog_name="android"),
    vector("killed: no skin, no next, no theme, whatever the entries say", "2026-12-24T12:00:00Z", None, None,
           [], device_id=BETA_IN, catalog_name="killed"),
]

DOCUMENT = {
    "about": "Test vectors for docs/PROTOCOL.md: each vector names a catalog below, a device (deviceId, appVersion, "
             "the instant `at`, the requested `scale` and `appearance`, null meaning absent) and the answer the "
             "decision must give: the current holiday skin's skinId and the skinSign of its package for the "
             "requested variant (null and \"\" for none), `next` (skinId and skinSign, or null) and the theme ids "
             "in list order. Device ids are chosen for their rollout buckets, as the vector's name says.",
    "nextHorizonSeconds": 604800,
    "catalogs": {"ios": catalog("ios"), "android": catalog("android"), "killed": catalog("ios", killed=True)},
    "vectors": VECTORS,
}

if __name__ == "__main__":
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # One catalog entry and one vector a line: readable diffs, a small file.
    lines = ["{", f' "about": {json.dumps(DOCUMENT["about"], ensure_ascii=False)},',
             f' "nextHorizonSeconds": {DOCUMENT["nextHorizonSeconds"]},', ' "catalogs": {']
    names = list(DOCUMENT["catalogs"])
    for index, name in enumerate(names):
        document = dict(DOCUMENT["catalogs"][name])
        skins = document.pop("skins")
        head = json.dumps(document, separators=(",", ":"))[:-1]
        lines.append(f'  "{name}": {head},"skins":[')
        lines += ["   " + json.dumps(item, separators=(",", ":")) + ("," if i < len(skins) - 1 else "")
                  for i, item in enumerate(skins)]
        lines.append("  ]}" + ("," if index < len(names) - 1 else ""))
    lines += [" },", ' "vectors": [']
    lines += ["  " + json.dumps(item, separators=(",", ":"), ensure_ascii=False) + ("," if i < len(VECTORS) - 1 else "")
              for i, item in enumerate(VECTORS)]
    lines += [" ]", "}"]
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == json.loads(json.dumps(DOCUMENT))
    with open(os.path.join(root, "docs", "protocol-vectors.json"), "w") as out:
        out.write(text)
    print(f"{len(VECTORS)} vectors")
