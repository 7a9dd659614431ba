#!/usr/bin/env bash
# Fetches one published npm package, pinned by version and by the registry's integrity hash,
# and unpacks it into DIR/NAME. Test data only (user-agent corpora, axe-core): npm pack fetches
# the tarball alone, with no dependencies and no install scripts, and a re-published tarball
# fails loudly instead of changing what the tests measure.
#
# Usage: scripts/npm-fetch.sh NAME@VERSION INTEGRITY DIR
set -euo pipefail
spec=$1 want=$2 dest=$3
name=${spec%@*}

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --json "$spec" 2>/dev/null) >"$work/pack.json"
read -r file got < <(node -e '
	const [r] = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	console.log(r.filename, r.integrity);' "$work/pack.json")
if [[ $got != "$want" ]]; then
	echo "npm-fetch: $spec has integrity $got, want $want" >&2
	exit 1
fi
rm -rf "${dest:?}/$name"
mkdir -p "$dest/$name"
tar -xzf "$work/$file" -C "$dest/$name" --strip-components=1
echo "npm-fetch: $spec -> $dest/$name"
