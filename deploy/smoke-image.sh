#!/usr/bin/env bash
# Proves the Dockerfile without a Docker engine.
#
#  1. Reads the Dockerfile: the build stage's `swift build` command, the runtime stage's base, packages, RUN steps,
#     COPY lines, ENV, USER, HEALTHCHECK and entry point.
#  2. Runs that build command here.
#  3. Builds a minimal Debian root with `debootstrap --variant=minbase` holding exactly the runtime stage's packages
#     (cached under .build/smoke-image/), then replays the runtime stage in it: the RUN steps other than apt-get,
#     the COPY lines (honouring .dockerignore), /data owned by the image's user. Without debootstrap (not installable,
#     no root, no network) it says so and lays the same folders out in a temporary folder on this host instead.
#  4. Checks with ldd that the binary needs no library outside that root (on the host fallback: outside the runtime
#     packages, their dependencies and Debian's required base).
#  5. Runs the entry point as the image's unprivileged user with only the image's environment (plus LIVERY_HOST and
#     LIVERY_PORT set to 127.0.0.1 and 0, as `docker run -e` would, so nothing listens beyond loopback and no fixed
#     port is taken), then checks /healthz, /readyz, /api/v1/skin, a package download (against `livery pack` run in
#     the image), /metrics, the HEALTHCHECK command, that nothing was written outside /data and /tmp, and that
#     SIGTERM ends it with status 0 within the drain timeout.
#
# Usage: deploy/smoke-image.sh            (as root for the debootstrap root; otherwise the host fallback)
#        SMOKE_NO_DEBOOTSTRAP=1 deploy/smoke-image.sh   forces the host fallback.
# Loopback only; bounded waits; about 3-8 minutes from a clean tree on 2 cores, under a minute when cached.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
STARTED=$(date +%s)

say() { printf 'smoke: %s\n' "$*"; }
fail() {
    printf 'smoke: FAIL: %s\n' "$*" >&2
    if [ -n "${LOG_FILE:-}" ] && [ -f "$LOG_FILE" ]; then
        printf 'smoke: server log (last 40 lines):\n' >&2
        tail -n 40 "$LOG_FILE" >&2
    fi
    exit 1
}

# ---------------------------------------------------------------------------------------------------------------
# 1. What the Dockerfile says.
eval "$(python3 - "$REPO/Dockerfile" <<'PY'
import json, re, shlex, sys

text = open(sys.argv[1]).read()
# Join continuation lines, drop comments.
instructions, current = [], ""
for raw in text.splitlines():
    line = raw.strip()
    if not current and (not line or line.startswith("#")):
        continue
    if line.endswith("\\"):
        current += line[:-1] + " "
        continue
    current += line
    instructions.append(current.strip())
    current = ""

stages, stage = [], None
for instruction in instructions:
    keyword, _, rest = instruction.partition(" ")
    keyword = keyword.upper()
    if keyword == "FROM":
        stage = {"from": rest.split()[0], "name": rest.split()[2] if " AS " in rest.upper() else "", "items": []}
        stages.append(stage)
    elif stage is not None:
        stage["items"].append((keyword, rest.strip()))

if len(stages) != 2:
    sys.exit("smoke: the Dockerfile must have exactly two stages (build, runtime)")
build, runtime = stages

def out(name, value):
    print(f"{name}={shlex.quote(value)}")

# The build command: the `swift build ...` step of the build stage's RUN.
build_command = None
for keyword, rest in build["items"]:
    if keyword == "RUN":
        for step in rest.split("&&"):
            if step.strip().startswith("swift build"):
                build_command = step.strip()
                break
    if build_command:
        break
if not build_command:
    sys.exit("smoke: no `swift build` step in the build stage")
out("BUILD_COMMAND", build_command)

base = runtime["from"]
match = re.fullmatch(r"debian:([a-z]+)(-slim)?", base)
if not match:
    sys.exit(f"smoke: the runtime stage must be FROM debian:<suite>[-slim], not {base}")
out("RUNTIME_SUITE", match.group(1))

packages, run_steps, copies, env, user, healthcheck, entrypoint, cmd = [], [], [], [], "", "", [], []
for keyword, rest in runtime["items"]:
    if keyword == "RUN":
        for step in (s.strip() for s in rest.split("&&")):
            if step.startswith("apt-get install"):
                packages += [w for w in step.split()[2:] if not w.startswith("-")]
            elif step.startswith("apt-get update"):
                continue
            else:
                run_steps.append(step)
    elif keyword == "COPY":
        words = rest.split()
        source_stage = ""
        if words[0].startswith("--from="):
            source_stage = words.pop(0)[len("--from="):]
        copies.append((source_stage, words[0], words[1]))
    elif keyword == "ENV":
        env += shlex.split(rest)
    elif keyword == "USER":
        user = rest
    elif keyword == "HEALTHCHECK":
        healthcheck = json.loads(rest[rest.index("CMD") + 3:].strip())
    elif keyword == "ENTRYPOINT":
        entrypoint = json.loads(rest)
    elif keyword == "CMD":
        cmd = json.loads(rest)

out("RUNTIME_PACKAGES", " ".join(packages))
out("RUN_STEPS", "\n".join(run_steps))
out("COPIES", "\n".join("|".join(c) for c in copies))
out("IMAGE_ENV", "\n".join(env))
out("IMAGE_USER", user)
out("HEALTHCHECK_COMMAND", " ".join(shlex.quote(w) for w in healthcheck))
out("ENTRYPOINT_COMMAND", " ".join(shlex.quote(w) for w in entrypoint + cmd))
PY
)"
[ -n "${BUILD_COMMAND:-}" ] || fail "could not read the Dockerfile"
[ -n "$RUNTIME_PACKAGES" ] || fail "no runtime packages found in the Dockerfile"
[ -n "$IMAGE_USER" ] || fail "the runtime stage sets no USER"
case "$IMAGE_USER" in 0 | 0:* | root | root:*) fail "the image runs as root ($IMAGE_USER)" ;; esac
say "runtime: debian $RUNTIME_SUITE with $RUNTIME_PACKAGES; user $IMAGE_USER; entry point: $ENTRYPOINT_COMMAND"

# ---------------------------------------------------------------------------------------------------------------
# 2. The build stage's command.
say "building: $BUILD_COMMAND"
$BUILD_COMMAND
BIN_DIR=$($BUILD_COMMAND --show-bin-path 2>/dev/null | tail -n 1)
[ -x "$BIN_DIR/livery" ] || fail "no livery binary in $BIN_DIR"
say "built $BIN_DIR/livery ($(du -h "$BIN_DIR/livery" | cut -f1)) in $(($(date +%s) - STARTED)) s"

# ---------------------------------------------------------------------------------------------------------------
# 3. The runtime root.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/livery-smoke.XXXXXX")
chmod 755 "$WORK"
ROOT="$WORK/root"
MOUNTED=""
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then kill -KILL "$SERVER_PID" 2>/dev/null || true; fi
    if [ -n "$MOUNTED" ]; then umount "$MOUNTED" 2>/dev/null || umount -l "$MOUNTED" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

MODE=debootstrap
why_not=""
if [ "${SMOKE_NO_DEBOOTSTRAP:-}" = 1 ]; then
    why_not="SMOKE_NO_DEBOOTSTRAP=1"
elif [ "$(id -u)" -ne 0 ]; then
    why_not="debootstrap and chroot need root"
elif ! command -v debootstrap >/dev/null 2>&1; then
    say "installing debootstrap"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; } >"$WORK/apt.log" 2>&1; then
        why_not="debootstrap could not be installed ($(tail -n 1 "$WORK/apt.log"))"
    fi
fi

if [ -z "$why_not" ]; then
    MIRROR=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/*$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
    [ -n "$MIRROR" ] || MIRROR=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
    [ -n "$MIRROR" ] || MIRROR=http://deb.debian.org/debian
    KEY=$(printf '%s %s %s' "$RUNTIME_SUITE" "$RUNTIME_PACKAGES" "$(uname -m)" | sha256sum | cut -c1-16)
    CACHE="$REPO/.build/smoke-image/base-$KEY"
    if [ ! -f "$CACHE/.complete" ]; then
        say "debootstrap --variant=minbase --include=${RUNTIME_PACKAGES// /,} $RUNTIME_SUITE ($MIRROR)"
        rm -rf "$CACHE"
        mkdir -p "$(dirname "$CACHE")"
        if debootstrap --variant=minbase --include="${RUNTIME_PACKAGES// /,}" "$RUNTIME_SUITE" "$CACHE" "$MIRROR" \
            >"$WORK/debootstrap.log" 2>&1; then
            # As a slim image: no downloaded .debs.
            rm -f "$CACHE"/var/cache/apt/archives/*.deb
            touch "$CACHE/.complete"
        else
            why_not="debootstrap failed ($(tail -n 1 "$WORK/debootstrap.log"))"
            rm -rf "$CACHE"
        fi
    else
        say "reusing the debootstrap root $CACHE"
    fi
fi
if [ -n "$why_not" ]; then
    MODE=host
    say "NOTE: $why_not: falling back to the host. The runtime folders are laid out under $ROOT and the server runs"
    say "NOTE: from there on this host's libraries, so the library check is against package names instead of a root."
fi

if [ "$MODE" = debootstrap ]; then
    cp -a "$CACHE" "$ROOT"
    rm -f "$ROOT/.complete"
    # Docker gives every container these.
    printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$ROOT/etc/hosts"
    mount -t proc proc "$ROOT/proc" && MOUNTED="$ROOT/proc"
    in_root() { chroot "$ROOT" /bin/sh -c "$1"; }
    while IFS= read -r step; do
        [ -n "$step" ] || continue
        say "RUN $step"
        in_root "$step" || fail "runtime stage step failed: $step"
    done <<<"$RUN_STEPS"
else
    mkdir -p "$ROOT"
    in_root() { :; }
fi

# COPY lines, honouring .dockerignore for the build context: patterns match from the context's root, `**/NAME`
# anywhere.
EXCLUDES=()
if [ -f .dockerignore ]; then
    while IFS= read -r pattern; do
        case "$pattern" in
            '' | '#'*) continue ;;
            '**/'*) EXCLUDES+=(--no-anchored "--exclude=${pattern#\*\*/}") ;;
            *) EXCLUDES+=(--anchored "--exclude=$pattern") ;;
        esac
    done <.dockerignore
fi
while IFS='|' read -r from source target; do
    [ -n "$source" ] || continue
    if [ -n "$from" ]; then
        # The only artifact of the build stage is the binary at /out/livery.
        [ "$source" = /out/livery ] || fail "unexpected COPY --from=$from $source"
        install -D -m 0755 "$BIN_DIR/livery" "$ROOT$target"
    else
        mkdir -p "$ROOT$target"
        tar -C "$REPO" "${EXCLUDES[@]}" -cf - "$source" | tar -C "$ROOT$target" --strip-components=1 --no-same-owner -xf -
    fi
    say "COPY ${from:+--from=$from }$source $target"
done <<<"$COPIES"
chown -R root:root "$ROOT/usr/local/bin" 2>/dev/null || true

USER_ID=${IMAGE_USER%%:*}
GROUP_ID=${IMAGE_USER#*:}
[ "$GROUP_ID" != "$IMAGE_USER" ] || GROUP_ID=$USER_ID
if [ "$MODE" = host ]; then
    # The image's /data, owned by its user (an unused uid on this host is as unprivileged as it gets).
    mkdir -p "$ROOT/data" "$ROOT/tmp"
    chmod 1777 "$ROOT/tmp"
    if [ "$(id -u)" -eq 0 ]; then chown "$USER_ID:$GROUP_ID" "$ROOT/data"; fi
    chmod 755 "$ROOT" "$ROOT/srv" "$ROOT/srv/livery" 2>/dev/null || true
fi

# ---------------------------------------------------------------------------------------------------------------
# 4. Libraries.
if [ "$MODE" = debootstrap ]; then
    LDD=$(chroot "$ROOT" /usr/bin/ldd /usr/local/bin/livery 2>&1) || fail "ldd failed in the root: $LDD"
    if grep -q "not found" <<<"$LDD"; then fail "the binary needs libraries the runtime stage lacks:
$LDD"; fi
    say "libraries, all resolved inside the runtime root:"
    while read -r path; do
        owner=$(chroot "$ROOT" dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1 || true)
        [ -n "$owner" ] || owner=$(chroot "$ROOT" dpkg -S "$(chroot "$ROOT" readlink -f "$path")" 2>/dev/null |
            head -n 1 | cut -d: -f1 || true)
        [ -n "$owner" ] || fail "$path belongs to no package of the runtime root"
        say "  $path ($owner)"
    done < <(awk '/=>/ { print $3 } !/=>/ && $1 ~ /^\// { print $1 }' <<<"$LDD")
else
    # What a slim image holds: Debian's required packages (apt among them), the runtime packages, and everything
    # those depend on.
    REQUIRED=$(dpkg-query -W -f='${Package} ${Priority}\n' | awk '$2 == "required" { print $1 }')
    # shellcheck disable=SC2086
    ALLOWED=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
        --no-enhances $RUNTIME_PACKAGES $REQUIRED 2>/dev/null | grep -v '^ ' | grep -v '^<' | sed 's/:.*//' | sort -u)
    LDD=$(ldd "$ROOT/usr/local/bin/livery" 2>&1) || fail "ldd failed: $LDD"
    if grep -q "not found" <<<"$LDD"; then fail "missing libraries:
$LDD"; fi
    say "libraries, each from a runtime package, a dependency of one, or Debian's required base:"
    while read -r path; do
        owner=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1 || true)
        [ -n "$owner" ] || owner=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1 || true)
        grep -qx "$owner" <<<"$ALLOWED" || fail "$path comes from '$owner', which the runtime stage does not install"
        say "  $path ($owner)"
    done < <(awk '/=>/ { print $3 } !/=>/ && $1 ~ /^\// { print $1 }' <<<"$LDD")
fi

# ---------------------------------------------------------------------------------------------------------------
# 5. Run it as the image would.
ENV_ARGS=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOSTNAME=livery-smoke HOME=/data)
while IFS= read -r assignment; do [ -n "$assignment" ] && ENV_ARGS+=("$assignment"); done <<<"$IMAGE_ENV"
DRAIN_TIMEOUT=10
for assignment in "${ENV_ARGS[@]}"; do
    case "$assignment" in LIVERY_DRAIN_TIMEOUT=*) DRAIN_TIMEOUT=${assignment#*=} ;; esac
done
read -r -a ENTRY <<<"$(eval "printf '%s ' $ENTRYPOINT_COMMAND")"
read -r -a HEALTH <<<"$(eval "printf '%s ' $HEALTHCHECK_COMMAND")"

# in_image VAR=VALUE... -- COMMAND...: runs COMMAND as the image's user with the image's environment plus the
# given variables, in the root (on the host fallback: with the image's paths mapped under $ROOT). It execs, so call
# it only in a subshell (`&` or `$(...)`); in the background, $! is then the server's own pid.
RUN_AS_IMAGE_USER=1
if [ "$MODE" = host ] && [ "$(id -u)" -ne 0 ]; then
    RUN_AS_IMAGE_USER=0
    say "NOTE: not root: the server runs as uid $(id -u) instead of the image's $USER_ID"
fi
in_image() {
    local extra=()
    while [ "$1" != -- ]; do extra+=("$1"); shift; done
    shift
    if [ "$MODE" = debootstrap ]; then
        exec env -i "${ENV_ARGS[@]}" "${extra[@]}" chroot --userspec="$USER_ID:$GROUP_ID" "$ROOT" "$@"
    fi
    local mapped=() command=()
    for word in "${ENV_ARGS[@]}" "${extra[@]}" TMPDIR=/tmp; do
        case "${word#*=}" in
            /data* | /srv/* | /tmp*) mapped+=("${word%%=*}=$ROOT${word#*=}") ;;
            *) mapped+=("$word") ;;
        esac
    done
    for word in "$@"; do
        case "$word" in
            /usr/local/bin/* | /data* | /srv/* | /tmp/*) command+=("$ROOT$word") ;;
            *) command+=("$word") ;;
        esac
    done
    cd "$ROOT"
    if [ "$RUN_AS_IMAGE_USER" = 1 ]; then
        exec env -i "${mapped[@]}" setpriv --reuid="$USER_ID" --regid="$GROUP_ID" --clear-groups "${command[@]}"
    fi
    exec env -i "${mapped[@]}" "${command[@]}"
}

LOG_FILE="$WORK/livery.log"
in_image LIVERY_HOST=127.0.0.1 LIVERY_PORT=0 -- "${ENTRY[@]}" >"$LOG_FILE" 2>&1 &
SERVER_PID=$!
# listening_port LOG WHAT: the port the server started as $SERVER_PID reports in LOG, waiting up to 30 s.
listening_port() {
    local port=""
    for _ in $(seq 1 300); do
        port=$(grep -o 'LIVERY_LISTENING [^" ]*' "$1" 2>/dev/null | head -n 1 | sed 's/.*://' || true)
        [ -n "$port" ] && { echo "$port"; return 0; }
        kill -0 "$SERVER_PID" 2>/dev/null || fail "$2 exited before listening"
        sleep 0.1
    done
    fail "$2 did not report listening within 30 s"
}
PORT=$(listening_port "$LOG_FILE" "the server")
say "serving on 127.0.0.1:$PORT as pid $SERVER_PID"
RUNNING_UID=$(awk '/^Uid:/ { print $2 }' "/proc/$SERVER_PID/status")
if [ "$RUN_AS_IMAGE_USER" = 1 ]; then
    [ "$RUNNING_UID" = "$USER_ID" ] || fail "the server runs as uid $RUNNING_UID, not $USER_ID"
fi

python3 - "$PORT" "$WORK" <<'PY' || fail "HTTP checks failed"
import hashlib, http.client, json, sys, time
port, work = int(sys.argv[1]), sys.argv[2]

def get(path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, dict(response.getheaders()), body

status, _, body = get("/healthz")
assert status == 200 and json.loads(body) == {"status": "ok"}, (status, body)
print("smoke: /healthz 200")
deadline = time.time() + 60
while True:
    status, _, body = get("/readyz")
    if status == 200:
        break
    assert time.time() < deadline, f"/readyz still {status} {body!r} after 60 s"
    time.sleep(0.2)
print("smoke: /readyz 200", body.decode())
status, headers, body = get("/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0&deviceId=smoke")
answer = json.loads(body)
assert status == 200 and "skinSign" in answer and headers.get("X-Request-Id"), (status, body)
print("smoke: /api/v1/skin 200", answer.get("skinId") or "(no skin live today)")
if answer["skinSign"]:
    status, headers, package = get(answer["packageUrl"])
    assert status == 200 and len(package) == answer["size"], (status, len(package))
    assert hashlib.sha256(package).hexdigest() == answer["sha256"]
    print(f"smoke: {answer['packageUrl']} 200, {len(package)} bytes, sha256 matches the answer")
status, headers, body = get("/metrics")
assert status == 200 and b"livery_http_requests_total{" in body and b"process_start_time_seconds" in body
print("smoke: /metrics 200")
status, _, _ = get("/admin/")
assert status == 404, status
print("smoke: /admin/ 404 (the console is off with the admin API: no tokens file)")
PY
# The static binary computes the Chinese calendar (ICU under full Foundation): Spring Festival 2027 is 6 February.
SPRING=$(in_image -- /usr/local/bin/livery occurrences --every chinese:1-1 --time-zone Asia/Shanghai \
    --at 2026-12-01T00:00:00Z --count 1) || fail "livery occurrences failed in the image: $SPRING"
[ "$SPRING" = "2027 2027-02-06T00:00:00+08:00 2027-02-06T23:59:59+08:00" ] ||
    fail "the image computes Spring Festival 2027 as '$SPRING', not 2027-02-06"
echo "smoke: Spring Festival 2027 is 2027-02-06 in the image"
# A package download checked against `livery pack` run inside the image on the same sample, so it does not depend
# on which sample's window is open today.
PACKED=$(in_image -- /usr/local/bin/livery pack /srv/livery/skins/christmas-2026 -o /tmp/smoke-pack.zip --json) ||
    fail "livery pack failed in the image: $PACKED"
python3 - "$PORT" "$PACKED" "$WORK/download.zip" <<'PY' || fail "package download failed"
import hashlib, http.client, json, sys
port, packed, target = int(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
connection.request("GET", f"/api/v1/packages/{packed['sign']}.zip")
response = connection.getresponse()
body = response.read()
assert response.status == 200, response.status
assert response.getheader("Content-Type") == "application/zip"
assert len(body) == packed["size"] and hashlib.sha256(body).hexdigest() == packed["sha256"], "differs from livery pack"
open(target, "wb").write(body)
print(f"smoke: /api/v1/packages/{packed['sign']}.zip 200, {len(body)} bytes, identical to livery pack's")
PY
unzip -tq "$WORK/download.zip" >/dev/null || fail "unzip -t rejects the downloaded package"
say "unzip -t: ok"

HEALTH_OUTPUT=$(in_image LIVERY_PORT="$PORT" -- "${HEALTH[@]}") || fail "the HEALTHCHECK command failed: $HEALTH_OUTPUT"
say "HEALTHCHECK: $HEALTH_OUTPUT"

# The container could run with a read-only root filesystem: nothing of the user's outside /data and /tmp.
[ -n "$(ls -A "$ROOT/data/packages" 2>/dev/null)" ] || fail "no packages under /data/packages"
if [ "$RUN_AS_IMAGE_USER" = 1 ]; then
    WRITTEN=$(find "$ROOT" -xdev -uid "$USER_ID" -not -path "$ROOT/data" -not -path "$ROOT/data/*" \
        -not -path "$ROOT/tmp/*" 2>/dev/null | head -n 5)
    [ -z "$WRITTEN" ] || fail "the server wrote outside /data and /tmp: $WRITTEN"
    say "writes stay in /data (and /tmp for livery pack)"
fi

# SIGTERM: exit 0 within the drain timeout.
SIGNALLED=$(date +%s%N)
kill -TERM "$SERVER_PID"
STATUS=0
DEADLINE=$(($(date +%s) + ${DRAIN_TIMEOUT%.*} + 5))
while kill -0 "$SERVER_PID" 2>/dev/null; do
    [ "$(date +%s)" -le "$DEADLINE" ] || fail "still running ${DRAIN_TIMEOUT}s + 5 s after SIGTERM"
    sleep 0.05
done
wait "$SERVER_PID" || STATUS=$?
SERVER_PID=""
ELAPSED_MS=$((($(date +%s%N) - SIGNALLED) / 1000000))
[ "$STATUS" -eq 0 ] || fail "exit status $STATUS after SIGTERM"
[ "$ELAPSED_MS" -le $((${DRAIN_TIMEOUT%.*} * 1000)) ] || fail "took ${ELAPSED_MS} ms to stop, over the ${DRAIN_TIMEOUT} s drain timeout"
grep -q 'draining' "$LOG_FILE" || fail "no draining line in the log"
python3 -c '
import json, sys
for number, line in enumerate(open(sys.argv[1]), 1):
    record = json.loads(line)
    assert {"timestamp", "level", "label", "message"} <= record.keys(), (number, line)
' "$LOG_FILE" || fail "the image's log is not one JSON object per line"
say "SIGTERM: exit 0 after ${ELAPSED_MS} ms (drain timeout ${DRAIN_TIMEOUT} s); log is JSON lines"
# The ops console is compiled into the binary (Sources/LiveryConsole), so the image needs no file for it: a second
# server in the image, with the admin API on (a tokens file under /tmp), serves it at /admin/.
printf 'smoke editor %s\n' "$(printf 'smoke-token' | sha256sum | cut -d' ' -f1)" >"$ROOT/tmp/smoke-tokens"
chmod 644 "$ROOT/tmp/smoke-tokens"
CONSOLE_LOG="$WORK/console.log"
in_image LIVERY_HOST=127.0.0.1 LIVERY_PORT=0 LIVERY_TOKENS_FILE=/tmp/smoke-tokens LIVERY_DATA_DIR=/tmp/smoke-console-data \
    -- "${ENTRY[@]}" >"$CONSOLE_LOG" 2>&1 &
SERVER_PID=$!
PORT=$(listening_port "$CONSOLE_LOG" "the server with the admin API on")
python3 - "$PORT" <<'PY' || fail "the image does not serve the console"
import http.client, sys
connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=30)
connection.request("GET", "/admin/")
response = connection.getresponse()
body = response.read()
assert response.status == 200, response.status
assert b"<title>Livery console</title>" in body, body[:200]
assert "script-src 'self'" in response.getheader("Content-Security-Policy", ""), response.getheaders()
print("smoke: /admin/ 200 with the console and its Content-Security-Policy (admin API on)")
PY
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || fail "the server with the admin API on did not exit 0 after SIGTERM"
SERVER_PID=""

say "PASS ($MODE) in $(($(date +%s) - STARTED)) s"
