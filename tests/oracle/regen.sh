#!/bin/sh
# Remake the oracle cases: inputs and the answers msProbe and HTA give on them
# (tests/oracle/README.md).  Not run by ctest; needs the reference tools' source:
#   MSPROBE_SRC=<Ascend/msprobe checkout> HTA_SRC=<HolisticTraceAnalysis checkout> tests/oracle/regen.sh [CASE...]
# Uses Debian's /usr/bin/python3 with msProbe's and HTA's packages (PT_REF_PYTHON to change it).
set -eu
: "${MSPROBE_SRC:?set MSPROBE_SRC to the msProbe checkout}"
: "${HTA_SRC:?set HTA_SRC to the HolisticTraceAnalysis checkout}"
export MSPROBE_SRC HTA_SRC PYTHONHASHSEED=0
exec "${PT_REF_PYTHON:-/usr/bin/python3}" "$(dirname "$0")/regen.py" "$@"
