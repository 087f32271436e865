#!/bin/bash
# ctest `outside-refs`: the repository stands alone. Fails when a tracked file refers to a file outside it:
#   1. names of notes and scripts that live outside the repository (design notes, platform notes, packing
#      scripts of the machines it was developed on) or paths into the folders that hold them;
#   2. a Markdown link whose target is not a tracked file or folder of the repository (a relative link that leaves
#      it, or names a file that does not exist).
# Recorded program output under docs/results (.json, .txt, .csv, .svg) is data, not documentation: the machine paths
# it holds are what the programs printed, so only rule 1's note and script names apply to it.
# Usage: check-outside-refs.sh SOURCE_DIR. Exits 77 (skipped) when git or the checkout is missing.
set -uo pipefail
src=${1:-.}
command -v git >/dev/null 2>&1 || {
    echo "SKIP: git is not installed"
    exit 77
}
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || {
    echo "SKIP: $src is not a git checkout (the files checked are the tracked ones)"
    exit 77
}
cd "$src" || exit 1
self=cmake/check-outside-refs.sh
names='design\.md|platform[-_ ]notes|pack\.sh|helper-common|\.\./shared/|\.\./notes/'
paths='/work/|/shared/device|/notes/'
bad=0

files=$(git ls-files | grep -vxF "$self")
data=$(echo "$files" | grep -E '^docs/results/.*\.(json|txt|csv|svg)$')
docs=$(echo "$files" | grep -vE '^docs/results/.*\.(json|txt|csv|svg)$')
if out=$(echo "$docs" | tr '\n' '\0' | xargs -0 grep -n -I -i -E "$names|$paths" --); then
    echo "$out"
    echo "FAIL: the lines above refer to notes, scripts or folders outside the repository"
    bad=1
fi
if [ -n "$data" ] && out=$(echo "$data" | tr '\n' '\0' | xargs -0 grep -n -I -i -E "$names" --); then
    echo "$out"
    echo "FAIL: the recorded output above names notes or scripts outside the repository"
    bad=1
fi

# Markdown links: [text](target) with a relative target (no scheme, not an anchor), resolved from the file's folder.
nlinks=0
while IFS= read -r md; do
    dir=$(dirname "$md")
    while IFS= read -r target; do
        target=${target%%#*}
        [ -n "$target" ] || continue
        case "$target" in *://* | mailto:*) continue ;; esac
        nlinks=$((nlinks + 1))
        resolved=$(realpath -m --relative-to=. "$dir/$target")
        case "$resolved" in
        ../* | /*)
            echo "$md: link ($target) leaves the repository"
            bad=1
            ;;
        *)
            if ! git ls-files --error-unmatch "$resolved" >/dev/null 2>&1 &&
                [ -z "$(git ls-files -- "$resolved/" | head -n 1)" ]; then
                echo "$md: link ($target) names $resolved, which is not a tracked file or folder"
                bad=1
            fi
            ;;
        esac
    done < <(grep -o -E '\]\([^)[:space:]]+\)' "$md" | sed -E 's/^\]\((.*)\)$/\1/')
done < <(echo "$files" | grep -E '\.md$')

[ $bad -eq 0 ] || exit 1
echo "PASS: $(echo "$files" | wc -l) tracked files name nothing outside the repository; $nlinks Markdown links resolve"
