#!/bin/sh
# build.sh: the release build of arena. A static binary (no cgo) without
# local paths (-trimpath), symbols or DWARF (-s -w), stamped with the
# version, revision and commit time that `arena version` reports.
#
#   scripts/build.sh            # writes ./arena (ignored by git)
#   scripts/build.sh OUT        # writes OUT
#
# VERSION, REVISION and COMMIT_TIME in the environment win over what git
# says; the Dockerfile passes them because its build context has no .git.
# GOOS and GOARCH cross-compile as usual.
set -eu

out=${1:-arena}
case $out in
/*) ;;
*) out=$PWD/$out ;;
esac
cd "$(dirname "$0")/.."

if git rev-parse --git-dir >/dev/null 2>&1; then
	if [ -z "${REVISION:-}" ]; then
		REVISION=$(git rev-parse HEAD)
		# Tracked files only: untracked ones are not part of the build.
		if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
			REVISION=$REVISION+dirty
		fi
	fi
	: "${VERSION:=$(git describe --tags --always --dirty)}"
	: "${COMMIT_TIME:=$(git log -1 --format=%cI)}"
fi
# Empty values leave `arena version` to the Go build info.
ldflags="-s -w -X main.version=${VERSION:-} -X main.revision=${REVISION:-} -X main.commitTime=${COMMIT_TIME:-}"

CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$out" ./cmd/arena

size=$(wc -c <"$out")
echo "built $out ($((size / 1000000)) MB)"
# A cross-compiled binary cannot run here; a native one proves its stamp.
if [ "$(go env GOOS)/$(go env GOARCH)" = "$(go env GOHOSTOS)/$(go env GOHOSTARCH)" ]; then
	got=$("$out" version)
	case $got in
	*"revision ${REVISION:-unknown}"*) echo "$got" ;;
	*)
		echo "build.sh: $out reports \"$got\", want revision ${REVISION:-unknown}" >&2
		exit 1
		;;
	esac
fi
