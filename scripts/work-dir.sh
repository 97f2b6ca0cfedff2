# Sourced by scripts/test.sh and scripts/reproduce.sh. PostgreSQL clusters run as the unprivileged
# user slicelab, which must be able to enter the kit's work directory. A clone inside a directory
# that others cannot enter (mktemp -d, a 0700 home) would stop every cluster at initdb, so in that
# case, unless SLICELAB_WORK is set already, the work directory moves to /var/tmp (one per clone,
# named by a hash of its path) and this says so.
if [ -z "${SLICELAB_WORK:-}" ]; then
  p="$ROOT"
  while [ "$p" != "/" ]; do
    if [ "$(( 0$(stat -c %a "$p") & 1 ))" -eq 0 ]; then
      SLICELAB_WORK="/var/tmp/slicelab-work-$(printf %s "$ROOT" | sha256sum | cut -c1-12)"
      export SLICELAB_WORK
      echo "work directory: $SLICELAB_WORK ($p is mode $(stat -c %a "$p"), which the PostgreSQL user slicelab cannot enter)"
      break
    fi
    p="$(dirname "$p")"
  done
fi
