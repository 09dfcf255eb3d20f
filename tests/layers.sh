#!/bin/sh
# layers.sh: the layer rules of the program, checked two ways.
#   layers.sh SRCDIR             every #include against the rules below;
#                                prints file:line of each wrong-way include
#                                (ctest layers.includes)
#   layers.sh --symbols LIBDIR   every symbol a layer's objects leave
#                                undefined (nm on the static libraries
#                                LIBDIR/libpt_*.a of a build tree) must be
#                                defined in that layer or one below it, or by
#                                no library of the project (libc, ncursesw,
#                                sqlite3, cJSON, PCRE2, zlib, libm, pthread,
#                                the sanitizer runtimes); prints
#                                "layer: object: symbol (defined in LAYER:
#                                object)" of each call the wrong way (ctest
#                                layers.symbols; tests/layers_selftest.sh
#                                shows it catching a call from model/ up)
# Both exit 1 when there is one.
#
# THE LAYERS, bottom up (README "Architecture"); a layer uses only itself and
# the layers below it:
#   model/util    pt_util      hash, arrays, arena, map, rank-folder scanner
#   model         pt_model     the cube, compare, overflow rules, layout,
#                              traces, model/err (the error type): no curses,
#                              no file formats
#   ui            pt_ui        the curses toolkit; of the model it uses only
#                              model/err (the error type)
#   src/io        pt_io        readers and writers, by format family
#   src/session   pt_session   the shared state and the loader panes read
#                              and ask (a layer with no library yet is skipped)
#   views         pt_views     the panes: draw through ui, read the model and
#                              the session
#   src/cmd       pt_cmd       the headless commands (main.c, in no library:
#                              the probetop target, which calls app_main)
#   src/app       pt_app       the interactive shell: composes the rest
LAYERS="model/util:pt_util model:pt_model ui:pt_ui src/io:pt_io src/session:pt_session views:pt_views src/cmd:pt_cmd src/app:pt_app"
#
# What each layer may NOT include (the include check):
#   model/    src/ ui/ views/ curses     (no drawing, no file formats)
#   ui/       model/ (but model/err.h, the error type) src/ views/
#   src/io/   src/app/ src/cmd/ src/session/ views/ ui/ curses   (readers know no app)
#   src/session/  src/app/ src/cmd/ views/ ui/ curses  (the shared state: model + readers)
#   src/cmd/  src/app/ (but main.c's src/app/app.h) views/ ui/ (but ui/svg.h,
#             the curses-free picture writer) curses
#   views/    src/ but src/session/ (readers, commands and the app's private
#             headers: a pane sees the shared state and asks through src/session/)
#   src/app/  anything (the top)
# and two more:
#   - src/io headers do not include src/io/load.h (the loader includes
#     the readers, not the other way: the types are model/cube/dataset.h);
#   - views/*.c declare no function at file level by hand: what one pane
#     asks of another is its offer (src/session/session.h).
# CMake's per-folder libraries (CMakeLists.txt, pt_layer) make most of these
# fail to compile as well; this test also covers what an include path
# cannot express (single files, system headers, declarations).
set -u

# ---- symbols: nm on each layer's library ----
if [ "${1:-}" = --symbols ]; then
    libdir=${2:?usage: layers.sh --symbols LIBDIR}
    command -v nm >/dev/null || { echo "layers.sh: no nm (binutils): symbols not checked"; exit 77; }
    rank=0 nlibs=0 list=
    for l in $LAYERS; do
        name=${l%%:*} lib=$libdir/lib${l#*:}.a
        if [ -f "$lib" ]; then
            list="$list $rank $name $lib"
            nlibs=$((nlibs + 1))
        else
            echo "layer $name: no $(basename "$lib") in $libdir (no objects yet): skipped"
        fi
        rank=$((rank + 1))
    done
    [ $nlibs -gt 0 ] || { echo "layers.sh: no libpt_*.a in $libdir: not a build tree"; exit 2; }
    # "DEF rank layer member symbol" for every global definition, then
    # "UND rank layer member symbol" for every undefined reference
    set -- $list
    { while [ $# -ge 3 ]; do
        r=$1 name=$2 lib=$3; shift 3
        nm -o --defined-only "$lib" | awk -v r="$r" -v n="$name" \
            'NF >= 3 && $(NF-1) ~ /^[A-TV-Z]$/ { m = $1; sub(/:[^:]*$/, "", m); sub(/.*:/, "", m); print "DEF", r, n, m, $NF }'
        nm -o -u "$lib" | awk -v r="$r" -v n="$name" \
            '$(NF-1) == "U" { m = $1; sub(/:[^:]*$/, "", m); sub(/.*:/, "", m); print "UND", r, n, m, $NF }'
      done; } | awk '
        $1 == "DEF" { if (!($5 in dr) || $2 < dr[$5]) { dr[$5] = $2; dl[$5] = $3; dm[$5] = $4 } next }
        { und[++nund] = $0 }
        END {
          for (i = 1; i <= nund; i++) {
            $0 = und[i]
            s = $5
            if (!(s in dr)) continue                   # libc, ncursesw, sqlite3...: no layer
            if (dr[s] <= $2 && !($3 == "ui" && dl[s] == "model" && dm[s] != "err.c.o")) continue
            why = $3 == "ui" && dl[s] == "model" ? ", and ui uses only model/err of the model" : ""
            printf "%s: %s: %s (defined in %s: %s%s)\n", $3, $4, s, dl[s], dm[s], why
            nbad++
          }
            if (nbad) { printf "%d reference(s) up the layers\n", nbad; exit 1 }
            print "every layer uses only itself and the layers below it"
        }'
    exit $?
fi

src=${1:-$(dirname "$0")/..}
cd "$src" || exit 2
[ -d model ] && [ -d views ] || { echo "layers.sh: $src is not the source tree" >&2; exit 2; }

find model ui views src -name '*.[ch]' | LC_ALL=C sort | xargs awk '
function layer(f) {
    if (f ~ /^src\/io\//) return "src/io"
    if (f ~ /^src\/cmd\//) return "src/cmd"
    if (f ~ /^src\/session\//) return "src/session"
    if (f ~ /^src\/app\//) return "src/app"
    sub(/\/.*/, "", f)
    return f
}
function curses(h) { return h ~ /^(n?curses|ncursesw\/|ncurses\/|term\.h|panel\.h|menu\.h|form\.h)/ }
function bad(why) {
    printf "%s:%d: %s\n", FILENAME, FNR, why
    nbad++
}
FNR == 1 { L = layer(FILENAME); inc_comment = 0 }
/^[ \t]*#[ \t]*include[ \t]*[<"]/ {
    line = $0
    sub(/^[ \t]*#[ \t]*include[ \t]*/, "", line)
    sys = substr(line, 1, 1) == "<"
    h = substr(line, 2)
    sub(/[>"].*/, "", h)
    what = "#include " (sys ? "<" h ">" : "\"" h "\"")
    if (sys) {
        if (curses(h) && (L == "model" || L == "src/io" || L == "src/session" || L == "src/cmd"))
            bad(what ": " L " does not draw (curses is ui/ and views/)")
        next
    }
    if (L == "model" && h ~ /^(src|ui|views)\//)
        bad(what ": model/ includes only model/")
    else if (L == "ui" && h ~ /^(src|views)\//)
        bad(what ": ui/ knows nothing of the app, readers or panes")
    else if (L == "ui" && h ~ /^model\// && h != "model/err.h")
        bad(what ": ui/ knows nothing of the model (only model/err.h, the error type)")
    else if (L == "views" && h ~ /^src\// && h !~ /^src\/session\//)
        bad(what ": a pane includes no src/ header but src/session/ (the shared state and the asks)")
    else if (L == "src/io" && h ~ /^(src\/app|src\/cmd|src\/session|views|ui)\//)
        bad(what ": readers and writers know nothing of the app, commands, panes or ui/")
    else if (L == "src/session" && h ~ /^(src\/app|src\/cmd|views|ui)\//)
        bad(what ": the session knows nothing of the shell, commands, panes or ui/")
    else if (L == "src/cmd" && h ~ /^(views|ui)\// && h != "ui/svg.h")
        bad(what ": headless commands know nothing of panes or ui/ (but ui/svg.h, which draws no curses)")
    else if (L == "src/cmd" && h ~ /^src\/app\// && !(FILENAME == "src/cmd/main.c" && h == "src/app/app.h"))
        bad(what ": headless commands know nothing of the app (main.c may call app_main)")
    if (L == "src/io" && FILENAME ~ /\.h$/ && FILENAME != "src/io/load.h" && h == "src/io/load.h")
        bad(what ": a reader header names the types through model/cube/dataset.h")
    next
}
# a file-level function declaration in a pane: one pane declaring another'"'"'s function
L == "views" && FILENAME ~ /\.c$/ && /^[A-Za-z_][A-Za-z0-9_ \t\*]*[ \t\*][A-Za-z_][A-Za-z0-9_]*\(.*\)[ \t]*;/ && !/^(static|typedef|extern)[ \t]/ {
    bad("declares a function by hand: what one pane asks of another is its offer in src/session/session.h")
}
END { if (nbad) { printf "%d wrong-way include(s) or declaration(s)\n", nbad; exit 1 } }
' || exit 1
