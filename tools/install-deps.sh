#!/bin/sh
# Installs the Debian packages the build needs when any is missing.
# Usage: tools/install-deps.sh [extra-package...]
set -e
pkgs="meson ninja-build pkg-config gcc libgmp-dev libcmocka-dev libcjson-dev libprotobuf-c-dev protobuf-c-compiler python3 python3-dev python3-pytest $*"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing
