#!/usr/bin/env bash
# Fetch each pinned Kafka broker's runtime jars from Maven Central into <out>/<version>/ (default
# build/kafka-oracle): one folder a version, usable as a Java class path `<out>/<version>/*`.
# A version whose folder holds a .complete stamp newer than its pom is not fetched again.
# A name with its own pom here (mirror-4.3.1: mirror-4.3.1.pom.xml, MirrorMaker 2 for asv_bench/dr_bench.py)
# is fetched the same way into <out>/<name>/, only when named: no name fetches the kafka-*.pom.xml versions.
# Usage: tools/kafka-oracle/fetch.sh [out] [version ...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-build/kafka-oracle}"
shift || true
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  for pom in "$here"/kafka-*.pom.xml; do v="${pom##*/kafka-}"; versions+=("${v%.pom.xml}"); done
fi
command -v mvn >/dev/null || { echo "fetch.sh: mvn is not on PATH: the broker tests need Maven" >&2; exit 1; }
mkdir -p "$out"
for v in "${versions[@]}"; do
  pom="$here/kafka-$v.pom.xml"
  [ -f "$here/$v.pom.xml" ] && pom="$here/$v.pom.xml"
  [ -f "$pom" ] || { echo "fetch.sh: no pom for Kafka $v ($pom)" >&2; exit 1; }
  dest="$out/$v"
  if [ -f "$dest/.complete" ] && [ "$dest/.complete" -nt "$pom" ]; then continue; fi
  rm -rf "$dest" && mkdir -p "$dest"
  echo "fetch.sh: Kafka $v -> $dest" >&2
  start=$(date +%s)
  mvn -B -q -f "$pom" dependency:copy-dependencies -DoutputDirectory="$(cd "$dest" && pwd)" \
      -DincludeScope=runtime -Dmdep.useBaseVersion=true >&2
  echo "fetch.sh: Kafka $v: $(ls "$dest" | wc -l) jars, $(du -sh "$dest" | cut -f1), $(( $(date +%s) - start )) s" >&2
  touch "$dest/.complete"
done
