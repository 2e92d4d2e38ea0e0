# t_aggout.sh - every aggregation kind, keyed and keyless, in every output
# (issue 19), hist(v, k) too: text, JSON, Prometheus and OpenMetrics served by --serve, the
# OpenMetrics textfile, and --user-probes (the agent's maps).  One workload
# of known shape (work 2000: work(i % 1000, i % 7)) runs under each; each
# output's numbers (tools/aggnums.py: values, stats' count and total, every
# bucket, and a histogram's _sum against sum() of the same values) must be
# the text output's.  A keyless hist under --serve did not load, and with a
# keyed map beside it served the sum of the values as its count.

(
if ! need_root aggout; then exit 0; fi
AO=$B/aggout
mkdir -p "$AO"
build_workload work
cp "$B/work" "$AO/work"	# a file of its own: only this suite's runs fire
P=$AO/work
cat > "$AO/all.bt" <<BT
uprobe:$P:work {
	@c = count(); @s = sum(arg0); @a = avg(arg0); @mn = min(arg0); @mx = max(arg0);
	@st = stats(arg0); @h = hist(arg0); @l = lhist(arg0, 0, 1000, 100);
	@kc[arg1] = count(); @ks[arg1] = sum(arg0); @ka[arg1] = avg(arg0); @kmn[arg1] = min(arg0);
	@kmx[arg1] = max(arg0); @kst[arg1] = stats(arg0); @kh[arg1] = hist(arg0);
	@kl[arg1] = lhist(arg0, 0, 1000, 100);
	@h3 = hist(arg0, 3); @kh2[arg1] = hist(arg0, 2);
}
BT
nums() {	# FORMAT < output
	python3 "$top/tests/e2e/tools/aggnums.py" "$1" --sum @h=@s --sum @l=@s --sum @kh=@ks --sum @kl=@ks --sum @h3=@s --sum @kh2=@ks
}
# compare NAME FILE FORMAT: FILE's numbers against the text output's
compare() {
	local got
	got=$(nums "$3" < "$2" 2>&1)
	if [ -n "$got" ] && [ "$got" == "$want" ]; then pass "aggout:$1"; else
		fail "aggout:$1"
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -20 | sed 's/^/    /'
	fi
}

"$SONDE" -q -c "$P 2000" "$AO/all.bt" > "$AO/text.out" 2> "$AO/text.err"
want=$(nums text < "$AO/text.out")
# 16 maps: 8 kinds, keyless and by arg1 (7 keys); every number is there
expect_eq aggout:text_complete "2000 7 999000" "$(printf '%s\n' "$want" |
	awk '$1 == "@c[]" { c = $3 } $1 ~ /^@kc\[/ { k++ } $1 == "@h[]" && $2 == "sum" { s = $3 } END { print c, k, s }')"
# hist(v, k): 2^k buckets per power of two; i % 1000 twice over: [0] .. [15]
# hold 2 each, [16, 18) 4, and [960, 1024) (960..999) 80
expect_eq aggout:hist_bits "2 4 80 2000" "$(printf '%s\n' "$want" |
	awk '$1 == "@h3[]" && $2 == "le=16" { a = $3 } $1 == "@h3[]" && $2 == "le=18" { b = $3 }
	     $1 == "@h3[]" && $2 == "le=1024" { c = $3 } $1 == "@h3[]" && $2 == "count" { n = $3 }
	     END { print a, b, c, n }')"

"$SONDE" -q -f json -c "$P 2000" "$AO/all.bt" > "$AO/json.out" 2> "$AO/json.err"
compare json "$AO/json.out" json

"$SONDE" -q -f openmetrics -o "$AO/textfile.prom" -c "$P 2000" "$AO/all.bt" 2> "$AO/textfile.err"
compare textfile "$AO/textfile.prom" prom

mkdir -p "$AO/run"
if [ -r "$top/build/libsonde-agent.so" ]; then
	SONDE_RUN_DIR=$AO/run "$SONDE" -q --user-probes -c "$P 2000" "$AO/all.bt" > "$AO/agent.out" 2> "$AO/agent.err"
	compare user_probes_text "$AO/agent.out" text
	SONDE_RUN_DIR=$AO/run "$SONDE" -q --user-probes -f openmetrics -o "$AO/agent.prom" -c "$P 2000" \
		"$AO/all.bt" 2> "$AO/agent-prom.err"
	compare user_probes_textfile "$AO/agent.prom" prom
else
	fail aggout:user_probes_built; echo "    build/libsonde-agent.so is missing (make all)"
fi

# --serve: the workload runs while sonde serves; both formats by Accept
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rm -f "$AO/serve.err"	# wait_for must not find the last run's line
"$SONDE" -q --serve "127.0.0.1:$port" "$AO/all.bt" > "$AO/serve.out" 2> "$AO/serve.err" &
sp=$!
if wait_for "$AO/serve.err" 'serving metrics' 30; then
	"$P" 2000
	curl -sS --max-time 20 "http://127.0.0.1:$port/metrics" > "$AO/serve.prom"
	curl -sS --max-time 20 -H 'Accept: application/openmetrics-text; version=1.0.0' "http://127.0.0.1:$port/metrics" \
		> "$AO/serve.om"
	compare serve_prometheus "$AO/serve.prom" prom
	compare serve_openmetrics "$AO/serve.om" prom
else
	fail aggout:serve_started; sed 's/^/    /' "$AO/serve.err" | head
fi
kill -INT $sp 2>/dev/null; wait $sp 2>/dev/null
)
