#!/bin/sh
# package-check.sh: install, check and purge the package that package.sh
# wrote, on this machine, for real. CI runs it; it needs root and a
# machine where arena was never installed (it refuses otherwise).
#
#   scripts/package-check.sh OUTDIR/arena_VERSION_amd64.deb
#
# Checks: dpkg -i sets up the user, the data dir and the config's modes;
# systemd-analyze verify accepts the installed unit; `arena config check`
# passes as the service user; an upgrade keeps an edited conffile and the
# data; dpkg -r keeps the config and the data; dpkg --purge leaves
# nothing: no file, directory, user or group of the package, unless the
# operator put a keystore in /etc/arena, which stays with its owner.
set -eu

if [ $# -ne 1 ] || [ ! -f "$1" ]; then
	echo "usage: scripts/package-check.sh ARENA.deb" >&2
	exit 2
fi
deb=$1
fail() {
	echo "package-check: $*" >&2
	exit 1
}
if [ "$(id -u)" != 0 ]; then
	fail "needs root (dpkg -i)"
fi
unit=/usr/lib/systemd/system/arena-validator.service
leftovers() {
	for p in /usr/bin/arena $unit /etc/arena /var/lib/arena /usr/share/doc/arena; do
		if [ -e "$p" ]; then echo "$p"; fi
	done
	if getent passwd arena >/dev/null; then echo "user arena"; fi
	if getent group arena >/dev/null; then echo "group arena"; fi
	if dpkg-query -W arena >/dev/null 2>&1; then echo "package arena (dpkg status)"; fi
}
if [ -n "$(leftovers)" ]; then
	fail "arena is already on this machine, refusing to touch it: $(leftovers | tr '\n' ' ')"
fi

echo "--- dpkg -i $deb"
dpkg -i "$deb"

mode() { stat -c '%U:%G %a' "$1"; }
expect() {
	got=$(mode "$1")
	[ "$got" = "$2" ] || fail "$1 is $got, want $2"
}
shell=$(getent passwd arena | cut -d: -f7)
uid=$(id -u arena)
[ "$shell" = /usr/sbin/nologin ] || fail "user arena has shell $shell, want /usr/sbin/nologin"
[ "$uid" -lt 1000 ] || fail "user arena has uid $uid, not a system user"
expect /var/lib/arena "arena:arena 700"
expect /etc/arena "root:arena 750"
expect /etc/arena/arena.yaml "root:arena 640"
expect /usr/bin/arena "root:root 755"
dpkg-query -W -f='${Conffiles}\n' arena | grep -q '^ /etc/arena/arena.yaml ' ||
	fail "/etc/arena/arena.yaml is not a conffile"
/usr/bin/arena version

echo "--- systemd-analyze verify $unit"
# verify exits 0 on a directive it ignores; any word about the unit fails.
out=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify: $out"
if printf '%s\n' "$out" | grep arena-validator; then
	fail "systemd-analyze verify complains about the unit"
fi

echo "--- arena config check, as user arena"
out=$(cd / && runuser -u arena -- /usr/bin/arena --config /etc/arena/arena.yaml config check)
[ "$out" = "config ok" ] || fail "config check as arena said: $out"

echo "--- an upgrade keeps an edited conffile and the data"
# The same contents under a higher version: dpkg runs the upgrade path.
version=$(dpkg-query -W -f='${Version}' arena)
newer=$(mktemp -d)
dpkg-deb -R "$deb" "$newer/root"
sed -i "s/^Version: .*/Version: $version+check1/" "$newer/root/DEBIAN/control"
dpkg-deb --root-owner-group -Zgzip --build "$newer/root" "$newer/arena.deb" >/dev/null
echo "# edited by package-check" >>/etc/arena/arena.yaml
echo data >/var/lib/arena/marker
dpkg -i "$newer/arena.deb"
rm -rf "$newer"
[ "$(dpkg-query -W -f='${Version}' arena)" = "$version+check1" ] || fail "the upgrade did not install $version+check1"
tail -n 1 /etc/arena/arena.yaml | grep -q 'edited by package-check' || fail "the upgrade replaced the edited /etc/arena/arena.yaml"
[ -f /var/lib/arena/marker ] || fail "the upgrade removed the data"
expect /var/lib/arena "arena:arena 700"
expect /etc/arena/arena.yaml "root:arena 640"

echo "--- dpkg -r keeps the config and the data"
dpkg -r arena
[ ! -e /usr/bin/arena ] || fail "dpkg -r left /usr/bin/arena"
[ ! -e $unit ] || fail "dpkg -r left $unit"
[ -f /etc/arena/arena.yaml ] || fail "dpkg -r removed the conffile"
[ -f /var/lib/arena/marker ] || fail "dpkg -r removed the data"

echo "--- dpkg --purge leaves nothing"
dpkg --purge arena
left=$(leftovers)
[ -z "$left" ] || fail "left after dpkg --purge: $(echo "$left" | tr '\n' ' ')"

echo "--- dpkg --purge keeps a keystore in /etc/arena, and its owner"
dpkg -i "$deb" >/dev/null
install -d -m 0700 -o arena -g arena /etc/arena/keystore
install -m 0600 -o arena -g arena /dev/null /etc/arena/keystore/key.json
dpkg --purge arena
[ -f /etc/arena/keystore/key.json ] || fail "dpkg --purge removed the operator's keystore"
getent passwd arena >/dev/null || fail "dpkg --purge removed the user that owns the keystore"
[ ! -e /var/lib/arena ] || fail "dpkg --purge left /var/lib/arena"
rm -rf /etc/arena
deluser --system --quiet arena >/dev/null 2>&1 || true
left=$(leftovers)
[ -z "$left" ] || fail "left after cleaning up: $(echo "$left" | tr '\n' ' ')"
echo "package-check: ok"
