#!/usr/bin/env python3
"""Fault tests: the split binaries (core-service, rest-gateway) under a steady load of app sends
with unique Idempotency-Keys, while

  1. the core process is killed (SIGKILL) and restarted, on the shared PostgreSQL;
  2. a private PostgreSQL instance (initdb into a temporary folder, pg_ctl on a free port) is
     stopped, once in "fast" mode (connections terminated by the administrator) and once in
     "immediate" mode (a crash), and started again;
  3. the core is killed (SIGKILL) in the middle of a broadcast to 2,000 followers and restarted:
     the new core takes the broadcast over once the lease lapses (30 s), and every follower
     ends with exactly one message of it and that message with exactly one outcome and one
     outcome event;
  4. two cores on one PostgreSQL behind one gateway and one worker (CORE_URL lists both), one
     core killed (SIGKILL) under the load: every answer is 200 or 503, a 503 only for a request
     sent before the kill or within 200 ms after it, sends accepted again within 5 s, every
     acknowledged send stored once with one outcome, and one webhook per X-Service-Delivery
     for each of them within 60 s of the kill;
  5. the worker killed (SIGKILL) with deliveries in flight at a slow receiver and restarted:
     the core gives the jobs of its closed stream back at once, and all of them are delivered
     within 10 s of the restart.

Each client retries a failed send with the same key until it is accepted. The run passes when:
no answer is a 500 (or anything but the envelope); every failure is 503 `service_unavailable`
(or 409 `idempotency_in_progress` while a first attempt is still being written); every answer
comes within CORE_TIMEOUT_SECS (plus slack); a retry after recovery is answered within 5 s of the
service being back; every acknowledged send is stored exactly once, a key never names two
messages, and every message ends with exactly one outcome event. During the PostgreSQL outage
`/readyz` answers 503, and afterwards the core's metrics count failed statements and its log
has error lines that name the requests they failed.

    python3 .ci/faults.py [--target-dir target/debug]
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

CORE_TIMEOUT_SECS = 5
ANSWER_SLACK_SECS = 3
RECOVERY_SECS = 5
JWT_SECRET = "faults-jwt-secret-that-is-at-least-32-bytes-long"
MASTER_KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
INTERNAL_TOKEN = "faults-internal-token"


def log(*args):
    print("[faults]", *args, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proc:
    """One binary, restartable, its output appended to a log file."""

    def __init__(self, name, argv, env, logdir):
        self.name, self.argv, self.env = name, argv, env
        self.logpath = os.path.join(logdir, f"{name}.log")
        self.p = None

    def start(self):
        out = open(self.logpath, "ab")
        self.p = subprocess.Popen(self.argv, env=self.env, stdout=out, stderr=out)
        out.close()

    def kill(self):
        if self.p and self.p.poll() is None:
            self.p.send_signal(signal.SIGKILL)
            self.p.wait()

    def stop(self):
        if self.p and self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def tail(self, lines=30):
        try:
            with open(self.logpath, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""


def http(method, url, body=None, headers=None, timeout=30):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def wait_until(what, check, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return time.monotonic()
        except OSError:
            pass
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


def psql(url, sql):
    out = subprocess.run(
        ["psql", url, "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql],
        check=True, capture_output=True, text=True,
    ).stdout
    return [line.split("\t") for line in out.splitlines() if line]


class Stack:
    """core-service and rest-gateway as separate processes on one database."""

    def __init__(self, bindir, database_url, logdir):
        self.database_url = database_url
        grpc, http_port, metrics_port = free_port(), free_port(), free_port()
        self.metrics = f"http://127.0.0.1:{metrics_port}/metrics"
        self.core_url = f"http://127.0.0.1:{grpc}"
        self.api = f"http://127.0.0.1:{http_port}"
        env = dict(os.environ)
        for k in ("RUST_LOG", "LOG_FORMAT"):
            env.pop(k, None)
        env.update(INTERNAL_TOKEN=INTERNAL_TOKEN, CORE_URL=self.core_url, NO_COLOR="1")
        self.env = env
        core_env = dict(env, DATABASE_URL=database_url, GRPC_ADDR=f"127.0.0.1:{grpc}",
                        JWT_SECRET=JWT_SECRET, MASTER_KEY=MASTER_KEY,
                        DATABASE_MAX_CONNECTIONS="10",
                        METRICS_ADDR=f"127.0.0.1:{metrics_port}")
        gw_env = dict(env, HTTP_ADDR=f"127.0.0.1:{http_port}", METRICS_ADDR="off",
                      CORE_TIMEOUT_SECS=str(CORE_TIMEOUT_SECS))
        self.bindir = bindir
        self.core = Proc("core", [os.path.join(bindir, "core-service")], core_env, logdir)
        self.gateway = Proc("gateway", [os.path.join(bindir, "rest-gateway")], gw_env, logdir)

    def ready(self):
        return http("GET", self.api + "/readyz", timeout=2)[0] == 200

    def start(self):
        """Starts both; False when one exits at once (a free port taken meanwhile)."""
        self.core.start()
        self.gateway.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.core.p.poll() is not None or self.gateway.p.poll() is not None:
                log("a binary exited at start (port taken?):\n" + self.core.tail(3))
                self.stop()
                return False
            try:
                if self.ready():
                    return True
            except OSError:
                pass
            time.sleep(0.05)
        raise SystemExit("timed out waiting for the stack to be ready")

    def demo(self, followers=None):
        extra = ["--followers", str(followers)] if followers else []
        out = subprocess.run(
            [os.path.join(self.bindir, "core-service"), "admin", "--core-url", self.core_url,
             "demo", "--yes", *extra],
            env=self.env, check=True, capture_output=True, text=True,
        ).stdout
        return json.loads(out)

    def stop(self):
        self.gateway.stop()
        self.core.stop()


def start_stack(bindir, database_url, logdir, kind=None):
    """A started `kind` (Stack, or Fleet), on fresh free ports (up to three tries: a port picked
    as free can be taken by another process before the binary binds it)."""
    kind = kind or Stack
    for _ in range(3):
        stack = kind(bindir, database_url, logdir)
        if stack.start():
            return stack
    raise SystemExit(f"the {kind.__name__.lower()} did not start (see the logs)")


class Fleet:
    """Two cores on one database behind one gateway and one webhook worker, as separate
    processes; the gateway, the worker and the operator commands list both cores in CORE_URL."""

    def __init__(self, bindir, database_url, logdir):
        self.database_url = database_url
        self.bindir = bindir
        grpc = [free_port(), free_port()]
        http_port = free_port()
        self.core_url = ",".join(f"http://127.0.0.1:{g}" for g in grpc)
        self.api = f"http://127.0.0.1:{http_port}"
        env = dict(os.environ)
        for k in ("RUST_LOG", "LOG_FORMAT"):
            env.pop(k, None)
        env.update(INTERNAL_TOKEN=INTERNAL_TOKEN, CORE_URL=self.core_url, NO_COLOR="1",
                   METRICS_ADDR="off")
        self.env = env
        self.cores = [
            Proc(f"fleet-core{i}", [os.path.join(bindir, "core-service")],
                 dict(env, DATABASE_URL=database_url, GRPC_ADDR=f"127.0.0.1:{g}",
                      JWT_SECRET=JWT_SECRET, MASTER_KEY=MASTER_KEY,
                      DATABASE_MAX_CONNECTIONS="10", WEBHOOK_ALLOW_INSECURE="true"), logdir)
            for i, g in enumerate(grpc)]
        self.gateway = Proc("fleet-gateway", [os.path.join(bindir, "rest-gateway")],
                            dict(env, HTTP_ADDR=f"127.0.0.1:{http_port}",
                                 CORE_TIMEOUT_SECS=str(CORE_TIMEOUT_SECS)), logdir)
        self.worker = Proc("fleet-worker", [os.path.join(bindir, "webhook-worker")], env, logdir)
        self.procs = self.cores + [self.gateway, self.worker]

    def ready(self):
        return http("GET", self.api + "/readyz", timeout=2)[0] == 200

    def core_ready(self, i):
        """Whether core `i` alone serves: its health check answered through a gateway of one."""
        return subprocess.run(
            [os.path.join(self.bindir, "core-service"), "admin", "--core-url",
             self.core_url.split(",")[i], "list-businesses"],
            env=self.env, capture_output=True).returncode == 0

    def start(self):
        for proc in self.procs:
            proc.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if any(p.p.poll() is not None for p in self.procs):
                log("a binary exited at start (port taken?):\n" + self.cores[0].tail(3))
                self.stop()
                return False
            try:
                if self.ready() and all(self.core_ready(i) for i in range(2)):
                    return True
            except OSError:
                pass
            time.sleep(0.1)
        raise SystemExit("timed out waiting for the fleet to be ready")

    def demo(self):
        out = subprocess.run(
            [os.path.join(self.bindir, "core-service"), "admin", "demo", "--yes"],
            env=self.env, check=True, capture_output=True, text=True,
        ).stdout
        return json.loads(out)

    def webhook(self, demo, url):
        """Registers an endpoint of the demo business for the outcome events."""
        status, body = http("POST", self.api + "/business/webhooks",
                            {"url": url, "events": ["message.sent", "message.failed"]},
                            {"Authorization": f"Bearer {demo['owner_access_token']}"})
        if status != 201:
            raise SystemExit(f"registering the webhook: {status} {body[:200]!r}")

    def stop(self):
        for proc in reversed(self.procs):
            proc.stop()


def start_fleet(bindir, database_url, logdir):
    return start_stack(bindir, database_url, logdir, Fleet)


class Receiver:
    """A webhook receiver on loopback: answers 204 after `delay` seconds and records every
    delivery (arrival, answer, X-Service-Delivery, event type, message id, answered or not)."""

    def __init__(self, delay=0.0):
        import http.server

        self.delay = delay
        self.lock = threading.Lock()
        self.got = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                arrived = time.monotonic()
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    payload = json.loads(raw)
                except ValueError:
                    payload = {}
                time.sleep(receiver.delay)
                answered = True
                try:
                    self.send_response(204)
                    self.end_headers()
                except OSError:
                    answered = False
                with receiver.lock:
                    receiver.got.append({
                        "arrived": arrived, "answered_at": time.monotonic(),
                        "delivery": self.headers.get("X-Service-Delivery"),
                        "type": payload.get("type"),
                        "message": (payload.get("data") or {}).get("message_send_id"),
                        "answered": answered,
                    })

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def received(self):
        with self.lock:
            return list(self.got)

    def stop(self):
        self.server.shutdown()


class Load:
    """`clients` threads, each sending with a new key and retrying it until accepted."""

    def __init__(self, stack, demo, clients=6, interval=0.0):
        self.url = f"{stack.api}/v1/{demo['business_account_id']}/messages"
        self.token = demo["app_token"]
        self.followers = [f["phone_number"] for f in demo["followers"]]
        self.clients = clients
        # Each client starts a new key at most every `interval` seconds (0: at once, a closed
        # loop): a steady rate.
        self.interval = interval
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.keys = {}  # key -> {"id", "attempts": [(t0, t1, status, code)], "done"}
        self.problems = []
        self.threads = []

    def start(self):
        for i in range(self.clients):
            t = threading.Thread(target=self.client, args=(i,), daemon=True)
            t.start()
            self.threads.append(t)

    def problem(self, text):
        with self.lock:
            if len(self.problems) < 50:
                self.problems.append(text)

    def client(self, n):
        i = 0
        next_at = time.monotonic()
        while not self.stopping.is_set():
            if self.interval:
                time.sleep(max(0.0, next_at - time.monotonic()))
                next_at = max(next_at + self.interval, time.monotonic() - self.interval)
            i += 1
            key = f"fault-{n}-{i}-{uuid.uuid4().hex[:8]}"
            entry = {"id": None, "attempts": [], "done": None}
            with self.lock:
                self.keys[key] = entry
            body = {"to": self.followers[i % len(self.followers)], "category": "utility",
                    "body": f"fault test {key}"}
            headers = {"Authorization": f"Bearer {self.token}", "Idempotency-Key": key}
            give_up = None
            while True:
                t0 = time.monotonic()
                try:
                    status, raw = http("POST", self.url, body, headers, timeout=60)
                except OSError as e:
                    # The gateway itself is not killed here: a dropped connection is a bug.
                    status, raw = -1, str(e).encode()
                t1 = time.monotonic()
                try:
                    reply = json.loads(raw)
                except ValueError:
                    reply = None
                code = reply.get("message") if isinstance(reply, dict) else None
                entry["attempts"].append((t0, t1, status, code))
                if t1 - t0 > CORE_TIMEOUT_SECS + ANSWER_SLACK_SECS:
                    self.problem(f"{key}: answered after {t1 - t0:.1f} s ({status} {code})")
                if status == 202 or status == 200:
                    mid = reply["data"]["id"]
                    if entry["id"] not in (None, mid):
                        self.problem(f"{key}: answered {entry['id']} then {mid}")
                    entry["id"], entry["done"] = mid, t1
                    break
                if not isinstance(reply, dict) or reply.get("success") is not False:
                    self.problem(f"{key}: {status} without the envelope: {raw[:200]!r}")
                ok_failure = (status == 503 and code == "service_unavailable") or (
                    status == 409 and code == "idempotency_in_progress")
                if not ok_failure:
                    self.problem(f"{key}: {status} {code} {reply and reply.get('detail')}")
                    break
                if self.stopping.is_set():
                    give_up = give_up or time.monotonic() + 60
                    if time.monotonic() > give_up:
                        self.problem(f"{key}: never accepted")
                        break
                time.sleep(0.1)

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join(120)


def check(load, stack, recoveries, name):
    """The assertions shared by both scenarios; returns a list of failures."""
    failures = list(load.problems)
    keys = load.keys
    accepted = {k: e for k, e in keys.items() if e["id"]}
    statuses = {}
    for e in keys.values():
        for (_, _, status, code) in e["attempts"]:
            statuses[(status, code)] = statuses.get((status, code), 0) + 1
    retried = [e for e in accepted.values() if len(e["attempts"]) > 1]
    log(f"{name}: {len(keys)} keys, {len(accepted)} accepted, {len(retried)} needed retries;"
        f" answers: " + ", ".join(f"{s} {c or ''}: {n}" for (s, c), n in sorted(
            statuses.items(), key=lambda x: str(x))))
    if not retried:
        failures.append("no send failed: the fault did not hit the load")
    if any(s == 500 for (s, _) in statuses):
        failures.append("a 500 was answered")

    # Retries after a recovery are answered within RECOVERY_SECS of it.
    slowest = 0.0
    for key, e in accepted.items():
        if len(e["attempts"]) < 2:
            continue
        last_failure = e["attempts"][-2][1]
        back = [r for r in recoveries if r <= e["done"]]
        if not back or back[-1] < e["attempts"][0][0]:
            continue  # it recovered before the service was seen back (or between outages)
        late = e["done"] - max(back[-1], last_failure - 0.2)
        slowest = max(slowest, e["done"] - back[-1])
        if e["done"] - back[-1] > RECOVERY_SECS:
            failures.append(f"{key}: accepted {e['done'] - back[-1]:.1f} s after recovery")
    log(f"{name}: slowest retry answered {slowest:.1f} s after the service was back")

    return failures + check_stored(load, stack.database_url, name)


def check_stored(load, database_url, name):
    """Every acknowledged send is stored once, and ends with one outcome."""
    failures = []
    accepted = {k: e for k, e in load.keys.items() if e["id"]}
    ids = {e["id"] for e in accepted.values()}
    if len(ids) != len(accepted):
        failures.append("two keys were answered with the same message")

    def settled():
        rows = psql(database_url,
                    "SELECT count(*) FROM messages WHERE status = 'accepted'")
        return rows[0][0] == "0"

    try:
        wait_until("every message to have its outcome", settled, timeout=90)
    except SystemExit as e:
        failures.append(str(e))
    stored = {r[0]: r[1] for r in psql(database_url, "SELECT id, status FROM messages")}
    missing = ids - set(stored)
    extra = set(stored) - ids
    if missing:
        failures.append(f"{len(missing)} acknowledged sends are not stored, e.g. {sorted(missing)[:3]}")
    if extra:
        failures.append(f"{len(extra)} messages stored that no key was answered with")
    outcomes = {}
    for (data,) in psql(database_url,
                        "SELECT data FROM events WHERE event_type IN ('message.sent', 'message.failed')"):
        mid = json.loads(data).get("message_send_id")
        outcomes[mid] = outcomes.get(mid, 0) + 1
    twice = [m for m, n in outcomes.items() if n > 1]
    none = [m for m in ids if m not in outcomes]
    if twice:
        failures.append(f"{len(twice)} messages have more than one outcome event")
    if none:
        failures.append(f"{len(none)} acknowledged messages have no outcome event")
    by_status = {}
    for s in stored.values():
        by_status[s] = by_status.get(s, 0) + 1
    log(f"{name}: stored {len(stored)} messages {by_status}; outcome events for {len(outcomes)}")
    return failures


def create_database(admin_url):
    name = "bm_faults_" + uuid.uuid4().hex[:12]
    psql(admin_url, f'CREATE DATABASE "{name}"')
    base = admin_url.rsplit("/", 1)[0]
    return name, f"{base}/{name}"


def core_kill(bindir, admin_url, logdir):
    name, url = create_database(admin_url)
    stack = None
    try:
        stack = start_stack(bindir, url, logdir)
        demo = stack.demo()
        load = Load(stack, demo)
        load.start()
        recoveries = []
        time.sleep(2)
        for _ in range(3):
            stack.core.kill()
            log("core killed")
            time.sleep(1.5)
            stack.core.start()
            recoveries.append(wait_until("the core to be back", stack.ready))
            log("core back")
            time.sleep(3)
        load.stop()
        return check(load, stack, recoveries, "core killed 3 times")
    finally:
        if stack:
            stack.stop()
        psql(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def broadcast_kill(bindir, admin_url, logdir):
    """A core killed mid-broadcast: every follower gets exactly one message, one outcome."""
    name, url = create_database(admin_url)
    stack = None
    failures = []
    try:
        stack = start_stack(bindir, url, logdir)
        demo = stack.demo(followers=2000)
        auth = {"Authorization": f"Bearer {demo['owner_access_token']}"}
        status, body = http("POST", stack.api + "/business/broadcasts",
                            {"name": "faults", "category": "utility", "body": "hello",
                             "max_per_second": 200}, auth)
        if status != 201:
            return [f"creating the broadcast: {status} {body[:200]!r}"]
        broadcast = json.loads(body)["data"]["id"]

        def read():
            status, body = http("GET", f"{stack.api}/business/broadcasts/{broadcast}",
                                headers=auth, timeout=5)
            return json.loads(body)["data"] if status == 200 else None

        wait_until("the broadcast to be under way",
                   lambda: (read() or {}).get("counts", {}).get("accepted", 0) >= 300)
        stack.core.kill()
        created_then = int(psql(url, "SELECT COUNT(*) FROM messages "
                                     f"WHERE broadcast_id = '{broadcast}'")[0][0])
        log(f"core killed mid-broadcast ({created_then} of 2000 messages created)")
        if created_then >= 2000:
            failures.append("the broadcast had finished before the kill: pace it slower")
        stack.core.start()
        wait_until("the core to be back", stack.ready)
        wait_until("the broadcast to complete (taken over after the lease lapsed)",
                   lambda: (read() or {}).get("completed_at") is not None, timeout=180)
        done = read()
        counts = done["counts"]
        log(f"broadcast {done['status']}: {counts}")
        if done["status"] != "completed" or counts["audience"] != 2000 \
                or counts["accepted"] != 2000 or counts["delivered"] + counts["failed"] != 2000:
            failures.append(f"broadcast ended {done['status']} with {counts}")
        rows = psql(url, "SELECT COUNT(*), COUNT(DISTINCT recipient_user_id), "
                         "COUNT(*) FILTER (WHERE status IN ('delivered', 'failed')) "
                         f"FROM messages WHERE broadcast_id = '{broadcast}'")[0]
        if rows != ["2000", "2000", "2000"]:
            failures.append(f"messages, recipients, with an outcome: {rows} (want 2000 each)")
        followers = psql(url, "SELECT COUNT(*) FROM follows f WHERE f.status = 'active' "
                              "AND f.business_id = (SELECT business_id FROM broadcasts "
                              f"WHERE id = '{broadcast}') AND NOT EXISTS (SELECT 1 FROM messages m "
                              f"WHERE m.broadcast_id = '{broadcast}' "
                              "AND m.recipient_user_id = f.user_id)")[0][0]
        if followers != "0":
            failures.append(f"{followers} followers got no message")
        events = psql(url, "SELECT COUNT(*), COUNT(DISTINCT CAST(data AS jsonb)->>'message_send_id') "
                           "FROM events WHERE event_type IN ('message.sent', 'message.failed') "
                           f"AND CAST(data AS jsonb)->>'broadcast_id' = '{broadcast}'")[0]
        if events != ["2000", "2000"]:
            failures.append(f"outcome events, distinct messages: {events} (want 2000 each)")
        completed = psql(url, "SELECT COUNT(*) FROM events WHERE event_type = 'broadcast.completed' "
                              f"AND CAST(data AS jsonb)->>'broadcast_id' = '{broadcast}'")[0][0]
        if completed != "1":
            failures.append(f"{completed} broadcast.completed events (want 1)")
        return failures
    finally:
        if stack:
            stack.stop()
        psql(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def core_of_two_killed(bindir, admin_url, logdir):
    """Two cores behind one gateway and one worker; one core killed under the load."""
    name, url = create_database(admin_url)
    fleet = None
    receiver = Receiver()
    failures = []
    try:
        fleet = start_fleet(bindir, url, logdir)
        demo = fleet.demo()
        fleet.webhook(demo, receiver.url)
        load = Load(fleet, demo)
        load.start()
        time.sleep(3)
        fleet.cores[0].kill()
        killed = time.monotonic()
        log("one of two cores killed")
        time.sleep(6)
        load.stop()
        failures += list(load.problems)
        keys = load.keys
        accepted = {k: e for k, e in keys.items() if e["id"]}
        answers = {}
        late_503 = []
        for key, e in keys.items():
            for (t0, _, status, code) in e["attempts"]:
                answers[(status, code)] = answers.get((status, code), 0) + 1
                if status != 200 and (status, code) != (503, "service_unavailable"):
                    failures.append(f"{key}: answered {status} {code}")
                if status == 503 and t0 > killed + 0.2:
                    late_503.append(f"{key} ({t0 - killed:.2f} s after the kill)")
        log(f"{name}: {len(keys)} keys, {len(accepted)} accepted; answers: "
            + ", ".join(f"{s} {c or ''}: {n}" for (s, c), n in sorted(
                answers.items(), key=lambda x: str(x))))
        if late_503:
            failures.append(f"503 for requests sent more than 200 ms after the kill: {late_503[:5]}")
        # Sends are accepted again within 5 s: every key that met the kill, and new ones.
        for key, e in accepted.items():
            met = e["attempts"][0][0] <= killed or any(a[2] == 503 for a in e["attempts"])
            if met and e["done"] > killed + RECOVERY_SECS:
                failures.append(f"{key}: accepted {e['done'] - killed:.1f} s after the kill")
        after = [e for e in accepted.values() if killed < e["attempts"][0][0] <= killed + 5]
        if not after:
            failures.append("no send was accepted within 5 s of the kill")
        failures += check_stored(load, url, name)
        # One webhook per acknowledged send and per X-Service-Delivery, within 60 s of the kill.
        ids = {e["id"] for e in accepted.values()}

        def all_delivered():
            got = {d["message"] for d in receiver.received() if d["answered"]}
            return ids <= got

        try:
            wait_until("a webhook for every acknowledged send",
                       all_delivered, timeout=max(1, killed + 60 - time.monotonic()))
        except SystemExit as e:
            got = {d["message"] for d in receiver.received()}
            failures.append(f"{e}: {len(ids - got)} of {len(ids)} sends have none")
        time.sleep(1)
        per_delivery, per_message = {}, {}
        for d in receiver.received():
            per_delivery[d["delivery"]] = per_delivery.get(d["delivery"], 0) + 1
            per_message.setdefault(d["message"], set()).add(d["delivery"])
        twice = [k for k, n in per_delivery.items() if n > 1]
        if twice:
            failures.append(f"{len(twice)} deliveries arrived more than once, e.g. {twice[:3]}")
        several = [m for m, ds in per_message.items() if len(ds) > 1]
        if several:
            failures.append(f"{len(several)} sends have more than one delivery")
        last = max((d["answered_at"] for d in receiver.received()), default=killed)
        log(f"{name}: {len(per_delivery)} webhooks for {len(ids)} acknowledged sends, the last "
            f"{last - killed:.1f} s after the kill")
        return failures
    finally:
        receiver.stop()
        if fleet:
            fleet.stop()
        psql(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def worker_killed(bindir, admin_url, logdir):
    """The worker killed with deliveries in flight at a slow receiver, then restarted."""
    name, url = create_database(admin_url)
    fleet = None
    receiver = Receiver(delay=1.5)
    failures = []
    sends = 16
    try:
        fleet = start_fleet(bindir, url, logdir)
        demo = fleet.demo()
        fleet.webhook(demo, receiver.url)
        auth = {"Authorization": f"Bearer {demo['app_token']}"}
        followers = [f["phone_number"] for f in demo["followers"]]
        for i in range(sends):
            status, body = http("POST", f"{fleet.api}/v1/{demo['business_account_id']}/messages",
                                {"to": followers[i % len(followers)], "category": "utility",
                                 "body": f"slow receiver {i}"}, auth)
            if status != 200:
                return [f"send {i}: {status} {body[:200]!r}"]
        wait_until("deliveries in flight at the receiver",
                   lambda: in_flight(url) >= 4, timeout=60)
        fleet.worker.kill()
        unreported = sends - delivered(url)
        log(f"worker killed with {unreported} deliveries unreported")
        fleet.worker.start()
        restarted = time.monotonic()
        try:
            done = wait_until("every delivery to succeed", lambda: delivered(url) == sends,
                              timeout=60)
            log(f"{name}: all {sends} delivered {done - restarted:.1f} s after the restart")
            if done - restarted > 10:
                failures.append(f"delivered {done - restarted:.1f} s after the restart (over 10 s)")
        except SystemExit as e:
            failures.append(f"{e}: {delivered(url)} of {sends}")
        if unreported == 0:
            failures.append("nothing was in flight when the worker was killed")
        return failures
    finally:
        receiver.stop()
        if fleet:
            fleet.stop()
        psql(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def in_flight(url):
    """Deliveries leased and not yet reported."""
    return int(psql(url, "SELECT COUNT(*) FROM webhook_deliveries WHERE lease_token IS NOT NULL")[0][0])


def delivered(url):
    return int(psql(url, "SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'succeeded'")[0][0])


def as_postgres(argv):
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--"] + argv
    return argv


def private_postgres(bindir, logdir):
    pg_bin = subprocess.run(["pg_config", "--bindir"], check=True, capture_output=True,
                            text=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="bm-faults-pg-")
    os.chmod(work, 0o777)
    data = os.path.join(work, "data")
    port = free_port()
    pg_log = os.path.join(logdir, "postgres.log")
    open(pg_log, "a").close()
    os.chmod(pg_log, 0o666)
    pg_ctl = as_postgres([os.path.join(pg_bin, "pg_ctl"), "-D", data, "-l", pg_log, "-w"])
    subprocess.run(as_postgres([os.path.join(pg_bin, "initdb"), "-D", data, "-U", "postgres",
                                "--auth=trust", "-E", "UTF8"]),
                   check=True, capture_output=True)
    opts = f"-p {port} -k {work} -c listen_addresses=127.0.0.1 -c max_connections=50"
    start = pg_ctl + ["-o", opts, "start"]
    subprocess.run(start, check=True, capture_output=True)
    url = f"postgres://postgres@127.0.0.1:{port}/postgres"
    stack = None
    try:
        stack = start_stack(bindir, url, logdir)
        demo = stack.demo()
        load = Load(stack, demo)
        load.start()
        recoveries = []
        time.sleep(2)
        for mode in ("fast", "immediate"):
            subprocess.run(pg_ctl + ["-m", mode, "stop"], check=True, capture_output=True)
            log(f"PostgreSQL stopped ({mode})")
            stopped = time.monotonic()
            try:
                # Readiness tells the truth: 503 while the database is away.
                wait_until("/readyz to answer 503",
                           lambda: http("GET", stack.api + "/readyz", timeout=2)[0] == 503,
                           timeout=15)
            except SystemExit as e:
                load.problem(str(e))
            time.sleep(max(0.0, 5 - (time.monotonic() - stopped)))
            subprocess.run(start, check=True, capture_output=True)

            def sends():
                # Ready once a send goes through (the gateway's /readyz checks the core only).
                status, _ = http("GET", stack.api + "/readyz", timeout=2)
                rows = psql(url, "SELECT 1")
                return status == 200 and rows == [["1"]]

            recoveries.append(wait_until("PostgreSQL to be back", sends))
            log("PostgreSQL back")
            time.sleep(4)
        load.stop()
        failures = check(load, stack, recoveries, "PostgreSQL stopped twice")
        # The outage is visible to an operator: failed statements in the metrics, and error
        # lines that name the request they failed.
        _, scraped = http("GET", stack.metrics, timeout=5)
        failed = [l for l in scraped.decode().splitlines()
                  if l.startswith("db_statement_failures_total")]
        if not failed or float(failed[0].split()[-1]) <= 0:
            failures.append(f"db_statement_failures_total did not count the outage: {failed}")
        with open(stack.core.logpath, errors="replace") as f:
            errors = [l for l in f if " ERROR " in l and "request_id=" in l]
        if not errors:
            failures.append("no error line of the core names the request it failed")
        log(f"PostgreSQL stopped twice: {failed[0] if failed else 'no metric'}; "
            f"{len(errors)} error lines with a request id")
        return failures
    finally:
        if stack:
            stack.stop()
        subprocess.run(pg_ctl + ["-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target-dir", default="target/debug")
    parser.add_argument("--only", help="run only the scenarios whose name contains this")
    parser.add_argument("--admin-url", default=os.environ.get(
        "TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres"))
    args = parser.parse_args()
    bindir = os.path.abspath(args.target_dir)
    logdir = tempfile.mkdtemp(prefix="bm-faults-logs-")
    os.chmod(logdir, 0o777)
    log(f"logs in {logdir}")
    failures = []
    for name, run in (("core killed", lambda: core_kill(bindir, args.admin_url, logdir)),
                      ("PostgreSQL stopped", lambda: private_postgres(bindir, logdir)),
                      ("core killed mid-broadcast",
                       lambda: broadcast_kill(bindir, args.admin_url, logdir)),
                      ("one of two cores killed",
                       lambda: core_of_two_killed(bindir, args.admin_url, logdir)),
                      ("worker killed at a slow receiver",
                       lambda: worker_killed(bindir, args.admin_url, logdir))):
        if args.only and args.only not in name:
            continue
        started = time.monotonic()
        got = run()
        log(f"{name}: {'ok' if not got else 'FAILED'} in {time.monotonic() - started:.0f} s")
        failures += [f"{name}: {f}" for f in got]
    if failures:
        for f in failures:
            print("FAIL", f, flush=True)
        for name in ("core", "gateway", "fleet-core0", "fleet-core1", "fleet-gateway",
                     "fleet-worker"):
            path = os.path.join(logdir, f"{name}.log")
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    tail = f.readlines()[-15:]
                print(f"--- last lines of {name}.log\n" + "".join(tail))
        sys.exit(1)
    shutil.rmtree(logdir, ignore_errors=True)
    log("all fault tests passed")


if __name__ == "__main__":
    main()
