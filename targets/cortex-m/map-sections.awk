# The input sections of .text and .rodata that a GNU ld link map (<image>.map) shows the link
# kept, one line each:  <section>\t<bytes>\t<object>
# (a section whose name is long has its address, size and object on the next line). For
# code-size-table.sh and bench/firmware_code_size.sh:
#   awk -f targets/cortex-m/map-sections.awk build/firmware-cortex-m4/run_x.map
function hex(s,   v, i) {
  s = tolower(substr(s, 3)); v = 0
  for (i = 1; i <= length(s); ++i) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
  return v
}
function emit(section, line,   n, f) {
  n = split(line, f, " ")
  if (f[n - 1] !~ /^0x/) return
  printf "%s\t%d\t%s\n", section, hex(f[n - 1]), f[n]
}
/^Linker script and memory map/ { on = 1; next }
!on { next }
pending != "" { emit(pending, $0); pending = ""; next }
/^ \.(text|rodata)/ { if (NF >= 4) emit($1, $0); else pending = $1 }
