# Sourced by tools/fetch_libcuda.sh and tools/fetch_nvrtc.sh (not run on its own): checks the tools
# a fetch needs, writes a private apt configuration for the non-free component of Debian $suite
# under $out/apt (its own sources list, lists and cache: nothing system-wide; the system's dpkg
# status is only read), runs `apt-get update` with it, and leaves the options for the next apt
# calls in "$@". The caller sets $out and $suite and defines `unavailable` (which exits).

[ "$(uname -m)" = x86_64 ] || unavailable "the packages are fetched for amd64 only (machine: $(uname -m))"
command -v apt-get >/dev/null 2>&1 || unavailable "apt-get is not installed"
command -v dpkg >/dev/null 2>&1 || unavailable "dpkg is not installed"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || unavailable "Debian's archive keyring ($keyring) is missing"

apt="$PWD/$out/apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d" \
  "$apt/preferences.d" "$out/deb"
mirror=http://deb.debian.org
cat >"$apt/sources.list" <<SOURCES
deb [signed-by=$keyring] $mirror/debian $suite non-free
deb [signed-by=$keyring] $mirror/debian $suite-updates non-free
deb [signed-by=$keyring] $mirror/debian-security $suite-security non-free
SOURCES
set -- -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/sources.list.d" \
  -o "Dir::Etc::PreferencesParts=$apt/preferences.d" -o "Dir::State::Lists=$apt/lists" \
  -o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root \
  -o APT::Architecture=amd64 -o APT::Architectures=amd64 -qq

apt-get "$@" update >"$out/apt.log" 2>&1 ||
  unavailable "apt-get update failed (see $out/apt.log): $(tail -1 "$out/apt.log")"
