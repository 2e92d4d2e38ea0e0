# t_serve.sh - maps as Prometheus metrics (--serve, -f openmetrics -o FILE),
# checked by the tools that consume them (sourced by run.sh).
#
#   prometheus  a real Prometheus server (Debian's 2.42) on 127.0.0.1, on a
#               free port, with its own temporary storage, scraping sonde
#               every second (it asks for OpenMetrics).  Workloads of known
#               shape run meanwhile for 15 s, SCHED_FIFO (a woken CFS task
#               may wait for a busy CPU) (tests/workloads/serve_load.c):
#               30,000 ioctls at 2000/s, paced against absolute deadlines,
#               and a loop of 12 ms sleeps.  Through Prometheus's HTTP API,
#               once they have ended (the other checks may outlast them on
#               a loaded machine): the counter's last sample is 30,000; its
#               growth between two samples of Prometheus's own, both inside
#               the workload's life and at least 8 s apart, over their
#               timestamps' difference is within 10 % of 2000/s; and
#               histogram_quantile(0.5, ...) of all the sleeps falls in the
#               bucket that holds 12 ms, (8.39 ms, 16.78 ms]: a sleep never
#               ends early, and the 4.7 ms above it absorb wake-up delays.
#   promtool    `promtool check metrics` on the text exposition of every
#               recipe in scripts/.
#   kube        a simulated Kubernetes node: a cgroup named as the kubelet
#               (systemd driver) and containerd name them, under the v2
#               mount, a fake /var/log/pods + /var/log/containers tree
#               (--kube-logs), a process in that cgroup: its series carry
#               namespace, pod and container (and container_id).
#   http        Accept negotiation, 404, 405, the index page, 127.0.0.1 by
#               default, the series cap and sonde_series_dropped_total.
#   textfile    -f openmetrics -o FILE --interval 1: the file is replaced
#               whole (rename), ends in "# EOF", no temporary file stays.
#   manifest    deploy/daemonset.yaml parses; hostPID, capabilities,
#               read-only host mounts (tests/e2e/check_daemonset.py).
#
# A `prometheus` service from the package may listen on :9090 here: this
# test never uses it nor that port.  Everything it starts is stopped by an
# EXIT trap in a subshell, on failure too.

(
suite=e2e
SV=$B/serve
rm -rf "$SV"
mkdir -p "$SV"
build_workload serve_load
build_workload work
PIDS=()
# the workloads' names (comm, 15 characters at most), which the programs
# below count system-wide: of this run's own, so that another run of this
# file beside it (another checkout's make check) adds nothing to the counts
sx=$(($$ % 10000))
CGDIR=""
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	if [ -n "$CGDIR" ] && [ -d "$CGDIR" ]; then
		# leaves first, then the tree
		find "$CGDIR" -depth -type d -exec rmdir {} \; 2>/dev/null
	fi
	rm -rf "$SV/prom-data"
}
trap cleanup EXIT

# start_sonde NAME ARGS...: sonde --serve 127.0.0.1:0 in the background;
# sets URL (the port it chose) and SPID
start_sonde() {
	local name=$1; shift
	rm -f "$SV/$name.out" "$SV/$name.err"	# not the last run's port
	"$SONDE" --serve 127.0.0.1:0 "$@" > "$SV/$name.out" 2> "$SV/$name.err" &
	SPID=$!
	PIDS+=("$SPID")
	URL=""
	for _ in $(seq 600); do
		URL=$(sed -n 's/^sonde: serving metrics at //p' "$SV/$name.err")
		[ -n "$URL" ] && return 0
		kill -0 "$SPID" 2>/dev/null || break
		sleep 0.1
	done
	echo "    sonde did not start serving:"; sed 's/^/    /' "$SV/$name.err" | head -20
	return 1
}

stop_sonde() {
	kill -INT "$SPID" 2>/dev/null
	wait "$SPID"
}

need_root serve:prometheus || exit 0

# ---- a real Prometheus (started first, queried last: it scrapes while the
# other checks run) ----------------------------------------------------------------
cat > "$SV/rate.sonde" <<EOF
tracepoint:syscalls:sys_enter_ioctl /comm == "serve_rate$sx"/ { @ioctls = count(); }
tracepoint:syscalls:sys_enter_clock_nanosleep /comm == "serve_sleep$sx"/ { @start[tid] = nsecs; }
tracepoint:syscalls:sys_exit_clock_nanosleep /comm == "serve_sleep$sx" && @start[tid]/
{
	@sleep_ns = hist(nsecs - @start[tid]);
	delete(@start[tid]);
}
EOF
PROM_SPID=""
if ! command -v prometheus >/dev/null; then
	skip serve:prometheus "prometheus is not installed (make deps installs it)"
elif start_sonde rate -q "$SV/rate.sonde"; then
	PROM_SPID=$SPID
	target=${URL#http://}
	target=${target%/metrics}
	PPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat > "$SV/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: sonde
    static_configs:
      - targets: ['$target']
EOF
	prometheus --config.file="$SV/prometheus.yml" --storage.tsdb.path="$SV/prom-data" \
		--web.listen-address="127.0.0.1:$PPORT" --log.level=warn > "$SV/prometheus.log" 2>&1 &
	PIDS+=($!)
fi

# ---- HTTP: negotiation, paths, methods, the series cap ---------------------------
if start_sonde http -q --max-series 5 -e "tracepoint:syscalls:sys_enter_ioctl /comm == \"serve_keys$sx\"/ { @req[args->cmd] = count(); }"; then
	"$B/serve_load" keys 20 1.5 "serve_keys$sx"
	text=$(curl -s "$URL")
	om=$(curl -s -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' -D "$SV/om.hdr" "$URL")
	expect_eq serve:series_cap "5" "$(printf '%s\n' "$text" | grep -c '^sonde_req_total{cmd=')"
	expect_match serve:series_dropped_total '^sonde_series_dropped_total\{map="@req"\} 15$' "$text"
	expect_match serve:label_from_field_name '^sonde_req_total\{cmd="[0-9]+"\} 1[0-9]?$' "$text"
	expect_match serve:openmetrics_content_type 'application/openmetrics-text; version=1.0.0' "$(cat "$SV/om.hdr")"
	expect_match serve:openmetrics_eof '^# EOF$' "$(printf '%s\n' "$om" | tail -1)"
	expect_match serve:openmetrics_counter_family '^# TYPE sonde_req counter$' "$om"
	base=${URL%/metrics}
	expect_eq serve:not_found "404" "$(curl -s -o /dev/null -w '%{http_code}' "$base/metricsx")"
	expect_eq serve:only_get "405" "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$base/metrics")"
	expect_match serve:index_page 'href="/metrics"' "$(curl -s "$base/")"
	expect_match serve:binds_loopback '^http://127\.0\.0\.1:[0-9]+/metrics$' "$URL"
	# four idle connections from one address are the most it keeps: a
	# fifth is closed at once (no reply), and scrapes work again after
	caps=$(python3 - "$URL" <<'EOF'
import socket, subprocess, sys, time, urllib.parse
url = sys.argv[1]
u = urllib.parse.urlsplit(url)
socks = [socket.create_connection((u.hostname, u.port)) for _ in range(4)]
time.sleep(0.3)
curl = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", url]
held = subprocess.run(curl, capture_output=True, text=True).stdout
for s in socks:
    s.close()
time.sleep(0.3)
print(held, subprocess.run(curl, capture_output=True, text=True).stdout)
EOF
)
	expect_eq serve:connection_cap_per_client "000 200" "$caps"
	stop_sonde
fi
out=$("$SONDE" --serve 127.0.0.1:99999 -e 'BEGIN { exit(); }' 2>&1)
expect_match serve:bad_port_message 'expected \[ADDR:\]PORT' "$out"
out=$("$SONDE" -f openmetrics -e 'BEGIN { exit(); }' 2>&1)
expect_match serve:format_needs_target 'needs --serve' "$out"

# ---- a simulated Kubernetes node ------------------------------------------------------
CGROOT=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo | head -1)
UID_=5f3c1a2b-9d8e-4f70-a1b2-c3d4e5f60718
CID=$(printf 'a1%.0s' $(seq 32))
if [ -z "$CGROOT" ] || [ ! -w "$CGROOT/cgroup.procs" ]; then
	skip serve:kube_labels "no writable cgroup v2 hierarchy"
else
	CGDIR=$CGROOT/sonde-e2e-kube-$$
	POD=$CGDIR/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${UID_//-/_}.slice
	mkdir -p "$POD/cri-containerd-$CID.scope"
	LOGS=$SV/varlog
	mkdir -p "$LOGS/pods/shop_web-7d9f_$UID_/nginx" "$LOGS/pods/shop_web-7d9f_$UID_/sidecar" \
		"$LOGS/containers"
	ln -s "$LOGS/pods/shop_web-7d9f_$UID_/nginx/0.log" "$LOGS/containers/web-7d9f_shop_nginx-$CID.log"
	if start_sonde kube -q --kube-logs "$LOGS" -e "tracepoint:syscalls:sys_enter_ioctl /comm == \"serve_ioctl$sx\"/ { @calls[container, comm] = count(); }"; then
		# the process joins the container's cgroup, then becomes the workload
		sh -c "echo \$\$ > '$POD/cri-containerd-$CID.scope/cgroup.procs' && exec '$B/serve_load' ioctl 500 1 serve_ioctl$sx"
		"$B/serve_load" ioctl 300 1 "serve_ioctl$sx"	# and one on the host
		text=$(curl -s "$URL")
		expect_match serve:kube_labels "^sonde_calls_total\{namespace=\"shop\",pod=\"web-7d9f\",container=\"nginx\",container_id=\"${CID:0:12}\",comm=\"serve_ioctl$sx\"\} 500$" "$text"
		expect_match serve:kube_host_process "^sonde_calls_total\\{container=\"\",comm=\"serve_ioctl$sx\"\\} 300\$" "$text"
		stop_sonde
	fi
fi

# ---- the textfile for node_exporter -------------------------------------------------------
rm -f "$SV/textfile.out"	# the wait below must not find the last run's line
"$SONDE" -f openmetrics -o "$SV/sonde.prom" --interval 1 \
	-e "tracepoint:syscalls:sys_enter_ioctl /comm == \"serve_text$sx\"/ { @ioctls = count(); }" \
	> "$SV/textfile.out" 2>&1 &
SPID=$!
PIDS+=("$SPID")
wait_for "$SV/textfile.out" '^Attached' 60
"$B/serve_load" ioctl 1000 2.5 "serve_text$sx"
first=$(cat "$SV/sonde.prom" 2>/dev/null)
stop_sonde
expect_match serve:textfile_written '^sonde_ioctls_total [0-9]+$' "$first"
expect_match serve:textfile_final '^sonde_ioctls_total 2500$' "$(cat "$SV/sonde.prom")"
expect_eq serve:textfile_eof "# EOF" "$(tail -1 "$SV/sonde.prom")"
expect_eq serve:textfile_no_temp "" "$(ls "$SV" | grep 'sonde.prom.*tmp')"
# per-probe hits count from the first attach: the -c child's first call
# is counted too (they were enabled after the child started, 4 for 5)
cp "$B/work" "$SV/work"	# a file of its own: only this run's uprobe fires
timeout 60 "$SONDE" -q -f openmetrics -o "$SV/hits.prom" -e "uprobe:$SV/work:work { @calls = count(); }" \
	-c "$SV/work 5" > "$SV/hits.out" 2>&1
expect_match serve:probe_hits_from_first_call "^sonde_probe_hits_total\{probe=\"uprobe:$SV/work:work\"\} 5$" \
	"$(cat "$SV/hits.prom" "$SV/hits.out")"
out=$(timeout 30 "$SONDE" -q -f openmetrics -o "$SV/no/such/dir/sonde.prom" -e 'tracepoint:syscalls:sys_enter_ioctl { @n = count(); }' 2>&1)
rc=$?
expect_match serve:textfile_bad_path "^sonde: cannot write $SV/no/such/dir/sonde.prom: No such file or directory exit=1$" "$out exit=$rc"

# ---- the workloads Prometheus sees: 15 s each, from its first scrape of sonde
# (bounded: 60 s), while promtool runs; the queries at the end wait for them
if [ -n "$PROM_SPID" ]; then
	for _ in $(seq 600); do
		[ "$(curl -s "http://127.0.0.1:$PPORT/api/v1/query?query=up" | grep -o '"value":\[[0-9.]*,"1"\]')" ] && break
		sleep 0.1
	done
	chrt -f 10 "$B/serve_load" ioctl 2000 15 "serve_rate$sx" &
	load_rate=$!
	chrt -f 10 "$B/serve_load" sleep 12000 15 "serve_sleep$sx" &
	load_sleep=$!
	PIDS+=($load_rate $load_sleep)
fi

# ---- promtool on every recipe ------------------------------------------------------------------
if ! command -v promtool >/dev/null; then
	skip serve:promtool "promtool is not installed (make deps installs prometheus)"
else
	# check_recipe FILE: serve it, scrape once, promtool; "" or its name
	# in $SV/NAME.bad.  Two at a time: most of the wall time is compiling
	# and attaching under ASan.
	check_recipe() {
		local n
		n=$(basename "$1" .sonde)
		if ! start_sonde "recipe-$n" -q "$1"; then
			echo "$n(start)" > "$SV/$n.bad"
			return
		fi
		sleep 0.5
		curl -s "$URL" > "$SV/$n.prom"
		if promtool check metrics < "$SV/$n.prom" > "$SV/$n.promtool" 2>&1; then
			: > "$SV/$n.bad"
		else
			echo "$n" > "$SV/$n.bad"
			sed "s/^/    $n: /" "$SV/$n.promtool" | head -5
		fi
		stop_sonde
	}
	lane=()
	for f in "$top"/scripts/*.sonde; do
		check_recipe "$f" &
		lane+=($!)
		if [ ${#lane[@]} -eq 2 ]; then
			wait "${lane[@]}"
			lane=()
		fi
	done
	[ ${#lane[@]} -gt 0 ] && wait "${lane[@]}"
	bad=$(cat "$SV"/*.bad 2>/dev/null | tr '\n' ' ' | sed 's/ *$//')
	expect_eq serve:promtool_every_recipe "" "$bad"
fi

# ---- what Prometheus saw ---------------------------------------------------------------------
if [ -n "$PROM_SPID" ]; then
	API="http://127.0.0.1:$PPORT/api/v1"
	wait $load_rate $load_sleep
	# every query in one python: up, the ioctl counter's last sample and
	# its rate, the sleep median, the target's health; first, until a
	# scrape after the workloads' end is in (bounded: 60 s)
	read -r up last rate span q50 health < <(python3 - "$API" <<'EOF'
import json, sys, time, urllib.parse, urllib.request
api = sys.argv[1]
def get(path, **args):
    url = api + path + "?" + urllib.parse.urlencode(args)
    try:
        return json.load(urllib.request.urlopen(url, timeout=10))["data"]
    except Exception:
        return None
def q(expr):
    r = get("/query", query=expr)
    return r["result"][0]["value"][1] if r and r["result"] else "none"
for _ in range(600):
    if q("sonde_ioctls_total") == "30000":
        break
    time.sleep(0.1)
# the counter's samples: (Prometheus's scrape timestamp, value).  The
# workload ran throughout from the first sample above 0 to the last below
# the final value: the growth between those two over their timestamps
r = get("/query", query="sonde_ioctls_total[30m]")
vals = [(float(t), float(v)) for t, v in r["result"][0]["values"]] if r and r["result"] else []
inside = [(t, v) for t, v in vals if 0 < v < (vals[-1][1] if vals else 0)]
rate, span = "none", 0
if len(inside) >= 2:
    (t0, v0), (t1, v1) = inside[0], inside[-1]
    span = t1 - t0
    rate = (v1 - v0) / span if span > 0 else "none"
t = get("/targets")
t = t["activeTargets"] if t else []
health = "%s/%r" % (t[0]["health"], t[0]["lastError"]) if t else "no-target"
print(q('up{job="sonde"}'), q("sonde_ioctls_total"), rate, "%.1f" % span,
      q("histogram_quantile(0.5, sonde_sleep_seconds_bucket)"), health)
EOF
)
	echo "    prometheus: up=$up last=$last rate=$rate/s over $span s (want 2000 +-10%, 8 s at least)" \
		"median=$q50 s; target: $health"
	expect_eq serve:prometheus_up "1" "$up"
	expect_eq serve:prometheus_target_healthy "up/''" "$health"
	expect_eq serve:prometheus_count_exact "30000" "$last"
	if awk -v v="$rate" -v s="$span" 'BEGIN { exit !(s + 0 >= 8 && v + 0 >= 1800 && v + 0 <= 2200) }'
	then pass serve:prometheus_rate_within_10pct; else fail serve:prometheus_rate_within_10pct; fi
	if awk -v v="$q50" 'BEGIN { exit !(v + 0 > 0.008388608 && v + 0 <= 0.016777216) }'
	then pass serve:prometheus_histogram_median_bucket; else fail serve:prometheus_histogram_median_bucket; fi
	SPID=$PROM_SPID
	stop_sonde
	expect_eq serve:clean_exit "" "$(grep -v '^sonde: serving metrics at' "$SV/rate.err")"
fi

# ---- the DaemonSet manifest -------------------------------------------------------------------------
out=$(python3 "$top/tests/e2e/check_daemonset.py" "$top/deploy/daemonset.yaml" "$SV/node.sonde" 2>&1)
expect_eq serve:daemonset_manifest "ok" "$out"
# its script compiles, loads and attaches as served (hist sums in BPF)
out=$("$SONDE" --dry-run --serve 127.0.0.1:0 "$SV/node.sonde" 2>&1)
expect_match serve:daemonset_script_loads 'dry run: [0-9]+ probes loaded and attached' "$out"
)
