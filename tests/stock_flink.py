"""A Flink session cluster as a user has it: the distribution's own conf/config.yaml (1 slot, a 1728 MB
TaskManager, no restart strategy, Flink's network defaults) with only what running beside other clusters on
one machine needs changed: free ports, this cluster's own temporary directories. No Beam on its classpath:
each job brings Beam's runner in its jar, as on a cluster the project did not start.

`overrides` adds settings on top (what a user would put in their config.yaml).
"""
import os

from pipelines.framework.engines.daemons import get_json
from pipelines.framework.engines.flink import FlinkCluster
from pipelines.framework.workers.external_pool import free_port


class StockFlinkCluster(FlinkCluster):
    """`FlinkCluster` with the distribution's configuration instead of the project's."""

    def __init__(self, workdir: str, overrides: dict = None, **kw):
        kw.setdefault("port", free_port())
        kw.setdefault("rpc_port", free_port())
        kw.setdefault("slots", 1)
        kw.setdefault("beam_lib", "")
        super().__init__(workdir, **kw)
        self.overrides = dict(overrides or {})

    def write_conf(self) -> str:
        import shutil  # pylint: disable=import-outside-toplevel
        import yaml  # pylint: disable=import-outside-toplevel
        src = os.path.join(self._home(), "conf")
        conf = os.path.join(self.workdir, "conf")
        os.makedirs(conf, exist_ok=True)
        for name in os.listdir(src):
            if name != "config.yaml":
                shutil.copy(os.path.join(src, name), os.path.join(conf, name))
        with open(os.path.join(src, "config.yaml"), encoding="utf-8") as f:
            base = yaml.safe_load(f) or {}
        tmp = os.path.join(self.workdir, "tmp")
        os.makedirs(tmp, exist_ok=True)
        base.setdefault("jobmanager", {}).setdefault("rpc", {})["port"] = self.rpc_port
        base.setdefault("rest", {})["port"] = self.port
        base["io"] = {"tmp": {"dirs": tmp}}
        base["web"] = {"tmpdir": tmp}
        # The distribution's slots and memory unless the test asks for others.
        if self.slots != 1:
            base.setdefault("taskmanager", {})["numberOfTaskSlots"] = self.slots
        with open(os.path.join(conf, "config.yaml"), "w", encoding="utf-8") as f:
            f.write("# The distribution's config.yaml with free ports (tests/stock_flink.py)\n")
            yaml.safe_dump(base, f, default_flow_style=False, sort_keys=True)
            for key, value in self.overrides.items():
                f.write(f"{key}: {value}\n")
        return conf

    def config(self) -> dict:
        """The JobManager's configuration as its REST API shows it."""
        return {e["key"]: e["value"] for e in get_json(f"{self.rest_url}/jobmanager/config")}
