#!/usr/bin/env bash
# Fetch the distributed engines the Flink and Spark runners use, pinned, into .engines/ (ignored by git).
# After this, nothing is downloaded: the job servers and clusters start from these files offline.
#
#   tools/engines.sh            fetch what is missing (Maven Central and PyPI; ~700 MB, 1-2 minutes)
#   tools/engines.sh --check    only report; exit 1 when something is missing
#   tools/engines.sh --print    print the paths (ENGINES_DIR, FLINK_HOME, SPARK_HOME, the two jars)
#
# What it writes (pipelines/framework/engines/paths.py reads the same layout):
#   .engines/flink-$FLINK_VERSION/pyflink/          Flink's distribution (bin/, conf/, lib/flink-dist-*.jar)
#                                                   from the PyPI wheels apache-flink + apache-flink-libraries
#   .engines/spark-$SPARK_VERSION/pyspark/          Spark's distribution (jars/, sbin/spark-daemon.sh) from pyspark
#   .engines/beam-$BEAM_JAVA_VERSION/flink-job-server/  Beam's Flink job server: one runnable jar of the jars
#                                                   tools/engines/flink-job-server.pom.xml resolves
#   .engines/beam-$BEAM_JAVA_VERSION/flink-cluster-lib/ the same without Flink's classes, for the lib/ of a
#                                                   cluster started here (rewrite-mine cluster start flink)
#   .engines/beam-$BEAM_JAVA_VERSION/spark-job-server/  the same for Spark, whose own jars it names
#
# REWRITE_MINE_ENGINES=DIR puts them elsewhere (the runners read the same variable).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"

FLINK_VERSION=1.19.3       # Beam 2.61's Python SDK: Flink 1.17-1.19 (PUBLISHED_FLINK_VERSIONS)
SPARK_VERSION=3.5.7        # Spark 3.x with Java 17 support; Beam's Spark 3 runner is built against 3.2+
BEAM_JAVA_VERSION=2.62.0   # the nearest Beam release whose runner modules the Maven mirror serves
DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.6.1
# Spark's JavaModuleOptions (3.5) and Flink's env.java.opts.all, as manifest Add-Opens entries.
ADD_OPENS="java.base/java.lang java.base/java.lang.invoke java.base/java.lang.reflect java.base/java.io \
java.base/java.net java.base/java.nio java.base/java.text java.base/java.time java.base/java.util \
java.base/java.util.concurrent java.base/java.util.concurrent.atomic java.base/java.util.concurrent.locks \
java.base/sun.nio.ch java.base/sun.nio.cs java.base/sun.security.action java.base/sun.util.calendar"

engines="${REWRITE_MINE_ENGINES:-$root/.engines}"
flink_home="$engines/flink-$FLINK_VERSION/pyflink"
spark_home="$engines/spark-$SPARK_VERSION/pyspark"
beam_dir="$engines/beam-$BEAM_JAVA_VERSION"
flink_jar="$beam_dir/flink-job-server/beam-runners-flink-1.19-job-server-$BEAM_JAVA_VERSION.jar"
# Beam's runner classes without Flink's own, for the classpath of a Flink cluster started here
# (pipelines/framework/engines/flink.py FlinkCluster.write_lib: its Python workers then last a whole job).
flink_lib_jar="$beam_dir/flink-cluster-lib/beam-runners-flink-1.19-$BEAM_JAVA_VERSION-lib.jar"
spark_jar="$beam_dir/spark-job-server/beam-runners-spark-3-job-server-$BEAM_JAVA_VERSION.jar"

if [ "${1:-}" = "--print" ]; then
  printf 'ENGINES_DIR=%s\nFLINK_HOME=%s\nSPARK_HOME=%s\nFLINK_JOB_SERVER_JAR=%s\nFLINK_CLUSTER_LIB_JAR=%s\nSPARK_JOB_SERVER_JAR=%s\n' \
    "$engines" "$flink_home" "$spark_home" "$flink_jar" "$flink_lib_jar" "$spark_jar"
  exit 0
fi

missing=()
[ -f "$flink_home/lib/flink-dist-$FLINK_VERSION.jar" ] || missing+=("flink-$FLINK_VERSION")
[ -f "$spark_home/jars/spark-core_2.12-$SPARK_VERSION.jar" ] || missing+=("spark-$SPARK_VERSION")
[ -f "$flink_jar" ] || missing+=("beam-flink-job-server-$BEAM_JAVA_VERSION")
[ -f "$flink_lib_jar" ] || missing+=("beam-flink-cluster-lib-$BEAM_JAVA_VERSION")
[ -f "$spark_jar" ] || missing+=("beam-spark-job-server-$BEAM_JAVA_VERSION")
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "${1:-}" = "--check" ]; then
  echo "rewrite-mining: engines not fetched: ${missing[*]} (run: make engines)" >&2
  exit 1
fi

need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "rewrite-mining: '$1' is needed to fetch the engines ($2)." >&2
  echo "On Debian/Ubuntu: sudo apt-get install -y --no-install-recommends $3" >&2
  exit 1
}
need java "Flink, Spark and Beam's job servers are Java programs; Java 11 or 17" openjdk-17-jre-headless
need jar "the job servers' launcher jars are written with the JDK's jar tool" openjdk-17-jdk-headless
need mvn "Beam's job servers are resolved from Maven Central" maven
python="${PYTHON:-python3}"

mkdir -p "$engines"
t0=$(date +%s)

# A pip install --target into a temporary folder, moved into place once complete (an interrupted fetch
# leaves nothing that looks installed). --no-deps: apache-flink pins apache-beam < 2.49, and only the
# distributions' files are used, never their Python packages.
pip_target() {  # DEST PACKAGE...
  local dest="$1"; shift
  local tmp="$dest.partial"
  rm -rf "$tmp"
  "$python" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --no-compile --target "$tmp" "$@"
  rm -rf "$dest"
  mv "$tmp" "$dest"
}

if [[ " ${missing[*]} " == *" flink-$FLINK_VERSION "* ]]; then
  echo "rewrite-mining: fetching Flink $FLINK_VERSION (PyPI apache-flink-libraries)" >&2
  pip_target "$engines/flink-$FLINK_VERSION" "apache-flink==$FLINK_VERSION" "apache-flink-libraries==$FLINK_VERSION"
  chmod +x "$flink_home"/bin/*.sh "$flink_home/bin/flink"
fi

if [[ " ${missing[*]} " == *" spark-$SPARK_VERSION "* ]]; then
  echo "rewrite-mining: fetching Spark $SPARK_VERSION (PyPI pyspark)" >&2
  pip_target "$engines/spark-$SPARK_VERSION" "pyspark==$SPARK_VERSION"
  chmod +x "$spark_home"/sbin/*.sh "$spark_home"/bin/*
fi

# The job server's jars (Maven), merged into one runnable jar DIR/NAME.jar as Beam's released job-server jars
# are (tools/engines/uberjar.py: Flink's client uploads each staged jar to the cluster in turn, ~80 ms
# apiece), whose manifest names its main class and Java 17's Add-Opens, so `java -jar DIR/NAME.jar` runs it
# as Beam's Python FlinkRunner / SparkRunner run theirs. With EXTRA_JAR_DIR (Spark's jars), those stay
# where they are, named by the manifest's Class-Path, and a Beam dependency Spark also has is left out.
job_server() {  # POM DIR JARNAME MAINCLASS [EXTRA_JAR_DIR]
  local pom="$1" dir="$2" name="$3" main="$4" extra="${5:-}"
  local tmp="$dir.partial"
  rm -rf "$tmp"
  mkdir -p "$tmp/lib"
  cp "$pom" "$tmp/pom.xml"
  (cd "$tmp" && mvn -B -q -Dstyle.color=never "$DEPENDENCY_PLUGIN:copy-dependencies" -DincludeScope=runtime \
     -DoutputDirectory=lib) 2>&1 | sed -e "s/\x1b\[[0-9;]*m//g" | { grep -v "^\s*$" >&2 || true; }
  rm "$tmp/pom.xml"
  local merged=() classpath=() seen=" " j artifact
  artifact_of() { basename "$1" | sed -E 's/-[0-9][0-9A-Za-z._-]*\.jar$//'; }
  # Artifacts both sides have, where Beam's newer version must win: Beam's Google Cloud options load
  # gcsio, which calls Guava 33 methods that Spark's Guava 14 lacks (NoSuchMethodError at start).
  local beam_wins=" guava "
  if [ -n "$extra" ]; then
    for j in "$extra"/*.jar; do
      artifact="$(artifact_of "$j")"
      [[ "$beam_wins" == *" $artifact "* ]] && continue
      classpath+=("$(realpath -m --relative-to="$dir" "$j")")
      seen+="$artifact "
    done
  fi
  for j in "$tmp"/lib/*.jar; do
    artifact="$(artifact_of "$j")"
    [[ "$seen" == *" $artifact "* ]] && continue
    merged+=("$j")
  done
  "$python" "$here/engines/uberjar.py" "$tmp/$name" --main "$main" --add-opens "$ADD_OPENS" \
    --class-path "${classpath[*]}" "${merged[@]}"
  rm -rf "$tmp/lib"
  rm -rf "$dir"
  mv "$tmp" "$dir"
}

if [[ " ${missing[*]} " == *" beam-flink-job-server-$BEAM_JAVA_VERSION "* ]]; then
  echo "rewrite-mining: fetching Beam $BEAM_JAVA_VERSION's Flink job server (Maven Central)" >&2
  job_server "$here/engines/flink-job-server.pom.xml" "$beam_dir/flink-job-server" "$(basename "$flink_jar")" \
    org.apache.beam.runners.flink.FlinkJobServerDriver
fi

if [[ " ${missing[*]} " == *" beam-flink-cluster-lib-$BEAM_JAVA_VERSION "* ]]; then
  mkdir -p "$(dirname "$flink_lib_jar")"
  "$python" "$here/engines/uberjar.py" "$flink_lib_jar.partial" "$flink_jar" \
    --main org.apache.beam.runners.flink.FlinkJobServerDriver --exclude org/apache/flink/ \
    --exclude META-INF/services/org.apache.flink
  mv "$flink_lib_jar.partial" "$flink_lib_jar"
fi

if [[ " ${missing[*]} " == *" beam-spark-job-server-$BEAM_JAVA_VERSION "* ]]; then
  echo "rewrite-mining: fetching Beam $BEAM_JAVA_VERSION's Spark job server (Maven Central)" >&2
  job_server "$here/engines/spark-job-server.pom.xml" "$beam_dir/spark-job-server" "$(basename "$spark_jar")" \
    org.apache.beam.runners.spark.SparkJobServerDriver "$spark_home/jars"
fi

echo "rewrite-mining: engines ready in $engines ($(( $(date +%s) - t0 )) s)" >&2
