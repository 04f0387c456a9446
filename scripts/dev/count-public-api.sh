#!/usr/bin/env bash
# count-public-api.sh: the size of the `spmd` library's public API, for the
# before/after of a visibility change (issue #33, "a curated public API").
#
#   scripts/dev/count-public-api.sh [--no-doc] [--features F]
#
# 1. Runs `cargo doc -p spmd --no-deps --lib` (default features unless
#    --features is given; --no-doc reuses target/doc as it is) and counts the
#    item pages rustdoc wrote under target/doc/spmd/: one per struct, enum,
#    function, trait, type alias, constant, macro and static, and one
#    index.html per module (the crate root included); pages that only
#    redirect to a re-export are left out.
# 2. Counts, by grep over src/ (the library; src/bin/ excluded), lines
#    whose first token is plain `pub`: `pub mod` declarations, `pub` items
#    (fn, struct, enum, trait, type, const, static; associated items
#    included), `pub use` re-exports and `pub` fields; and, for contrast,
#    the lines that start with `pub(crate)`, `pub(super)` or `pub(in ...)`.
set -euo pipefail
cd "$(dirname "$0")/../.."

doc=1
features=()
while (($#)); do
  case $1 in
    --no-doc) doc=0 ;;
    --features) features=(--features "${2:?}"); shift ;;
    *) echo "count-public-api: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if ((doc)); then
  rm -rf target/doc/spmd
  cargo doc --quiet -p spmd --no-deps --lib "${features[@]}" >&2
fi
dir=target/doc/spmd
[[ -d $dir ]] || { echo "count-public-api: no $dir (run without --no-doc)" >&2; exit 1; }

# Pages that only redirect (rustdoc writes one at the defining path of an
# item re-exported from a private module) are not counted.
pages() {
  { find "$dir" -name "$1" -print0 | xargs -0 -r grep -L 'http-equiv="refresh"' || true; } | wc -l
}
total=0
for kind in struct enum fn trait type constant macro static; do
  n=$(pages "$kind.*.html")
  printf 'doc %-9s %5d\n' "$kind" "$n"
  total=$((total + n))
done
modules=$(pages index.html)
printf 'doc %-9s %5d\n' module "$modules"
total=$((total + modules))
printf 'doc %-9s %5d\n' total "$total"

lib_sources=$(find src -name '*.rs' -not -path 'src/bin/*')
count() {
  # shellcheck disable=SC2086
  grep -hE "$1" $lib_sources | wc -l
}
quals='(unsafe |const |async |extern "C" )*'
printf 'src %-9s %5d\n' "pub mod" "$(count '^\s*pub mod ')"
printf 'src %-9s %5d\n' "pub item" "$(count "^\s*pub ${quals}(fn|struct|enum|trait|type|const|static|union) ")"
printf 'src %-9s %5d\n' "pub use" "$(count '^\s*pub use ')"
printf 'src %-9s %5d\n' "pub field" "$(count '^\s*pub (r#)?[a-z_][a-z0-9_]*:')"
printf 'src %-9s %5d\n' "pub(...)" "$(count '^\s*pub\((crate|super|in [^)]*)\) ')"
