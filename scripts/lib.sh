# Shared by scripts/*.sh: messages and installing Debian packages.
# shellcheck shell=bash

say() { printf '%s\n' "$*" >&2; }

# Empty when this machine can install Debian packages (root on Debian with
# apt-get), otherwise the reason it cannot.
apt_unavailable_reason() {
    if [ ! -r /etc/debian_version ] || ! command -v apt-get >/dev/null 2>&1; then
        echo "this is not a Debian machine with apt-get"
    elif [ "$(id -u)" != 0 ]; then
        echo "not running as root, so apt-get cannot install packages"
    fi
}

# run_logged LOG CMD...: run CMD with its (long) output in LOG; on failure
# show the end of LOG.
run_logged() {
    local log=$1
    shift
    say "+ $*"
    if "$@" >>"$log" 2>&1; then
        return 0
    fi
    say "FAILED: $* (last lines of $log):"
    tail -n 25 "$log" >&2
    return 1
}

APT_OPTS=(-q -o DPkg::Lock::Timeout=300)
# apt-get update at most once an hour across scripts and runs, so that
# installing chromium and postgresql in one `make test` updates once.
APT_STAMP=${TMPDIR:-/tmp}/rummy-tracker-apt-updated
apt_update_once() {
    if [ -n "$(find "$APT_STAMP" -mmin -60 2>/dev/null)" ]; then
        return 0
    fi
    run_logged "$1" apt-get "${APT_OPTS[@]}" update && touch "$APT_STAMP"
}

# apt_install PACKAGE...: install from Debian, non-interactively.
apt_install() {
    local log
    log=$(mktemp "${TMPDIR:-/tmp}/rummy-tracker-apt.XXXXXX.log")
    say "(apt-get output goes to $log)"
    apt_update_once "$log" || return 1
    if run_logged "$log" env DEBIAN_FRONTEND=noninteractive \
        apt-get "${APT_OPTS[@]}" install -y "$@"; then
        return 0
    fi
    # The package lists may be stale (a superseded version): update, retry.
    rm -f "$APT_STAMP"
    apt_update_once "$log" || return 1
    run_logged "$log" env DEBIAN_FRONTEND=noninteractive \
        apt-get "${APT_OPTS[@]}" install -y "$@"
}

# need_command COMMAND PACKAGE PURPOSE: succeed when COMMAND is on the PATH,
# else install Debian's PACKAGE (as root on Debian); fail saying why it cannot.
need_command() {
    local command=$1 package=$2 purpose=$3 reason
    if command -v "$command" >/dev/null 2>&1; then
        return 0
    fi
    reason=$(apt_unavailable_reason)
    if [ -n "$reason" ]; then
        say "$command is missing and $reason: apt-get install $package, for $purpose."
        return 1
    fi
    say "$command is missing: installing Debian's $package for $purpose."
    apt_install "$package" && command -v "$command" >/dev/null 2>&1
}
