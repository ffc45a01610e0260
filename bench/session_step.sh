# Sourced by the GPU session scripts (bench/*_session.sh): `step NAME SECONDS CMD...` runs one step under its own
# time limit, so one that hangs loses only itself, and says how it ended; it returns the step's exit status.
step() {
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  echo "=== $name (limit ${limit}s)"
  timeout "$limit" "$@"
  local rc=$?
  echo "=== $name: exit $rc after $((SECONDS - t0)) s"
  return $rc
}
