#!/usr/bin/env bash
# The full build: every moving-phase pair of a rule set (default: standard), then the
# forward check, the statistics table in docs/results.md and, for the standard rules,
# the draw proof of the start position.  Resumable: rerun after a kill.
#
# Usage: scripts/build_all.sh [DB_DIR] [RULES]     (defaults: data standard)
set -euo pipefail
cd "$(dirname "$0")/.."
db="${1:-data}"
rules="${2:-standard}"
jobs="$(nproc)"
timed() {   # GNU time reports peak memory where it is installed (Debian package "time")
  if [ -x /usr/bin/time ]; then /usr/bin/time -f "peak memory %M KiB, %e s wall" "$@"; else "$@"; fi
}
log="$db/build-$rules.log"
mkdir -p "$db"

echo "== build ($rules) into $db, log in $log"
timed muehle build --db "$db" --rules "$rules" --jobs "$jobs" 2>&1 | tee -a "$log"

echo "== check"
muehle check --db "$db" --rules "$rules" --jobs "$jobs" --quiet | tee -a "$log"

out=docs/results.md
{
  echo "# Results: the $rules rule set"
  echo
  echo "Built by \`scripts/build_all.sh $db $rules\` on $(date -u +%Y-%m-%d), $(nproc) cores"
  echo "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))."
  echo "Counts are positions up to symmetry, values for the side to move."
  echo
  echo '```'
  muehle stats --db "$db" --rules "$rules"
  echo '```'
  if [ "$rules" = standard ]; then
    echo
    echo "## The start position"
    echo
    echo '```'
    echo "\$ muehle solve-opening --db $db"
    timed muehle solve-opening --db "$db" 2>&1
    echo '```'
  fi
} > "$out.new"
mv "$out.new" "$out"
echo "== wrote $out"
