#!/usr/bin/env bash
# Regenerates the devnet's precompile-emulation artefacts:
#   chain/devnet/contracts/build/<Name>.abi.json and <Name>.bin-runtime  (solc, standard JSON)
#   chain/devnet/contracts/state_binding.go                               (abigen, classic style)
#
# Needs Node/npm (solc is installed into a temporary directory, nothing is left in the repo)
# and Go. The outputs are committed, so `go build` / `go test` never need Node.
# Idempotent: re-running with unchanged sources rewrites identical files.
set -euo pipefail

SOLC_VERSION="${SOLC_VERSION:-0.8.30}"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PKG="$ROOT/chain/devnet/contracts"
BUILD="$PKG/build"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

echo "installing solc@$SOLC_VERSION (npm, temporary)"
npm install --no-save --no-audit --no-fund --no-package-lock --silent \
	--prefix "$TMP/npm" "solc@$SOLC_VERSION" >/dev/null

# Compile into a fresh directory, then replace build/ so stale artefacts disappear.
node "$PKG/solc-compile.cjs" "$TMP/npm/node_modules/solc" "$PKG/src" "$TMP/build"
mkdir -p "$BUILD"
find "$BUILD" -maxdepth 1 -type f \( -name '*.abi.json' -o -name '*.bin-runtime' \) -delete
cp "$TMP/build/"* "$BUILD/"

# abigen from the go-ethereum version pinned in go.mod. It runs against a scratch copy of
# go.mod/go.sum (-modfile) so that missing go.sum entries for abigen's own dependencies never
# touch the repository's module files.
cp "$ROOT/go.mod" "$TMP/go.mod"
if [ -f "$ROOT/go.sum" ]; then cp "$ROOT/go.sum" "$TMP/go.sum"; fi
(
	cd "$ROOT"
	go run -mod=mod -modfile="$TMP/go.mod" github.com/ethereum/go-ethereum/cmd/abigen \
		--abi "$BUILD/SubtensorState.abi.json" \
		--pkg contracts \
		--type SubtensorState \
		--out "$PKG/state_binding.go"
)
chmod 0644 "$PKG/state_binding.go" "$BUILD/"*

echo "wrote $(ls "$BUILD" | wc -l) artefacts to ${BUILD#"$ROOT/"} and ${PKG#"$ROOT/"}/state_binding.go"
