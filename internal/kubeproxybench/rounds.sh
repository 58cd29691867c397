#!/bin/sh
# rounds.sh takes the figures of BenchmarkNodeTable's doc: it runs every side on every table
# named, each run in a process of its own so that each peak is its own, the sides interleaved
# within a round, and prints the median of each metric over the rounds and the ratios the docs
# state. Run it as root (network namespaces, and it sets nf_conntrack_max and the conntrack
# hash size) on a quiet machine:
#
#	./rounds.sh 5                          # ipv4-220k, ipv6-220k, dual-220k, 5 rounds
#	./rounds.sh 3 ipv4-1M ipv6-1M dual-1M
#
# SIDES names the sides to run (all by default), so that the paired figure can be taken
# with more operations alone (see BenchmarkNodeTable):
#
#	SIDES=ctnetlink OPS=12 ./rounds.sh 5 ipv4-220k ipv6-220k ipv4-1M ipv6-1M
#
# OPS is the number of operations of each side but kube-proxy's (4 by default; kube-proxy
# runs once a process). A ctnetlink side times a bare dump of the same table beside each of
# its operations, first in half of them and last in the other half.
#
# The raw benchmark output stays in $OUT (a new temporary directory by default);
# OUT=dir ./rounds.sh 0 prints its figures again.
set -eu
cd "$(dirname "$0")"
rounds=${1:-3}
[ $# -gt 0 ] && shift
tables=${*:-ipv4-220k ipv6-220k dual-220k}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
[ "$rounds" -gt 0 ] && : >"$out/results.txt" # 0 rounds: print an earlier run's figures again
case ${OPS:-4} in
*[!0-9]* | *[13579]) echo "rounds.sh: OPS must be even, so that the paired dump goes first in half the operations" >&2; exit 2 ;;
esac

# Room in the kernel's table for the largest one. The hash size is set per table, as on a node
# sized for it, since the kernel's walk of the table for a dump costs its buckets as well as its
# entries: 262144 buckets for 220k entries (the default of a machine with this much memory),
# 1048576 for 1M.
# Both are the machine's and are put back on exit, so that other benchmarks (the ctnetlink
# package's BenchmarkReconcile100k) run on the default again.
max=$(sysctl -n net.netfilter.nf_conntrack_max)
buckets=$(cat /sys/module/nf_conntrack/parameters/hashsize)
trap 'sysctl -qw net.netfilter.nf_conntrack_max="$max"; echo "$buckets" >/sys/module/nf_conntrack/parameters/hashsize' EXIT
sysctl -qw net.netfilter.nf_conntrack_max=1500000
hashsize() {
	case $1 in
	*1M) echo 1048576 ;;
	*) echo 262144 ;;
	esac
}

GOWORK=off go test -c -o "$out/v134.test" .
GOWORK=off go test -modfile=go.v137.mod -c -o "$out/v137.test" .

echo "rounds=$rounds tables=$tables load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	for t in $tables; do
		hashsize "$t" >/sys/module/nf_conntrack/parameters/hashsize
		for side in ${SIDES:-kube-proxy-v1.34 kube-proxy-v1.37 ctnetlink ctnetlink-untold bare-dump-udp bare-dump-all}; do
			bin=$out/v134.test name=$side times=${OPS:-4}x
			case $side in
			kube-proxy-v1.34) name=kube-proxy times=1x ;;
			kube-proxy-v1.37) bin=$out/v137.test name=kube-proxy times=1x ;;
			esac
			KUBEPROXYBENCH_1M=1 "$bin" -test.run '^$' -test.bench "NodeTable/$t/$name\$" \
				-test.benchtime "$times" -test.benchmem |
				sed -n "s|^BenchmarkNodeTable/$t/$name-[0-9]*|$t $side|p" >>"$out/results.txt"
		done
	done
	echo "round $r done, load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done

# Each line of results.txt: table side iterations ns/op ns/op <value unit>...
awk -v rounds="$rounds" '
function median(key,   n, i, j, v, t) {
	n = split(vals[key], v, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j-1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
	return n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
}
{
	k = $1 SUBSEP $2
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	for (i = 4; i < NF; i += 2) {
		unit = $(i+1)
		vals[k SUBSEP unit] = vals[k SUBSEP unit] " " $i
		if (!((unit) in useen)) { useen[unit] = 1; units[++nu] = unit }
	}
}
END {
	printf "%-12s %-17s %9s %8s %8s %8s %10s %10s\n", "table", "side", "wall-ms", "cpu-ms", "sys-ms", "peak-MB", "B/op", "allocs/op"
	for (i = 1; i <= nk; i++) {
		split(order[i], kk, SUBSEP)
		wall[order[i]] = median(order[i] SUBSEP "ns/op") / 1e6
		printf "%-12s %-17s %9.0f %8.0f %8.0f %8.2f %10.0f %10.0f\n", kk[1], kk[2], wall[order[i]],
			median(order[i] SUBSEP "cpu-ms/op"), median(order[i] SUBSEP "sys-ms/op"),
			median(order[i] SUBSEP "peak-MB"), median(order[i] SUBSEP "B/op"), median(order[i] SUBSEP "allocs/op")
	}
	print ""
	print "ctnetlink against a bare UDP dump of the same table in the same process, op by op"
	print "(x-dump: the reconcile'"'"'s time over the dump'"'"'s; median, least and most over the processes):"
	for (i = 1; i <= nk; i++) {
		split(order[i], kk, SUBSEP)
		if (!((order[i] SUBSEP "x-dump") in vals)) continue
		n = split(vals[order[i] SUBSEP "x-dump"], v, " ")
		lo = hi = v[1] + 0
		for (j = 2; j <= n; j++) { if (v[j] + 0 < lo) lo = v[j] + 0; if (v[j] + 0 > hi) hi = v[j] + 0 }
		printf "%-12s %-17s %6.3fx  (%.3f-%.3f, %d processes; dump %.0f ms)\n", kk[1], kk[2], median(order[i] SUBSEP "x-dump"), lo, hi, n, median(order[i] SUBSEP "dump-ms/op")
		if (n < rounds) printf "rounds.sh: %s %s ran in %d of %d rounds\n", kk[1], kk[2], n, rounds > "/dev/stderr"
	}
	print ""
	print "ratios of the median wall times to kube-proxy'"'"'s, each side in processes of its own:"
	for (i = 1; i <= nk; i++) {
		split(order[i], kk, SUBSEP)
		if (kk[2] != "ctnetlink") continue
		t = kk[1]; c = wall[order[i]]
		if (!((t SUBSEP "kube-proxy-v1.34") in wall) || !((t SUBSEP "kube-proxy-v1.37") in wall)) continue
		printf "%-12s ctnetlink / kube-proxy v1.34 %.3fx, / v1.37 %.3fx\n", t, c / wall[t SUBSEP "kube-proxy-v1.34"], c / wall[t SUBSEP "kube-proxy-v1.37"]
	}
}' "$out/results.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); raw output in $out" >&2
