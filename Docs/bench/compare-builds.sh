#!/usr/bin/env bash
# Two release builds of foldkit side by side on yolov4 608 (Docs/Performance.md, "Eighth round"): verify
# alternating run by run, convert against cp and sha256sum (hyperfine), fixtures, peak RSS of each.
#   BASE=/path/to/old/foldkit NEW=.build/release/foldkit CFG=../shared/darknet-cfg/yolov4.cfg \
#   W=/tmp/yolov4.weights bash Docs/bench/compare-builds.sh        # W: foldkit seed-weights CFG --seed 1 --out W
# Needs hyperfine (apt-get install -y hyperfine). Raw outputs go to $OUT (default /tmp/ab).
set -u
B=${BASE:?set BASE to the baseline foldkit}; N=${NEW:-.build/release/foldkit}
C=${CFG:-../shared/darknet-cfg/yolov4.cfg}; W=${W:?set W to seeded weights for CFG}
B=$(realpath "$B"); N=$(realpath "$N"); C=$(realpath "$C"); W=$(realpath "$W")
R=${OUT:-/tmp/ab}; mkdir -p $R; cd /tmp
echo "start $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg) base $($B --version) new $($N --version)"
# a. verify, alternating base/new, 1 warm-up + 5 timed each
for i in 0 1 2 3 4 5; do
  for s in base new; do
    bin=$B; [ $s = new ] && bin=$N
    /usr/bin/time -f "%e %U %S %M" -o $R/verify-$s-$i.time $bin verify $C $W > $R/verify-$s-$i.txt 2>&1
    echo "verify $s $i rc=$? $(cat $R/verify-$s-$i.time) | $(grep '^time:' $R/verify-$s-$i.txt)"
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
# b. convert vs cp + sha256sum
hyperfine -N -w 1 -r 8 --export-json $R/convert.json \
  --prepare 'rm -rf /tmp/ab-out-base /tmp/ab-out-new /tmp/ab-cp.weights; sync' \
  -n base "$B convert $C $W --out /tmp/ab-out-base" \
  -n new "$N convert $C $W --out /tmp/ab-out-new" \
  -n cp "cp $W /tmp/ab-cp.weights" 2>&1 | grep -v '^ *$'
rm -rf /tmp/ab-out-base /tmp/ab-out-new; $B convert $C $W --out /tmp/ab-out-base >/dev/null; $N convert $C $W --out /tmp/ab-out-new > /dev/null
diff -r /tmp/ab-out-base /tmp/ab-out-new && echo "convert blobs identical"
du -sb /tmp/ab-out-new
hyperfine -N -w 1 -r 8 --export-json $R/sha.json -n sha256 "sha256sum $W /tmp/ab-out-new/*.bin" 2>&1 | grep -v '^ *$' || true
for i in 1 2 3; do for s in base new; do bin=$B; [ $s = new ] && bin=$N; rm -rf /tmp/ab-out-$s; sync
  /usr/bin/time -f "%e %U %S %M" $bin convert $C $W --out /tmp/ab-out-$s 2>&1 >/dev/null | sed "s/^/convert-rss $s $i: /"; done; done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
# c. fixtures, alternating, 2 each
for i in 1 2; do for s in base new; do bin=$B; [ $s = new ] && bin=$N; rm -rf /tmp/ab-fx-$s; sync
  /usr/bin/time -f "%e %U %S %M" -o $R/fx-$s-$i.time $bin fixtures $C $W --layout nhwc --out /tmp/ab-fx-$s > $R/fx-$s-$i.txt 2>&1
  echo "fixtures $s $i rc=$? $(cat $R/fx-$s-$i.time)"; done; done
diff -r /tmp/ab-fx-base /tmp/ab-fx-new > /dev/null && echo "fixtures packs identical" || echo "fixtures packs differ"
rm -rf /tmp/ab-fx-base /tmp/ab-fx-new
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
# d. family, alternating OpenCV / base / new
python3 /tmp/family_ab.py --base $B --new $N --rounds 2 --runs 3 --json-out $R/family.json > $R/family.md 2> $R/family.log
cat $R/family.md
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date +%T)"
# a'. verify with hyperfine, both in one invocation
hyperfine -N -w 1 -r 5 --export-json $R/verify-hf.json -n base "$B verify $C $W" -n new "$N verify $C $W" 2>&1 | grep -v '^ *$'
echo "end $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
