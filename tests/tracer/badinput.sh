#!/bin/sh
# Bad input: a clear "perpi: WHAT: WHY" on stderr, a non-zero exit, no crash.
. "$top_srcdir/tests/tracer/lib.sh"

# expect_error WHAT_REGEX PERPI_ARGS...
expect_error()
{
	want=$1
	shift
	"$PERPI" "$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" = 0 ] || [ "$status" -ge 128 ]; then
		fail "perpi $*: exit $status, want an error"
	fi
	grep -q "^perpi: $want" "$tmp/err" || fail "perpi $*: said '$(cat "$tmp/err")', want 'perpi: $want'"
}

expect_error "$tmp/missing: No such file or directory" "$tmp/missing"
expect_error "no-such-command-xyz: command not found" no-such-command-xyz
printf 'hello\n' >"$tmp/text"
chmod +x "$tmp/text"
expect_error "$tmp/text: not an ELF file" "$tmp/text"
printf '#!/bin/sh\nexit 0\n' >"$tmp/script"
chmod +x "$tmp/script"
expect_error "$tmp/script: not an ELF file" "$tmp/script"
cp "$B/loop_pie" "$tmp/noexec"
chmod a-x "$tmp/noexec"
expect_error "$tmp/noexec: not executable" "$tmp/noexec"
expect_error "$tmp: is a directory" "$tmp"

# A 32-bit program: assembled with as --32 where binutils can; else the
# ELF header of one written byte by byte (ELFCLASS32, EM_386, ET_EXEC).
if printf '.globl _start\n_start: movl $1, %%eax\n int $0x80\n' >"$tmp/b32.s" &&
	as --32 -o "$tmp/b32.o" "$tmp/b32.s" 2>/dev/null &&
	ld -m elf_i386 -o "$tmp/b32" "$tmp/b32.o" 2>/dev/null; then
	:
else
	printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000\002\000\003\000\001\000\000\000' >"$tmp/b32"
	head -c 32 /dev/zero >>"$tmp/b32"
fi
chmod +x "$tmp/b32"
expect_error "$tmp/b32: 32-bit programs are not supported" "$tmp/b32"

# Options
expect_error "--start no_such_fn: no function of that name" --start no_such_fn "$B/loop_pie"
expect_error ".*--function strlen: an IFUNC" --function strlen "$B/loop_pie"
expect_error "--start 0xzz: not an address" --start 0xzz "$B/loop_pie"
expect_error "--cpu: .x. is not a number from 0 to 4095" --cpu x "$B/loop_pie"
expect_error "--bogus: unknown option" --bogus "$B/loop_pie"
expect_error "no program given" -q
expect_error "-p 999999999: " -p 999999999
expect_error "--function: cannot be combined" --function main --all "$B/loop_pie"
expect_error "-o $tmp/nodir/r: No such file or directory" -o "$tmp/nodir/r" "$B/loop_pie"
finish
