#!/bin/sh
# Prints the command in the fenced block under a "## HEADING" of README.md, so CI runs the
# README's own words: scripts/readme-command.sh "Run the tests"
set -eu
heading=${1:?usage: readme-command.sh HEADING}
readme="$(dirname "$0")/../README.md"
command=$(awk -v heading="## $heading" '
  /^## / { inside = ($0 == heading); next }
  inside && /^```/ { if (fenced) exit; fenced = 1; next }
  inside && fenced { print }
' "$readme")
if [ -z "$command" ] || [ "$(printf '%s\n' "$command" | wc -l)" -ne 1 ]; then
  echo "README.md: expected one command in a fenced block under \"## $heading\"" >&2
  exit 1
fi
printf '%s\n' "$command"
