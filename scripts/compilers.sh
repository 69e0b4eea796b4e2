#!/usr/bin/env bash
# Compile every kernels and oracle module with each C compiler named, from a copy of
# this working tree (its tracked files, changes included), and fail where one warns or
# fails.  Python's own flags (-Wall among them) and setup.py's (-O3, -fopenmp,
# -march=native, and the -Werror=... of GCC 14's errors) apply, as in a user's install.
#
#   scripts/compilers.sh gcc clang-16          # compilers on PATH
#   scripts/compilers.sh                       # gcc and, where installed, clang
#
# Prints one line a compiler: its version, the modules built, the warnings, the time;
# each module is imported once from the copy, so a link that fails (OpenMP's runtime
# missing) fails here too.  Compilers this system lacks (GCC 13 and 14 on Debian 12):
# run it in a chroot of a newer Debian (docs/guide/development.md, "Compilers").
set -uo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
if [ $# -eq 0 ]; then
    set -- gcc
    command -v clang >/dev/null && set -- "$@" clang
fi
failed=0
for cc in "$@"; do
    if ! command -v "$cc" >/dev/null; then
        echo "$cc: not found"; failed=1; continue
    fi
    copy=$(mktemp -d)
    git ls-files -z | xargs -0 cp --parents -t "$copy"
    log="$copy/build.log"
    start=$(date +%s)
    (cd "$copy" && CC="$cc" LDSHARED="$cc -shared" "$python" setup.py build_ext --inplace >"$log" 2>&1)
    rc=$?
    seconds=$(( $(date +%s) - start ))
    version=$("$cc" --version | head -1)
    warnings=$(grep -c "warning:" "$log")
    modules=$(cd "$copy" && find solver -name "_*.so" | wc -l)
    imported=$(cd "$copy" && "$python" -c "
import importlib, pathlib
names = [str(p.with_suffix('')).split('.')[0].replace('/', '.') for p in pathlib.Path('solver').rglob('_*.so')]
for n in names: importlib.import_module(n)
print(len(names))" 2>&1 | tail -1)
    echo "$cc ($version): build exit $rc, $modules module(s), $imported imported, $warnings warning(s), ${seconds} s"
    if [ "$rc" -ne 0 ] || [ "$warnings" -ne 0 ] || [ "$imported" != "$modules" ]; then
        grep -m 10 "warning:\|error:" "$log"
        echo "  (whole log: $log)"
        failed=1
    else
        rm -rf "$copy"
    fi
done
exit $failed
