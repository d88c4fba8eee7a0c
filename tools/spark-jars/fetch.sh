#!/usr/bin/env bash
# Fetch the jars a Spark session needs beside pyspark's own for kvlog's side-by-side benchmarks and tests, from
# Maven Central into <out>/<name>/ (default build/spark-jars): kafka/ (spark-sql-kafka-0-10 and its closure:
# spark-kafka.pom.xml) and s3a/ (hadoop-aws and the AWS SDK modules: hadoop-aws.pom.xml). Each folder is a
# list of jars for spark.jars; iceberg/ (Iceberg's Spark runtime and the SQLite JDBC driver: iceberg-spark.pom.xml). A folder whose .complete stamp is newer than its pom is not fetched again.
# Usage: tools/spark-jars/fetch.sh [out] [kafka|s3a ...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-build/spark-jars}"
shift || true
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(kafka s3a)
command -v mvn >/dev/null || { echo "fetch.sh: mvn is not on PATH: Spark's Kafka and S3A jars come from Maven" >&2; exit 1; }
mkdir -p "$out"
for name in "${names[@]}"; do
  case "$name" in
    kafka) pom="$here/spark-kafka.pom.xml" ;;
    s3a) pom="$here/hadoop-aws.pom.xml" ;;
    iceberg) pom="$here/iceberg-spark.pom.xml" ;;
    kafka41) pom="$here/spark-kafka-4.1.pom.xml" ;;
    *) echo "fetch.sh: unknown set $name (kafka, s3a, iceberg, kafka41)" >&2; exit 1 ;;
  esac
  dest="$out/$name"
  if [ -f "$dest/.complete" ] && [ "$dest/.complete" -nt "$pom" ]; then continue; fi
  rm -rf "$dest" && mkdir -p "$dest"
  echo "fetch.sh: $name -> $dest" >&2
  start=$(date +%s)
  mvn -B -q -f "$pom" dependency:copy-dependencies -DoutputDirectory="$(cd "$dest" && pwd)" \
      -DincludeScope=runtime -Dmdep.useBaseVersion=true >&2
  echo "fetch.sh: $name: $(ls "$dest" | wc -l) jars, $(du -sh "$dest" | cut -f1), $(( $(date +%s) - start )) s" >&2
  touch "$dest/.complete"
done
