#!/usr/bin/env bash
# go test -fuzz -toolexec hack/fuzz-toolexec.sh (make fuzz): compile only
# the packages of FUZZ_INSTRUMENT with the fuzzer's coverage counters.
#
# Why: after every execution Go's fuzzer copies and scans every counter of
# the binary, so an execution costs in proportion to all the instrumented
# code linked in, not to the code the target runs. The webhook's fuzz binary
# links about 480 000 counters (controller-runtime, client-go, prometheus,
# ...): their scan took most of an execution and capped the campaign near
# 1 500 executions a second per core. Coverage of this module and of the JSON
# decoders it feeds the input to is what guides the fuzzer where the
# webhook decides.
set -euo pipefail
tool=$1
shift
[[ $(basename "$tool") == compile ]] || exec "$tool" "$@"
instrument=${FUZZ_INSTRUMENT:-github.com/airlock/listenerset-webhook sigs.k8s.io/json encoding/json}
if [[ $* == -V=full ]]; then
	# The go command keys its build cache on this line: without a mark,
	# it would reuse the packages it compiled with every counter.
	echo "$("$tool" "$@") fuzz-instrument=${instrument// /,}"
	exit
fi
pkg= prev=
for a in "$@"; do
	[[ $prev == -p ]] && pkg=$a
	prev=$a
done
for p in $instrument; do
	[[ $pkg == "$p" || $pkg == "$p"/* || $pkg == "$p"_test ]] && exec "$tool" "$@"
done
args=()
for a in "$@"; do
	if [[ $a == @* ]]; then # a response file (very long command lines)
		grep -vx -- '-d=libfuzzer' "${a#@}" >"${a#@}.nofuzz" || true
		a=@${a#@}.nofuzz
	fi
	[[ $a == -d=libfuzzer ]] || args+=("$a")
done
exec "$tool" "${args[@]}"
