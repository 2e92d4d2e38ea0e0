# t_diagnose_fleet.sh - `sonde diagnose --serve` (issue #34, the fleet), sourced
# by run.sh (lib.sh gives $SONDE, $B, pass/fail/skip, expect_eq/expect_match).
#
# Two simulated containers, as t_containers.sh makes them (no engine): a
# cgroup named as docker names one (<v2 root>/system.slice/docker-<id>.scope),
# and one named as the kubelet and containerd name a pod's container, with a
# fake kubelet log tree (--kube-logs) that names its namespace, pod and
# container, as t_serve.sh's.  Each runs tests/workloads/fleet_service.c
# (threads spinner, napper, dozer, ephemeral).  The docker one runs before
# sonde starts; the pod's starts after, and joins at a scrape
# (--container all).  A real Prometheus (Debian's, as t_serve.sh starts it)
# scrapes `sonde diagnose --container all --serve` every second; through its
# HTTP API:
#   - every thread of both containers has series labelled by its container
#     (the id; namespace, pod and container names for the pod);
#   - the sum over states of a thread's counter grows by the wall time
#     between its first and last samples (at least 8 s apart) within 5 %:
#     the accounting adds up;
#   - the dozer's counter (3 s sleeps) grows at every scrape a second
#     apart: a scrape counts the open state's time so far;
#   - no counter ever went down (resets() is 0); promtool accepts the
#     exposition;
#   - the ephemeral thread, told to exit, was exported, and is no longer
#     (in Prometheus: no sample after it; in the exposition: no series).
# And --container ID: one container's threads only; deploy/README.md's
# arguments for the DaemonSet are diagnose's.
#
# Everything it starts is stopped by an EXIT trap in a subshell.

(
suite=e2e
FL=$B/diagnose_fleet
rm -rf "$FL"
mkdir -p "$FL"
PIDS=()
CGS=()
made_slice=
cleanup() {
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	for ((i = ${#CGS[@]} - 1; i >= 0; i--)); do cgroup_remove "${CGS[i]}"; done
	[ -n "$made_slice" ] && rmdir "$made_slice" 2>/dev/null
	rm -rf "$FL/prom-data"
}
trap cleanup EXIT

need_root diagnose_fleet || exit 0
if ! command -v prometheus >/dev/null; then
	skip diagnose_fleet "prometheus is not installed (make deps installs it)"; exit 0
fi
CGROOT=$(cgroup2_root)
if [ -z "$CGROOT" ] || [ ! -w "$CGROOT/cgroup.procs" ]; then
	skip diagnose_fleet "no writable cgroup v2 mount"; exit 0
fi
build_workload fleet_service || { fail diagnose_fleet:build; exit 0; }
cp "$B/fleet_service" "$FL/fleet_service"

# ---- the two containers ---------------------------------------------------------
ID=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
SLICE=$CGROOT/system.slice
if [ ! -d "$SLICE" ]; then mkdir "$SLICE" && made_slice=$SLICE; fi
SCOPE=$SLICE/docker-$ID.scope
mkdir "$SCOPE" && CGS+=("$SCOPE") || { fail diagnose_fleet:cgroup; exit 0; }
UID_=$(cat /proc/sys/kernel/random/uuid)
CID=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
KROOT=$CGROOT/sonde-e2e-fleet-$$
POD=$KROOT/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${UID_//-/_}.slice
KSCOPE=$POD/cri-containerd-$CID.scope
mkdir -p "$KSCOPE" && CGS+=("$KROOT" "$KROOT/kubepods.slice" "$KROOT/kubepods.slice/kubepods-besteffort.slice"
	"$POD" "$KSCOPE") || { fail diagnose_fleet:cgroup; exit 0; }
LOGS=$FL/varlog
mkdir -p "$LOGS/pods/shop_web-7d9f_$UID_/infer" "$LOGS/containers"
ln -s "$LOGS/pods/shop_web-7d9f_$UID_/infer/0.log" "$LOGS/containers/web-7d9f_shop_infer-$CID.log"

# start_in VAR CGROUP NAME: fleet_service in CGROUP (it joins before exec);
# VAR gets its pid once it is ready, VAR_fifo the fifo that ends its
# ephemeral thread
start_in() {
	local var=$1 cg=$2 name=$3 out=$FL/$3.out fifo=$FL/$3.fifo
	rm -f "$out" "$fifo"; mkfifo "$fifo"
	sh -c "echo \$\$ > '$cg/cgroup.procs' && exec '$FL/fleet_service' '$fifo'" > "$out" 2>&1 &
	local p=$!
	PIDS+=("$p")
	if ! wait_for "$out" "^ready $p\$" 30; then
		echo "    $name did not start: $(cat "$out")"; return 1
	fi
	printf -v "$var" '%s' "$p"
	printf -v "${var}_fifo" '%s' "$fifo"
}
start_in C1 "$SCOPE" docker || { fail diagnose_fleet:start; exit 0; }

# ---- sonde and Prometheus --------------------------------------------------------
"$SONDE" diagnose --container all --kube-logs "$LOGS" --serve 127.0.0.1:0 > "$FL/sonde.out" 2> "$FL/sonde.err" &
SPID=$!
PIDS+=("$SPID")
if ! wait_for "$FL/sonde.err" '^sonde: serving metrics at ' 60; then
	fail diagnose_fleet:serves; sed 's/^/    /' "$FL/sonde.err" | head -20; exit 0
fi
URL=$(sed -n 's/^sonde: serving metrics at //p' "$FL/sonde.err")
target=${URL#http://}
target=${target%/metrics}
PPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$FL/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: diagnose
    static_configs:
      - targets: ['$target']
EOF
prometheus --config.file="$FL/prometheus.yml" --storage.tsdb.path="$FL/prom-data" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn > "$FL/prometheus.log" 2>&1 &
PIDS+=($!)
API=http://127.0.0.1:$PPORT/api/v1

# the pod's container starts now, after sonde: it joins at a scrape
start_in C2 "$KSCOPE" pod || { fail diagnose_fleet:start; exit 0; }
SHORT=${ID:0:12}
KSHORT=${CID:0:12}

# pq EXPR: the instant query's result as "labels value" lines
pq() {
	python3 - "$API" "$1" <<'EOF'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "/query?" + urllib.parse.urlencode({"query": sys.argv[2]})
try:
    r = json.load(urllib.request.urlopen(url, timeout=10))["data"]["result"]
except Exception as e:
    print("error", e); sys.exit(0)
for s in r:
    print(",".join("%s=%s" % kv for kv in sorted(s["metric"].items())), s["value"][1])
EOF
}
# until both containers' threads have been scraped for 12 s (bounded)
series_of() { pq "count(count_over_time(sonde_diagnose_seconds_total{state=\"running\",$1}[1m]) >= 12)" | awk '{ print $NF }'; }
for _ in $(seq 600); do
	[ "$(series_of "container=\"$SHORT\"")" = 5 ] && [ "$(series_of "pod=\"web-7d9f\"")" = 5 ] && break
	kill -0 "$SPID" 2>/dev/null || break
	sleep 0.1
done

# ---- the checks over Prometheus's samples ------------------------------------------------
python3 - "$API" "$SHORT" "$C1" "$C2" > "$FL/checks.txt" 2>&1 <<'EOF'
import json, sys, urllib.parse, urllib.request
api, short, c1, c2 = sys.argv[1:5]
def q(expr):
    url = api + "/query?" + urllib.parse.urlencode({"query": expr})
    return json.load(urllib.request.urlopen(url, timeout=10))["data"]["result"]
rows = q('sonde_diagnose_seconds_total{pid=~"%s|%s"}[2m]' % (c1, c2))
# per thread: {timestamp: sum over states}
threads = {}
labels = {}
for s in rows:
    m = s["metric"]
    key = (m["pid"], m["tid"], m["thread"])
    labels[key] = {k: v for k, v in m.items() if k not in ("state", "__name__")}
    per = threads.setdefault(key, {})
    for t, v in s["values"]:
        per[t] = per.get(t, 0.0) + float(v)
nstates = {}
for s in rows:
    m = s["metric"]
    nstates.setdefault((m["pid"], m["tid"]), set()).add(m["state"])
ok = True
def check(name, cond, why):
    global ok
    print(("PASS " if cond else "FAIL ") + name + ("" if cond else ": " + why))
for key, per in sorted(threads.items()):
    pid, tid, name = key
    if name == "ephemeral":
        continue
    ts = sorted(per)
    lab = labels[key]
    who = "%s %s/%s" % (lab.get("container"), pid, name)
    span = ts[-1] - ts[0]
    grew = per[ts[-1]] - per[ts[0]]
    check("adds_up " + who, span >= 8 and abs(grew - span) <= 0.05 * span,
          "states grew %.3f s over %.3f s of scrapes" % (grew, span))
    if name == "dozer":
        steps = [(per[b] - per[a], b - a) for a, b in zip(ts, ts[1:])]
        bad = [(round(d, 3), round(w, 3)) for d, w in steps if d < 0.5 * w]
        check("open_state " + who, not bad, "steps that did not grow with the wall time: %s" % bad[:5])
# labels
conts = sorted(set((l.get("namespace", ""), l.get("pod", ""), l.get("container", ""), l.get("container_id", ""), l["pid"])
               for l in labels.values()))
print("containers", conts)
EOF
cat "$FL/checks.txt" | grep -v '^PASS' | sed 's/^/    /'
n_add=$(grep -c '^PASS adds_up ' "$FL/checks.txt")
n_bad=$(grep -c '^FAIL ' "$FL/checks.txt")
expect_eq diagnose_fleet:threads_add_up_within_5pct "8 0" "$n_add $n_bad"
expect_match diagnose_fleet:open_state_counted '^PASS open_state .*dozer' "$(grep 'open_state.*/.*' "$FL/checks.txt" | head -1)"
expect_eq diagnose_fleet:open_state_both "2" "$(grep -c '^PASS open_state ' "$FL/checks.txt")"
expect_match diagnose_fleet:docker_container_label "\('', '', '$SHORT', '', '$C1'\)" "$(grep '^containers' "$FL/checks.txt")"
expect_match diagnose_fleet:kube_labels "\('shop', 'web-7d9f', 'infer', '$KSHORT', '$C2'\)" "$(grep '^containers' "$FL/checks.txt")"
expect_eq diagnose_fleet:never_down "0" "$(pq "sum(resets(sonde_diagnose_seconds_total{pid=~\"$C1|$C2\"}[2m]))" | awk '{ print $NF }')"
# docs/diagnose.md's query that ranks pods by their worst blind spot: both
# containers' groups, each a share of its threads' time
rank=$(python3 - "$top/docs/diagnose.md" <<'EOF'
import re, sys
doc = open(sys.argv[1]).read()
print(re.search(r"### Ranking.*?```promql\n(.*?)```", doc, re.S).group(1))
EOF
)
ranked=$(pq "$rank")
echo "$ranked" | sed 's/^/    ranked: /'
expect_match diagnose_fleet:docs_rank_query_pod '^namespace=shop,pod=web-7d9f 0(\.[0-9e-]+)?$' "$ranked"
expect_eq diagnose_fleet:docs_rank_query_groups "2" "$(echo "$ranked" | grep -c ' 0')"
expect_match diagnose_fleet:states '^running waiting_cpu throttled major_fault io gpu_driver( gil)? futex sleep poll other$' \
	"$(curl -s "$URL" | awk -v t="tid=\"$C1\"" 'index($0, t) { sub(/.*state="/, ""); sub(/".*/, ""); printf "%s%s", sep, $0; sep = " " }')"

if command -v promtool >/dev/null; then
	expect_eq diagnose_fleet:promtool_check_metrics "" "$(curl -s "$URL" | promtool check metrics 2>&1)"
else
	skip diagnose_fleet:promtool_check_metrics "promtool is not installed (make deps installs prometheus)"
fi

# ---- an exited thread: exported once more, then gone ----------------------------------------------
ETID=$(for t in /proc/$C1/task/*; do [ "$(cat "$t/comm")" = ephemeral ] && basename "$t"; done)
had=$(pq "count(sonde_diagnose_seconds_total{tid=\"$ETID\"})" | awk '{ print $NF }')
echo x > "$C1_fifo"
# Prometheus scrapes every second: it takes the thread's last export, and
# at the next scrape the series is stale (no sample at the query's time)
last_seen() { pq "max(max_over_time(timestamp(sonde_diagnose_seconds_total{tid=\"$ETID\",state=\"running\"})[2m:1s]))" | awk '{ print $NF }'; }
gone_at=$(date +%s.%N)
for _ in $(seq 300); do
	[ -d "/proc/$C1/task/$ETID" ] || [ -n "$(pq "count(sonde_diagnose_seconds_total{tid=\"$ETID\"})")" ] || break
	sleep 0.2
done
expect_match diagnose_fleet:exited_was_exported '^[1-9][0-9]*$' "$had"
expect_eq diagnose_fleet:exited_leaves_prometheus "" "$(pq "count(sonde_diagnose_seconds_total{tid=\"$ETID\"})")"
expect_eq diagnose_fleet:exited_leaves_exposition "" "$(curl -s "$URL" | grep "tid=\"$ETID\"")"
if awk -v l="$(last_seen)" -v g="$gone_at" 'BEGIN { exit !(l + 0 > g + 0) }'; then
	pass diagnose_fleet:exited_scraped_after_exit
else
	fail diagnose_fleet:exited_scraped_after_exit; echo "    last sample at $(last_seen), exit asked at $gone_at"
fi
int_stop "$SPID"
expect_eq diagnose_fleet:clean_exit "" "$(grep -v '^sonde: serving metrics at \|^sonde diagnose: tracing ' "$FL/sonde.err")"

# ---- the DaemonSet's option: deploy/README.md's arguments, which -h lists --------------------------
dsargs=$(python3 - "$top/deploy/README.md" <<'EOF'
import json, re, sys
doc = open(sys.argv[1]).read()
m = re.search(r"## diagnose on every node.*?-p '(\[.*?\])'", doc, re.S)
print(" ".join(json.loads(m.group(1))[0]["value"]))
EOF
)
expect_eq diagnose_fleet:daemonset_option "diagnose --container all --serve 0.0.0.0:9435 --kube-logs /var/log" "$dsargs"
help=$("$SONDE" diagnose -h)
missing=$(for o in --container --serve --kube-logs; do grep -q -- "^ *$o " <<< "$help" || echo "$o"; done)
expect_eq diagnose_fleet:daemonset_options_in_help "" "$missing"

# ---- one container ----------------------------------------------------------------------------------
"$SONDE" diagnose --container "$SHORT" --serve 127.0.0.1:0 > "$FL/one.out" 2> "$FL/one.err" &
SPID=$!
PIDS+=("$SPID")
if wait_for "$FL/one.err" '^sonde: serving metrics at ' 60; then
	URL=$(sed -n 's/^sonde: serving metrics at //p' "$FL/one.err")
	expect_eq diagnose_fleet:one_container "$SHORT" \
		"$(curl -s "$URL" | sed -n 's/^sonde_diagnose_seconds_total{.*container="\([^"]*\)".*/\1/p' | sort -u)"
	int_stop "$SPID"
else
	fail diagnose_fleet:one_container; sed 's/^/    /' "$FL/one.err" | head
fi
)
