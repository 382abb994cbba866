#!/usr/bin/env bash
# Converts every cfg of darknet's own cfg folder (../shared/darknet-cfg-all, yolov1/ included) with seeded
# weights by two foldkit binaries and compares the blob folders byte for byte, and the refusals (exit code
# and message) of the cfgs either refuses: a refactor of convert must change none.
#   BASE=old/foldkit NEW=.build/debug/foldkit bash Docs/bench/cfg-all-convert-compare.sh
# Prints one line per cfg and "identical N, different M"; seeded weights and blobs go to $TMPDIR/cfgall.
B=${BASE:?set BASE}; N=${NEW:-.build/debug/foldkit}
D=${CFG_ALL:-$(dirname "$0")/../../../shared/darknet-cfg-all}; T=${TMPDIR:-/tmp}/cfgall; rm -rf $T; mkdir -p $T
same=0; diffs=0
for cfg in $D/*.cfg $D/yolov1/*.cfg; do
  [ -f "$cfg" ] || continue
  n=$(basename $cfg .cfg); w=$T/$n.weights
  $B seed-weights $cfg --seed 1 --out $w > /dev/null 2> $T/$n.seed.err; sr=$?
  if [ $sr -ne 0 ]; then
    $N seed-weights $cfg --seed 1 --out $w.n > /dev/null 2> $T/$n.seedn.err; nr=$?
    if [ $sr = $nr ] && cmp -s $T/$n.seed.err $T/$n.seedn.err; then same=$((same+1)); echo "$n: refused alike ($sr)"; else diffs=$((diffs+1)); echo "$n: SEED DIFF $sr/$nr"; fi
    continue
  fi
  timeout 300 $B convert $cfg $w --out $T/$n.b > /dev/null 2> $T/$n.b.err; br=$?
  timeout 300 $N convert $cfg $w --out $T/$n.n > /dev/null 2> $T/$n.n.err; nr=$?
  if [ $br = $nr ] && diff -rq $T/$n.b $T/$n.n > /dev/null 2>&1 && cmp -s $T/$n.b.err $T/$n.n.err; then
    same=$((same+1)); echo "$n: identical (exit $br)"
  else
    diffs=$((diffs+1)); echo "$n: DIFFERENT exit $br/$nr"; diff $T/$n.b.err $T/$n.n.err | head -3
  fi
  rm -rf $T/$n.b $T/$n.n $w
done
echo "identical $same, different $diffs"
[ "$diffs" -eq 0 ]
