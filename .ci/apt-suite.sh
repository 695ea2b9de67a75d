# apt-suite.sh: sourced by the .ci/fetch-*.sh scripts. It sets up apt to
# download from another Debian suite without touching the system's apt
# state.
#
# The mirror is the one this machine's apt already uses: the first deb URI
# in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list (override
# with ABIFLOOR_MIRROR). Only the suite is switched, through a temporary
# sources file and a private lists directory. Signatures are checked with
# the keys apt already trusts (debian-archive-keyring).
#
# Usage: . .ci/apt-suite.sh; apt_suite SUITE [ARCH,ARCH...]
# It leaves $tmp (removed on exit) and $apt_opts, and has run apt-get update.
# An empty dpkg status in $tmp makes the suite's versions the candidates,
# not the newer installed ones.

find_mirror() {
	mirror=${ABIFLOOR_MIRROR:-}
	if [ -z "$mirror" ]; then
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -r "$f" ] || continue
			mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$f")
			[ -n "$mirror" ] && break
		done
	fi
	if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
		mirror=$(awk '$1 == "deb" && $2 !~ /security/ {print ($2 ~ /^\[/ ? $3 : $2); exit}' /etc/apt/sources.list)
	fi
	if [ -z "$mirror" ]; then
		echo "$0: no deb mirror found in the apt configuration; set ABIFLOOR_MIRROR" >&2
		exit 1
	fi
}

apt_suite() {
	find_mirror
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/lists/partial" "$tmp/archives/partial"
	: >"$tmp/status"
	chmod 755 "$tmp"
	apt_opts="-o Dir::Etc::sourcelist=$tmp/sources.list -o Dir::Etc::sourceparts=- \
	-o Dir::State::Lists=$tmp/lists -o Dir::Cache::archives=$tmp/archives \
	-o Dir::State::status=$tmp/status \
	-o APT::Get::List-Cleanup=0 -o Acquire::Check-Valid-Until=false"
	if [ -n "${2:-}" ]; then
		echo "deb [arch=$2] $mirror $1 main" >"$tmp/sources.list"
		apt_opts="$apt_opts -o APT::Architectures=$2"
	else
		echo "deb $mirror $1 main" >"$tmp/sources.list"
	fi
	# shellcheck disable=SC2086
	apt-get $apt_opts update >&2
}
