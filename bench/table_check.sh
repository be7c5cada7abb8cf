# Sourced by the bench scripts that write a committed Markdown table. With --check as the first
# argument, table_check runs the calling script again without it and compares the table rows
# (lines starting with |; the header names the commit) with the committed file: exit 0 when they
# agree, else 1 naming the rows that differ and how to rewrite the file. Without --check it
# returns, and the script goes on to write the table.
#   source "$here/table_check.sh"; table_check <name> "$0" "$@"
table_check() {
  local name="$1" script="$2"
  shift 2
  [ "${1:-}" = "--check" ] || return 0
  shift
  local md now
  md="$(dirname "$script")/$name.md"
  now="$(mktemp)"
  "$script" "$@" >"$now" || { rm -f "$now"; exit 1; }
  if diff <(grep '^|' "$md") <(grep '^|' "$now") >&2; then
    rm -f "$now"
    echo "$name: bench/$name.md is current" >&2
    exit 0
  fi
  rm -f "$now"
  echo "$name: bench/$name.md is stale (< recorded, > now); rewrite it with" \
    "bench/$name.sh ${1:-build} > bench/$name.md" >&2
  exit 1
}
