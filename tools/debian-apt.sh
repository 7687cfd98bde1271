# tools/debian-apt.sh - sourced by the scripts that fetch Debian packages into a cache
# (tools/fetch-cuda-releases.sh, tools/fetch-julia.sh): apt-get under a private apt state.
#
# apt_private_state STATE KEYRING WHAT
#     STATE holds the state: the caller has written STATE/sources.list (each line naming its keyring
#     with signed-by=KEYRING). Makes STATE's own configuration (APT_CONFIG; none of /etc/apt is read),
#     package lists, cache and an empty dpkg status, and brings the lists up to date (apt-get update:
#     the suites' signed indexes). Sets APT_OPTIONS, the options every apt-get of the caller passes,
#     and exports APT_CONFIG. The system's apt configuration and state are never read or changed.
#     WHAT names the suites in messages.

apt_private_state() {
    _state=$1
    if [ ! -r "$2" ]; then
        echo "cubind: keyring $2 (for $3) is missing: install Debian's debian-archive-keyring" >&2
        exit 1
    fi
    mkdir -p "$_state/lists/partial" "$_state/cache/archives/partial" "$_state/trusted.gpg.d" "$_state/preferences.d"
    : > "$_state/status"
    # Read instead of /etc/apt/apt.conf and /etc/apt/apt.conf.d: nothing of the system's applies.
    cat > "$_state/apt.conf" <<EOF_CONF
Dir::Etc::Main "/dev/null";
Dir::Etc::Parts "/dev/null";
EOF_CONF
    set -- -o "Dir::Etc::SourceList=$_state/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o "Dir::Etc::TrustedParts=$_state/trusted.gpg.d" -o Dir::Etc::Trusted=/dev/null \
        -o Dir::Etc::Preferences=/dev/null -o "Dir::Etc::PreferencesParts=$_state/preferences.d" \
        -o "Dir::State=$_state" -o "Dir::State::Lists=$_state/lists" -o "Dir::State::Status=$_state/status" \
        -o "Dir::Cache=$_state/cache" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
        -o Acquire::Languages=none -o APT::Get::AllowUnauthenticated=false
    if [ "$(id -u)" -eq 0 ]; then
        # apt, as root, downloads as the _apt user, who cannot write to a cache in root's home.
        set -- "$@" -o APT::Sandbox::User=root
    fi
    APT_OPTIONS=$*
    export APT_CONFIG="$_state/apt.conf"
    # shellcheck disable=SC2086 # the options are meant to split (none holds a space)
    apt-get -q $APT_OPTIONS update >"$_state/update.log" 2>&1 || {
        cat "$_state/update.log" >&2
        echo "cubind: apt-get update of $3 failed" >&2
        exit 1
    }
}
