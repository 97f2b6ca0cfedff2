#!/usr/bin/env bash
# Installs what slicelab needs, only where it is missing. Idempotent.
#   scripts/setup.sh [GROUP…]   groups: core (default), jupyter, postgres, browser, build, vm, tracefs, sshd
# (tracefs installs nothing: it mounts /sys/kernel/tracing when it is not mounted and this is root,
# so that the perf-lock collector can read the lock tracepoints; where that is not allowed it says why.
# sshd installs nothing either: it downloads openssh-server and libwrap0 with `apt-get download` and
# unpacks them into the cache ($SLICELAB_CACHE/openssh-server), for the test of `study run --ssh`,
# which starts a throwaway sshd on 127.0.0.1; no system service is installed or started.)
# Debian packages come from the machine's configured apt sources; npm packages from package-lock.json.
# The Jupyter kernel spec for tslab is installed under the kit's work directory (.work/jupyter),
# never into the user's own Jupyter configuration.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${SLICELAB_WORK:-$ROOT/.work}"
groups=("$@"); [ ${#groups[@]} -eq 0 ] && groups=(core)

declare -A PKGS=(
  [core]="git"
  [jupyter]="jupyter-nbconvert python3-nbconvert python3-nbclient jupyter-client python3-ipython python3-scipy fonts-dejavu-core"
  [postgres]="postgresql-15 postgresql-client-15 sysbench"
  [browser]="chromium"
  [build]="build-essential ccache bison flex zlib1g-dev libssl-dev libelf-dev bc cpio dpkg-dev pkg-config gnupg debhelper kmod libdw-dev rsync"
  [vm]="qemu-system-x86 trace-cmd linux-perf busybox-static"
  [tracefs]=""
  [sshd]=""
)

need=()
for g in "${groups[@]}"; do
  [ -n "${PKGS[$g]+x}" ] || { echo "setup: unknown group \"$g\" (known: ${!PKGS[*]})" >&2; exit 2; }
  for p in ${PKGS[$g]}; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then need+=("$p"); fi
  done
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi

# npm packages: install when node_modules is missing or older than the lock file.
cd "$ROOT"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
# The compiled library (notebooks import ../dist/…): rebuild when a source is newer than the build.
if [ ! -f dist/src/cli/main.js ] || [ -n "$(find src test scripts -name '*.ts' -newer dist/src/cli/main.js -print -quit 2>/dev/null)" ]; then
  echo "setup: building TypeScript"
  node node_modules/typescript/bin/tsc -p tsconfig.json || { echo "setup: TypeScript build failed" >&2; exit 1; }
  touch dist/src/cli/main.js
fi

for g in "${groups[@]}"; do
  if [ "$g" = tracefs ] && ! grep -qs " /sys/kernel/tracing tracefs " /proc/mounts; then
    if [ "$(id -u)" -ne 0 ]; then
      echo "setup: tracefs is not mounted and this is not root: the perf-lock collector and its test will be skipped (as root: mount -t tracefs nodev /sys/kernel/tracing)"
    elif [ ! -d /sys/kernel/tracing ]; then
      echo "setup: this kernel has no /sys/kernel/tracing (CONFIG_TRACING off?): the perf-lock collector and its test will be skipped"
    elif mkdir -p "$WORK" && mount -t tracefs nodev /sys/kernel/tracing 2>"$WORK/tracefs-mount.err"; then
      echo "setup: mounted tracefs on /sys/kernel/tracing (for the perf-lock collector)"
    else
      echo "setup: could not mount tracefs ($(head -1 "$WORK/tracefs-mount.err" 2>/dev/null)): the perf-lock collector and its test will be skipped"
    fi
  fi
  if [ "$g" = sshd ]; then
    cache="${SLICELAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slicelab}"
    if [ ! -x "$cache/openssh-server/usr/sbin/sshd" ]; then
      echo "setup: unpacking openssh-server into $cache/openssh-server (for the --ssh test; nothing is installed)"
      dl="$(mktemp -d)"
      if (cd "$dl" && apt-get download -q openssh-server libwrap0 >/dev/null 2>"$dl/err"); then
        mkdir -p "$cache/openssh-server.tmp"
        for f in "$dl"/*.deb; do dpkg-deb -x "$f" "$cache/openssh-server.tmp"; done
        rm -rf "$cache/openssh-server" && mv "$cache/openssh-server.tmp" "$cache/openssh-server"
      else
        echo "setup: could not download openssh-server ($(grep -v '^W:' "$dl/err" | head -1)): the --ssh test will be skipped"
      fi
      rm -rf "$dl"
    fi
  fi
  if [ "$g" = jupyter ]; then
    spec="$WORK/jupyter/share/jupyter/kernels/tslab/kernel.json"
    if [ ! -f "$spec" ] || ! grep -q "$ROOT/node_modules/.bin/tslab" "$spec"; then
      echo "setup: registering the tslab kernel under $WORK/jupyter"
      mkdir -p "$WORK/jupyter"
      "$ROOT/node_modules/.bin/tslab" install --python=/usr/bin/python3 \
        --binary="$ROOT/node_modules/.bin/tslab" --prefix="$WORK/jupyter" >/dev/null
    fi
  fi
done
