#!/bin/sh
# The second opinion (test_x86_zydis) over tests/x86/forms.S: instruction
# forms libc and libm do not hold, each compared with what Zydis says.
: "${top_builddir:?}"
exec "$top_builddir/tests/x86/test_x86_zydis" "$top_builddir/tests/x86/forms.o"
