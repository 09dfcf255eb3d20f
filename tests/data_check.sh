#!/bin/sh
# tests/data is read, never written (tests/data/README.md): every file there
# but README.md is one SHA256SUMS names, with those bytes.  A changed
# fixture, or a file beside them (a -wal, -shm or -journal left by opening a
# database other than read-only), fails.  ctest runs this after the tests
# that read the data (the pt_data fixture in tests/CMakeLists.txt).
set -u
cd "$1" || exit 1
command -v sha256sum >/dev/null 2>&1 || { echo "sha256sum absent: skipped"; exit 77; }
sha256sum -c --quiet --strict SHA256SUMS || { echo "tests/data: a file changed (above)"; exit 1; }
listed=$(sed 's/^[0-9a-f]* [ *]//' SHA256SUMS | LC_ALL=C sort)
found=$(find . -type f ! -name SHA256SUMS ! -name README.md | LC_ALL=C sort)
[ "$listed" = "$found" ] && exit 0
echo "tests/data: files SHA256SUMS does not name (written by a test or the program?):"
printf '%s\n' "$found" | grep -vxF "$listed"
exit 1
