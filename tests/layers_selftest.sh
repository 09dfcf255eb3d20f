#!/bin/sh
# layers_selftest.sh CC LIBDIR SCRATCH: shows that `layers.sh --symbols`
# catches what an include check cannot: a call up the layers through a
# prototype written by hand.  Two objects, each in a copy of the build's
# libraries in SCRATCH (the build's own libraries are left alone):
#   - one in model/'s library calling app_main (src/app, the top);
#   - one in ui/'s library calling cube_metric_find (the model, of which
#     ui uses only model/err).
# Each copy must fail the check with that object and symbol named, and the
# unchanged copy must pass.  ctest: layers.symbols.selftest.
set -u
cc=$1 libdir=$2 scratch=$3
here=$(dirname "$0")
rm -rf "$scratch" && mkdir -p "$scratch" || exit 2
for l in "$libdir"/libpt_*.a; do cp "$l" "$scratch/"; done
sh "$here/layers.sh" --symbols "$scratch" >"$scratch/clean.txt" 2>&1 ||
    { echo "the build's own libraries fail the check:"; cat "$scratch/clean.txt"; exit 1; }
fail=0
# caught LIB FILE SYMBOL SOURCE: adds FILE.o (compiled from SOURCE) to a
# copy of libLIB.a; the check must exit 1 naming FILE.c.o and SYMBOL.
caught() {
    lib=$1 file=$2 sym=$3 text=$4
    d=$scratch/$file
    mkdir -p "$d" && cp "$libdir"/libpt_*.a "$d/" || exit 2
    printf '%s\n' "$text" >"$d/$file.c"
    "$cc" -c -o "$d/$file.c.o" "$d/$file.c" || { echo "cannot compile $d/$file.c"; exit 2; }
    ar r "$d/lib$lib.a" "$d/$file.c.o" 2>/dev/null || { echo "cannot add to $d/lib$lib.a"; exit 2; }
    sh "$here/layers.sh" --symbols "$d" >"$d/out.txt" 2>&1
    rc=$?
    if [ $rc != 1 ] || ! grep -q ": $file.c.o: $sym (defined in " "$d/out.txt"; then
        echo "NOT caught: $file.c.o in lib$lib.a calling $sym (exit $rc):"
        cat "$d/out.txt"
        fail=1
    else
        echo "caught: $(grep ": $file.c.o: $sym " "$d/out.txt")"
    fi
}
caught pt_model up_model app_main \
    'int app_main(int argc, char **argv);   /* by hand: no include needed */
int model_calls_up(void) { return app_main(0, 0); }'
caught pt_ui up_ui cube_metric_find \
    'struct cube;
int cube_metric_find(const struct cube *c, const char *name);
int ui_calls_model(void) { return cube_metric_find(0, "norm"); }'
exit $fail
