#!/bin/bash
# Runs as a oneshot unit inside the bookworm tree that Scripts/package-test boots with
# systemd-nspawn: the packaged units under a real systemd. Writes what it finds to
# /root/unit-check.out, which Scripts/package-test reads, then powers the container off.
set -u
exec >/root/unit-check.out 2>&1
step() { echo "== $*"; }
fail() { echo "FAIL: $*"; }

step "relay: dry run, as packaged otherwise (no credential files in /etc/credstore)"
echo 'PUSHGATE_RELAY_DRY_RUN=true' >>/etc/pushgate/relay.env
systemctl start pushgate-relay || fail "systemctl start pushgate-relay"
systemctl is-active pushgate-relay
declare -A watchdog_at_start
watchdog_at_start[pushgate-relay]=$(systemctl show -p WatchdogTimestampMonotonic --value pushgate-relay)
curl -fsS http://127.0.0.1:8788/healthz && echo || fail "relay /healthz"
curl -fsS http://127.0.0.1:9788/metrics | grep '^pushgate_relay_in_flight_limit ' || fail "relay /metrics"
pid=$(systemctl show -p MainPID --value pushgate-relay)
grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs|Seccomp):' "/proc/$pid/status" | sed 's/^/relay /'
ls -ld /var/lib/private/pushgate-relay /var/lib/pushgate-relay/relay.sqlite | sed 's/^/relay /'

step "host: its token from /etc/pushgate/host-access-token, its home in the state directory"
echo 'PUSHGATE_PUSH_RELAY_URL=http://127.0.0.1:8788' >>/etc/pushgate/host.env
echo 'PUSHGATE_METRICS_LISTEN=127.0.0.1:9789' >>/etc/pushgate/host.env
systemctl start pushgate-host || fail "systemctl start pushgate-host"
systemctl is-active pushgate-host
watchdog_at_start[pushgate-host]=$(systemctl show -p WatchdogTimestampMonotonic --value pushgate-host)
curl -fsS -H "Authorization: Bearer $(cat /etc/pushgate/host-access-token)" http://127.0.0.1:8789/api/status \
  | grep -o '"serverId":"[^"]*"' || fail "host /api/status with the token"
curl -s -o /dev/null -w 'host without the token: %{http_code}\n' http://127.0.0.1:8789/api/status
curl -fsS http://127.0.0.1:9789/metrics | grep '^pushgate_host_outbox_depth ' || fail "host /metrics"
pid=$(systemctl show -p MainPID --value pushgate-host)
grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs|Seccomp):' "/proc/$pid/status" | sed 's/^/host /'
ls -l /var/lib/private/pushgate-host/ | sed 's/^/host /'

step "watchdog: each unit's first WATCHDOG=1 (every 15 s) arrives; waits up to 45 s"
# pinged UNIT: whether the watchdog timestamp moved since the unit started.
pinged() { [ "$(systemctl show -p WatchdogTimestampMonotonic --value "$1")" != "${watchdog_at_start[$1]}" ]; }
for _ in $(seq 1 450); do
  pinged pushgate-relay && pinged pushgate-host && break
  sleep 0.1
done
for unit in pushgate-relay pushgate-host; do
  echo "$unit WatchdogUSec=$(systemctl show -p WatchdogUSec --value "$unit") pinged=$(pinged "$unit" && echo yes || echo no)"
done

step "stop: both exit 0 after SIGTERM"
systemctl stop pushgate-host pushgate-relay
for unit in pushgate-relay pushgate-host; do
  echo "$unit $(systemctl show -p Result --value "$unit") status=$(systemctl show -p ExecMainStatus --value "$unit")"
done

step "a settings problem (exit 2) is not restarted"
echo 'PUSHGATE_RELAY_PORT=not-a-port' >>/etc/pushgate/relay.env
systemctl start pushgate-relay && fail "the relay started with PORT=not-a-port"
echo "pushgate-relay $(systemctl show -p Result --value pushgate-relay) status=$(systemctl show -p ExecMainStatus --value pushgate-relay) restarts=$(systemctl show -p NRestarts --value pushgate-relay)"
journalctl -u pushgate-relay -o cat --no-pager | tail -n 3

step DONE
systemctl poweroff
