# Sourced by the campaign e2e scripts with their arguments (SHARD SOURCE_DIR
# BUILD_DIR). Sets SHARD, BUILD and PLUGINS (the test_crash plugin's folder),
# defines fail, wait_for (a file, up to 30 s), strip (a campaign.csv without its wall-time and host columns,
# the only ones two runs of a campaign may differ in) and cell, makes a temp
# folder T removed on exit, and writes $T/base.yaml: a particle on a penalty
# wall driven by the test_crash integrator, whose run / crash_at / hang_at /
# sleep_at parameters the campaigns sweep.
SHARD=$1 BUILD=$3
PLUGINS=$BUILD/tests/plugins/crash
fail() { echo "FAIL: $*"; exit 1; }
wait_for() { for _ in $(seq 300); do [ -e "$1" ] && return 0; sleep 0.1; done; fail "timed out waiting for $1"; }
[ -f "$PLUGINS/test_crash.so" ] || fail "$PLUGINS/test_crash.so not built (tests/plugins/CMakeLists.txt needs add_subdirectory(crash))"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
strip() { awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="wall_time"||$i=="host"||$i ~ /^wall_time\./||$i ~ /^cpu_time\./) d[i]=1}
  {o="";for(i=1;i<=NF;i++) if(!d[i]) o=o (o==""?"":",") $i; print o}' "$1"; }
# the value of column NAME in the row of run INDEX of a campaign.csv
cell() { awk -F, -v idx="$2" -v name="$3" 'NR==1{for(i=1;i<=NF;i++) c[$i]=i; next} $1==idx{print $c[name]}' "$1"; }

cat > "$T/base.yaml" <<'YAML'
name: tiny
model: {type: particle, mass: 1.0, position: 1.0}
integrator: {plugin: test_crash}
contact:
  force: {plugin: penalty, stiffness: 1e6}
time: {end: 0.01, dt: 1e-3}
YAML
