#!/usr/bin/env python3
"""Checks a history recorded by ReplicaHistoryTests: linearizable admin operations, and polls that are at most
one second stale.

    check_history.py HISTORY.json [BUDGET_SECONDS]

The history is one JSON object:
  "initial": {"revision": n, "skins": {id: {"release": [version, rollout, endsAt] or null, "etag": n,
              "versions": [n, ...]}}, "switches": [global, app, revision]}
  "ops":     [{"id", "client", "kind", "skin", "args", "invoke", "complete" (null: no answer), "status",
               "result"}]   times in seconds on one monotonic clock
  "polls":   [{"replica", "sent", "received", "status", "skinId"}]

The model is each skin's release (version, rollout, endsAt) with its revision (the ETag) and the kill switches
(global, app "demo") with theirs. Kinds: get_skin, get_switches (reads), put_release, patch_release, rollback, stop,
kill_switch (writes). A request with no answer, or answered 503, may take effect at any time after it was sent, or
never; a read without an answer says nothing and is dropped. Since linearizability is local (Herlihy & Wing), each
object (each skin, the kill switches) is checked on its own; that revisions are unique and follow real time across
objects (the store's one revision orders every commit) is checked besides. Polls: once a change has been
acknowledged for over a second (and no other change of that object is still open), every poll answered 200 must
show it: no skin while a kill switch is on; a skin while none is and one is released to every device.

Linearizability is decided by Wing & Gong's search as Lowe and Porcupine refine it: walk the history's call and
return events in time order, try each call that may come next against the model, backtrack at a return whose
operation could not be placed, and remember (set of placed operations, model state) pairs already explored.
Exit 0 with a summary when the history is linearizable and every checked poll is fresh; exit 1 naming the first
operation that cannot be placed (the one the longest partial linearization stops at) or the first stale poll.
The search is exponential in the worst case (many requests without an answer overlapping one another); past
BUDGET_SECONDS (default 90) it stops and exits 3, inconclusive, as Knossos answers :unknown: no violation was found
in what it explored, and the revision check (run first) passed.
"""
import bisect
import itertools
import json
import time
import math
import sys

STALENESS = 1.0  # seconds a poll may lag behind an acknowledged change


class Op:
    __slots__ = ("index", "raw", "kind", "skin", "args", "invoke", "complete", "status", "result", "known")

    def __init__(self, index, raw):
        self.index = index
        self.raw = raw
        self.kind = raw["kind"]
        self.skin = raw.get("skin")
        self.args = raw.get("args") or {}
        self.invoke = raw["invoke"]
        answered = raw.get("complete") is not None and raw.get("status") not in (None, 0, 503)
        self.known = answered
        self.complete = raw["complete"] if answered else math.inf
        self.status = raw.get("status")
        self.result = raw.get("result")

    def describe(self):
        answer = f"{self.status} {json.dumps(self.result)}" if self.known else "no answer"
        return (f"op {self.raw['id']} (client {self.raw['client']}, sent at {self.invoke:.3f} s): {self.kind} "
                f"{self.skin or ''} {json.dumps(self.args)} -> {answer}")


# Linearizability is local (Herlihy & Wing): a history is linearizable when each object's is. The objects are each
# skin's release and the kill switches; each operation touches one. A state is a tuple, so it can be hashed:
#   a skin:          (release, etag, exact)          release None or (version, rollout, endsAt)
#   the switches:    (global, app, revision, exact)
# `exact` is False after a write with no answer took effect: its revision is then only known to be at least the
# one kept. That every commit takes the next store revision (so revisions never repeat and follow real time across
# objects) is checked on its own (`check_revisions`).

def fresh(observed, kept, exact):
    """Whether an observed revision may be the one kept (a read)."""
    return observed == kept if exact else observed >= kept


def step(state, op, versions):
    """The states `op` may leave `state` in, given its answer (none: the answer cannot come from `state`)."""
    kind = op.kind
    if kind in ("get_switches", "kill_switch"):
        g, a, revision, exact = state
        if kind == "get_switches":
            r = op.result
            if r["global"] == g and r["app"] == a and fresh(r["revision"], revision, exact):
                return [(g, a, r["revision"], True)]
            return []
        if op.args.get("app"):
            a = op.args["enabled"]
        else:
            g = op.args["enabled"]
        if not op.known:
            return [(g, a, revision + 1, False)]
        r = op.result
        if op.status == 200 and r["global"] == g and r["app"] == a and r["revision"] > revision:
            return [(g, a, r["revision"], True)]
        return []
    release, etag, exact = state
    if kind == "get_skin":
        r = op.result
        if r["release"] == (list(release) if release else None) and fresh(r["etag"], etag, exact):
            return [(release, r["etag"], True)]
        return []
    refusal = None
    if kind in ("patch_release", "rollback") and release is None:
        refusal = 409
    elif kind == "rollback" and not [v for v in versions if v < release[0]]:
        refusal = 409
    if refusal is not None:
        return [state] if not op.known or op.status == refusal else []
    if_match = op.args.get("ifMatch")
    if if_match is not None:
        if exact and if_match != etag:
            return [state] if not op.known or op.status == 412 else []
        if op.known and op.status == 412:
            return [state] if not exact else []
    if kind == "put_release":
        version = op.args.get("version")
        if version is None:
            version = release[0] if release else max(versions)
        new = (version, op.args["rollout"], op.args["endsAt"])
    elif kind == "patch_release":
        new = (release[0], op.args.get("rollout", release[1]), op.args.get("endsAt", release[2]))
    elif kind == "rollback":
        new = (max(v for v in versions if v < release[0]), release[1], release[2])
    elif kind == "stop":
        new = None
        if release is None:
            if not op.known:
                return [state]
            r = op.result
            if op.status == 200 and r["release"] is None and fresh(r["etag"], etag, exact):
                return [(None, r["etag"], True)]
            return []
    else:
        raise ValueError(f"unknown kind {kind}")
    if not op.known:
        return [(new, etag + 1, False)]
    r = op.result
    if op.status == 200 and r["release"] == (list(new) if new else None) and r["etag"] > etag:
        return [(new, r["etag"], True)]
    return []


class Entry:
    __slots__ = ("op", "is_call", "prev", "next", "match")

    def __init__(self, op, is_call):
        self.op, self.is_call = op, is_call
        self.prev = self.next = self.match = None


def build_list(ops):
    events = []
    for op in ops:
        events.append((op.invoke, 0, op.index, True, op))
        if op.known:
            events.append((op.complete, 1, op.index, False, op))
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    head = Entry(None, False)
    last = head
    calls = {}
    for _, _, _, is_call, op in events:
        entry = Entry(op, is_call)
        if is_call:
            calls[op.index] = entry
        else:
            calls[op.index].match = entry
        entry.prev, last.next = last, entry
        last = entry
    return head


def lift(entry):
    entry.prev.next = entry.next
    if entry.next:
        entry.next.prev = entry.prev
    ret = entry.match
    if ret:
        ret.prev.next = ret.next
        if ret.next:
            ret.next.prev = ret.prev


def unlift(entry):
    ret = entry.match
    if ret:
        ret.prev.next = ret
        if ret.next:
            ret.next.prev = ret
    entry.prev.next = entry
    if entry.next:
        entry.next.prev = entry


class Inconclusive(Exception):
    """The search ran past its budget: the history is neither proven nor refuted (Knossos' :unknown)."""


def linearize(ops, initial, versions, deadline=None):
    """A linearization [(op, state after)] of `ops`, or (None, culprit, state, depth).

    Raises Inconclusive when `deadline` (a time.monotonic() value) passes before the search ends."""
    head = build_list(ops)
    steps = 0
    returns_left = sum(1 for op in ops if op.known)
    state = initial
    placed = 0
    stack = []
    # (answered operations placed, state) -> the sets of unanswered operations placed with them that were explored.
    # A node whose unanswered set includes an explored one has no option that one lacked: it is pruned too.
    cache = {}
    known_mask = 0
    for op in ops:
        if op.known:
            known_mask |= 1 << op.index
    entry = head.next
    deepest, culprit, culprit_state = -1, None, None
    while returns_left > 0:
        steps += 1
        if deadline is not None and steps % 4096 == 0 and time.monotonic() > deadline:
            raise Inconclusive(f"{steps} search steps, {len(stack)} operations placed at the deepest point so far {deepest}")
        if entry is None:
            break
        if entry.is_call:
            op = entry.op
            nexts = step(state, op, versions)
            if nexts:
                nxt = nexts[0]
                key = placed | (1 << op.index)
                unknown = key & ~known_mask
                explored = cache.setdefault((key & known_mask, nxt), [])
                if not any(seen & ~unknown == 0 for seen in explored):
                    explored.append(unknown)
                    stack.append((entry, state))
                    state, placed = nxt, key
                    if op.known:
                        returns_left -= 1
                    lift(entry)
                    entry = head.next
                    continue
            entry = entry.next
        else:
            if len(stack) > deepest:
                deepest, culprit, culprit_state = len(stack), entry.op, state
            if not stack:
                return None, culprit, culprit_state, deepest
            entry, state = stack.pop()
            placed &= ~(1 << entry.op.index)
            if entry.op.known:
                returns_left += 1
            unlift(entry)
            entry = entry.next
    if returns_left > 0:
        return None, culprit, culprit_state, deepest
    order = [(call.op, after) for (call, _), after in zip(stack, [s for _, s in stack[1:]] + [state])]
    return order, None, None, len(order)


SWITCHES = "kill switches"


def object_of(op):
    return SWITCHES if op.kind in ("get_switches", "kill_switch") else op.skin


class Timeline:
    """One object's linearized writes, for asking which state a poll sent at some time must show."""

    def __init__(self, order, initial):
        self.initial = initial
        # When each placed write's effect was certainly committed: its answer, or for one without an answer the
        # answer of the first answered operation placed after it.
        settle = [math.inf] * len(order)
        later = math.inf
        for position in range(len(order) - 1, -1, -1):
            op = order[position][0]
            if op.known:
                later = min(later, op.complete)
                settle[position] = op.complete
            else:
                settle[position] = later
        writes = [(position, op) for position, (op, _) in enumerate(order) if not op.kind.startswith("get_")]
        self.states = [state for _, state in order]
        by_invoke = sorted((op.invoke, settle[p]) for p, op in writes)
        self.invokes = [i for i, _ in by_invoke]
        self.latest_settle = list(itertools.accumulate((t for _, t in by_invoke), max))
        by_settle = sorted((settle[p], p) for p, _ in writes)
        self.settles = [t for t, _ in by_settle]
        self.last_position = list(itertools.accumulate((p for _, p in by_settle), max))

    def state_before(self, sent, received):
        """The state a poll sent at `sent` and answered at `received` must show, or None while a write is not
        settled for over `STALENESS` seconds."""
        horizon = sent - STALENESS
        started = bisect.bisect_left(self.invokes, received)
        if started and self.latest_settle[started - 1] >= horizon:
            return None
        settled = bisect.bisect_left(self.settles, horizon)
        return self.states[self.last_position[settled - 1]] if settled else self.initial


def check_polls(polls, timelines):
    """Names the first poll that shows a state older than `STALENESS` seconds, or None; and how many were checked."""
    checked = 0
    skins = [name for name in timelines if name != SWITCHES]
    for poll in sorted(polls, key=lambda p: p["sent"]):
        if poll["status"] != 200:
            continue
        switches = timelines[SWITCHES].state_before(poll["sent"], poll["received"])
        if switches is None:
            continue
        when = f"poll of replica {poll['replica']} sent at {poll['sent']:.3f} s"
        if switches[0] or switches[1]:
            checked += 1
            if poll["skinId"] != "":
                return f"{when} served {poll['skinId']!r} although a kill switch was on for over {STALENESS} s", checked
            continue
        releases = [timelines[name].state_before(poll["sent"], poll["received"]) for name in skins]
        if any(state is None for state in releases):
            continue
        checked += 1
        if any(state[0] is not None and state[0][1] == 100 for state in releases) and poll["skinId"] == "":
            return (f"{when} served no skin although the kill switches were off and a skin released to everyone for "
                    f"over {STALENESS} s"), checked
    return None, checked


def check_revisions(ops):
    """Every answered write took a revision of its own, and a write answered before another was sent took a lower
    one (the store's revision orders every commit). None, or what breaks it."""
    writes = []
    for op in ops:
        if op.known and op.status == 200 and not op.kind.startswith("get_") and op.result:
            revision = op.result.get("revision", op.result.get("etag"))
            if op.kind == "stop" and op.result.get("release") is None:
                continue  # stopping a skin not released commits nothing
            writes.append((revision, op))
    seen = {}
    for revision, op in writes:
        if revision in seen:
            return f"two writes answered the same revision {revision}:\n  {seen[revision].describe()}\n  {op.describe()}"
        seen[revision] = op
    earliest_answer = math.inf
    earliest = None
    for revision, op in sorted(writes, key=lambda w: -w[0]):
        if earliest_answer < op.invoke:
            return (f"revision {revision} was answered after a higher one was already answered:\n  {earliest.describe()}"
                    f"\n  {op.describe()}")
        if op.complete < earliest_answer:
            earliest_answer, earliest = op.complete, op
    return None


def main(path, budget=90.0):
    history = json.load(open(path))
    init = history["initial"]
    initial = {name: (tuple(value["release"]) if value["release"] else None, value["etag"], True)
               for name, value in init["skins"].items()}
    initial[SWITCHES] = tuple(init["switches"]) + (True,)
    versions = {name: value["versions"] for name, value in init["skins"].items()}
    versions[SWITCHES] = []
    ops = []
    for raw in history["ops"]:
        op = Op(len(ops), raw)
        if op.kind.startswith("get_") and not op.known:
            continue  # a read without an answer constrains nothing
        ops.append(op)
    unknown = sum(1 for op in ops if not op.known)
    problem = check_revisions(ops)
    if problem:
        print(f"NOT LINEARIZABLE (revisions): {problem}")
        return 1
    deadline = time.monotonic() + budget
    timelines = {}
    for name in initial:
        mine = [op for op in ops if object_of(op) == name]
        try:
            order, culprit, state, depth = linearize(mine, initial[name], versions[name], deadline)
        except Inconclusive as reason:
            print(f"INCONCLUSIVE ({name}): the search for an order of its {len(mine)} operations "
                  f"({sum(not o.known for o in mine)} without an answer) ran past {budget:g} s ({reason}); "
                  f"no violation was found in what it explored, and the revisions are unique and in real-time order")
            return 3
        if order is None:
            print(f"NOT LINEARIZABLE ({name}): {len(mine)} of its operations ({sum(not o.known for o in mine)} without "
                  f"an answer); the longest partial linearization places {depth}, and no order places next:")
            if culprit is not None:
                print("  " + culprit.describe())
                print(f"  where the model's state is {state}")
            return 1
        timelines[name] = Timeline(order, initial[name])
    problem, checked = check_polls(history.get("polls", []), timelines)
    if problem:
        print(f"STALE POLL: {problem}")
        return 1
    print(f"linearizable: {len(ops)} operations ({unknown} without an answer) on {len(timelines)} objects; "
          f"{checked} of {len(history.get('polls', []))} polls checked for staleness within {STALENESS} s")
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) == 3 else 90.0))
