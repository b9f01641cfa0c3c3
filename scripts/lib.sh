# lib.sh: what the install scripts share. Source it; it runs nothing.

# apt_updated is set once apt-get update ran: several packages may be
# missing, one update serves them all.
apt_updated=

# apt_install installs Debian packages, as root or through sudo -n.
apt_install() {
  local sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo -n)
  if [ -z "$apt_updated" ]; then
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    apt_updated=1
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}
