#!/usr/bin/env bash
# Fails when git tracks a built executable: build output belongs in bin/ (ignored), never in the
# repository. It reads each tracked file's first bytes (ELF, Mach-O, PE), so it needs neither
# `file` nor a build.
set -euo pipefail
cd "$(dirname "$0")/.."
found=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  magic=$(head -c 4 -- "$f" | od -An -tx1 | tr -d ' \n')
  case "$magic" in
    7f454c46) ;;                                             # ELF
    feedface | feedfacf | cefaedfe | cffaedfe | cafebabe) ;; # Mach-O, fat Mach-O
    4d5a*)                                                   # "MZ": PE only with its header
      head -c 4096 -- "$f" | grep -aq PE || continue ;;
    *) continue ;;
  esac
  echo "tracked executable: $f" >&2
  found=1
done < <(git ls-files -z)
if [ $found = 1 ]; then
  echo "remove it from the index (git rm --cached FILE) and ignore it in .gitignore" >&2
  exit 1
fi
