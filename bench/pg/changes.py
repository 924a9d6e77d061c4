#!/usr/bin/env python3
"""Admin change latency and propagation delay for bench/pg/run.sh (not a test).

  changes.py latency PORT TOKEN COUNT
      COUNT kill-switch changes (global, alternately on and off) through the replica on PORT, one at a time; prints
      "p50_ms p99_ms" of the time from sending the request to reading the answer.
  changes.py propagate WRITER_PORT TOKEN COUNT READER_PORT...
      COUNT kill-switch changes through WRITER_PORT, each followed by polls of every READER_PORT in a tight loop
      until each serves the change (skinSign "" while switched on); waits a random 0-300 ms between changes so
      they land at every phase of the replicas' 500 ms revision poll. Prints "p50_ms p99_ms max_ms" of the delay
      from the writer's answer to the last reader serving the change.
  changes.py during-build BUILDER_PORT OTHER_PORT TOKEN SKIN_ID READER_PORT...
      Sends PUT /admin/v1/skins/SKIN_ID/release to BUILDER_PORT (a large skin: its packages take seconds to build)
      and, while that runs, the global kill switch through OTHER_PORT and app demo's through BUILDER_PORT; polls
      every READER_PORT until each serves "skins off". Prints "release_ms global_ms app_ms served_ms off_ms": how
      long the release took, each kill switch took to answer, the time from sending the first kill switch until
      every reader served it, and how long the global switch took to answer "off" through OTHER_PORT right after
      the release (while that replica builds the release's packages itself).
Everything runs on 127.0.0.1.
"""
import http.client
import json
import random
import sys
import threading
import time

POLL = "/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&deviceId=bench&scale=3"


def change(port, token, enabled, app=None, timeout=30):
    fields = {"enabled": enabled, "reason": "bench"}
    if app is not None:
        fields["app"] = app
    body = json.dumps(fields)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    connection.request("PUT", "/admin/v1/killswitch", body=body,
                       headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    response = connection.getresponse()
    text = response.read()
    connection.close()
    if response.status != 200:
        sys.exit(f"change refused: {response.status} {text[:200]!r}")


def serves_skin(connection):
    connection.request("GET", POLL)
    response = connection.getresponse()
    answer = json.loads(response.read())
    return answer.get("skinSign", "") != ""


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, int(round(fraction * len(ordered) + 0.5)) - 1))]


def latency(port, token, count):
    times = []
    for index in range(count):
        started = time.perf_counter()
        change(port, token, index % 2 == 0)
        times.append((time.perf_counter() - started) * 1000)
    change(port, token, False)
    print(f"{percentile(times, 0.5):.2f} {percentile(times, 0.99):.2f}")


def propagate(writer, token, count, readers):
    delays = []
    for index in range(count):
        enabled = index % 2 == 0
        time.sleep(random.uniform(0, 0.3))
        change(writer, token, enabled)
        answered = time.perf_counter()
        seen = {}

        def wait(port):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            deadline = answered + 10
            while time.perf_counter() < deadline:
                if serves_skin(connection) != enabled:
                    seen[port] = time.perf_counter() - answered
                    break
            connection.close()

        threads = [threading.Thread(target=wait, args=(port,)) for port in readers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if len(seen) != len(readers):
            sys.exit(f"change {index} not served by every replica within 10 s: {seen}")
        delays.append(max(seen.values()) * 1000)
    change(writer, token, False)
    print(f"{percentile(delays, 0.5):.1f} {percentile(delays, 0.99):.1f} {max(delays):.1f}")


def during_build(builder, other, token, skin_id, readers):
    outcome = {}

    def release():
        started = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", builder, timeout=900)
        body = json.dumps({"priority": 99, "startsAt": "2000-01-01T00:00:00Z", "endsAt": "2100-01-01T00:00:00Z"})
        connection.request("PUT", f"/admin/v1/skins/{skin_id}/release", body=body,
                           headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        outcome["status"] = response.status
        outcome["release_ms"] = (time.perf_counter() - started) * 1000

    releasing = threading.Thread(target=release)
    releasing.start()
    time.sleep(0.2)  # the release has reached its package builds
    sent = time.perf_counter()
    change(other, token, True, timeout=900)
    global_ms = (time.perf_counter() - sent) * 1000
    started = time.perf_counter()
    change(builder, token, True, app="demo", timeout=900)
    app_ms = (time.perf_counter() - started) * 1000
    served = {}
    for port in readers:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while serves_skin(connection):
            pass
        served[port] = (time.perf_counter() - sent) * 1000
        connection.close()
    releasing.join()
    if outcome.get("status") != 200:
        sys.exit(f"release answered {outcome.get('status')}")
    # Switched off through another replica while it builds the packages of the release just committed.
    started = time.perf_counter()
    change(other, token, False, timeout=900)
    off_ms = (time.perf_counter() - started) * 1000
    change(other, token, False, app="demo", timeout=900)
    print(f"{outcome['release_ms']:.0f} {global_ms:.1f} {app_ms:.1f} {max(served.values()):.1f} {off_ms:.1f}")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "latency":
        latency(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif mode == "propagate":
        propagate(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), [int(port) for port in sys.argv[5:]])
    elif mode == "during-build":
        during_build(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], [int(port) for port in sys.argv[6:]])
    else:
        sys.exit(__doc__)
