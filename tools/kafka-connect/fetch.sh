#!/usr/bin/env bash
# Fetch Kafka Connect and Apache Iceberg's Kafka Connect sink (iceberg-sink.pom.xml) from Maven Central into
# <out>/jars/ (default build/kafka-connect), and compile the benchmark's record transform (src/) into
# <out>/record-as-row.jar. Fetched once, again when the pom or the source changes.
# Usage: tools/kafka-connect/fetch.sh [out]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-build/kafka-connect}"
command -v mvn >/dev/null || { echo "fetch.sh: mvn is not on PATH" >&2; exit 1; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"
if ! [ -f "$out/jars/.complete" ] || [ "$here/iceberg-sink.pom.xml" -nt "$out/jars/.complete" ]; then
  rm -rf "$out/jars" && mkdir -p "$out/jars"
  start=$(date +%s)
  mvn -B -q -f "$here/iceberg-sink.pom.xml" dependency:copy-dependencies -DoutputDirectory="$out/jars" \
      -DincludeScope=runtime >&2
  echo "fetch.sh: $(ls "$out/jars" | wc -l) jars, $(du -sh "$out/jars" | cut -f1), $(( $(date +%s) - start )) s" >&2
  touch "$out/jars/.complete"
fi
src="$here/src/kvlog/bench/RecordAsRow.java"
if ! [ -f "$out/record-as-row.jar" ] || [ "$src" -nt "$out/record-as-row.jar" ]; then
  rm -rf "$out/classes" && mkdir -p "$out/classes"
  javac -nowarn -d "$out/classes" -cp "$out/jars/*" "$src"
  jar cf "$out/record-as-row.jar" -C "$out/classes" .
fi
