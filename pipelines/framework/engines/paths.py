"""Where the engines' files are and which versions they are; the error every engine module raises.

`make engines` (tools/engines.sh) fetches Flink's and Spark's distributions and Beam's job servers, pinned,
into `.engines/` of the checkout (or `$REWRITE_MINE_ENGINES`); everything here only looks there, and says
what to run when a file is missing. Nothing is downloaded while a job runs.
"""
import glob
import os
import re
import shutil
import typing

from pipelines.framework.errors import JobFailed

ENV_ENGINES = "REWRITE_MINE_ENGINES"
FLINK = "flink"
SPARK = "spark"
#: The Flink minor version Beam's job server is built for (tools/engines/flink-job-server.pom.xml).
FLINK_MINOR = "1.19"
FETCH = "fetch them once with `make engines` (tools/engines.sh: Maven Central and PyPI)"
#: The checkout this package is part of (pipelines/framework/engines/ is three folders below it).
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


class EngineError(JobFailed):
    """An engine is missing, down or misconfigured; the message says what to do."""


def engines_dir() -> str:
    """Where `make engines` put the engines: $REWRITE_MINE_ENGINES, else `.engines/` of this checkout."""
    configured = os.environ.get(ENV_ENGINES)
    if configured:
        return os.path.abspath(configured)
    return os.path.join(ROOT, ".engines")


def _find(pattern: str, what: str) -> str:
    hits = sorted(glob.glob(os.path.join(engines_dir(), pattern)))
    if not hits:
        raise EngineError(f"{what} is not in {engines_dir()}: {FETCH}, or point ${ENV_ENGINES} at a folder "
                          f"that has it")
    return hits[-1]


def flink_home() -> str:
    return os.path.dirname(os.path.dirname(_find("flink-*/pyflink/lib/flink-dist-*.jar", "Flink's distribution")))


def spark_home() -> str:
    return os.path.dirname(os.path.dirname(_find("spark-*/pyspark/jars/spark-core_*.jar", "Spark's distribution")))


def job_server_jar(engine: str) -> str:
    name = {FLINK: "beam-runners-flink-*-job-server-*.jar", SPARK: "beam-runners-spark-*-job-server-*.jar"}[engine]
    return _find(f"beam-*/{engine}-job-server/{name}", f"Beam's {engine.capitalize()} job server")


def flink_cluster_lib_jar() -> str:
    """Beam's runner classes without Flink's, for the classpath of a cluster started here ("" when not fetched)."""
    hits = sorted(glob.glob(os.path.join(engines_dir(), "beam-*", "flink-cluster-lib", "beam-runners-flink-*-lib.jar")))
    return hits[-1] if hits else ""


def _version_in(path: str, prefix: str) -> str:
    m = re.search(re.escape(prefix) + r"-(\d[\w.]*?)\.jar$", os.path.basename(path))
    return m.group(1) if m else ""


def flink_version(home: typing.Optional[str] = None) -> str:
    home = home or flink_home()
    jars = glob.glob(os.path.join(home, "lib", "flink-dist-*.jar"))
    return _version_in(jars[0], "flink-dist") if jars else ""


def spark_version(home: typing.Optional[str] = None) -> str:
    home = home or spark_home()
    jars = glob.glob(os.path.join(home, "jars", "spark-core_*.jar"))
    return re.sub(r"^spark-core_[\d.]+-", "", os.path.basename(jars[0]))[:-len(".jar")] if jars else ""


def job_server_version(jar: str) -> str:
    m = re.search(r"-job-server-(\d[\w.]*?)\.jar$", os.path.basename(jar))
    return m.group(1) if m else ""


def need_java() -> str:
    java = shutil.which("java")
    if java is None:
        raise EngineError("Java is needed to run Flink, Spark and Beam's job servers and none is on PATH: install "
                          "Java 17 (Debian: sudo apt-get install -y openjdk-17-jre-headless)")
    return java
