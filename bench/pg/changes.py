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
Everything runs on 127.0.0.1.
"""
import http.client
import json
import random
import sys
import threading
import time

POLL = "/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&deviceId=bench&scale=3"


def change(port, token, enabled):
    body = json.dumps({"enabled": enabled, "reason": "bench"})
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
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


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "latency":
        latency(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif mode == "propagate":
        propagate(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), [int(port) for port in sys.argv[5:]])
    else:
        sys.exit(__doc__)
