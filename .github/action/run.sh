#!/usr/bin/env bash
# The step of the abifloor GitHub Action (action.yml): run abifloor check
# on the inputs, write annotations (--format github by default), a job
# summary of the floors and violations into $GITHUB_STEP_SUMMARY (check
# --format markdown), and a SARIF file when asked. Its exit status is abifloor's: a violation (1)
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
	# Not the value: an input is echoed nowhere, as it could hold a
	# line that the runner would run as a workflow command.
	echo "::error title=abifloor action::fail-on must be violation or error"
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
	echo "abifloor: SARIF written to the file the sarif input names"
fi

# The job summary is abifloor's own markdown, every name in it escaped
# (a backtick, '<', '|' or CR in a file name stays text); a check that
# wrote none (a wrong flag, no such path) is an error.
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	summary=$(run --format markdown)
	if [ -z "$summary" ]; then
		summary=$(printf '## abifloor check\n\n**ERROR**: the check could not finish (exit %d); see the step'"'"'s log.' "$code")
	fi
	printf '%s\n' "$summary" >>"$GITHUB_STEP_SUMMARY"
fi

if [ "$fail_on" = error ] && [ "$code" -eq 1 ]; then
	echo "abifloor: violations found; fail-on: error lets the step pass"
	exit 0
fi
exit "$code"
