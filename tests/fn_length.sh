#!/bin/sh
# No function of the program is over 150 lines (a long function is split
# into named steps, each a function a reader can name).  Lists the offenders with their length; skips
# (77) where universal-ctags is absent.
#   tests/fn_length.sh SOURCE_DIR [LIMIT]
set -u
src=$1 limit=${2:-150}
command -v ctags >/dev/null && ctags --version 2>/dev/null | grep -q Universal || { echo "universal-ctags absent: not checked"; exit 77; }
cd "$src" || exit 1
long=$(find src model views ui -name '*.c' | sort |
       xargs ctags --c-kinds=f --fields=+ne -x --_xformat='%{input}:%{name} %{line} %{end}' |
       awk -v n="$limit" '{ len = $3 - $2 + 1; if (len > n) printf "%5d %s\n", len, $1 }' | sort -rn)
if [ -n "$long" ]; then
    echo "functions over $limit lines (split them into named steps):"
    echo "$long"
    exit 1
fi
echo "1 passed, 0 failed"
