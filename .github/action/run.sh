#!/usr/bin/env bash
# The step of the abifloor GitHub Action (action.yml): run abifloor check
# on the inputs, write annotations (--format github by default), a job
# summary of the floors and violations into $GITHUB_STEP_SUMMARY, and a
# SARIF file when asked. Its exit status is abifloor's: a violation (1)
# fails the step, and so does an error (2); with fail-on: error only an
# error does. Inputs come as the action passes them: INPUT_PATHS,
# INPUT_TARGET, INPUT_MAX (newline- or space-separated), INPUT_FORMAT,
# INPUT_SARIF, INPUT_FAIL_ON, INPUT_ARGS. ABIFLOOR names the binary.
set -u -o pipefail

bin=${ABIFLOOR:-abifloor}
fail_on=${INPUT_FAIL_ON:-violation}
case $fail_on in
violation | error) ;;
*)
	echo "::error title=abifloor action::fail-on must be violation or error, not '$fail_on'"
	exit 2
	;;
esac

args=()
read -r -d '' -a words <<<"${INPUT_TARGET:-}" || true
for t in ${words[@]+"${words[@]}"}; do args+=(--target "$t"); done
read -r -d '' -a words <<<"${INPUT_MAX:-}" || true
for m in ${words[@]+"${words[@]}"}; do args+=(--max "$m"); done
read -r -d '' -a extra <<<"${INPUT_ARGS:-}" || true
read -r -d '' -a paths <<<"${INPUT_PATHS:-.}" || true
if [ ${#paths[@]} -eq 0 ]; then paths=(.); fi

run() { "$bin" check "${args[@]}" ${extra[@]+"${extra[@]}"} "$@" -- "${paths[@]}"; }

# The verdict: annotations (or the format asked for) on stdout.
run --format "${INPUT_FORMAT:-github}"
code=$?

if [ -n "${INPUT_SARIF:-}" ]; then
	mkdir -p "$(dirname "$INPUT_SARIF")"
	run --format sarif >"$INPUT_SARIF"
	echo "abifloor: SARIF written to $INPUT_SARIF"
fi

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	json=$(run --format json)
	{
		echo "## abifloor check"
		echo
		case $code in
		0) echo "**OK**: every file is within the limits." ;;
		1) echo "**FAIL**: some files need more than the limits allow." ;;
		*) echo "**ERROR**: the check could not finish (exit $code); see the step's log." ;;
		esac
		echo
		if command -v jq >/dev/null && [ -n "$json" ]; then
			echo "| file | floors | violations |"
			echo "| --- | --- | --- |"
			jq -r '
				def esc: gsub("\\|"; "\\|") | gsub("\n"; " ");
				(.violations // []) as $v
				| (.files // [])[]
				| . as $f
				| [$v[] | select(.path == $f.path)
				   | "\(.namespace // .rule // "limit") \(.required // "") > \(.allowed // "")\(if .target then " (" + .target + ")" else "" end)"] as $mine
				| "| `\($f.path | esc)` | \([($f.floors // {}) | to_entries[] | "\(.key) \(.value)"] | join(", ") | esc) | \(if ($mine | length) == 0 then "-" else ($mine | join("; ") | esc) end) |"
			' <<<"$json"
		fi
	} >>"$GITHUB_STEP_SUMMARY"
fi

if [ "$fail_on" = error ] && [ "$code" -eq 1 ]; then
	echo "abifloor: violations found; fail-on: error lets the step pass"
	exit 0
fi
exit "$code"
