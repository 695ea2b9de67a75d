#!/usr/bin/env bash
# The step of the abifloor GitHub Action (action.yml): one run of
# abifloor check on the step's inputs, which writes every output of the
# step: annotations (--format github by default) on stdout, the SARIF
# file the sarif input names, the job summary (appended to
# $GITHUB_STEP_SUMMARY) and the step's outputs ($GITHUB_OUTPUT).
#
# The inputs come as the runner passes them, in INPUT_PATHS,
# INPUT_TARGET, INPUT_MAX, INPUT_ARGS, INPUT_FORMAT, INPUT_SARIF and
# INPUT_FAIL_ON, and abifloor reads them there itself (its hidden
# _action command): no shell ever reads an input's text, so nothing in
# one is run, expanded or echoed as a workflow command here. abifloor
# splits each into words as a shell would without running one, and
# expands the patterns of paths (dist/*.so*) itself. ABIFLOOR names the
# binary. The exit status is check's: a violation (1) fails the step,
# and so does an error (2); with fail-on: error only an error does.
set -u
exec "${ABIFLOOR:-abifloor}" _action
