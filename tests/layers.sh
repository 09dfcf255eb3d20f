#!/bin/sh
# layers.sh SRCDIR: every #include of the program's sources against the
# layer rules (README "Layout of the code"); prints file:line of each
# wrong-way include and exits 1 when there is one.  ctest: layers.includes.
#
# The layers, bottom up, and what each may NOT include:
#   model/    src/ ui/ views/ curses     (no drawing, no file formats)
#   ui/       model/ (but model/err.h, the error type) src/ views/
#   src/io/   src/app/ src/cmd/ src/session/ views/ ui/ curses   (readers know no app)
#   src/session/  src/app/ src/cmd/ views/ ui/ curses  (the shared state: model + readers)
#   src/cmd/  src/app/ (but main.c's src/app/app.h) views/ ui/ curses
#   views/    src/ but src/session/ (readers, commands and the app's private
#             headers: a pane sees the shared state and asks through src/session/)
#   src/app/  anything (the top)
# and two more:
#   - src/io headers do not include src/io/dataset.h (the loader includes
#     the readers, not the other way: the types are model/cube/dataset.h);
#   - views/*.c declare no function at file level by hand: what one pane
#     asks of another is its offer (src/session/session.h).
# CMake's per-folder libraries (CMakeLists.txt, pt_layer) make most of these
# fail to compile as well; this test also covers what an include path
# cannot express (single files, system headers, declarations).
set -u
src=${1:-$(dirname "$0")/..}
cd "$src" || exit 2
[ -d model ] && [ -d views ] || { echo "layers.sh: $src is not the source tree" >&2; exit 2; }

find model ui views src -name '*.[ch]' | LC_ALL=C sort | xargs awk '
function layer(f) {
    if (f ~ /^src\/io\//) return "src/io"
    if (f ~ /^src\/cmd\//) return "src/cmd"
    if (f ~ /^src\/app\//) return "src/app"
    if (f ~ /^src\/session\//) return "src/session"
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
    else if (L == "src/cmd" && h ~ /^(views|ui)\//)
        bad(what ": headless commands know nothing of panes or ui/")
    else if (L == "src/cmd" && h ~ /^src\/app\// && !(FILENAME == "src/cmd/main.c" && h == "src/app/app.h"))
        bad(what ": headless commands know nothing of the app (main.c may call app_main)")
    if (L == "src/io" && FILENAME ~ /\.h$/ && FILENAME != "src/io/dataset.h" && h == "src/io/dataset.h")
        bad(what ": a reader header names the types through model/cube/dataset.h")
    next
}
# a file-level function declaration in a pane: one pane declaring another'"'"'s function
L == "views" && FILENAME ~ /\.c$/ && /^[A-Za-z_][A-Za-z0-9_ \t\*]*[ \t\*][A-Za-z_][A-Za-z0-9_]*\(.*\)[ \t]*;/ && !/^(static|typedef|extern)[ \t]/ {
    bad("declares a function by hand: what one pane asks of another is its offer in src/session/session.h")
}
END { if (nbad) { printf "%d wrong-way include(s) or declaration(s)\n", nbad; exit 1 } }
' || exit 1
