#!/usr/bin/env bash
# Runs a command with N busy processes beside it, as a loaded CI machine would (docs/testing.md
# "Tests that do not depend on the machine's load"), and stops them when the command ends:
#
#   scripts/under-load.sh 4 npm test
#
# Each busy process is a shell loop at normal priority; the command's exit code is this script's.
set -euo pipefail
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/under-load.sh N COMMAND [ARGS...]  (N busy processes beside COMMAND)" >&2
  exit 1
fi
count=$1
shift
burners=()
for _ in $(seq "$count"); do
  bash -c 'while :; do :; done' &
  burners+=($!)
done
trap 'kill "${burners[@]}" 2>/dev/null || true' EXIT
status=0
"$@" || status=$?
exit "$status"
