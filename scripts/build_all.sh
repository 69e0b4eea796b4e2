#!/usr/bin/env bash
# The full build of the moving phase: every moving-phase pair of a rule set (default:
# standard), the forward check, the statistics table in DB_DIR/results-RULES.md (the
# first section of docs/results.md was made so; the file is written anew, so nothing
# else in docs/ is overwritten) and, for the standard rules, the draw proof of the start
# position.
# Resumable: rerun after a kill.  MUEHLE_SKIP_CHECK=1 skips the separate check pass
# (every pair is already checked by the build before it is written).
#
# Usage: scripts/build_all.sh [DB_DIR] [RULES]     (defaults: data standard)
set -euo pipefail
cd "$(dirname "$0")/.."
db="${1:-data}"
rules="${2:-standard}"
jobs="$(nproc)"
log="$db/build-$rules.log"
mkdir -p "$db"
timed() {   # GNU time reports peak memory where it is installed (Debian package "time")
  if [ -x /usr/bin/time ]; then /usr/bin/time -f "peak memory %M KiB, %e s wall" "$@"; else "$@"; fi
}

echo "== build ($rules) into $db, log in $log"
muehle build --db "$db" --rules "$rules" --phase moving --jobs "$jobs" --quiet 2>&1 | tee -a "$log"

if [ "${MUEHLE_SKIP_CHECK:-0}" != 1 ]; then
  echo "== check"
  muehle check --db "$db" --rules "$rules" --phase moving --jobs "$jobs" --quiet | tee -a "$log"
fi

out="$db/results-$rules.md"
{
  echo "# Results: the $rules rule set"
  echo
  echo "Built by \`scripts/build_all.sh $db $rules\` ($(date -u +%Y-%m-%d), $(nproc) cores,"
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)). Counts are positions up"
  echo "to symmetry, values for the side to move; every pair passed the forward consistency"
  echo "check before it was written."
  echo
  echo '```'
  echo "\$ muehle stats --db $db --rules $rules"
  muehle stats --db "$db" --rules "$rules"
  echo '```'
  if [ "$rules" = standard ]; then
    echo
    echo "## The start position"
    echo
    echo '```'
    echo "\$ muehle solve-opening --db $db --table-bits 26 --json"
    timed muehle solve-opening --db "$db" --table-bits 26 --json 2>&1
    echo '```'
  fi
  echo
  echo "## The build, pair by pair (from $log)"
  echo
  echo '```'
  grep -E "states in|pair\(s\) built" "$log" | sed -E 's/^[0-9]{2}:[0-9]{2}:[0-9]{2} //'
  echo '```'
  echo
  echo "On disk: $(du -sh "$db/$rules" | cut -f1)."
} > "$out.new"
mv "$out.new" "$out"
echo "== wrote $out"
