#!/bin/sh
# Run a command in a fresh, minimal Debian root (debootstrap --variant=minbase),
# as root with nothing else installed, on a copy of this checkout: what a new
# user or a CI machine with a newer Debian sees. See docs/HACKING.md.
#
#   sh scripts/debian-root.sh [-k] [-r] [-b DIR] [-t SECONDS] SUITE [COMMAND]
#
# SUITE is a Debian suite debootstrap knows (bookworm = Debian 12, trixie =
# Debian 13). COMMAND runs with /bin/sh -c in /perpi, a copy of the checkout's
# tracked and untracked, not ignored files (as a fresh clone has them, plus
# your uncommitted changes); by default the README's two commands. The exit
# status is COMMAND's (124 if -t's limit is reached).
#
# The debootstrapped base is cached under $PERPI_ROOTS (default
# /var/tmp/perpi-roots/SUITE) and never modified: each run writes to an
# overlay on top of it, removed afterwards, so every run starts from the
# pristine minimal system. Downloaded .deb files are kept in
# $PERPI_ROOTS/apt-SUITE (a download cache only: nothing is preinstalled).
#   -k  keep the run's root in $PERPI_ROOTS/SUITE-keep and reuse it next time
#       -k is given (packages installed and /perpi's build outputs kept: faster,
#       no longer fresh; the sources the checkout no longer has are removed)
#   -b  DIR of this machine appears as /x in the root (read-write): files to
#       share between roots (scripts/x86-versions.sh)
#   -r  rebuild the cached base first
#   -t  kill COMMAND after SECONDS
# Needs root (debootstrap, chroot, mount) and the debootstrap package.
set -eu

usage() {
	echo "usage: sh scripts/debian-root.sh [-k] [-r] [-b DIR] [-t SECONDS] SUITE [COMMAND]" >&2
	exit 2
}
keep=0 refresh=0 limit=0 share=""
while getopts krb:t: o; do
	case $o in
	k) keep=1 ;;
	b) share=$OPTARG ;;
	r) refresh=1 ;;
	t) limit=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
suite=$1
shift
readme='sh scripts/setup.sh && make -j2 && ./perpi examples/summation 1000 && sh scripts/setup.sh && make -j2 check'
cmd=${*:-$readme}

die() {
	echo "perpi: debian-root: $*" >&2
	exit 1
}
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot and mount)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install debootstrap)"
case $suite in *[!a-z0-9-]* | "") die "bad suite '$suite'" ;; esac
case $limit in *[!0-9]*) die "-t takes whole seconds, not '$limit'" ;; esac
[ -z "$share" ] || [ -d "$share" ] || die "-b $share: not a directory"

src=$(cd "$(dirname "$0")/.." && pwd)
roots=${PERPI_ROOTS:-/var/tmp/perpi-roots}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
base=$roots/$suite
mkdir -p "$roots"

# The cached base: built once, in a temporary directory so that an
# interrupted debootstrap leaves no half root behind.
if [ $refresh = 1 ]; then
	rm -rf "$base"
fi
if [ ! -x "$base/bin/sh" ]; then
	echo "debian-root: debootstrap --variant=minbase $suite into $base (a few minutes, once)" >&2
	rm -rf "$base.tmp"
	debootstrap --variant=minbase "$suite" "$base.tmp" "$mirror" >"$roots/$suite.debootstrap.log" 2>&1 ||
		die "debootstrap $suite failed: see $roots/$suite.debootstrap.log"
	rm -rf "$base.tmp/var/cache/apt/archives/"*.deb
	mv "$base.tmp" "$base"
fi

# The run's root: an overlay over the base (or a copy, where overlays are refused).
if [ $keep = 1 ]; then
	run=$roots/$suite-keep
else
	run=$roots/run.$$
	rm -rf "$run"
fi
mkdir -p "$run/upper" "$run/work" "$run/root"
root=$run/root
mounted=""
cleanup() {
	set +e
	# Processes the command left in the root (a tmux server, a stopped
	# tracee): each found by its root directory and ended by its id.
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	for m in $mounted; do
		umount -l "$m" 2>/dev/null
	done
	# Never remove through a mount still there (the host's /dev, the -b DIR).
	if grep -q " $run/" /proc/self/mounts; then
		echo "perpi: debian-root: $run still has mounts: not removed" >&2
	elif [ $keep = 0 ]; then
		rm -rf --one-file-system "$run"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if mount -t overlay overlay -o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work" "$root" 2>/dev/null; then
	mounted="$root"
elif [ ! -x "$root/bin/sh" ]; then
	cp -a "$base/." "$root/"
fi

# The checkout, as a fresh clone has it (and the changes not committed yet);
# with -k over the last run's copy, keeping its build: only the files that
# differ are copied, with a new time, so that make rebuilds what they change.
stage=$run/stage
rm -rf "$stage"
mkdir -p "$stage"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z -c -o --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -xf - -C "$stage"
else
	cp -a "$src/." "$stage/"
fi
(cd "$stage" && find . -type f | LC_ALL=C sort) >"$run/files.new"
if [ $keep = 1 ] && [ -d "$root/perpi" ]; then
	while IFS= read -r f; do
		cmp -s "$stage/$f" "$root/perpi/$f" && continue
		mkdir -p "$(dirname "$root/perpi/$f")"
		cp "$stage/$f" "$root/perpi/$f"
	done <"$run/files.new"
	# the files an earlier run copied that the checkout no longer has (moved
	# or removed sources: tests/layers.sh would still see them)
	if [ -f "$run/files" ]; then
		LC_ALL=C comm -23 "$run/files" "$run/files.new" | while IFS= read -r f; do
			rm -f "$root/perpi/$f"
			case $f in *.c) rm -f "$root/perpi/${f%.c}.o" ;; esac # its object too
		done
	fi
	rm -rf "$stage"
else
	rm -rf "$root/perpi"
	mv "$stage" "$root/perpi"
fi
mv "$run/files.new" "$run/files"

# What a booted system has: /proc (ptrace, /proc/PID/maps), /dev (ptys for
# the TUI tests, /dev/null), /sys (CPU topology), DNS for apt.
mkdir -p "$roots/apt-$suite/partial"
for m in proc dev sys; do mkdir -p "$root/$m"; done
mount -t proc proc "$root/proc" && mounted="$root/proc $mounted"
for m in dev sys; do
	# rslave: unmounting the copies must never unmount the host's own
	mount --rbind "/$m" "$root/$m" && mount --make-rslave "$root/$m" && mounted="$root/$m $mounted"
done
mount --bind "$roots/apt-$suite" "$root/var/cache/apt/archives" &&
	mounted="$root/var/cache/apt/archives $mounted"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
if [ -n "$share" ]; then
	mkdir -p "$root/x"
	mount --bind "$share" "$root/x" && mounted="$root/x $mounted"
fi

echo "debian-root: $suite: $cmd" >&2
set +e
if [ "$limit" -gt 0 ]; then
	timeout -k 10 "$limit" chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-xterm}" \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -c "cd /perpi && $cmd"
else
	chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-xterm}" \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -c "cd /perpi && $cmd"
fi
rc=$?
echo "debian-root: $suite: exit $rc" >&2
exit $rc
