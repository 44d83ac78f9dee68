#!/usr/bin/env python3
"""Losing the database: core-service/README.md's PostgreSQL cluster recipe (etcd, Patroni with
synchronous replication, HAProxy routing by Patroni's `/primary` check; all from Debian's
packages) run on loopback in a private folder on free ports, with the test's shorter timings;
the split binaries (two cores, a gateway, a webhook worker)
connect through HAProxy while app sends with Idempotency-Keys go at a steady rate, and

  1. a planned switchover under the load: sends accepted again within 10 s;
  2. the primary's Patroni and PostgreSQL killed (SIGKILL): sends accepted again within 30 s,
     and the old node, started again, rejoins as a replica.

Each client retries a failed send with its key until it is accepted. A scenario passes when no
answer is a 500 (every failure is 503 `service_unavailable`, or 409 `idempotency_in_progress`
while a first attempt is being written), every acknowledged send is stored exactly once with
exactly one outcome and one `message.sent` event, a key never names two messages, and the
webhook receiver got one delivery (one X-Service-Delivery, perhaps repeated) per send.

`--async --hold-back` (never in CI) runs the kill with synchronous replication off and the
standby held back (its WAL receiver stopped with SIGSTOP and the sender's socket filled with
other WAL), promoted anyway (`maximum_lag_on_failover` raised): the checker must report the
acknowledged sends that the new primary does not hold, and the run fails, as it should.

`--hold` starts the cluster only, prints its URLs and waits for Ctrl-C (for the benchmark).

    python3 .ci/failover.py [--target-dir target/debug] [--nodes 2]
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faults  # noqa: E402  (the fault tests' processes, load and checks)
from faults import Load, Proc, Receiver, free_port, http, psql, wait_until  # noqa: E402

# The test's timings (production's are in core-service/README.md): loop_wait + 2 x
# retry_timeout <= ttl, as Patroni requires.
TTL, LOOP_WAIT, RETRY_TIMEOUT = 20, 2, 5
KILL_RECOVERY_SECS = 30
SWITCHOVER_RECOVERY_SECS = 10
SCOPE = "bm-failover"


def log(*args):
    print("[failover]", *args, flush=True)


def as_postgres(argv):
    """Patroni runs PostgreSQL, which refuses to run as root."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--"] + argv
    return argv


def pg_bindir():
    out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
    if out.returncode == 0 and os.path.exists(os.path.join(out.stdout.strip(), "initdb")):
        return out.stdout.strip()
    versions = sorted(os.listdir("/usr/lib/postgresql"))
    return f"/usr/lib/postgresql/{versions[-1]}/bin"


def get_json(url, timeout=2):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def status_of(url, method="GET"):
    try:
        req = urllib.request.Request(url, method=method)
        with urllib.request.urlopen(req, timeout=2) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


class Node:
    """One Patroni node and the PostgreSQL it runs."""

    def __init__(self, cluster, index):
        self.cluster = cluster
        self.name = f"node{index + 1}"
        self.pg_port, self.rest_port = free_port(), free_port()
        self.dir = os.path.join(cluster.work, self.name)
        os.makedirs(self.dir)
        os.chmod(self.dir, 0o777)
        self.data = os.path.join(self.dir, "data")
        self.config = os.path.join(self.dir, "patroni.yml")
        self.pidfile = os.path.join(self.dir, "patroni.pid")
        self.rest = f"http://127.0.0.1:{self.rest_port}"
        self.url = (f"postgres://postgres:{cluster.superuser_password}"
                    f"@127.0.0.1:{self.pg_port}/postgres")
        self.write_config()
        # `exec` keeps the shell's pid, written first: the pid of Patroni itself, to kill.
        self.proc = Proc(f"patroni-{self.name}", as_postgres(
            ["sh", "-c", f'echo $$ > "{self.pidfile}"; exec patroni "{self.config}"']),
            dict(os.environ), cluster.logdir)

    def write_config(self):
        """The README's Patroni file with this node's name, addresses and folders, and the
        test's timings."""
        c = self.cluster
        text = substitute(c.recipe["patroni"], {
            "name: node1": f"name: {self.name}",
            "10.0.0.21:8008": f"127.0.0.1:{self.rest_port}",
            "10.0.0.21:5432": f"127.0.0.1:{self.pg_port}",
            "10.0.0.11:2379,10.0.0.12:2379,10.0.0.13:2379": f"127.0.0.1:{c.etcd_port}",
            "10.0.0.0/24": "127.0.0.1/32",
            "/var/lib/postgresql/15/messaging": self.data,
            "/var/lib/postgresql/15/pgpass-messaging": os.path.join(self.dir, "pgpass"),
            "/usr/lib/postgresql/15/bin": c.bindir,
            "/var/run/postgresql": self.dir,
            "ttl: 30": f"ttl: {TTL}",
            "loop_wait: 10": f"loop_wait: {LOOP_WAIT}",
            "retry_timeout: 10": f"retry_timeout: {RETRY_TIMEOUT}",
            "synchronous_mode: true": f"synchronous_mode: {str(c.synchronous).lower()}",
            "maximum_lag_on_failover: 1048576": f"maximum_lag_on_failover: {c.max_lag}",
        })
        with open(self.config, "w") as f:
            f.write(text)
        os.chmod(self.config, 0o644)

    def start(self):
        self.proc.start()

    def role(self):
        """`primary`, `replica` or None (from Patroni's REST checks)."""
        if status_of(self.rest + "/primary") == 200:
            return "primary"
        if status_of(self.rest + "/replica") == 200:
            return "replica"
        return None

    def postmaster_pid(self):
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as f:
                return int(f.readline())
        except (OSError, ValueError):
            return None

    def patroni_pid(self):
        try:
            with open(self.pidfile) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def kill(self):
        """SIGKILL to Patroni and to PostgreSQL's postmaster (its backends follow it)."""
        for pid in (self.patroni_pid(), self.postmaster_pid()):
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if self.proc.p:
            self.proc.p.wait()

    def stop(self):
        pid = self.patroni_pid()
        if pid:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        if self.proc.p:
            try:
                self.proc.p.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
        pm = self.postmaster_pid()
        if pm:
            try:
                os.kill(pm, signal.SIGQUIT)
            except ProcessLookupError:
                pass


README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "core-service",
                      "README.md")


def recipe():
    """The cluster recipe's four blocks of core-service/README.md (after `<!-- cluster:NAME
    -->`), by name."""
    with open(README) as f:
        text = f.read()
    blocks = {}
    for name in ("etcd", "patroni", "haproxy", "service"):
        marker = f"<!-- cluster:{name} -->"
        if marker not in text:
            raise SystemExit(f"core-service/README.md has no {marker} block")
        after = text.split(marker, 1)[1].split("```", 2)
        blocks[name] = after[1].split("\n", 1)[1]  # the fence line's language dropped
    return blocks


def substitute(text, replacements):
    """`text` with each key replaced; every key must occur, and no 10.0.0.x address remain."""
    for old, new in replacements.items():
        if old not in text:
            raise SystemExit(f"the README's cluster recipe no longer holds {old!r}")
        text = text.replace(old, new)
    if "10.0.0." in text:
        raise SystemExit("an address of the README's cluster recipe was not substituted:\n"
                         + text)
    return text


class Cluster:
    """core-service/README.md's cluster recipe on loopback: one etcd member (three in
    production), `nodes` Patroni nodes and HAProxy, in a private folder on free ports."""

    def __init__(self, nodes=2, synchronous=True, max_lag=1048576):
        self.recipe = recipe()
        self.superuser_password = re.search(
            r"superuser:\s*\n\s*username: postgres\s*\n\s*password: (\S+)",
            self.recipe["patroni"]).group(1)
        self.work = tempfile.mkdtemp(prefix="bm-failover-")
        os.chmod(self.work, 0o777)
        self.logdir = os.path.join(self.work, "logs")
        os.makedirs(self.logdir)
        os.chmod(self.logdir, 0o777)
        self.bindir = pg_bindir()
        self.synchronous, self.max_lag = synchronous, max_lag
        self.etcd_port, etcd_peer = free_port(), free_port()
        etcd_env = substitute(self.recipe["etcd"], {
            "http://10.0.0.11:2380": f"http://127.0.0.1:{etcd_peer}",
            "http://10.0.0.11:2379": f"http://127.0.0.1:{self.etcd_port}",
            ",etcd2=http://10.0.0.12:2380,etcd3=http://10.0.0.13:2380": "",
            "/var/lib/etcd/messaging": os.path.join(self.work, "etcd"),
        })
        env = dict(os.environ)
        for line in etcd_env.splitlines():
            if line and not line.startswith("#"):
                key, value = line.split("=", 1)
                env[key] = value
        self.etcd = Proc("etcd", ["etcd"], env, self.logdir)
        self.nodes = [Node(self, i) for i in range(nodes)]
        self.haproxy_port = free_port()
        self.haproxy_cfg = os.path.join(self.work, "haproxy.cfg")
        with open(self.haproxy_cfg, "w") as f:
            f.write(self.haproxy_config())
        self.haproxy = Proc("haproxy", ["haproxy", "-db", "-f", self.haproxy_cfg],
                            dict(os.environ), self.logdir)
        self.proxy = f"127.0.0.1:{self.haproxy_port}"
        self.admin_url = (f"postgres://postgres:{self.superuser_password}@{self.proxy}"
                          "/postgres")
        service = self.recipe["service"].replace("haproxy.internal:5000", self.proxy)
        self.url = re.search(r"^DATABASE_URL=(\S+)$", service, re.M).group(1)
        self.service_setup = service

    def haproxy_config(self):
        text = self.recipe["haproxy"]
        template = re.search(r"^ *server node1 .*$", text, re.M).group(0)
        servers = "\n".join(
            template.replace("node1", n.name).replace("10.0.0.21:5432", f"127.0.0.1:{n.pg_port}")
            .replace("port 8008", f"port {n.rest_port}") for n in self.nodes)
        text = re.sub(r"(^ *server node\d .*\n)+", servers + "\n", text, flags=re.M)
        return substitute(text, {
            "bind *:5000": f"bind 127.0.0.1:{self.haproxy_port}",
            "inter 2s fall 2 rise 1": "inter 1s fall 2 rise 1",
        })

    def start(self):
        self.etcd.start()
        wait_until("etcd", lambda: status_of(
            f"http://127.0.0.1:{self.etcd_port}/health") == 200, timeout=30)
        self.nodes[0].start()
        wait_until("the first node to lead", lambda: self.nodes[0].role() == "primary",
                   timeout=90)
        for node in self.nodes[1:]:
            node.start()
        self.haproxy.start()
        self.wait_healthy("the cluster")
        # The recipe's last block: the service's role and database, made through HAProxy.
        subprocess.run(["bash", "-euo", "pipefail", "-c", self.service_setup], check=True,
                       capture_output=True)

    def members(self):
        try:
            return get_json(self.nodes[0].rest + "/cluster")["members"]
        except OSError:
            for node in self.nodes[1:]:
                try:
                    return get_json(node.rest + "/cluster")["members"]
                except OSError:
                    pass
        return []

    def leader(self):
        for node in self.nodes:
            if node.role() == "primary":
                return node
        return None

    def healthy(self):
        """One leader, every other node a running replica (the synchronous one when on), and
        HAProxy routing to the leader."""
        members = {m["name"]: m for m in self.members()}
        if len(members) != len(self.nodes):
            return False
        roles = sorted(m["role"] for m in members.values())
        want_replica = "sync_standby" if self.synchronous else "replica"
        if roles.count("leader") != 1 or want_replica not in roles:
            return False
        if any(m["state"] not in ("running", "streaming") for m in members.values()):
            return False
        try:
            return psql(self.admin_url, "SELECT pg_is_in_recovery()") == [["f"]]
        except subprocess.CalledProcessError:
            return False

    def wait_healthy(self, what, timeout=120):
        wait_until(f"{what} to be healthy", self.healthy, timeout=timeout)
        log(f"{what}: " + ", ".join(
            f"{m['name']} {m['role']} {m['state']}" for m in self.members()))

    def database(self, name):
        """A fresh database of the service's role for one scenario; its URL."""
        db = "messaging_" + re.sub(r"\W", "_", name)
        owner = re.search(r"^postgres://([^:@/]+)", self.url).group(1)
        psql(self.admin_url, f'CREATE DATABASE "{db}" OWNER "{owner}"')
        return self.url.rsplit("/", 1)[0] + "/" + db

    def switchover(self, leader, candidate):
        status, body = http("POST", leader.rest + "/switchover",
                            {"leader": leader.name, "candidate": candidate.name}, timeout=60)
        if status != 200:
            raise SystemExit(f"switchover refused: {status} {body[:300]!r}")

    def stop(self):
        self.haproxy.stop()
        for node in self.nodes:
            node.stop()
        self.etcd.stop()

    def tails(self):
        for proc in [self.etcd, self.haproxy] + [n.proc for n in self.nodes]:
            print(f"--- last lines of {proc.name}.log\n{proc.tail(20)}")


def outage(load, since):
    """The longest time without any send accepted, from `since` on (the sends go at a steady
    rate, so this is how long the fault stopped them), and the 503 answers."""
    accepted = sorted(t1 for e in list(load.keys.values())
                      for (_, t1, status, _) in e["attempts"]
                      if status in (200, 202) and t1 >= since)
    answers_503 = sum(1 for e in list(load.keys.values())
                      for (_, _, status, _) in e["attempts"] if status == 503)
    gaps = [b - a for a, b in zip([since] + accepted, accepted)]
    return max(gaps, default=float("inf")), answers_503


def check_cluster_run(load, fleet, receiver, url, name):
    """The shared guarantees: the fault tests' answers and storage checks, one `message.sent`
    per acknowledged send, one delivery per send at the receiver."""
    failures = list(load.problems)
    statuses = {}
    for e in load.keys.values():
        for (_, _, status, code) in e["attempts"]:
            statuses[(status, code)] = statuses.get((status, code), 0) + 1
    log(f"{name}: answers " + ", ".join(f"{s} {c or ''}: {n}" for (s, c), n in sorted(
        statuses.items(), key=lambda x: str(x))))
    if any(s == 500 for (s, _) in statuses):
        failures.append("a 500 was answered")
    if not any(s == 503 for (s, _) in statuses):
        failures.append("no send was refused: the fault did not hit the load")
    retried = [e for e in load.keys.values() if e["id"] and len(e["attempts"]) > 1]
    log(f"{name}: {len(retried)} sends refused at first were accepted when retried with "
        "their key")
    if not retried:
        failures.append("no refused send was retried")
    failures += faults.check_stored(load, url, name)
    accepted = {e["id"] for e in load.keys.values() if e["id"]}
    sent_events = {}
    for (data,) in psql(url, "SELECT data FROM events WHERE event_type = 'message.sent'"):
        mid = json.loads(data).get("message_send_id")
        sent_events[mid] = sent_events.get(mid, 0) + 1
    twice = [m for m, n in sent_events.items() if n > 1]
    missing = [m for m in accepted if sent_events.get(m) != 1]
    if twice:
        failures.append(f"{len(twice)} sends have more than one message.sent")
    if missing:
        failures.append(f"{len(missing)} acknowledged sends lack their one message.sent")

    def all_delivered():
        got = {d["message"] for d in receiver.received() if d["answered"]}
        return accepted <= got

    try:
        wait_until("a webhook for every acknowledged send", all_delivered, timeout=90)
    except SystemExit as e:
        got = {d["message"] for d in receiver.received()}
        failures.append(f"{e}: {len(accepted - got)} of {len(accepted)} sends have none")
    per_message = {}
    repeats = 0
    seen = set()
    for d in receiver.received():
        if d["delivery"] in seen:
            repeats += 1
        seen.add(d["delivery"])
        per_message.setdefault(d["message"], set()).add(d["delivery"])
    several = [m for m, ds in per_message.items() if len(ds) > 1]
    if several:
        failures.append(f"{len(several)} sends have more than one delivery")
    log(f"{name}: {len(accepted)} acknowledged sends, {len(seen)} deliveries "
        f"({repeats} repeated with their X-Service-Delivery, at least once as documented)")
    return failures


def run_load(cluster, bindir, fault, name, recovery_limit):
    """The fleet on the cluster, a steady load, `fault(cluster)` (returns when it is done),
    the load carried on until the cluster is healthy again, then the checks."""
    receiver = Receiver()
    fleet = None
    failures = []
    url = cluster.database(name)
    try:
        fleet = faults.start_fleet(bindir, url, cluster.logdir)
        demo = fleet.demo()
        fleet.webhook(demo, receiver.url)
        psql(url, "DELETE FROM events")  # the demo's own, to count only the load's
        load = Load(fleet, demo, clients=6, interval=0.05)
        load.start()
        time.sleep(3)
        started = time.monotonic()
        at = fault(cluster)
        cluster.wait_healthy(f"{name}: the cluster again", timeout=180)
        time.sleep(3)
        load.stop()
        took, refused = outage(load, started)
        first_after = [a[1] for e in load.keys.values() for a in e["attempts"]
                       if a[0] > at and a[2] in (200, 202)]
        first = (min(first_after) - at) if first_after else float("inf")
        log(f"{name}: no send accepted for {took:.1f} s at most; the first 200 to a request "
            f"sent after the fault {first:.1f} s after it; {refused} answers 503")
        if took > recovery_limit:
            failures.append(f"no send accepted for {took:.1f} s (over {recovery_limit} s)")
        failures += check_cluster_run(load, fleet, receiver, url, name)
        return failures
    finally:
        receiver.stop()
        if fleet:
            fleet.stop()


def switchover(cluster, bindir):
    def fault(cluster):
        leader = cluster.leader()
        candidate = next(n for n in cluster.nodes if n is not leader)
        log(f"switchover from {leader.name} to {candidate.name}")
        at = time.monotonic()
        cluster.switchover(leader, candidate)
        wait_until("the candidate to lead", lambda: candidate.role() == "primary", timeout=60)
        return at

    return run_load(cluster, bindir, fault, "switchover", SWITCHOVER_RECOVERY_SECS)


def kill_primary(cluster, bindir, hold_back=False):
    def fault(cluster):
        leader = cluster.leader()
        if hold_back:
            hold_back_replicas(cluster, leader)
        log(f"SIGKILL to {leader.name}'s Patroni and PostgreSQL")
        at = time.monotonic()
        leader.kill()
        survivor = [n for n in cluster.nodes if n is not leader]
        wait_until("a survivor to lead", lambda: any(n.role() == "primary" for n in survivor),
                   timeout=TTL + 40)
        if hold_back:
            for pid in cluster.held:
                os.kill(pid, signal.SIGCONT)
        time.sleep(3)
        log(f"{leader.name} started again")
        leader.start()
        return at

    return run_load(cluster, bindir, fault, "primary killed", KILL_RECOVERY_SECS)


def hold_back_replicas(cluster, leader):
    """Outside CI: the standbys stop receiving (their WAL receivers stopped with SIGSTOP) and
    the primary's senders stall behind a burst of other WAL that fills the sockets' buffers,
    so the sends acknowledged from then on reach no standby."""
    cluster.held = []
    for node in cluster.nodes:
        if node is leader:
            continue
        out = subprocess.run(["pgrep", "-f", "walreceiver"], capture_output=True, text=True)
        for pid in out.stdout.split():
            cluster.held.append(int(pid))
            os.kill(int(pid), signal.SIGSTOP)
    psql(leader.url, "CREATE TABLE IF NOT EXISTS bm_ballast (b text)")
    psql(leader.url, "INSERT INTO bm_ballast SELECT repeat(md5(i::text), 32) "
                     "FROM generate_series(1, 200000) i")
    log(f"standbys held back (WAL receivers {cluster.held} stopped, 200 MB of WAL written)")
    time.sleep(5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target-dir", default="target/debug")
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--only", help="run only the scenarios whose name contains this")
    parser.add_argument("--async", dest="asynchronous", action="store_true",
                        help="synchronous replication off (outside CI)")
    parser.add_argument("--hold-back", action="store_true",
                        help="hold the standby back before the kill (outside CI; loses sends)")
    parser.add_argument("--hold", action="store_true",
                        help="start the cluster, print its URLs and wait (for the benchmark)")
    args = parser.parse_args()
    bindir = os.path.abspath(args.target_dir)
    for tool in ("etcd", "patroni", "haproxy"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is not installed (Debian: etcd-server, patroni, haproxy)")
    cluster = Cluster(nodes=args.nodes, synchronous=not args.asynchronous,
                      max_lag=(1 << 40) if args.hold_back else 1048576)
    log(f"work folder {cluster.work}")
    failures = []
    try:
        started = time.monotonic()
        cluster.start()
        log(f"cluster up in {time.monotonic() - started:.0f} s; DATABASE_URL={cluster.url}")
        if args.hold:
            log(f"the superuser through HAProxy (TEST_DATABASE_URL for the benchmark): "
                f"{cluster.admin_url}")
            log("holding; Ctrl-C (or SIGTERM) stops it")
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
            signal.sigwait({signal.SIGINT, signal.SIGTERM})
            return
        scenarios = [("switchover", lambda: switchover(cluster, bindir)),
                     ("primary killed",
                      lambda: kill_primary(cluster, bindir, hold_back=args.hold_back))]
        if args.hold_back:
            scenarios = scenarios[1:]
        for name, run in scenarios:
            if args.only and args.only not in name:
                continue
            t = time.monotonic()
            got = run()
            log(f"{name}: {'ok' if not got else 'FAILED'} in {time.monotonic() - t:.0f} s")
            failures += [f"{name}: {f}" for f in got]
    finally:
        if failures:
            for f in failures:
                print("FAIL", f, flush=True)
            cluster.tails()
            for name in ("fleet-core0", "fleet-core1", "fleet-gateway", "fleet-worker"):
                path = os.path.join(cluster.logdir, f"{name}.log")
                if os.path.exists(path):
                    with open(path, errors="replace") as f:
                        print(f"--- last lines of {name}.log\n" + "".join(f.readlines()[-15:]))
        cluster.stop()
        if not failures:
            shutil.rmtree(cluster.work, ignore_errors=True)
    if failures:
        sys.exit(1)
    log("all failover tests passed")


if __name__ == "__main__":
    main()
