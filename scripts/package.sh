#!/bin/sh
# package.sh: the Debian package of the arena validator.
#
#   scripts/package.sh OUTDIR     # writes OUTDIR/arena_VERSION_amd64.deb
#
# It holds the release binary (scripts/build.sh) as /usr/bin/arena, the
# hardened unit scripts/arena-validator.service, /etc/arena/arena.yaml as
# a conffile (scripts/debian/arena.yaml), an empty /var/lib/arena, and the
# maintainer scripts in scripts/debian that create the system user arena
# and, on purge, remove it and the data. Built with dpkg-deb, as root or
# not. VERSION in the environment sets the version (as for build.sh);
# otherwise it comes from git: a tag v1.2.3 gives 1.2.3, a commit after it
# 1.2.3+git4.gabc1234, an untagged commit 0~git20261204171300.gabc1234.
# scripts/package-check.sh installs, checks and purges the result.
set -eu

if [ $# -ne 1 ]; then
	echo "usage: scripts/package.sh OUTDIR" >&2
	exit 2
fi
outdir=$1
case $outdir in
/*) ;;
*) outdir=$PWD/$outdir ;;
esac
cd "$(dirname "$0")/.."

for tool in dpkg-deb md5sum; do
	command -v "$tool" >/dev/null || {
		echo "package.sh: $tool is missing (Debian's dpkg and coreutils packages)" >&2
		exit 1
	}
done

# Debian versions must start with a digit and take no '-' (that would
# name a Debian revision).
debian_version() {
	if [ -n "${VERSION:-}" ]; then
		v=${VERSION#v}
	elif v=$(git describe --tags --dirty 2>/dev/null); then
		# v1.2.3-4-gabc1234(-dirty) -> 1.2.3+git4.gabc1234(+dirty)
		v=$(printf '%s\n' "${v#v}" | sed -E 's/-([0-9]+)-(g[0-9a-f]+)/+git\1.\2/; s/-dirty$/+dirty/')
	else
		# No tag yet: 0~ sorts before any tagged release.
		v=0~git$(TZ=UTC git log -1 --date=format-local:%Y%m%d%H%M%S --format=%cd).g$(git rev-parse --short HEAD)
		if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
			v=$v+dirty
		fi
	fi
	case $v in
	[0-9]*) ;;
	*)
		echo "package.sh: version \"$v\" does not start with a digit" >&2
		exit 1
		;;
	esac
	case $v in
	*-* | *[!0-9A-Za-z.+~]*)
		echo "package.sh: version \"$v\" is not a Debian upstream version (digits, letters, . + ~ only)" >&2
		exit 1
		;;
	esac
	printf '%s\n' "$v"
}
version=$(debian_version)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/arena_${version}_amd64
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/lib/systemd/system" "$root/etc/arena" \
	"$root/var/lib/arena" "$root/usr/share/doc/arena"

GOOS=linux GOARCH=amd64 sh scripts/build.sh "$root/usr/bin/arena"

# The unit as shipped in scripts/, with the binary where the package puts
# it; anything else left pointing at /usr/local is an error.
sed 's#/usr/local/bin/arena#/usr/bin/arena#g' scripts/arena-validator.service >"$root/usr/lib/systemd/system/arena-validator.service"
if ! grep -q '^ExecStart=/usr/bin/arena run --config /etc/arena/arena.yaml$' "$root/usr/lib/systemd/system/arena-validator.service" ||
	grep -q /usr/local "$root/usr/lib/systemd/system/arena-validator.service"; then
	echo "package.sh: scripts/arena-validator.service: ExecStart is not /usr/local/bin/arena run --config /etc/arena/arena.yaml" >&2
	exit 1
fi
cp scripts/debian/arena.yaml "$root/etc/arena/arena.yaml"
cp scripts/arena.example.yaml scripts/prometheus/alerts.yml scripts/grafana/arena-validator.json "$root/usr/share/doc/arena/"
cp scripts/debian/postinst scripts/debian/prerm scripts/debian/postrm "$root/DEBIAN/"
chmod 0755 "$root/usr/bin/arena" "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"
chmod 0644 "$root/usr/lib/systemd/system/arena-validator.service" "$root/etc/arena/arena.yaml" "$root"/usr/share/doc/arena/*
echo /etc/arena/arena.yaml >"$root/DEBIAN/conffiles"

(cd "$root" && find usr -type f -exec md5sum {} + | sort -k 2) >"$root/DEBIAN/md5sums"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: arena
Version: $version
Architecture: amd64
Maintainer: arena developers <arena@localhost>
Installed-Size: $size
Depends: adduser
Section: net
Priority: optional
Description: validator daemon of the arena shopping-agent subnet
 arena races miners' shopping agents in a simulated shop and sets weights
 on a Bittensor-style subnet. This package installs the arena binary, the
 hardened systemd unit arena-validator.service (not enabled), the system
 user arena, /etc/arena/arena.yaml and the data directory /var/lib/arena.
EOF

mkdir -p "$outdir"
deb=$outdir/arena_${version}_amd64.deb
# The commit's time stamps the archive's files, so one commit gives one
# package; gzip is what every dpkg reads.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)} \
	dpkg-deb --root-owner-group -Zgzip --build "$root" "$deb" >/dev/null
echo "built $deb ($(($(wc -c <"$deb") / 1000000)) MB)"
