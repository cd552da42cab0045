#!/usr/bin/env bash
# Regenerates the `sp lines` goldens: small programs built with the reference's C API
# (scope_profiler/c in the venv), run with SCOPE_PROFILER_SAMPLE_HZ=1000 in their case
# directory, and the reference's `scope-profiler native-lines` output for each, made with
# binutils addr2line alone on the PATH (with llvm-symbolizer it misreads the column as the
# line). Sampling is statistical, so the binaries and .sps files are committed with the
# outputs; the tests never rerun the programs.
#
#   SP_PYTHON=.venv/bin/python tests/golden-lines/regenerate.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=${SP_PYTHON:-$here/../../.venv/bin/python}
c=$("$python" -c 'import os, scope_profiler; print(os.path.join(os.path.dirname(scope_profiler.__file__), "c"))')
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
ln -s "$(command -v addr2line)" "$tools/addr2line"
cp "$c/scope_profiler.c" "$c/scope_profiler.h" "$c/scope_profiler_impl.h" \
   "$c/scope_profiler_hdf5.h" "$tools/"

# Debug info names sources relative to the case directory (../src/...), not this machine.
build() { # case, compiler flags...
  local case=$1; shift
  rm -rf "$here/$case" && mkdir -p "$here/$case"
  (cd "$here/$case" && cp "$tools/scope_profiler.c" . &&
   gcc -std=c99 -Wall -I"$tools" -fdebug-prefix-map="$here/$case"=. -fdebug-prefix-map="$tools"=scope_profiler_c "$@" &&
   rm scope_profiler.c)
}
run() { # case, command
  local case=$1; shift
  (cd "$here/$case" && LD_LIBRARY_PATH=. SCOPE_PROFILER_SAMPLE_HZ=1000 "$@" >/dev/null &&
   rm -f ./*.spt)
}
common=(scope_profiler.c ../src/lines_demo.c -lm -o app)
build c_O0_pie -g -O0 -fPIE -pie "${common[@]}"
build c_O2_pie -g -O2 -fPIE -pie "${common[@]}"
build c_O0_nopie -g -O0 -fno-pie -no-pie "${common[@]}"
build c_O2_nopie -g -O2 -fno-pie -no-pie "${common[@]}"
build c_gz -g -O2 -gz "${common[@]}"
build c_dwarf4 -gdwarf-4 -O2 "${common[@]}"
build c_stripped -g -O2 "${common[@]}"
strip c_stripped/app 2>/dev/null || strip "$here/c_stripped/app"
build c_shlib -g -O2 -fPIC -shared ../src/kernel.c -o libkernel.so
(cd "$here/c_shlib" && cp "$tools/scope_profiler.c" . &&
 gcc -std=c99 -Wall -I"$tools" -fdebug-prefix-map="$here/c_shlib"=. -fdebug-prefix-map="$tools"=scope_profiler_c -g -O2 \
   scope_profiler.c ../src/lines_shlib.c -L. -lkernel -lm -o app && rm scope_profiler.c)
rm -rf "$here/f_O0" && mkdir -p "$here/f_O0"
(cd "$here/f_O0" && cp "$tools/scope_profiler.c" . &&
 gcc -std=c99 -I"$tools" -fdebug-prefix-map="$here/f_O0"=. -fdebug-prefix-map="$tools"=scope_profiler_c -g -O0 -c scope_profiler.c &&
 gfortran -fdebug-prefix-map="$here/f_O0"=. -fdebug-prefix-map="$tools"=scope_profiler_c -g -O0 ../src/lines_demo.f90 scope_profiler.o -o app &&
 rm scope_profiler.c scope_profiler.o)

for case in c_O0_pie c_O2_pie c_O0_nopie c_O2_nopie c_gz c_dwarf4 c_stripped c_shlib f_O0; do
  run "$case" ./app
  (cd "$here/$case" && PATH="$tools" "$python" -m scope_profiler native-lines \
     profile_rank00000.sps > expected.txt)
  (cd "$here/$case" && PATH="$tools" "$python" -m scope_profiler native-lines \
     --top 3 --no-source profile_rank00000.sps > expected-top3.txt)
  echo "regenerated $case"
done
# The tests compare the libm-heavy region only on a machine with this same libm.
readelf -n /lib/x86_64-linux-gnu/libm.so.6 | sed -n 's/.*Build ID: //p' > "$here/libm-build-id"
