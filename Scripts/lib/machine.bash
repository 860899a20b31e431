# What Scripts/bench, Scripts/faults and Scripts/soak record about where they ran; source it.

# One line describing this machine and toolchain.
machine() {
  local cpu cores memory os swift
  cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
  cores=$(nproc)
  memory=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
  os=$(. /etc/os-release && echo "$PRETTY_NAME")
  swift=$(swift --version 2>/dev/null | awk 'NR == 1 { sub(/^.*Swift version /, ""); print; exit }')
  echo "$cpu, $cores cores, $memory memory, $os, Swift $swift, $(uname -sr)"
}
