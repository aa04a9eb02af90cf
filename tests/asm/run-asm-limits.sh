#!/bin/sh
# The hand-derived figures of tests/asm under constrained machines and
# filters (EXPECT[OPTIONS] lines), through perpi record and perpi report.
exec sh "$(dirname "$0")/run-asm.sh" --limits
